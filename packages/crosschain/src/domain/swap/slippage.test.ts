import { describe, expect, it } from "vitest";
import {
  amountCoveringSlippage,
  autoSlippage,
  legSlippage,
  maximumAfterSlippage,
  minimumAfterSlippage,
} from "./slippage.ts";

const WAD = 10n ** 18n;

describe("slippage", () => {
  it("auto: 0.5 % for small trades, plus the depth share, capped at 5 %", () => {
    expect(autoSlippage(0n)).toBe(0.005);
    expect(autoSlippage(WAD / 100n)).toBeCloseTo(0.015, 9);
    expect(autoSlippage(WAD / 2n)).toBe(0.05);
  });

  it("a number is split equally between two legs, and whole for one", () => {
    expect(legSlippage(0.01, 2, 0n)).toBe(0.005);
    expect(legSlippage(0.01, 1, WAD)).toBe(0.01);
    expect(legSlippage("auto", 2, WAD / 50n)).toBeCloseTo(0.025, 9);
  });

  it("minimum rounds down and maximum rounds up", () => {
    expect(minimumAfterSlippage(1000n, 0.005)).toBe(995n);
    expect(minimumAfterSlippage(999n, 0.005)).toBe(994n);
    expect(maximumAfterSlippage(999n, 0.005)).toBe(1004n);
    expect(maximumAfterSlippage(1000n, 0)).toBe(1000n);
  });

  it("the amount covering slippage is the least whose minimum still covers it", () => {
    expect(amountCoveringSlippage(995n, 0.005)).toBe(1000n);
    expect(minimumAfterSlippage(amountCoveringSlippage(994n, 0.005), 0.005)).toBeGreaterThanOrEqual(994n);
    expect(minimumAfterSlippage(amountCoveringSlippage(994n, 0.005) - 1n, 0.005)).toBeLessThan(994n);
    expect(amountCoveringSlippage(1000n, 0)).toBe(1000n);
  });
});
