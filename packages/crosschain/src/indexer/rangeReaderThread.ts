/**
 * Runs on a reader thread (see createReaderThreadPool in readerThreads.ts): reads and decodes ranges
 * for the indexers of every chain, each with its own RPC client, and moves the deposit rows' bytes back.
 */
import { createBlockFetcher } from "@platform/chains";
import { movableBytes, serveRequests, type ThreadAnswer } from "@platform/kernel";
import { createRangeReader, type RangeReader } from "./rangeReader.ts";
import type { RangeReaderRequest } from "./readerThreads.ts";

/** Answers the indexer thread's requests, with one reader per chain and RPC URL (made at its first read). */
function rangeReadHandler() {
  const readers = new Map<string, RangeReader>();
  const keyOf = (r: { chainId: number; rpcUrl: string }) => `${r.chainId} ${r.rpcUrl}`;

  return async (request: RangeReaderRequest): Promise<ThreadAnswer> => {
    const key = keyOf(request);
    if (request.kind === "close") {
      await readers.get(key)?.close();
      readers.delete(key);
      return { value: null };
    }
    let reader = readers.get(key);
    if (!reader) {
      const fetcher = createBlockFetcher({ rpcUrl: request.rpcUrl, batchSize: 100, concurrency: 1 });
      reader = createRangeReader({ chainId: request.chainId, addresses: request.addresses, fetcher });
      readers.set(key, reader);
    }
    const read = await reader.read(request.from, request.to);
    const bytes = movableBytes(read.deposits.bytes); // the rows' own buffer: moved, not copied
    return { value: { ...read, deposits: { ...read.deposits, bytes } }, transfer: [bytes.buffer as ArrayBuffer] };
  };
}

serveRequests(rangeReadHandler());
