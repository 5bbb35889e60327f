/**
 * One chain followed into a store, the part every indexer shares: resume from the store's checkpoint
 * (or start over when the chain is new, its genesis changed, or the store says its data no longer
 * applies), read ranges ahead of the one being stored, store each range with its checkpoint, notice a
 * stored tip that left the chain (the next range's parent, or the tip itself once caught up), roll back
 * to the common ancestor, or start over when the reorg is deeper than the finality depth; the
 * retry/poll loop and the status. What a range is, how it is read and how it is written are the
 * caller's: `readRange` and `store`, everything passed in (as Ponder's `createRealtimeSync(args)`).
 *
 * @example
 * const follower = createChainFollower({ chainId, fetcher, store, readRange, rangeSize: () => 100n,
 *   readAhead: 1, startBlock: 0n, finalityDepth: 64, pollMs: 500, logger });
 * await follower.run(signal).done;
 */
import type { Logger } from "@platform/kernel";
import { findCommonAncestor } from "./commonAncestor.ts";
import { type IndexerLoop, startIndexerLoop } from "./indexerLoop.ts";

/** A block as the follower tracks it: its number, and the hash that tells whether the chain still has it. */
export interface ChainBlock {
  number: bigint;
  hash: string;
}

/** The headers the follower reads itself (a BlockFetcher is one). */
export interface HeaderSource {
  blockNumber(): Promise<bigint>;
  /** Block `number`, undefined when the chain does not have it. */
  block(number: bigint): Promise<ChainBlock | undefined>;
}

/** Where a store's copy of a chain stands. */
export interface FollowerCheckpoint {
  /** The first block not stored yet. */
  nextBlock: bigint;
  /** Where the store began indexing the chain. */
  startBlock: bigint;
  /** Hash of block 0 when the store began: another one now means the chain was reset. */
  genesisHash: string;
  /** Why the stored data no longer applies though the genesis is the same (e.g. another contract is followed now): the follower starts over. */
  stale?: string;
}

/** A range as `readRange` answers it: what the follower checks, and the caller's data that the store writes. */
export interface ReadRange<D, B extends ChainBlock = ChainBlock> {
  /** Hash of the block before the range as the chain had it when the range was read (undefined for block 0). */
  parentHash: string | undefined;
  /**
   * The range's last block: its requested end, or an earlier block where the read stopped (the chain moved
   * while it was read); undefined when the chain had none of the range (the node is behind the head it
   * reported, or the chain got shorter).
   */
  last: B | undefined;
  data: D;
}

/** A range with something to store. */
export type StoredRange<D, B extends ChainBlock = ChainBlock> = ReadRange<D, B> & { last: B };

/** The follower's view of the caller's store, bound to one chain. */
export interface FollowerStore<D, B extends ChainBlock = ChainBlock> {
  checkpoint(): Promise<FollowerCheckpoint | undefined>;
  /** Forgets everything stored of the chain and records its checkpoint at `startBlock` (first run, reset chain, deep reorg). */
  startOver(genesisHash: string, startBlock: bigint): Promise<void>;
  /** The stored block `n` (the tip, and the common-ancestor search); undefined when nothing is stored at `n`. */
  storedBlock(n: bigint): Promise<B | undefined>;
  /**
   * Stores `range`, read from block `from`, and moves the checkpoint past its last block, in ONE
   * transaction; false, writing nothing, when the checkpoint is no longer `from` (another writer got there
   * first). `parent` is the stored block before the range (undefined at the start block).
   */
  append(from: bigint, range: StoredRange<D, B>, parent: B | undefined): Promise<boolean>;
  /** Removes everything stored above `ancestor` and moves the checkpoint after it; the blocks removed, if it knows. */
  rollbackTo(ancestor: bigint): Promise<number | undefined>;
}

