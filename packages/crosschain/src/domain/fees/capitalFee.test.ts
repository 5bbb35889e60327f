import { describe, expect, it } from "vitest";
import {
  type CapitalCostConfig,
  capitalCostConfigFromHuman,
  capitalFeePercent,
  capitalFeeTotal,
  DEFAULT_CAPITAL_COST_CONFIGS,
  findTokenCapitalCostConfig,
  resolveCapitalCostConfig,
  selectCapitalCostConfig,
  type TokenCapitalCostConfig,
} from "./capitalFee.ts";
import { MAX_UINT256, WAD } from "./fixedPoint.ts";

const defaultOf = (symbol: string): CapitalCostConfig => {
  const config = findTokenCapitalCostConfig(DEFAULT_CAPITAL_COST_CONFIGS, symbol);
  if (!config) throw new Error(`no config for ${symbol}`);
  return config.default;
};

describe("DEFAULT_CAPITAL_COST_CONFIGS", () => {
  it("holds the anchor's defaults (1e18-scaled, cutoff in 18 decimals)", () => {
    expect(defaultOf("USDC")).toEqual({
      lowerBound: 10n ** 14n,
      upperBound: 10n ** 14n,
      cutoff: 100_000n * WAD,
      decimals: 6,
    });
    expect(defaultOf("USDT")).toEqual({
      lowerBound: 10n ** 14n,
      upperBound: 10n ** 14n,
      cutoff: 1_500_000n * WAD,
      decimals: 6,
    });
    expect(defaultOf("DAI")).toEqual({
      lowerBound: 10n ** 14n,
      upperBound: 10n ** 14n,
      cutoff: 1_500_000n * WAD,
      decimals: 18,
    });
    const eth = { lowerBound: 10n ** 14n, upperBound: 75n * 10n ** 12n, cutoff: 3n * 10n ** 17n, decimals: 18 };
    expect(defaultOf("WETH")).toEqual(eth);
    expect(defaultOf("ETH")).toEqual(eth);
    expect(defaultOf("WBTC")).toEqual({
      lowerBound: 3n * 10n ** 14n,
      upperBound: 25n * 10n ** 14n,
      cutoff: 10n * WAD,
      decimals: 8,
    });
  });

  it("is looked up case-insensitively", () => {
    expect(findTokenCapitalCostConfig(DEFAULT_CAPITAL_COST_CONFIGS, "weth")).toBe(DEFAULT_CAPITAL_COST_CONFIGS.WETH);
    expect(findTokenCapitalCostConfig(DEFAULT_CAPITAL_COST_CONFIGS, "NOPE")).toBeUndefined();
  });
});

