/**
 * Follows the SpokePool of each chain: `eth_getLogs` over block ranges (adaptive: halved when the RPC
 * refuses a range, grown back on success), decoded events stored with their blocks' hashes and the
 * checkpoint in one transaction, a stored tip that left the chain rolled back to the common ancestor,
 * and a chain whose genesis changed (a reset devnet) indexed again from the start. Polls every
 * CROSSCHAIN_POLL_MS (200 ms by default), so a deposit is visible well under a second after its block.
 */
import {
  type BlockFetcher,
  createBlockFetcher,
  findCommonAncestor,
  type IndexerLoop,
  startIndexerLoop,
} from "@platform/chains";
import type { Config, Database, Logger } from "@platform/kernel";
import type { Hex } from "viem";
import type { SpokeChain } from "../deployments.ts";
import { createIndexerStore, type IndexerStore, type RangeData } from "../store/indexerStore.ts";
import { createIntegratorIdStore } from "../store/integratorIdStore.ts";
import { createIntegratorIdPass } from "./integratorIds.ts";
import {
  createRangeReader,
  createThreadedRangeReader,
  LogsRefusedError,
  type RangeRead,
  type RangeReader,
  spokeAddresses,
} from "./rangeReader.ts";

/** How far back a reorg may reach before the chain is indexed again from its start. */
const FINALITY_DEPTH = 128n;
/**
 * Logs one `eth_getLogs` should return: the block range follows the chain's event density so that a
 * dense history is read in requests of about this size and a sparse one in ranges up to the maximum.
 */
export const TARGET_LOGS_PER_RANGE = 4_000;
/**
 * Ranges read ahead while catching up. With two, the node answers range N+2 while range N+1 is turned
 * into rows and range N is written: the three stages (node, indexer, database) run at once instead of
 * the node idling while a reply is decoded. A reader issues its ranges' `eth_getLogs` one at a time, in
 * order; on several reader threads each thread does (CROSSCHAIN_READER_THREADS), so reads of successive
 * ranges overlap. A reorg between them is caught as it always is: a range is written only if the header
 * read before it is still the stored tip, else the indexer rolls back to the common ancestor.
 */
const READ_AHEAD = 2;

export interface SpokeIndexerStatus {
  chainId: number;
  state: "starting" | "catching-up" | "following" | "error" | "stopped";
  head: bigint | null;
  next: bigint | null;
  lastError: string | null;
  reorgs: number;
}

export interface CreateSpokePoolIndexerParameters {
  chain: SpokeChain;
  store: IndexerStore;
  fetcher: BlockFetcher;
  maxRange: number;
  logger: Logger;
  startBlock?: bigint;
  /** Called after a range with new deposits or fills was stored (e.g. to wake the relayer). */
  onStored?: () => void;
  /**
   * Reads ranges (RPC and decoding); by default in this thread with `fetcher`. The platform passes one
   * on the reader threads (createThreadedRangeReader).
   */
  reader?: RangeReader;
}