/** What a follower is doing, for `platform status`. */
export interface FollowerStatus {
  chainId: number;
  /** "standby": another instance holds this chain's indexer lease (set by the service running it). */
  state: "starting" | "catching-up" | "following" | "error" | "stopped" | "standby";
  /** The chain's head as last read. */
  head: bigint | null;
  /** The first block not stored yet. */
  next: bigint | null;
  startBlock: bigint | null;
  lastError: string | null;
  /** Blocks stored since this follower started. */
  indexed: number;
  reorgs: number;
}

export interface CreateChainFollowerParameters<D, B extends ChainBlock = ChainBlock> {
  chainId: number;
  /** Headers: the head, block 0 (the genesis check) and stored blocks (the reorg checks). */
  fetcher: HeaderSource;
  store: FollowerStore<D, B>;
  /**
   * Reads blocks `from..to` (`to` at most the head last read). Called in block order with up to
   * `readAhead` reads pending beyond the range being stored; a source that must read one range at a time
   * chains its reads itself. A rejection is retried with backoff (the reads behind it are dropped).
   */
  readRange(from: bigint, to: bigint): Promise<ReadRange<D, B>>;
  /** Blocks the next range covers, asked as each read starts (a source may size ranges by what it read). */
  rangeSize(): bigint;
  /** Ranges read while an earlier one is stored (0: one range at a time). */
  readAhead: number;
  /** Where a chain never indexed before (or reset) starts. */
  startBlock: bigint;
  /** How far below the stored tip a reorg may reach before the chain is indexed again from its start. */
  finalityDepth: number;
  /** How often a caught-up follower asks for a new head. */
  pollMs: number;
  logger: Logger;
  /** Called after each stored range (e.g. to wake whoever acts on new rows). */
  onStored?(range: StoredRange<D, B>): void;
}

export interface ChainFollower {
  readonly status: FollowerStatus;
  /**
   * Stores the next range (or handles a reorg); true when there is nothing to read before the next poll
   * (caught up with the head, or the node did not have the range yet). Rejects on RPC or store failures.
   */
  step(): Promise<boolean>;
  /** Forgets what is stored and starts again at `startBlock`. */
  restartFrom(startBlock: bigint): Promise<void>;
  /** Steps until `signal` aborts: polls when caught up, retries failures with backoff; the status says "stopped" after. */
  run(signal: AbortSignal): IndexerLoop;
}

interface PendingRead<D, B extends ChainBlock> {
  from: bigint;
  to: bigint;
  result: Promise<ReadRange<D, B>>;
}

