import { describe, expect, it } from "vitest";
import { WAD } from "./fixedPoint.ts";
import {
  apyFromUtilization,
  areaUnderRateCurve,
  computeLpFee,
  computeUtilizationPostRelay,
  DEFAULT_RATE_MODEL,
  instantaneousRate,
  lpFeePct,
  lpFeeTotal,
  parseL1TokenConfig,
  type RateModel,
  resolveRateModel,
  weeklyFeeFromApy,
} from "./lpFee.ts";

/** `n / d` as a 1e18-scaled bigint. */
const frac = (n: bigint, d: bigint) => (n * WAD) / d;

// README model: UBar 0.65, R0 0, R1 0.08, R2 1.0.
const model: RateModel = { UBar: frac(65n, 100n), R0: 0n, R1: frac(8n, 100n), R2: WAD };

describe("computeUtilizationPostRelay", () => {
  it("is (x + utilized) / (liquid + utilized)", () => {
    // (0 + 25) / (75 + 25) = 0.25
    expect(computeUtilizationPostRelay({ liquidReserves: 75n, utilizedReserves: 25n }, 0n)).toBe(frac(1n, 4n));
    // (25 + 25) / 100 = 0.5
    expect(computeUtilizationPostRelay({ liquidReserves: 75n, utilizedReserves: 25n }, 25n)).toBe(WAD / 2n);
  });

  it("clamps negative utilized reserves to 0", () => {
    // (10 + 0) / (100 + 0) = 0.1
    expect(computeUtilizationPostRelay({ liquidReserves: 100n, utilizedReserves: -50n }, 10n)).toBe(WAD / 10n);
  });

  it("returns 1e18 when the denominator is 0", () => {
    expect(computeUtilizationPostRelay({ liquidReserves: 0n, utilizedReserves: 0n }, 5n)).toBe(WAD);
    expect(computeUtilizationPostRelay({ liquidReserves: 0n, utilizedReserves: -3n }, 0n)).toBe(WAD);
  });

  it("truncates: 1/3 = 333333333333333333", () => {
    expect(computeUtilizationPostRelay({ liquidReserves: 3n, utilizedReserves: 0n }, 1n)).toBe(333333333333333333n);
  });
});

describe("instantaneousRate", () => {
  it("follows the kinked curve", () => {
    expect(instantaneousRate(model, 0n)).toBe(0n);
    // at the kink: R0 + R1 = 0.08
    expect(instantaneousRate(model, model.UBar)).toBe(frac(8n, 100n));
    // at 100%: R0 + R1 + R2 = 1.08
    expect(instantaneousRate(model, WAD)).toBe(frac(108n, 100n));
    // at 0.01: 0.01e18 * 0.08e18 / 0.65e18 = 1230769230769230.76… → 1230769230769230
    expect(instantaneousRate(model, WAD / 100n)).toBe(1230769230769230n);
  });

  it("treats a zero-width segment as contributing 0 instead of dividing by 0", () => {
    expect(instantaneousRate({ UBar: 0n, R0: 5n, R1: 7n, R2: WAD }, WAD / 2n)).toBe(5n + WAD / 2n);
    expect(instantaneousRate({ UBar: WAD, R0: 0n, R1: WAD, R2: WAD }, 2n * WAD)).toBe(WAD);
  });
});

describe("areaUnderRateCurve", () => {
  it("is a triangle below the kink", () => {
    // 0.5 * r(0.01) * 0.01 = 0.5 * 1230769230769230 * 0.01 → 6153846153846 (after two /1e18 truncations)
    expect(areaUnderRateCurve(model, WAD / 100n)).toBe(6153846153846n);
  });
});

describe("apyFromUtilization / lpFeePct (README model)", () => {
  it("matches the README example exactly: 0 → 0.01", () => {
    // numerator 6153846153846 * 1e18 / 0.01e18 = 615384615384600
    expect(apyFromUtilization(model, 0n, WAD / 100n)).toBe(615384615384600n);
    expect(weeklyFeeFromApy(615384615384600n)).toBe(11830749673498n);
    expect(lpFeePct(model, 0n, WAD / 100n)).toBe(11830749673498n);
  });

  // The anchor's own published test table for this model (utilA, utilB, apy, weekly).
  const vectors: Array<[bigint, bigint, bigint, bigint]> = [
    [0n, frac(50n, 100n), 30769230769230768n, 582965040710805n],
    [frac(50n, 100n), frac(51n, 100n), 62153846153846200n, 1160264449662626n],
    [frac(50n, 100n), frac(56n, 100n), 65230769230769233n, 1215959072035989n],
    [frac(50n, 100n), frac(50n, 100n) + 100n, 60000000000000000n, 1121183982821340n],
    [frac(60n, 100n), frac(70n, 100n), 114175824175824180n, 2081296752280018n],
    [frac(70n, 100n), frac(75n, 100n), 294285714285714280n, 4973074331615530n],
    [frac(70n, 100n), frac(70n, 100n) + 100n, 220000000000000000n, 3831376003126766n],
    [frac(95n, 100n), WAD, 1008571428571428580n, 13502339199904125n],
    [0n, frac(99n, 100n), 220548340548340547n, 3840050658887291n],
    [0n, WAD, 229000000000000000n, 3973273191633388n],
  ];
  it.each(vectors)("%s → %s gives apy %s, weekly %s", (a, b, apy, weekly) => {
    expect(apyFromUtilization(model, a, b)).toBe(apy);
    expect(lpFeePct(model, a, b)).toBe(weekly);
  });

  it("returns r(currentUt) when the utilizations are equal", () => {
    expect(apyFromUtilization(model, WAD, WAD)).toBe(frac(108n, 100n));
    expect(apyFromUtilization(model, 0n, 0n)).toBe(0n);
  });
});

