/**
 * The reader threads the SpokePool indexers read ranges on (rangeReaderThread.ts via kernel's module
 * threads): one pool, made where the indexers start and closed when they stop, shared by the indexers of
 * every chain (not a pool per chain: each thread carries its own copy of the decoders and RPC clients).
 * The threads start with the first read and stop after a while without one, so they run only while an
 * indexer catches up.
 *
 * @example
 * const pool = createReaderThreadPool({ threads: 2 });
 * const reader = createThreadedRangeReader({ chainId, addresses, fetcher, rpcUrl, pool });
 * await reader.read(0n, 4_999n);
 * await reader.close();
 * await pool.close();
 */
import { type ModuleThread, startModuleThread } from "@platform/kernel";
import type { Hex } from "viem";
import {
  createRangeReader,
  LogsRefusedError,
  type RangeRead,
  type RangeReader,
  type RangeReaderParameters,
} from "./rangeReader.ts";

/** A request of the indexer thread: read a range of a chain, or forget a chain's reader. */
export type RangeReaderRequest =
  | { kind: "read"; chainId: number; rpcUrl: string; addresses: Hex[]; from: bigint; to: bigint }
  | { kind: "close"; chainId: number; rpcUrl: string };

/**
 * Ranges of at most this many blocks are read in the calling thread even by a threaded reader: an
 * indexer following its chain's head reads a block or two per poll, which a thread hop would only
 * delay, and which would keep the threads (each ~55 MB with its loader) alive for nothing.
 */
export const IN_PROCESS_MAX_BLOCKS = 16n;
/** The reader threads stop after this long without a read, and start again with the next catch-up. */
export const READER_THREADS_IDLE_MS = 30_000;

export interface ReaderThreadPool {
  /** How many threads the pool has (0: readers read in the calling thread). */
  readonly size: number;
  /** Sends `request` to thread `turn` mod size (started if it is not running). */
  request<T>(turn: number, request: RangeReaderRequest): Promise<T>;
  /** Sends `request` to every running thread (a stopped one has nothing to forget). */
  broadcast(request: RangeReaderRequest): Promise<void>;
  /** How many threads are running now (they stop when idle). */
  running(): number;
  /** Stops the threads; the pool is not used after. */
  close(): Promise<void>;
}

export interface CreateReaderThreadPoolParameters {
  /** CROSSCHAIN_READER_THREADS; 0 makes a pool without threads. */
  threads: number;
  /** How long the threads may stay idle before they stop (READER_THREADS_IDLE_MS by default). */
  idleMs?: number;
}

export function createReaderThreadPool(p: CreateReaderThreadPoolParameters): ReaderThreadPool {
  const idleMs = p.idleMs ?? READER_THREADS_IDLE_MS;
  const threads: ModuleThread[] = Array.from({ length: p.threads }, () =>
    startModuleThread(new URL("./rangeReaderThread.ts", import.meta.url)),
  );
  /** Requests in flight on the threads. */
  let busy = 0;
  let idleTimer: NodeJS.Timeout | undefined;

  return {
    size: threads.length,
    async request<T>(turn: number, request: RangeReaderRequest) {
      const thread = threads[turn % threads.length] as ModuleThread;
      clearTimeout(idleTimer);
      busy++;
      try {
        return await thread.request<T>(request);
      } finally {
        if (--busy === 0) {
          // Closed threads start again with the next request; their per-chain readers are made anew.
          idleTimer = setTimeout(() => {
            if (busy === 0) for (const t of threads) t.close().catch(() => {});
          }, idleMs);
          idleTimer.unref();
        }
      }
    },
    async broadcast(request) {
      await Promise.all(threads.filter((t) => t.running).map((t) => t.request(request).catch(() => {})));
    },
    running: () => threads.filter((t) => t.running).length,
    async close() {
      clearTimeout(idleTimer);
      await Promise.all(threads.map((t) => t.close()));
    },
  };
}

export interface ThreadedRangeReaderParameters extends RangeReaderParameters {
  /** The node `fetcher` asks, for the threads' own clients. */
  rpcUrl: string;
  /** The threads to spread ranges over: range i goes to thread i mod size; a pool of 0 threads reads every range in the calling thread with `fetcher`. */
  pool: ReaderThreadPool;
  /** Ranges up to this many blocks are read in the calling thread (IN_PROCESS_MAX_BLOCKS by default). */
  inProcessMaxBlocks?: bigint;
}

/**
 * A reader on the reader threads: the RPC replies' transfer, scan and decoding (the backfill's heaviest
 * work) leave the indexer's thread, which only writes, so a backfill does not stall the APIs sharing
 * its event loop; with several threads, successive ranges are read and decoded at once (each thread
 * keeps its own reads in order, so `pool.size` eth_getLogs at most are in flight). Small ranges
 * (following the head) are read in the calling thread with `fetcher`. Same results as createRangeReader
 * (bench/README, "Reading the crosschain backfill ratio").
 */
export function createThreadedRangeReader(p: ThreadedRangeReaderParameters): RangeReader {
  const local = createRangeReader(p);
  const { pool } = p;
  if (pool.size < 1) return local;
  const inProcessMax = p.inProcessMaxBlocks ?? IN_PROCESS_MAX_BLOCKS;
  const chain = { chainId: p.chainId, rpcUrl: p.rpcUrl };
  let turn = 0;
  let closed = false;

  async function onThread(from: bigint, to: bigint): Promise<RangeRead> {
    const request: RangeReaderRequest = { kind: "read", ...chain, addresses: [...p.addresses], from, to };
    try {
      return await pool.request<RangeRead>(turn++, request);
    } catch (error) {
      if ((error as Error).name === "LogsRefusedError") throw new LogsRefusedError((error as Error).message);
      throw error;
    }
  }

  return {
    read: (from, to) => (to - from < inProcessMax ? local.read(from, to) : onThread(from, to)),
    async close() {
      if (closed) return;
      closed = true;
      await pool.broadcast({ kind: "close", ...chain });
    },
  };
}