export function createChainFollower<D, B extends ChainBlock = ChainBlock>(
  p: CreateChainFollowerParameters<D, B>,
): ChainFollower {
  const { fetcher, store, logger: log } = p;
  const finalityDepth = BigInt(p.finalityDepth);
  const status: FollowerStatus = {
    chainId: p.chainId,
    state: "starting",
    head: null,
    next: null,
    startBlock: null,
    lastError: null,
    indexed: 0,
    reorgs: 0,
  };
  let next = 0n;
  let startBlock = p.startBlock;
  let tip: B | undefined;
  let resumed = false;
  /** The head last read; while catching up, ranges are chosen below it without asking again. */
  let knownHead: bigint | undefined;
  /** Ranges being read after the one being stored: in order and contiguous. */
  const ahead: PendingRead<D, B>[] = [];

  /** Forgets the reads in flight and the head: after a rollback, a restart or a failure they may not apply. */
  function forgetReads() {
    ahead.length = 0;
    knownHead = undefined;
  }

  /** Loads the checkpoint; starts over at `startAt` when the chain is new or reset, the data stale, or `force`. */
  async function resume(startAt = p.startBlock, force = false): Promise<void> {
    forgetReads();
    const genesis = await fetcher.block(0n);
    if (!genesis) throw new Error("the RPC has no block 0");
    const cp = await store.checkpoint();
    const outdated = cp && (cp.genesisHash !== genesis.hash ? "genesis changed (chain reset)" : cp.stale);
    if (!cp || outdated || force) {
      if (outdated) log.warn(`${outdated}: indexing the chain again from the start`);
      await store.startOver(genesis.hash, startAt);
      next = startAt;
      startBlock = startAt;
    } else {
      next = cp.nextBlock;
      startBlock = cp.startBlock;
    }
    status.next = next;
    status.startBlock = startBlock;
    tip = next > startBlock ? await store.storedBlock(next - 1n) : undefined;
  }

  /** Our tip is not on the chain any more: roll back to the newest stored block that still is. */
  async function handleReorg(): Promise<void> {
    status.reorgs++;
    forgetReads();
    const deepest = next - 1n - finalityDepth;
    const ancestor = await findCommonAncestor({
      from: next - 1n,
      floor: deepest > startBlock ? deepest : startBlock,
      storedHash: async (n) => (await store.storedBlock(n))?.hash,
      chainHash: async (n) => (await fetcher.block(n))?.hash,
    });
    if (ancestor === undefined) {
      log.warn({ depth: p.finalityDepth }, "reorg deeper than the finality depth, or chain reset: starting over");
      await resume(startBlock, true);
      return;
    }
    const removed = await store.rollbackTo(ancestor);
    log.warn({ ancestor: ancestor.toString(), removed }, "reorg: rolled back to the common ancestor");
    next = ancestor + 1n;
    status.next = next;
    tip = await store.storedBlock(ancestor);
  }

  /** Starts reading the range from `from` (up to `head`), behind the reads already started. */
  function startRead(from: bigint, head: bigint): PendingRead<D, B> {
    const end = from + p.rangeSize() - 1n;
    const to = end < head ? end : head;
    const result = p.readRange(from, to);
    result.catch(() => {}); // a failed read ahead is read again by the step that needs it
    return { from, to, result };
  }

  /** Nothing new: our tip must still be the chain's (a reorg can keep the height, or shorten the chain). */
  async function checkTip(): Promise<boolean> {
    if (tip && (await fetcher.block(tip.number))?.hash !== tip.hash) {
      await handleReorg();
      return false;
    }
    status.state = "following";
    return true;
  }

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
    if (next > head) return checkTip();
    status.state = "catching-up";
    if (ahead[0]?.from !== next) ahead.length = 0;
    const current = ahead.shift() ?? startRead(next, head);
    try {
      for (let last = ahead.at(-1) ?? current; ahead.length < p.readAhead && last.to < head; ) {
        last = startRead(last.to + 1n, head);
        ahead.push(last);
      }
      const range = await current.result;
      if (tip && range.parentHash !== tip.hash) {
        await handleReorg();
        return false;
      }
      return await storeRange(current.from, range, head);
    } catch (error) {
      ahead.length = 0; // the reads behind a failed one follow a range that was not stored
      throw error;
    }
  }

  /** Stores a range read from `next` and moves past it; true when that reached the head (or there was nothing to store). */
  async function storeRange(from: bigint, range: ReadRange<D, B>, head: bigint): Promise<boolean> {
    const last = range.last;
    if (!last) {
      // The chain has none of the range: ask for the head again at the next poll rather than spin.
      forgetReads();
      return true;
    }
    if (!(await store.append(from, range as StoredRange<D, B>, tip))) {
      log.warn("checkpoint moved (another writer?): reloading it");
      resumed = false;
      return false;
    }
    next = last.number + 1n;
    tip = last;
    status.next = next;
    status.indexed += Number(next - from);
    p.onStored?.(range as StoredRange<D, B>);
    if (last.number < head) return false;
    status.state = "following";
    return true;
  }

  return {
    status,
    step,
    async restartFrom(at) {
      await resume(at, true);
      resumed = true;
    },
    run(signal) {
      // A run may follow another instance's tenure (leases): what it stored since is read again first.
      resumed = false;
      const loop = startIndexerLoop({
        signal,
        pollMs: p.pollMs,
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
      return {
        wake: loop.wake,
        done: loop.done.then(() => {
          status.state = "stopped";
        }),
      };
    },
  };
}
