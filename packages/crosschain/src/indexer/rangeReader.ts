/**
 * Reads one range of blocks for the SpokePool indexer: the headers around it, its `eth_getLogs`, and
 * everything the store needs from them (deposit COPY rows, decoded facts of the other events, the hash
 * and time of each block they came from). Pure RPC and decoding, no database: it runs in the indexer's
 * process or on a reader thread (readerThreads.ts), and its result crosses threads as it is (plain
 * data, bigints, and the rows' bytes moved, not copied).
 *
 * A reader issues its reads in call order, one at a time: the next range's RPC calls start when the
 * previous one's have answered, not when it was decoded, so the node answers range N+1 while range N
 * is decoded.
 *
 * @example
 * const reader = createRangeReader({ chainId: 8453, addresses: [spokePool], fetcher });
 * const range = await reader.read(100n, 132n); // range.deposits.bytes: COPY lines of crosschain.deposits
 */
import {
  type BlockFetcher,
  type BlockHeader,
  LOG_FIELD,
  type LogFilter,
  type LogsView,
  RpcRequestError,
  RpcResponseError,
} from "@platform/chains";
import type { Hex, Log } from "viem";
import { createDepositRows, DEPOSIT_COLUMNS, isFundsDeposited } from "./depositRows.ts";
import {
  CALLS_FAILED_TOPIC,
  decodeSpokeLog,
  type LogPosition,
  SPOKE_TOPICS,
  type SpokeFact,
} from "./spokePoolEvents.ts";

/** A block the range stored something from: its hash and time (for reorg checks and row times). */
export interface RangeBlock {
  number: bigint;
  hash: Hex;
  timestamp: number;
}

/** A range's deposits as COPY lines of `crosschain.deposits` (see depositRows.ts). */
export interface DepositRowsData {
  columns: typeof DEPOSIT_COLUMNS;
  count: number;
  bytes: Uint8Array;
}

/** Everything the indexer stores for blocks `from..to`, and what it checks before storing it. */
export interface RangeRead {
  from: bigint;
  to: bigint;
  /** Logs `eth_getLogs` answered (sizes the next range). */
  logCount: number;
  deposits: DepositRowsData;
  facts: (SpokeFact & LogPosition)[];
  blocks: RangeBlock[];
  /** Header of block `from - 1`: must still be the stored tip when the range is written. */
  before: BlockHeader | undefined;
  /** Header of block `to`: the next tip. */
  end: BlockHeader | undefined;
}

/** Thrown when the node refused the range's `eth_getLogs` (too many blocks or logs): read a smaller one. */
export class LogsRefusedError extends Error {
  override name = "LogsRefusedError" as const;
}

export type LogsRefusedErrorType = LogsRefusedError & { name: "LogsRefusedError" };

export interface RangeReaderParameters {
  chainId: number;
  /** The SpokePool, and the MulticallHandler whose CallsFailed marks fills whose actions failed. */
  addresses: readonly Hex[];
  fetcher: BlockFetcher;
}

export interface RangeReader {
  /** Reads blocks `from..to`; rejects with LogsRefusedError when the node refuses the logs query. */
  read(from: bigint, to: bigint): Promise<RangeRead>;
  close(): Promise<void>;
}

/** The contracts whose logs the indexer reads on `chain`. */
export const spokeAddresses = (chain: { spokePool: Hex; multicallHandler?: Hex | undefined }): Hex[] => [
  chain.spokePool,
  ...(chain.multicallHandler ? [chain.multicallHandler] : []),
];

/** The indexer's `eth_getLogs` query over blocks `from..to`: every SpokePool event, and MulticallHandler's CallsFailed. */
export const spokeLogFilter = (addresses: readonly Hex[], from: bigint, to: bigint): LogFilter => ({
  fromBlock: `0x${from.toString(16)}`,
  toBlock: `0x${to.toString(16)}`,
  address: addresses,
  topics: [[...SPOKE_TOPICS, CALLS_FAILED_TOPIC]],
});

/** A reader in this thread. */
export function createRangeReader(p: RangeReaderParameters): RangeReader {
  /** Settles when the RPC calls of the last range asked for have answered. */
  let issued: Promise<unknown> = Promise.resolve();
  return {
    read(from, to) {
      const reply = issued.then(() => fetchRange(p, from, to));
      issued = reply.catch(() => {});
      return reply.then((fetched) => decodeRange(p.chainId, from, to, fetched, p.fetcher));
    },
    close: async () => {},
  };
}

