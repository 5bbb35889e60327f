/**
 * Runs on the reader thread (see createThreadedRangeReader in rangeReader.ts): reads and decodes ranges
 * for the indexers of every chain, each with its own RPC client, and moves the deposit rows' bytes back.
 */
import { createBlockFetcher } from "@platform/chains";
import { movableBytes, serveRequests } from "@platform/kernel";
import type { Hex } from "viem";
import { createRangeReader, type RangeReader } from "./rangeReader.ts";

/** A request of the indexer thread: read a range of a chain, or forget a chain's reader. */
export type RangeReaderRequest =
  | { kind: "read"; chainId: number; rpcUrl: string; addresses: Hex[]; from: bigint; to: bigint }
  | { kind: "close"; chainId: number; rpcUrl: string };

const readers = new Map<string, RangeReader>();
const keyOf = (r: { chainId: number; rpcUrl: string }) => `${r.chainId} ${r.rpcUrl}`;

serveRequests(async (request: RangeReaderRequest) => {
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
});
