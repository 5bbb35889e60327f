/**
 * Follows the SpokePool of each chain: `eth_getLogs` over block ranges (adaptive: halved when the RPC
 * refuses a range, grown back on success), decoded events stored with their blocks' hashes and the
 * checkpoint in one transaction, a stored tip that left the chain rolled back to the common ancestor,
 * and a chain whose genesis changed (a reset devnet) indexed again from the start. Polls every
 * CROSSCHAIN_POLL_MS (200 ms by default), so a deposit is visible well under a second after its block.
 */
import { type BlockFetcher, createBlockFetcher, findCommonAncestor, startIndexerLoop } from "@platform/chains";
import type { Config, Database, Logger } from "@platform/kernel";
import type { Hex, Log } from "viem";
import type { SpokeChain } from "../deployments.ts";
import { createIndexerStore, type IndexerStore, type RangeData } from "../store/indexerStore.ts";
import { CALLS_FAILED_TOPIC, decodeSpokeLog, integratorIdOf, SPOKE_TOPICS } from "./spokePoolEvents.ts";

/** How far back a reorg may reach before the chain is indexed again from its start. */
const FINALITY_DEPTH = 128n;

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
}

export function createSpokePoolIndexer(p: CreateSpokePoolIndexerParameters) {
  const { chain, store, fetcher } = p;
  const chainId = chain.chainId;
  const log = p.logger.child({ chainId, job: "crosschain-indexer" });
  const status: SpokeIndexerStatus = { chainId, state: "starting", head: null, next: null, lastError: null, reorgs: 0 };
  let next = 0n;
  let startBlock = p.startBlock ?? 0n;
  let range = BigInt(p.maxRange);
  let tip: { number: bigint; hash: string } | undefined;
  let resumed = false;
  const addresses = [chain.spokePool, ...(chain.multicallHandler ? [chain.multicallHandler] : [])];

  async function resume(force = false) {
    prefetched = undefined;
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
    prefetched = undefined;
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

  async function getLogs(from: bigint, to: bigint): Promise<Log[]> {
    try {
      const logs = await fetcher.call<Log[]>("eth_getLogs", [
        {
          fromBlock: `0x${from.toString(16)}`,
          toBlock: `0x${to.toString(16)}`,
          address: addresses,
          topics: [[...SPOKE_TOPICS, CALLS_FAILED_TOPIC]],
        },
      ]);
      if (range < BigInt(p.maxRange)) range = range * 2n > BigInt(p.maxRange) ? BigInt(p.maxRange) : range * 2n;
      return logs.map((l) => ({
        ...l,
        blockNumber: BigInt(l.blockNumber as unknown as string),
        logIndex: Number(l.logIndex),
        transactionIndex: Number(l.transactionIndex),
      })) as Log[];
    } catch (error) {
      // Providers refuse large ranges or result sets in many wordings; halve and let the loop retry.
      if (range > 1n) range /= 2n;
      throw error;
    }
  }

  /** Everything a range needs from the RPC: decoded logs, the headers of their blocks, deposit calldata. */
  async function readRange(from: bigint, to: bigint) {
    const logs = await getLogs(from, to);
    const facts = logs.map((l) => decodeSpokeLog(chainId, l)).filter((f) => f !== undefined);
    const blockNumbers = [...new Set([...facts.map((f) => f.blockNumber), to])];
    const depositBlocks = [...new Set(facts.filter((f) => f.kind === "deposit").map((f) => f.blockNumber))];
    // The integrator id is in the deposit's calldata: one full-block read per block with deposits.
    const [headers, inputs] = await Promise.all([
      fetcher.blocksByNumber(blockNumbers),
      fetcher.transactionInputs(depositBlocks),
    ]);
    const byNumber = new Map(headers.map((h) => [h.number, h]));
    // Every log must come from the block we store for its number, or the chain moved under us: retry.
    for (const f of facts) {
      if (byNumber.get(f.blockNumber)?.hash !== f.blockHash) throw new Error("chain changed while reading a range");
    }
    return { facts, byNumber, headers, inputs };
  }
  let prefetched: { from: bigint; to: bigint; result: ReturnType<typeof readRange> } | undefined;

  /** One step: index the next range; true when caught up with the head. */
  async function step(): Promise<boolean> {
    if (!resumed) {
      await resume();
      resumed = true;
    }
    const head = await fetcher.blockNumber();
    status.head = head;
    if (tip) {
      const onChain = next - 1n <= head ? await fetcher.block(tip.number) : undefined;
      if (!onChain || onChain.hash !== tip.hash) {
        await handleReorg();
        return false;
      }
    }
    if (next > head) {
      status.state = "following";
      return true;
    }
    status.state = "catching-up";
    const to = next + range - 1n < head ? next + range - 1n : head;
    const fetched =
      prefetched && prefetched.from === next && prefetched.to === to
        ? await prefetched.result
        : await readRange(next, to);
    prefetched = undefined;
    // Read the following range while this one is written.
    if (to < head) {
      const from2 = to + 1n;
      const to2 = from2 + range - 1n < head ? from2 + range - 1n : head;
      const result = readRange(from2, to2);
      result.catch(() => {}); // a failed prefetch is simply read again
      prefetched = { from: from2, to: to2, result };
    }
    const { facts, byNumber, headers, inputs } = fetched;
    const end = byNumber.get(to);
    if (!end) throw new Error(`block ${to} is missing`);
    const deposits = facts.filter((f) => f.kind === "deposit");
    const failedTxs = new Set(facts.filter((f) => f.kind === "callsFailed").map((f) => f.txHash));
    const data: RangeData = {
      blocks: headers.map((h) => ({ number: h.number, hash: h.hash as Hex, timestamp: h.timestamp })),
      deposits: deposits.map((d) => ({ ...d, integratorId: integratorIdOf(inputs.get(d.txHash.toLowerCase()) ?? "") })),
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
    if (data.deposits.length || data.fills.length) p.onStored?.();
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
  const indexers = p.chains.map((chain) =>
    createSpokePoolIndexer({
      chain,
      store,
      fetcher: createBlockFetcher({ rpcUrl: chain.rpcUrl, batchSize: 100, concurrency: 1 }),
      maxRange: p.config.crosschainLogRange,
      logger: p.logger,
      onStored: p.onStored,
    }),
  );
  const loops = indexers.map((i) => i.run(controller.signal, p.config.crosschainPollMs));
  return {
    indexers,
    async stop() {
      controller.abort();
      await Promise.all(loops.map((l) => l.done));
      for (const i of indexers) i.status.state = "stopped";
    },
  };
}