/**
 * The range's RPC calls. The two headers are read BEFORE the logs: if the chain reorganises in between,
 * the stored tip is the old one and the indexer notices it and rolls back.
 */
async function fetchRange(p: RangeReaderParameters, from: bigint, to: bigint) {
  const bounds = await p.fetcher.blocksByNumber(from > 0n ? [from - 1n, to] : [to]);
  let logs: LogsView;
  try {
    logs = await p.fetcher.getLogs(spokeLogFilter(p.addresses, from, to));
  } catch (error) {
    // Providers refuse large ranges or result sets in many wordings, as a JSON-RPC error or an HTTP 400/413:
    // the indexer halves the range and retries. A node that is down or slow is not refusing: that error goes
    // to the loop, which retries the same range with backoff.
    if (isRangeRefusal(error)) throw new LogsRefusedError((error as Error).message);
    throw error;
  }
  return { bounds, logs };
}

const isRangeRefusal = (error: unknown) =>
  error instanceof RpcResponseError ||
  (error instanceof RpcRequestError && (error.status === 400 || error.status === 413));

async function decodeRange(
  chainId: number,
  from: bigint,
  to: bigint,
  { bounds, logs }: Awaited<ReturnType<typeof fetchRange>>,
  fetcher: BlockFetcher,
): Promise<RangeRead> {
  const blocks = new Map<bigint, RangeBlock>();
  for (const h of bounds)
    if (h.number >= from) blocks.set(h.number, { number: h.number, hash: h.hash as Hex, timestamp: h.timestamp });
  // The block of each log; logs come in block order, so each block is looked up once.
  const blockOf: RangeBlock[] = [];
  const untimed: bigint[] = [];
  let current: RangeBlock | undefined;
  for (let i = 0; i < logs.count; i++) {
    const { blockNumber, blockHash, blockTimestamp } = LOG_FIELD;
    if (current === undefined || !logs.same(i, i - 1, blockNumber) || !logs.same(i, i - 1, blockHash)) {
      const number = logs.hex(i, blockNumber);
      const hash = logs.hex(i, blockHash);
      if (!number || !hash) throw new Error("eth_getLogs answered a log without its block");
      const n = BigInt(number);
      const known = blocks.get(n);
      // Logs of one block must agree with each other and with the header we read, or the chain moved: retry.
      if (known && known.hash !== hash) throw new Error("chain changed while reading a range");
      current = known;
      if (!current) {
        const timestamp = logs.hex(i, blockTimestamp);
        if (timestamp === undefined) untimed.push(n);
        current = { number: n, hash, timestamp: timestamp === undefined ? 0 : Number(timestamp) };
        blocks.set(n, current);
      }
    }
    blockOf.push(current);
  }
  // Nodes without `blockTimestamp` in their logs (it came in 2025): read those blocks' headers. The
  // times are set on the block objects themselves, which blockOf shares, before any row is written.
  for (const h of untimed.length ? await fetcher.blocksByNumber(untimed) : []) {
    const b = blocks.get(h.number);
    if (b?.hash !== h.hash) throw new Error("chain changed while reading a range");
    b.timestamp = h.timestamp;
  }
  const depositRows = createDepositRows(chainId, logs.count);
  const facts: (SpokeFact & LogPosition)[] = [];
  for (let i = 0; i < logs.count; i++) {
    if (isFundsDeposited(logs, i)) {
      depositRows.push(logs, i, blockOf[i] as RangeBlock);
      continue;
    }
    const l = logs.log(i);
    const fact = decodeSpokeLog(chainId, {
      ...l,
      blockNumber: BigInt(l.blockNumber),
      logIndex: Number(l.logIndex),
      transactionIndex: Number(l.transactionIndex),
    } as unknown as Log);
    if (fact) facts.push(fact);
  }
  return {
    from,
    to,
    logCount: logs.count,
    deposits: { columns: DEPOSIT_COLUMNS, count: depositRows.count, bytes: depositRows.bytes() },
    facts,
    blocks: [...blocks.values()],
    before: bounds.find((h) => h.number === from - 1n),
    end: bounds.find((h) => h.number === to),
  };
}
