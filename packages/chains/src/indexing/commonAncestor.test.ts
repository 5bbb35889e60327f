import { describe, expect, it } from "vitest";
import { findCommonAncestor } from "./commonAncestor.ts";

const lookup = (m: Record<number, string>) => async (n: bigint) => m[Number(n)];

describe("findCommonAncestor", () => {
  it("finds the newest block both sides agree on", async () => {
    const stored = lookup({ 10: "a", 11: "b", 12: "c", 13: "d" });
    const chain = lookup({ 10: "a", 11: "b", 12: "X", 13: "Y" });
    expect(await findCommonAncestor({ from: 13n, floor: 0n, storedHash: stored, chainHash: chain })).toBe(11n);
  });

  it("skips blocks we never stored, and compares hashes case-insensitively", async () => {
    const stored = lookup({ 5: "0xAB", 9: "0xff" });
    const chain = lookup({ 5: "0xab", 9: "0x00" });
    expect(await findCommonAncestor({ from: 9n, floor: 0n, storedHash: stored, chainHash: chain })).toBe(5n);
  });

  it("gives up below the floor", async () => {
    const stored = lookup({ 1: "a", 5: "b" });
    const chain = lookup({ 1: "a", 5: "c" });
    expect(await findCommonAncestor({ from: 5n, floor: 3n, storedHash: stored, chainHash: chain })).toBeUndefined();
  });
});
