/**
 * Follows the SpokePool of each chain: chains' follower (resume, reorgs, restarts, read-ahead, the loop)
 * with a range being the SpokePool's events over a block range read with `eth_getLogs` (adaptive: sized
 * to about TARGET_LOGS_PER_RANGE logs, halved when the RPC refuses a range), stored with their blocks'
 * hashes and the checkpoint in one transaction. Polls every CROSSCHAIN_POLL_MS (200 ms by default), so a
 * deposit is visible well under a second after its block.
 */
import { setMaxListeners } from "node:events";
import {
  type BlockFetcher,
  type ChainBlock,
  createBlockFetcher,
  createChainFollower,
  createIndexerLease,
  type FollowerStatus,
  type ReadRange,
  startIndexerLoop,
} from "@platform/chains";
import { byteaToHex, type Config, type Database, type LeasedRunner, type Logger, options } from "@platform/kernel";
import type { Hex } from "viem";
import type { SpokeChain } from "../deployments.ts";
import type { ChainPrices } from "../quotes/prices.ts";
import { createFillCostsStore } from "../store/fillCostsStore.ts";
import { createIndexerStore, type IndexerStore, type RangeData } from "../store/indexerStore.ts";
import { createIntegratorIdStore } from "../store/integratorIdStore.ts";
import { createFillCostPass } from "./fillCosts.ts";
import { createIntegratorIdPass } from "./integratorIds.ts";
import {
  createRangeReader,
  LogsRefusedError,
  type RangeRead,
  type RangeReader,
  spokeAddresses,
} from "./rangeReader.ts";
import { createReaderThreadPool, createThreadedRangeReader } from "./readerThreads.ts";

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

export type SpokeIndexerStatus = FollowerStatus;

export interface CreateSpokePoolIndexerParameters {
  chain: SpokeChain;
  store: IndexerStore;
  fetcher: BlockFetcher;
  maxRange: number;
  logger: Logger;
  startBlock?: bigint;
  /** How far below the stored tip a reorg may reach before the chain is indexed again (CROSSCHAIN_FINALITY_DEPTH's default by default). */
  finalityDepth?: number;
  /** How often `run` asks a caught-up chain for a new head (CROSSCHAIN_POLL_MS's default by default). */
  pollMs?: number;
  /** Called after a range with new deposits or fills was stored (e.g. to wake the relayer). */
  onStored?: () => void;
  /**
   * Reads ranges (RPC and decoding); by default in this thread with `fetcher`. The platform passes one
   * on the reader threads (createThreadedRangeReader).
   */
  reader?: RangeReader;
}

/** A range read as the follower checks it (the header before it, its last header) and as the store writes it. */
function toReadRange(read: RangeRead): ReadRange<RangeData> {
  const { deposits, facts, blocks, before, end, to } = read;
  const failedTxs = new Set(facts.filter((f) => f.kind === "callsFailed").map((f) => f.txHash));
  return {
    parentHash: before?.hash,
    last: end && { number: to, hash: end.hash },
    data: {
      blocks,
      deposits,
      fills: facts.filter((f) => f.kind === "fill").map((f) => ({ ...f, callsFailed: failedTxs.has(f.txHash) })),
      slowFills: facts.filter((f) => f.kind === "slowFillRequest"),
      speedUps: facts.filter((f) => f.kind === "speedUp"),
      settlements: facts.filter((f) => f.kind === "settlement"),
    },
  };
}

export function createSpokePoolIndexer(p: CreateSpokePoolIndexerParameters) {
  const { chain, store, fetcher } = p;
  const chainId = chain.chainId;
  const maxRange = BigInt(p.maxRange);
  let range = maxRange < 100n ? maxRange : 100n;
  const reader = p.reader ?? createRangeReader({ chainId, addresses: spokeAddresses(chain), fetcher });

  /** Grows the range towards TARGET_LOGS_PER_RANGE (at most doubling) after a range of `span` blocks gave `count` logs. */
  function sizeNextRange(span: bigint, count: number) {
    const fit = count === 0 ? span * 2n : (span * BigInt(TARGET_LOGS_PER_RANGE)) / BigInt(count);
    const capped = fit > range * 2n ? range * 2n : fit;
    range = capped < 1n ? 1n : capped > maxRange ? maxRange : capped;
  }

  /** Reads a range through the reader, sizing the next range by its log count (halving when refused). */
  async function readRange(from: bigint, to: bigint): Promise<ReadRange<RangeData>> {
    try {
      const read = await reader.read(from, to);
      sizeNextRange(to - from + 1n, read.logCount);
      return toReadRange(read);
    } catch (error) {
      if (error instanceof LogsRefusedError && range > 1n) range /= 2n;
      throw error;
    }
  }

  const follower = createChainFollower<RangeData, ChainBlock>({
    chainId,
    fetcher,
    startBlock: p.startBlock ?? 0n,
    finalityDepth: p.finalityDepth ?? options.crosschainFinalityDepth.default,
    pollMs: p.pollMs ?? options.crosschainPollMs.default,
    logger: p.logger.child({ chainId, job: "crosschain-indexer" }),
    rangeSize: () => range,
    readAhead: READ_AHEAD,
    readRange,
    store: {
      async checkpoint() {
        const cp = await store.checkpoint(chainId);
        return (
          cp && {
            nextBlock: BigInt(cp.next_block),
            startBlock: BigInt(cp.start_block),
            genesisHash: byteaToHex(cp.genesis_hash),
            stale: byteaToHex(cp.spoke_pool) === chain.spokePool.toLowerCase() ? undefined : "SpokePool changed",
          }
        );
      },
      startOver: (genesisHash, startBlock) => store.startOver(chainId, chain.spokePool, genesisHash as Hex, startBlock),
      async storedBlock(n) {
        const hash = await store.storedBlockHash(chainId, n);
        return hash === undefined ? undefined : { number: n, hash };
      },
      append: (from, { last, data }) => store.appendRange(chainId, from, last.number, data),
      async rollbackTo(ancestor) {
        await store.rollbackTo(chainId, ancestor);
        return undefined; // the store does not count the blocks it removes
      },
    },
    onStored({ data }) {
      if (data.deposits.count || data.fills.length) p.onStored?.();
    },
  });

  return {
    status: follower.status,
    /** Stores the next range; true when there is nothing to read before the next poll. */
    step: follower.step,
    /** Runs until `signal` aborts; failures are retried with backoff. */
    run: follower.run,
  };
}

