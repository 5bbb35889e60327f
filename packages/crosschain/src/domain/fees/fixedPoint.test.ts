import { describe, expect, it } from "vitest";
import { applyPct, convertDecimals, MAX_UINT256, maxOf, parseFixed, percent, WAD } from "./fixedPoint.ts";

describe("fixedPoint", () => {
  it("constants", () => {
    expect(WAD).toBe(1_000_000_000_000_000_000n);
    expect(MAX_UINT256).toBe(115792089237316195423570985008687907853269984665640564039457584007913129639935n);
  });

  it("convertDecimals truncates toward zero like the anchor (floor for non-negative amounts)", () => {
    expect(convertDecimals(1_999_999n, 6, 0)).toBe(1n);
    expect(convertDecimals(-1_999_999n, 6, 0)).toBe(-1n);
    expect(convertDecimals(5n, 0, 3)).toBe(5_000n);
  });

  it("percent and applyPct", () => {
    // 1 / 3 = 0.333… → 333333333333333333
    expect(percent(1n, 3n)).toBe(333_333_333_333_333_333n);
    expect(() => percent(1n, 0n)).toThrow(RangeError);
    // 1000 * 0.25 = 250
    expect(applyPct(1000n, WAD / 4n)).toBe(250n);
  });

  it("maxOf", () => {
    expect(maxOf([])).toBe(0n);
    expect(maxOf([], 7n)).toBe(7n);
    expect(maxOf([3n, 9n, 1n])).toBe(9n);
  });

  it("parseFixed", () => {
    expect(parseFixed("0.0001")).toBe(100_000_000_000_000n);
    expect(parseFixed("1500000")).toBe(1_500_000n * WAD);
    expect(parseFixed("1.23456789", 6)).toBe(1_234_567n);
    expect(parseFixed(0.3)).toBe(300_000_000_000_000_000n);
    expect(parseFixed(".5")).toBe(WAD / 2n);
    expect(() => parseFixed("-1")).toThrow(RangeError);
    expect(() => parseFixed("abc")).toThrow(RangeError);
    expect(() => parseFixed(".")).toThrow(RangeError);
  });
});