export function createSpokePoolIndexer(p: CreateSpokePoolIndexerParameters) {
  const { chain, store, fetcher } = p;
  const chainId = chain.chainId;
  const log = p.logger.child({ chainId, job: "crosschain-indexer" });
  const status: SpokeIndexerStatus = { chainId, state: "starting", head: null, next: null, lastError: null, reorgs: 0 };
  let next = 0n;
  let startBlock = p.startBlock ?? 0n;
  const maxRange = BigInt(p.maxRange);
  let range = maxRange < 100n ? maxRange : 100n;
  /** The head last read; during catch-up the next range is chosen below it without asking again. */
  let knownHead: bigint | undefined;
  let tip: { number: bigint; hash: string } | undefined;
  let resumed = false;
  const reader = p.reader ?? createRangeReader({ chainId, addresses: spokeAddresses(chain), fetcher });

  async function resume(force = false) {
    ahead.length = 0;
    knownHead = undefined;
    const genesis = await fetcher.block(0n);
    if (!genesis) throw new Error("the RPC has no block 0");
    const cp = await store.checkpoint(chainId);
    const same =
      cp &&
      `0x${cp.genesis_hash.toString("hex")}` === genesis.hash &&
      `0x${cp.spoke_pool.toString("hex")}` === chain.spokePool.toLowerCase();
    if (!cp || !same || force) {
      if (cp && !same) log.warn("chain reset or SpokePool changed: indexing it again from the start");
      await store.startOver(chainId, chain.spokePool, genesis.hash as Hex, startBlock);
      next = startBlock;
    } else {
      next = BigInt(cp.next_block);
      startBlock = BigInt(cp.start_block);
    }
    status.next = next;
    const tipHash = next > startBlock ? await store.storedBlockHash(chainId, next - 1n) : undefined;
    tip = tipHash ? { number: next - 1n, hash: tipHash } : undefined;
  }

  async function handleReorg() {
    status.reorgs++;
    ahead.length = 0;
    knownHead = undefined;
    const deepest = next - 1n - FINALITY_DEPTH;
    const ancestor = await findCommonAncestor({
      from: next - 1n,
      floor: deepest > startBlock ? deepest : startBlock,
      storedHash: (n) => store.storedBlockHash(chainId, n),
      chainHash: async (n) => (await fetcher.block(n))?.hash,
    });
    if (ancestor === undefined) {
      log.warn("reorg deeper than the finality window, or chain reset: starting over");
      await resume(true);
      return;
    }
    await store.rollbackTo(chainId, ancestor);
    log.warn({ ancestor: ancestor.toString() }, "reorg: rolled back to the common ancestor");
    next = ancestor + 1n;
    const hash = await store.storedBlockHash(chainId, ancestor);
    tip = hash ? { number: ancestor, hash } : undefined;
    status.next = next;
  }

  /** Grows the range towards TARGET_LOGS_PER_RANGE (at most doubling) after a range of `span` blocks gave `count` logs. */
  function sizeNextRange(span: bigint, count: number) {
    const fit = count === 0 ? span * 2n : (span * BigInt(TARGET_LOGS_PER_RANGE)) / BigInt(count);
    const capped = fit > range * 2n ? range * 2n : fit;
    range = capped < 1n ? 1n : capped > maxRange ? maxRange : capped;
  }

  /** Reads a range through the reader, sizing the next range by its log count (halving when refused). */
  async function readRange(from: bigint, to: bigint): Promise<RangeRead> {
    try {
      const read = await reader.read(from, to);
      sizeNextRange(to - from + 1n, read.logCount);
      return read;
    } catch (error) {
      if (error instanceof LogsRefusedError && range > 1n) range /= 2n;
      throw error;
    }
  }
  type PendingRead = { from: bigint; to: bigint; result: Promise<RangeRead> };
  /** Ranges being read ahead of `next`, in order and contiguous. */
  const ahead: PendingRead[] = [];

  /** Starts reading the range after `from - 1` (up to the known head), behind the reads already issued. */
  function readAhead(from: bigint, head: bigint): PendingRead {
    const to = from + range - 1n < head ? from + range - 1n : head;
    const result = readRange(from, to);
    result.catch(() => {}); // a failed read ahead is simply read again by the step that needs it
    return { from, to, result };
  }

  /** One step: index the next range; true when caught up with the head. */
  async function step(): Promise<boolean> {
    if (!resumed) {
      await resume();
      resumed = true;
    }
    if (knownHead === undefined || next > knownHead) {
      knownHead = await fetcher.blockNumber();
      status.head = knownHead;
    }
    const head = knownHead;
    if (next > head) {
      // Nothing new: check that our tip is still on the chain (a reorg can keep the height).
      const onChain = tip ? await fetcher.block(tip.number) : undefined;
      if (tip && onChain?.hash !== tip.hash) {
        await handleReorg();
        return false;
      }
      status.state = "following";
      return true;
    }
    status.state = "catching-up";
    if (ahead[0]?.from !== next) ahead.length = 0;
    const current = ahead.shift() ?? readAhead(next, head);
    // Keep READ_AHEAD ranges in flight while this one is decoded and written.
    try {
      let last = ahead.at(-1) ?? current;
      while (ahead.length < READ_AHEAD && last.to < head) {
        last = readAhead(last.to + 1n, head);
        ahead.push(last);
      }
      const fetched = await current.result;
      if (tip && fetched.before?.hash !== tip.hash) {
        await handleReorg();
        return false;
      }
      return await writeRange(fetched, head);
    } catch (error) {
      ahead.length = 0; // the reads behind a failed one follow a range that was not stored
      throw error;
    }
  }

  /** Stores a range read by readRange and moves `next` past it; true when caught up with the head. */
  async function writeRange(fetched: RangeRead, head: bigint): Promise<boolean> {
    const { deposits, facts, blocks, end, to } = fetched;
    if (!end) throw new Error(`block ${to} is missing`);
    const failedTxs = new Set(facts.filter((f) => f.kind === "callsFailed").map((f) => f.txHash));
    const data: RangeData = {
      blocks,
      deposits,
      fills: facts.filter((f) => f.kind === "fill").map((f) => ({ ...f, callsFailed: failedTxs.has(f.txHash) })),
      slowFills: facts.filter((f) => f.kind === "slowFillRequest"),
      speedUps: facts.filter((f) => f.kind === "speedUp"),
      settlements: facts.filter((f) => f.kind === "settlement"),
    };
    if (!(await store.appendRange(chainId, next, to, data))) {
      log.warn("checkpoint moved (another writer?): reloading it");
      resumed = false;
      return false;
    }
    next = to + 1n;
    tip = { number: to, hash: end.hash };
    status.next = next;
    if (deposits.count || data.fills.length) p.onStored?.();
    return to >= head;
  }

  return {
    status,
    step,
    /** Runs until `signal` aborts; failures are retried with backoff. */
    run(signal: AbortSignal, pollMs: number) {
      const loop = startIndexerLoop({
        signal,
        pollMs,
        logger: log,
        step,
        onError(error) {
          status.state = "error";
          status.lastError = error.message;
          resumed = false;
        },
        onRecovered() {
          status.lastError = null;
        },
      });
      return loop;
    },
  };
}

