import { describe, expect, it } from "vitest";
import { MAX_UINT256, WAD } from "./fixedPoint.ts";
import {
  computeGasFee,
  gasFeePercent,
  gasFeeTotal,
  nativeToToken,
  quotedMessageFillGas,
  toGasFeeDetailsJson,
  tokenGasCost,
} from "./gasFee.ts";

describe("tokenGasCost", () => {
  it("is units * gasPrice + OP-stack L1 fee (numbers of the OpenAPI /limits example)", () => {
    // 137265 * 1000740 = 137366576100; + 3993981356 = 141360557456
    expect(tokenGasCost({ nativeGasUnits: 137265n, gasPrice: 1000740n, opStackL1GasCost: 3993981356n })).toBe(
      141360557456n,
    );
    // without an L1 fee: 200000 * 1 gwei = 2e14
    expect(tokenGasCost({ nativeGasUnits: 200_000n, gasPrice: 10n ** 9n })).toBe(2n * 10n ** 14n);
  });
});

describe("nativeToToken", () => {
  it("is identity for WETH priced at exactly 1 ETH", () => {
    expect(nativeToToken(141360557456n, WAD, 18)).toBe(141360557456n);
  });

  it("converts to a 6-decimal token through its native price", () => {
    // USDC at 2,500 USD/ETH → 1 USDC = 0.0004 ETH = 4e14 (1e18-scaled)
    // 2e14 wei * 1e18 / 4e14 = 5e17 (18 decimals) → /1e12 = 500000 (0.5 USDC)
    expect(nativeToToken(2n * 10n ** 14n, 4n * 10n ** 14n, 6)).toBe(500_000n);
  });

  it("floors when scaling down", () => {
    // 1 wei * 1e18 / 4e14 = 2500 (18 decimals) → 2500 / 1e12 = 0
    expect(nativeToToken(1n, 4n * 10n ** 14n, 6)).toBe(0n);
    // 3e14 wei * 1e18 / 7e14 = 428571428571428571.4 → 428571428571428571 → /1e12 = 428571.428… → 428571
    expect(nativeToToken(3n * 10n ** 14n, 7n * 10n ** 14n, 6)).toBe(428_571n);
  });

  it("supports a native token with other decimals", () => {
    // native with 8 decimals: 1e8 native units * 1e18 / 1e18 = 1e8 (8 decimals) → 18 decimals = 1e18
    expect(nativeToToken(10n ** 8n, WAD, 18, 8)).toBe(WAD);
  });

  it("rejects a non-positive price", () => {
    expect(() => nativeToToken(1n, 0n, 18)).toThrow(RangeError);
  });
});

describe("gasFeePercent / gasFeeTotal", () => {
  it("is relative to the amount (the /limits example with its default 100-wei amount)", () => {
    // 141442042216 * 1e18 / 100 = 1414420422160000000000000000
    expect(gasFeePercent(141442042216n, 100n)).toBe(1414420422160000000000000000n);
    // 1414420422160000000000000000 * 100 / 1e18 = 141442042216
    expect(gasFeeTotal(100n, 1414420422160000000000000000n)).toBe(141442042216n);
  });

  it("floors the pct then the total", () => {
    // pct = 7e18 / 3 = 2333333333333333333; total = 2333333333333333333 * 3 / 1e18 = 6.99… → 6
    const pct = gasFeePercent(7n, 3n);
    expect(pct).toBe(2333333333333333333n);
    expect(gasFeeTotal(3n, pct)).toBe(6n);
  });

  it("is MAX_UINT256 for a zero amount", () => {
    expect(gasFeePercent(5n, 0n)).toBe(MAX_UINT256);
  });
});

describe("computeGasFee", () => {
  it("chains cost → token → pct → total", () => {
    // cost 2e14 wei → 500000 USDC units (see above); amount 1,000 USDC = 1e9
    // pct = 500000 * 1e18 / 1e9 = 5e14 (0.05%); total = 5e14 * 1e9 / 1e18 = 500000
    const result = computeGasFee({
      nativeGasUnits: 200_000n,
      gasPrice: 10n ** 9n,
      amount: 1_000n * 10n ** 6n,
      tokenDecimals: 6,
      tokenPriceInNative: 4n * 10n ** 14n,
    });
    expect(result).toEqual({
      nativeGasCost: 200_000n,
      gasPrice: 10n ** 9n,
      opStackL1GasCost: 0n,
      tokenGasCost: 2n * 10n ** 14n,
      gasFeeInToken: 500_000n,
      pct: 5n * 10n ** 14n,
      total: 500_000n,
    });
    expect(toGasFeeDetailsJson(result)).toEqual({
      nativeGasCost: "200000",
      opStackL1GasCost: "0",
      gasPrice: "1000000000",
      tokenGasCost: "200000000000000",
    });
  });
});

describe("quotedMessageFillGas", () => {
  it("adds 10 % to the simulation, rounding up so the quote never falls below it", () => {
    expect(quotedMessageFillGas(300_000n)).toBe(330_000n);
    expect(quotedMessageFillGas(1n)).toBe(2n);
    expect(quotedMessageFillGas(0n)).toBe(0n);
  });
});
