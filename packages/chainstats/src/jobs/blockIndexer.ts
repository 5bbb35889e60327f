/**
 * Follows one chain: backfills from the start block to the head in windows of batched requests, then
 * polls for new heads. Each window is written with its rollups and the checkpoint in one transaction
 * (see `blocksRepository.append`), the next window is fetched while the previous one is written, and a
 * block whose parent is not our tip triggers a walk back to the common ancestor and a rollback. A chain
 * whose genesis changed (a reset devnet) or that reorganised deeper than the finality depth starts over.
 */

import type { BlockFetcher } from "@platform/chains";
import { findCommonAncestor, startIndexerLoop } from "@platform/chains";
import type { Logger } from "@platform/kernel";
import { type BlockHeader, linkBlocks } from "../domain/rollup.ts";
import type { BlocksRepository } from "../store/blocksRepository.ts";

export interface ChainIndexerStatus {
  chainId: number;
  state: "starting" | "backfilling" | "following" | "error" | "stopped";
  head: bigint | null;
  next: bigint | null;
  startBlock: bigint | null;
  lastError: string | null;
  /** Blocks stored since this indexer started. */
  indexed: number;
  reorgs: number;
}

export interface CreateChainIndexerParameters {
  chainId: number;
  fetcher: BlockFetcher;
  repository: BlocksRepository;
  /** Where a chain never indexed before starts. */
  startBlock: bigint;
  finalityDepth: number;
  pollMs: number;
  /** Blocks per window (one transaction); default 2,000. */
  windowSize?: number;
  logger: Logger;
}

interface Tip {
  number: bigint;
  hash: string;
  timestamp: number;
}

export function createChainIndexer(p: CreateChainIndexerParameters) {
  const { chainId, fetcher, repository: repo, logger } = p;
  const windowSize = BigInt(p.windowSize ?? 2_000);
  const log = logger.child({ chainId, job: "chainstats-indexer" });
  const status: ChainIndexerStatus = {
    chainId,
    state: "starting",
    head: null,
    next: null,
    startBlock: null,
    lastError: null,
    indexed: 0,
    reorgs: 0,
  };
  let next = 0n;
  let tip: Tip | undefined;

  /** Loads the checkpoint, starting over when the chain is new or its genesis changed. */
  async function resume(startBlock = p.startBlock, force = false): Promise<void> {
    const genesis = await fetcher.block(0n);
    if (!genesis) throw new Error("the RPC has no block 0");
    const cp = await repo.checkpoint(chainId);
    const known = cp && `0x${cp.genesis_hash.toString("hex")}` === genesis.hash;
    if (!cp || !known || force) {
      if (cp && !known) log.warn("genesis changed (chain reset): indexing it again from the start");
      await repo.startOver(chainId, genesis.hash, startBlock);
      next = startBlock;
      status.startBlock = startBlock;
    } else {
      next = BigInt(cp.next_block);
      status.startBlock = BigInt(cp.start_block);
    }
    status.next = next;
    tip =
      next > (status.startBlock ?? 0n)
        ? await repo.storedBlock(chainId, next - 1n).then((b) => b && { number: next - 1n, ...b })
        : undefined;
  }

  /** Our tip is not on the chain any more: roll back to the newest stored block that still is. */
  async function handleReorg(): Promise<void> {
    status.reorgs++;
    const floor = status.startBlock ?? 0n;
    const deepest = next - 1n - BigInt(p.finalityDepth);
    const ancestor = await findCommonAncestor({
      from: next - 1n,
      floor: deepest > floor ? deepest : floor,
      storedHash: async (n) => (await repo.storedBlock(chainId, n))?.hash,
      chainHash: async (n) => (await fetcher.block(n))?.hash,
    });
    if (ancestor === undefined) {
      log.warn({ depth: p.finalityDepth }, "reorg deeper than the finality depth, or chain reset: starting over");
      await resume(status.startBlock ?? p.startBlock, true);
      return;
    }
    const removed = await repo.rollbackTo(chainId, ancestor);
    log.warn({ ancestor: ancestor.toString(), removed }, "reorg: rolled back to the common ancestor");
    next = ancestor + 1n;
    const stored = await repo.storedBlock(chainId, ancestor);
    tip = stored && { number: ancestor, ...stored };
  }

  /** Stores `blocks` (fetched from `next`); false when the chain moved under us and we must re-check. */
  async function store(blocks: BlockHeader[]): Promise<boolean> {
    const brk = linkBlocks(blocks, tip);
    if (brk === 0) {
      await handleReorg();
      return false;
    }
    const run = brk < 0 ? blocks : blocks.slice(0, brk);
    if (!(await repo.append(chainId, next, run))) {
      log.warn("checkpoint moved (another writer?): reloading it");
      await resume();
      return false;
    }
    const last = run[run.length - 1] as BlockHeader;
    next = last.number + 1n;
    tip = { number: last.number, hash: last.hash, timestamp: last.timestamp };
    status.next = next;
    status.indexed += run.length;
    return brk < 0;
  }

  /** One pass: index everything up to the current head. Resolves when caught up. */
  async function catchUp(signal: AbortSignal): Promise<void> {
    const head = await fetcher.blockNumber();
    status.head = head;
    if (next > head + 1n) {
      // The chain is shorter than what we stored: a reset or a reorg to a shorter chain.
      await handleReorg();
      return;
    }
    if (next === head + 1n) {
      // Caught up: make sure our tip is still the chain's (a same-height reorg shows only here).
      if (tip) {
        const onChain = await fetcher.block(tip.number);
        if (onChain && onChain.hash !== tip.hash) await handleReorg();
      }
      status.state = "following";
      return;
    }
    status.state = "backfilling";
    const windowEnd = (from: bigint) => (from + windowSize - 1n < head ? from + windowSize - 1n : head);
    let pending: Promise<BlockHeader[]> | undefined = fetcher.blocks(next, windowEnd(next));
    while (pending && !signal.aborted) {
      const blocks: BlockHeader[] = await pending;
      pending = undefined;
      if (blocks.length === 0) return;
      const following = (blocks[blocks.length - 1] as BlockHeader).number + 1n;
      // Fetch the next window while this one is written.
      if (following <= head) pending = fetcher.blocks(following, windowEnd(following));
      const linked = await store(blocks).catch(async (error) => {
        await pending?.catch(() => {});
        throw error;
      });
      if (!linked) {
        await pending?.catch(() => {});
        return;
      }
    }
  }

  return {
    status,

    /** Starts over from `startBlock` (used by `platform chainstats backfill --from`). */
    async restartFrom(startBlock: bigint) {
      await resume(startBlock, true);
    },

    /** Runs until `signal` aborts; RPC or database failures are retried with backoff. */
    async run(signal: AbortSignal): Promise<void> {
      let resumed = false;
      await startIndexerLoop({
        signal,
        pollMs: p.pollMs,
        logger: log,
        async step() {
          if (!resumed) {
            await resume();
            resumed = true;
          }
          await catchUp(signal);
          return status.state === "following";
        },
        onError(error) {
          status.state = "error";
          status.lastError = error.message;
          resumed = false;
        },
        onRecovered() {
          status.lastError = null;
        },
      }).done;
      status.state = "stopped";
    },
  };
}

export type ChainIndexer = ReturnType<typeof createChainIndexer>;
