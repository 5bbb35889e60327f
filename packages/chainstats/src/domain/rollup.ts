/**
 * Daily rollup deltas from a run of block headers: what to add to (or, for a reorg, subtract from)
 * each UTC day's row. Sums are bigints so no precision is lost on gas.
 */
import { utcDay } from "./dates.ts";

export type { BlockHeader } from "@platform/chains";

import type { BlockHeader } from "@platform/chains";

export interface DailyDelta {
  day: string;
  blockCount: bigint;
  gasLimitSum: bigint;
  gasUsedSum: bigint;
  sizeSum: bigint;
  txCount: bigint;
  blockTimeSum: bigint;
  blockTimeCount: bigint;
}

export function dailyDeltas(blocks: readonly BlockHeader[]): DailyDelta[] {
  const byDay = new Map<string, DailyDelta>();
  for (const b of blocks) {
    const day = utcDay(b.timestamp);
    let d = byDay.get(day);
    if (!d) {
      d = {
        day,
        blockCount: 0n,
        gasLimitSum: 0n,
        gasUsedSum: 0n,
        sizeSum: 0n,
        txCount: 0n,
        blockTimeSum: 0n,
        blockTimeCount: 0n,
      };
      byDay.set(day, d);
    }
    d.blockCount += 1n;
    d.gasLimitSum += b.gasLimit;
    d.gasUsedSum += b.gasUsed;
    d.sizeSum += b.size;
    d.txCount += BigInt(b.txCount);
    if (b.blockTime !== null) {
      d.blockTimeSum += BigInt(b.blockTime);
      d.blockTimeCount += 1n;
    }
  }
  return [...byDay.values()];
}

/**
 * Fills `blockTime` from each block's parent (the previous block of the run, or `parent` for the
 * first) and checks the run is one chain: each block's parentHash is its predecessor's hash.
 * Returns the index of the first block that does not link, or -1.
 */
export function linkBlocks(blocks: BlockHeader[], parent: { hash: string; timestamp: number } | undefined): number {
  let previous = parent;
  for (const [i, b] of blocks.entries()) {
    if (previous && b.parentHash !== previous.hash) return i;
    b.blockTime = previous ? b.timestamp - previous.timestamp : null;
    previous = b;
  }
  return -1;
}