export type SpokePoolIndexer = ReturnType<typeof createSpokePoolIndexer>;

/** The kernel lease a chain's SpokePool indexing runs under: one instance indexes a chain at a time. */
export const indexerLeaseName = (chainId: number) => `crosschain.indexer:${chainId}`;

/**
 * One indexer per SpokePool chain, running until `stop()`, reading on one pool of reader threads
 * (CROSSCHAIN_READER_THREADS) that `stop()` closes. Each chain's indexer, with its integrator-id and
 * fill-cost passes, runs under the lease `crosschain.indexer:<chainId>` (chains' createIndexerLease): with
 * several worker instances on one database, one of them indexes each chain and the others stand by.
 */
export function startSpokePoolIndexers(p: {
  config: Config;
  db: Database;
  logger: Logger;
  chains: readonly SpokeChain[];
  onStored?: () => void;
  /**
   * The chain-state cache's prices of a chain (undefined until read). With it, each chain also runs the
   * fill-cost pass (fillCosts.ts: a fill's gas fee and USD prices for /deposits); without it, fills keep
   * those fields null.
   */
  pricesOf?: (chainId: number) => ChainPrices | undefined;
  /** How soon another instance resumes a chain whose indexer was killed (default INDEXER_LEASE_TTL_MS). */
  leaseTtlMs?: number;
}) {
  const fillCosts = createFillCostsStore(p.db);
  const pool = createReaderThreadPool({ threads: p.config.crosschainReaderThreads });
  const readers: RangeReader[] = [];
  const runners: LeasedRunner[] = [];
  const indexers = p.chains.map((chain) => {
    const chainId = chain.chainId;
    const lease = createIndexerLease({
      db: p.db,
      logger: p.logger.child({ chainId, job: "crosschain-indexer" }),
      name: indexerLeaseName(chainId),
      ttlMs: p.leaseTtlMs,
    });
    const fetcher = createBlockFetcher({ rpcUrl: chain.rpcUrl, batchSize: 100, concurrency: 1 });
    const reader = createThreadedRangeReader({
      chainId,
      addresses: spokeAddresses(chain),
      fetcher,
      rpcUrl: chain.rpcUrl,
      pool,
    });
    readers.push(reader);
    const indexer = createSpokePoolIndexer({
      chain,
      store: createIndexerStore(p.db, lease.fence),
      fetcher,
      reader,
      maxRange: p.config.crosschainLogRange,
      finalityDepth: p.config.crosschainFinalityDepth,
      pollMs: p.config.crosschainPollMs,
      logger: p.logger,
      onStored: p.onStored,
    });
    const integratorIds = createIntegratorIdPass({
      chainId,
      store: createIntegratorIdStore(p.db, lease.fence),
      fetcher,
      logger: p.logger,
    });
    const costs =
      p.pricesOf &&
      createFillCostPass({
        chainId,
        chains: p.chains,
        store: fillCosts,
        fetcher,
        pricesOf: p.pricesOf,
        logger: p.logger,
      });
    const pass = (job: string, step: () => Promise<boolean>, signal: AbortSignal) =>
      startIndexerLoop({
        signal,
        pollMs: p.config.crosschainPollMs,
        logger: p.logger.child({ chainId, job }),
        step,
      }).done;
    const runner = lease.run(async (signal) => {
      // Every loop of the chain waits on this signal (a listener each while it waits): not a leak.
      setMaxListeners(0, signal);
      await Promise.all([
        indexer.run(signal).done,
        pass("crosschain-integrator-ids", integratorIds.step, signal),
        costs ? pass("crosschain-fill-costs", costs.step, signal) : undefined,
      ]);
    });
    runners.push(runner);
    return {
      chainId,
      /** The follower's status; "standby" while another instance holds the chain's lease. */
      get status(): SpokeIndexerStatus {
        return runner.holding() ? indexer.status : { ...indexer.status, state: "standby" };
      },
    };
  });
  return {
    indexers,
    async stop() {
      await Promise.all(runners.map((r) => r.stop()));
      await Promise.all(readers.map((r) => r.close()));
      await pool.close();
    },
  };
}