describe("weeklyFeeFromApy", () => {
  it("is 0 for a 0 APY", () => {
    expect(weeklyFeeFromApy(0n)).toBe(0n);
  });

  it("is capped at 1e18", () => {
    // (1 + 1e30)^(1/52) - 1 ≈ 3.8 → capped to 100%
    expect(weeklyFeeFromApy(10n ** 48n)).toBe(WAD);
  });
});

describe("default rate model", () => {
  it("is UBar 0.01, all rates 0", () => {
    expect(DEFAULT_RATE_MODEL).toEqual({ UBar: WAD / 100n, R0: 0n, R1: 0n, R2: 0n });
  });

  it("yields a zero LP fee at any utilization", () => {
    expect(lpFeePct(DEFAULT_RATE_MODEL, 0n, WAD)).toBe(0n);
    const result = computeLpFee({
      amount: 10n ** 18n,
      inputDecimals: 18,
      l1Decimals: 18,
      reserves: { liquidReserves: 10n ** 18n, utilizedReserves: 0n },
    });
    expect(result.pct).toBe(0n);
    expect(result.total).toBe(0n);
  });
});

describe("resolveRateModel", () => {
  const route: RateModel = { UBar: WAD / 2n, R0: 1n, R1: 2n, R2: 3n };
  it("prefers the route override, then the token model, then the default", () => {
    expect(resolveRateModel({ rateModel: model, routeRateModel: { "1-10": route } }, 1, 10)).toBe(route);
    expect(resolveRateModel({ rateModel: model, routeRateModel: { "1-10": route } }, 10, 1)).toBe(model);
    expect(resolveRateModel(undefined, 1, 10)).toBe(DEFAULT_RATE_MODEL);
  });
});

describe("lpFeeTotal / computeLpFee", () => {
  it("lpFeeTotal = amount * pct / 1e18", () => {
    // 5 USDC: 5e6 * 11830749673498 / 1e18 = 59153748367490000000 / 1e18 = 59.15… → 59
    expect(lpFeeTotal(5_000_000n, 11830749673498n)).toBe(59n);
    // 1000e18 * 11830749673498 / 1e18 = 11830749673498000
    expect(lpFeeTotal(1000n * WAD, 11830749673498n)).toBe(11830749673498000n);
  });

  it("converts the amount to L1 decimals for the post-relay utilization", () => {
    // 1,000,000 USDC pool (6 decimals), nothing utilized; deposit of 10,000 USDC expressed with 18 decimals
    // (e.g. a BNB-chain USDC) → converted to 10,000e6 → utilization 0 → 0.01: the README interval.
    const result = computeLpFee({
      amount: 10_000n * WAD,
      inputDecimals: 18,
      l1Decimals: 6,
      reserves: { liquidReserves: 1_000_000n * 10n ** 6n, utilizedReserves: 0n },
      rateModel: model,
    });
    expect(result.currentUt).toBe(0n);
    expect(result.nextUt).toBe(WAD / 100n);
    expect(result.apy).toBe(615384615384600n);
    expect(result.pct).toBe(11830749673498n);
    // 10,000e18 * 11830749673498 / 1e18
    expect(result.total).toBe(10_000n * 11830749673498n);
  });
});

describe("parseL1TokenConfig (config store JSON)", () => {
  const model = { UBar: "650000000000000000", R0: "0", R1: "80000000000000000", R2: "1000000000000000000" };
  it("reads the rate model and the route overrides", () => {
    const config = parseL1TokenConfig(
      JSON.stringify({ rateModel: model, routeRateModel: { "1-10": { ...model, R0: 5 } } }),
    );
    expect(config?.rateModel).toEqual({ UBar: 65n * 10n ** 16n, R0: 0n, R1: 8n * 10n ** 16n, R2: 10n ** 18n });
    expect(resolveRateModel(config, 1, 10).R0).toBe(5n);
    expect(resolveRateModel(config, 10, 1).R0).toBe(0n);
  });
  it("falls back to the zero-fee default for empty, broken or partial configs", () => {
    for (const json of ["", "not json", "null", JSON.stringify({ rateModel: { ...model, R1: "-1" } })]) {
      expect(resolveRateModel(parseL1TokenConfig(json), 1, 10)).toEqual(DEFAULT_RATE_MODEL);
    }
  });
});
