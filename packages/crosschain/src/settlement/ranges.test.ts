import { describe, expect, it } from "vitest";
import { bundleRanges, rangesAreEmpty } from "./ranges.ts";

describe("bundleRanges", () => {
  it("starts after the previous end and ends at the indexed tip or the buffered head, whichever is lower", () => {
    const ranges = bundleRanges([
      { chainId: 1, previousEnd: 100n, indexedTip: 150n, head: 160n, buffer: 1n },
      { chainId: 10, previousEnd: 200n, indexedTip: 260n, head: 250n, buffer: 2n },
    ]);
    expect(ranges).toEqual([
      { chainId: 1, start: 101n, end: 150n },
      { chainId: 10, start: 201n, end: 248n },
    ]);
  });

  it("keeps the order it is given (CHAIN_ID_INDICES), not chain id order", () => {
    const ranges = bundleRanges([
      { chainId: 8453, previousEnd: 0n, indexedTip: 5n, head: 5n, buffer: 0n },
      { chainId: 1, previousEnd: 0n, indexedTip: 5n, head: 5n, buffer: 0n },
    ]);
    expect(ranges.map((r) => r.chainId)).toEqual([8453, 1]);
  });

  it("gives a chain with nothing new an empty range whose end repeats the previous end", () => {
    const [lagging, stalled] = bundleRanges([
      { chainId: 1, previousEnd: 100n, indexedTip: 90n, head: 200n, buffer: 1n },
      { chainId: 10, previousEnd: 100n, indexedTip: 300n, head: 101n, buffer: 2n },
    ]);
    expect(lagging).toEqual({ chainId: 1, start: 101n, end: 100n });
    expect(stalled).toEqual({ chainId: 10, start: 101n, end: 100n });
    expect(rangesAreEmpty([lagging!, stalled!])).toBe(true);
  });

  it("starts the first bundle at the indexer's start block (previousEnd = start_block − 1)", () => {
    const [first] = bundleRanges([{ chainId: 1337, previousEnd: -1n, indexedTip: 12n, head: 14n, buffer: 2n }]);
    expect(first).toEqual({ chainId: 1337, start: 0n, end: 12n });
    expect(rangesAreEmpty([first!])).toBe(false);
  });

  it("allows a one-block range", () => {
    const [r] = bundleRanges([{ chainId: 1, previousEnd: 9n, indexedTip: 10n, head: 11n, buffer: 1n }]);
    expect(r).toEqual({ chainId: 1, start: 10n, end: 10n });
  });
});
