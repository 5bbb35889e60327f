import { describe, expect, it } from "vitest";
import { type BlockHeader, dailyDeltas, linkBlocks } from "./rollup.ts";

const block = (n: number, timestamp: number, gasLimit: bigint, extra: Partial<BlockHeader> = {}): BlockHeader => ({
  number: BigInt(n),
  hash: `h${n}`,
  parentHash: `h${n - 1}`,
  timestamp,
  gasLimit,
  gasUsed: gasLimit / 2n,
  baseFeePerGas: 1n,
  size: 500n,
  txCount: n,
  miner: "m",
  blockTime: null,
  ...extra,
});

const DAY = 86_400;

describe("linkBlocks", () => {
  it("sets block times from parents and finds a break in the chain", () => {
    const blocks = [block(1, 100, 1n), block(2, 112, 1n), block(3, 130, 1n)];
    expect(linkBlocks(blocks, { hash: "h0", timestamp: 90 })).toBe(-1);
    expect(blocks.map((b) => b.blockTime)).toEqual([10, 12, 18]);
    const first = [block(5, 100, 1n)];
    expect(linkBlocks(first, undefined)).toBe(-1);
    expect(first[0]?.blockTime).toBeNull();
    const broken = [block(1, 100, 1n), block(2, 112, 1n, { parentHash: "other" })];
    expect(linkBlocks(broken, { hash: "h0", timestamp: 90 })).toBe(1);
    expect(linkBlocks([block(1, 100, 1n)], { hash: "x", timestamp: 0 })).toBe(0);
  });
});

describe("dailyDeltas", () => {
  it("groups by UTC day, including a run that crosses midnight", () => {
    const blocks = [block(1, DAY - 10, 30n), block(2, DAY - 2, 32n), block(3, DAY + 5, 40n)];
    linkBlocks(blocks, undefined);
    const deltas = dailyDeltas(blocks);
    expect(deltas).toEqual([
      {
        day: "1970-01-01",
        blockCount: 2n,
        gasLimitSum: 62n,
        gasUsedSum: 31n,
        sizeSum: 1000n,
        txCount: 3n,
        blockTimeSum: 8n,
        blockTimeCount: 1n,
      },
      {
        day: "1970-01-02",
        blockCount: 1n,
        gasLimitSum: 40n,
        gasUsedSum: 20n,
        sizeSum: 500n,
        txCount: 3n,
        blockTimeSum: 7n,
        blockTimeCount: 1n,
      },
    ]);
  });
});