export type SpokePoolIndexer = ReturnType<typeof createSpokePoolIndexer>;

/** One indexer per SpokePool chain, running until `stop()`. */
export function startSpokePoolIndexers(p: {
  config: Config;
  db: Database;
  logger: Logger;
  chains: SpokeChain[];
  onStored?: () => void;
}) {
  const controller = new AbortController();
  const store = createIndexerStore(p.db);
  const integratorIds = createIntegratorIdStore(p.db);
  const loops: IndexerLoop[] = [];
  const readers: RangeReader[] = [];
  const indexers = p.chains.map((chain) => {
    const fetcher = createBlockFetcher({ rpcUrl: chain.rpcUrl, batchSize: 100, concurrency: 1 });
    const reader = createThreadedRangeReader({
      chainId: chain.chainId,
      addresses: spokeAddresses(chain),
      fetcher,
      rpcUrl: chain.rpcUrl,
      threads: p.config.crosschainReaderThreads,
    });
    readers.push(reader);
    const indexer = createSpokePoolIndexer({
      chain,
      store,
      fetcher,
      reader,
      maxRange: p.config.crosschainLogRange,
      logger: p.logger,
      onStored: p.onStored,
    });
    loops.push(indexer.run(controller.signal, p.config.crosschainPollMs));
    const pass = createIntegratorIdPass({ chainId: chain.chainId, store: integratorIds, fetcher, logger: p.logger });
    loops.push(
      startIndexerLoop({
        signal: controller.signal,
        pollMs: p.config.crosschainPollMs,
        logger: p.logger.child({ chainId: chain.chainId, job: "crosschain-integrator-ids" }),
        step: pass.step,
      }),
    );
    return indexer;
  });
  return {
    indexers,
    async stop() {
      controller.abort();
      await Promise.all(loops.map((l) => l.done));
      await Promise.all(readers.map((r) => r.close()));
      for (const i of indexers) i.status.state = "stopped";
    },
  };
}
