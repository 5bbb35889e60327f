/**
 * Follows one chain's block headers into `chainstats`: chains' follower (resume, reorgs, restarts, the
 * loop) with a range being a window of headers, fetched in batches while the previous window is written,
 * and written with its rollups and the checkpoint in one transaction (see `blocksRepository.append`).
 */

import {
  type BlockFetcher,
  type ChainBlock,
  createChainFollower,
  type FollowerStatus,
  type ReadRange,
  type WriteFence,
} from "@platform/chains";
import { byteaToHex, type Logger } from "@platform/kernel";
import { type BlockHeader, linkBlocks } from "../domain/rollup.ts";
import type { BlocksRepository } from "../store/blocksRepository.ts";

export type ChainIndexerStatus = FollowerStatus;

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
  /** The chain's indexer lease (chains' createIndexerLease), asserted by every checkpoint write; none for a backfill. */
  fence?: WriteFence;
}

/** A stored block as the follower tracks it, with the time the next block's `blockTime` is counted from. */
interface StoredBlock extends ChainBlock {
  timestamp: number;
}

/**
 * A fetched window as the follower reads it: cut before the first block whose parent is not the block
 * before it (the chain moved between the window's batches), so that what is stored is one chain; the
 * rest is fetched again, and then links to the stored tip or shows the reorg.
 */
function windowRange(blocks: BlockHeader[]): ReadRange<BlockHeader[], StoredBlock> {
  const brk = linkBlocks(blocks, undefined);
  const run = brk < 0 ? blocks : blocks.slice(0, brk);
  const last = run.at(-1);
  return {
    parentHash: run[0]?.parentHash,
    last: last && { number: last.number, hash: last.hash, timestamp: last.timestamp },
    data: run,
  };
}

export function createChainIndexer(p: CreateChainIndexerParameters) {
  const { chainId, fetcher, repository: repo } = p;
  const windowSize = BigInt(p.windowSize ?? 2_000);
  /** Settles when the last window asked for is fetched: one window's batches in flight at a time. */
  let fetched: Promise<unknown> = Promise.resolve();

  const follower = createChainFollower<BlockHeader[], StoredBlock>({
    chainId,
    fetcher,
    startBlock: p.startBlock,
    finalityDepth: p.finalityDepth,
    pollMs: p.pollMs,
    logger: p.logger.child({ chainId, job: "chainstats-indexer" }),
    rangeSize: () => windowSize,
    readAhead: 1, // the next window is fetched while this one is written
    readRange(from, to) {
      const blocks = fetched.then(() => fetcher.blocks(from, to));
      fetched = blocks.catch(() => {});
      return blocks.then(windowRange);
    },
    store: {
      async checkpoint() {
        const cp = await repo.checkpoint(chainId);
        return (
          cp && {
            nextBlock: BigInt(cp.next_block),
            startBlock: BigInt(cp.start_block),
            genesisHash: byteaToHex(cp.genesis_hash),
          }
        );
      },
      startOver: (genesisHash, startBlock) => repo.startOver(chainId, genesisHash, startBlock, p.fence),
      async storedBlock(n) {
        const stored = await repo.storedBlock(chainId, n);
        return stored && { number: n, ...stored };
      },
      append(from, { data: blocks }, parent) {
        // The window's first block times from the stored tip (windowRange timed the others).
        const first = blocks[0] as BlockHeader;
        first.blockTime = parent ? first.timestamp - parent.timestamp : null;
        return repo.append(chainId, from, blocks, p.fence);
      },
      rollbackTo: (ancestor) => repo.rollbackTo(chainId, ancestor, p.fence),
    },
  });

  return {
    status: follower.status,
    step: follower.step,
    /** Starts over from `startBlock` (used by `platform chainstats backfill --from`). */
    restartFrom: follower.restartFrom,
    /** Runs until `signal` aborts; RPC or database failures are retried with backoff. */
    async run(signal: AbortSignal): Promise<void> {
      await follower.run(signal).done;
    },
  };
}

export type ChainIndexer = ReturnType<typeof createChainIndexer>;