describe("capitalFeePercent", () => {
  it("is MAX_UINT256 for a zero amount", () => {
    expect(capitalFeePercent(0n, defaultOf("WETH"))).toBe(MAX_UINT256);
    expect(capitalFeeTotal(0n, MAX_UINT256)).toBe(0n);
  });

  it("WETH, 1 ETH (above the 0.3 cutoff) — the OpenAPI example's capitalFeePct", () => {
    // y = 1e18; lower = 1e14; upper - lower = 7.5e13 - 1e14 = -2.5e13
    // minCharge = 1e14 * 1e18 / 1e18                    = 100000000000000
    // slope     = -2.5e13 * 1e18 / 3e17 = -83333333333333.3 → -83333333333333 (toward zero)
    // yT = 3e17; height = -83333333333333 * 3e17 / 1e18 = -24999999999999.9 → -24999999999999
    // triangle  = -24999999999999 * 3e17 / 2e18 = -3749999999999.85 → -3749999999999
    // rem       = (1e18 - 3e17) * -2.5e13 / 1e18         = -17500000000000
    // sum = 100000000000000 - 3749999999999 - 17500000000000 = 78750000000001; pct = sum * 1e18 / 1e18
    expect(capitalFeePercent(WAD, defaultOf("WETH"))).toBe(78750000000001n);
    expect(capitalFeeTotal(WAD, 78750000000001n)).toBe(78750000000001n);
  });

  it("WETH, 0.1 ETH (below the cutoff)", () => {
    // y = 1e17; minCharge = 1e14 * 1e17 / 1e18 = 1e13
    // height = -83333333333333 * 1e17 / 1e18 = -8333333333333.3 → -8333333333333
    // triangle = -8333333333333 * 1e17 / 2e18 = -416666666666.65 → -416666666666; rem = 0
    // sum = 10000000000000 - 416666666666 = 9583333333334; pct = 9583333333334 * 1e18 / 1e17 = 95833333333340
    expect(capitalFeePercent(10n ** 17n, defaultOf("WETH"))).toBe(95833333333340n);
    // total = 95833333333340 * 1e17 / 1e18 = 9583333333334
    expect(capitalFeeTotal(10n ** 17n, 95833333333340n)).toBe(9583333333334n);
  });

  it("USDC is a flat 1 bp, below and above the cutoff", () => {
    // 1,000 USDC: y = 1e9 * 1e12 = 1e21; minCharge = 1e14 * 1e21 / 1e18 = 1e17; slope = 0; rem = 0
    // pct = 1e17 * 1e18 / 1e21 = 1e14
    expect(capitalFeePercent(1_000n * 10n ** 6n, defaultOf("USDC"))).toBe(10n ** 14n);
    // 200,000 USDC: y = 2e23 > cutoff 1e23; rem = 1e23 * 0 / 1e18 = 0; pct = 2e19 * 1e18 / 2e23 = 1e14
    expect(capitalFeePercent(200_000n * 10n ** 6n, defaultOf("USDC"))).toBe(10n ** 14n);
    // total for 1,000 USDC: 1e9 * 1e14 / 1e18 = 100000 (0.10 USDC)
    expect(capitalFeeTotal(1_000n * 10n ** 6n, 10n ** 14n)).toBe(100_000n);
  });

  it("WBTC, 1 BTC (below the 10 BTC cutoff)", () => {
    // y = 1e8 * 1e10 = 1e18; minCharge = 3e14
    // slope = (2.5e15 - 3e14) * 1e18 / 1e19 = 2.2e14; height = 2.2e14 * 1e18 / 1e18 = 2.2e14
    // triangle = 2.2e14 * 1e18 / 2e18 = 1.1e14; rem = 0
    // pct = (3e14 + 1.1e14) * 1e18 / 1e18 = 4.1e14 (0.041%)
    expect(capitalFeePercent(10n ** 8n, defaultOf("WBTC"))).toBe(410_000_000_000_000n);
  });

  it("WBTC, 20 BTC (above the cutoff)", () => {
    // y = 2e19; minCharge = 3e14 * 2e19 / 1e18 = 6e15
    // yT = 1e19; height = 2.2e14 * 1e19 / 1e18 = 2.2e15; triangle = 2.2e15 * 1e19 / 2e18 = 1.1e16
    // rem = (2e19 - 1e19) * 2.2e15 / 1e18 = 2.2e16
    // pct = (6e15 + 1.1e16 + 2.2e16) * 1e18 / 2e19 = 3.9e16 / 20 = 1.95e15 (0.195%)
    expect(capitalFeePercent(20n * 10n ** 8n, defaultOf("WBTC"))).toBe(1_950_000_000_000_000n);
  });

  it("a zero cutoff means a zero slope (everything is remainder)", () => {
    const config: CapitalCostConfig = { lowerBound: 10n ** 14n, upperBound: 5n * 10n ** 14n, cutoff: 0n, decimals: 18 };
    // y = 1e18; minCharge = 1e14; triangle = 0; rem = 1e18 * 4e14 / 1e18 = 4e14; pct = 5e14
    expect(capitalFeePercent(WAD, config)).toBe(5n * 10n ** 14n);
  });

  it("rejects unusable decimals", () => {
    expect(() => capitalFeePercent(1n, { ...defaultOf("USDC"), decimals: 0 })).toThrow(/invalid decimals/);
    expect(() => capitalFeePercent(1n, { ...defaultOf("USDC"), decimals: 19 })).toThrow(/invalid decimals/);
  });
});

describe("override order", () => {
  const curve = (bp: bigint): CapitalCostConfig => ({
    lowerBound: bp * 10n ** 14n,
    upperBound: bp * 10n ** 14n,
    cutoff: 0n,
    decimals: 6,
  });
  const token: TokenCapitalCostConfig = {
    default: curve(1n),
    originChainOverrides: { "10": curve(2n), "8453": curve(2n) },
    destinationChainOverrides: { "42161": curve(3n), "8453": curve(3n) },
    routeOverrides: { "10": { "42161": curve(4n) } },
  };

  it("route → destination chain → origin chain → default", () => {
    expect(selectCapitalCostConfig(token, 10, 42161)).toEqual(curve(4n)); // route
    expect(selectCapitalCostConfig(token, 1, 42161)).toEqual(curve(3n)); // destination
    expect(selectCapitalCostConfig(token, 10, 8453)).toEqual(curve(3n)); // destination beats origin
    expect(selectCapitalCostConfig(token, 8453, 1)).toEqual(curve(2n)); // origin
    expect(selectCapitalCostConfig(token, 1, 137)).toEqual(curve(1n)); // default
  });

  it("resolveCapitalCostConfig combines the symbol lookup and the override order", () => {
    expect(resolveCapitalCostConfig({ TKN: token }, "tkn", "10", "42161")).toEqual(curve(4n));
    expect(resolveCapitalCostConfig({ TKN: token }, "OTHER", 10, 42161)).toBeUndefined();
  });

  it("capitalCostConfigFromHuman parses decimal strings to 1e18 fixed point", () => {
    expect(capitalCostConfigFromHuman({ lowerBound: "0.0003", upperBound: "0.0025", cutoff: "10" }, 8)).toEqual(
      defaultOf("WBTC"),
    );
  });
});
