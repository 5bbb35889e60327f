import { describe, expect, it } from "vitest";
import { MAX_UINT256, WAD } from "./fixedPoint.ts";
import {
  computeLimits,
  DEFAULT_LIMITS_BUFFER_MULTIPLIER,
  DEFAULT_MAX_RELAY_FEE_PCT,
  effectiveBufferMultiplier,
  type LimitsInput,
  minDepositForFees,
  toTransferLimitsJson,
  usdToTokenAmount,
} from "./limits.ts";

describe("minDepositForFees", () => {
  it("is (gas + aux) * 1e18 / (0.25e18 - capitalPct)", () => {
    expect(DEFAULT_MAX_RELAY_FEE_PCT).toBe(250_000_000_000_000_000n);
    // 1000 * 1e18 / (2.5e17 - 1e14 = 249900000000000000) = 4001.6 → 4001
    expect(minDepositForFees({ gasFeeTotal: 1000n, capitalFeePct: 10n ** 14n })).toBe(4001n);
    // (1000 + 500) * 1e18 / 2.499e17 = 6002.4 → 6002
    expect(minDepositForFees({ gasFeeTotal: 1000n, auxFeeTotal: 500n, capitalFeePct: 10n ** 14n })).toBe(6002n);
    // custom 50% limit, no capital fee: 1000 * 1e18 / 5e17 = 2000
    expect(minDepositForFees({ gasFeeTotal: 1000n, capitalFeePct: 0n, maxRelayFeePct: WAD / 2n })).toBe(2000n);
  });

  it("is MAX_UINT256 when the capital fee alone reaches the limit", () => {
    expect(minDepositForFees({ gasFeeTotal: 1n, capitalFeePct: DEFAULT_MAX_RELAY_FEE_PCT })).toBe(MAX_UINT256);
    expect(minDepositForFees({ gasFeeTotal: 1n, capitalFeePct: MAX_UINT256 })).toBe(MAX_UINT256);
  });
});

describe("usdToTokenAmount", () => {
  it("converts a USD floor into token units", () => {
    // $1 of USDC at $0.9998: 1e6 * 1e18 / 9.998e17 = 1000200.04 → 1000200
    expect(usdToTokenAmount(WAD, 999_800_000_000_000_000n, 6)).toBe(1_000_200n);
    // $1 of ETH at $2,500: 1e18 * 1e18 / 2.5e21 = 4e14
    expect(usdToTokenAmount(WAD, 2_500n * WAD, 18)).toBe(4n * 10n ** 14n);
    // unknown price → no floor
    expect(usdToTokenAmount(WAD, 0n, 18)).toBe(0n);
  });
});

describe("effectiveBufferMultiplier", () => {
  it("defaults to 0.8 and is clamped to [0, 1]", () => {
    expect(effectiveBufferMultiplier()).toBe(DEFAULT_LIMITS_BUFFER_MULTIPLIER);
    expect(DEFAULT_LIMITS_BUFFER_MULTIPLIER).toBe(800_000_000_000_000_000n);
    expect(effectiveBufferMultiplier(2n * WAD)).toBe(WAD);
    expect(effectiveBufferMultiplier(-1n)).toBe(0n);
    expect(effectiveBufferMultiplier(WAD / 2n)).toBe(WAD / 2n);
  });
});

describe("computeLimits", () => {
  const base: LimitsInput = {
    minDepositFromFees: 50n,
    minDepositFloor: 70n,
    liquidReserves: 2000n,
    lpCushion: 500n,
    fullRelayerBalances: [100n, 300n],
    fullRelayerHubBalances: [1000n, 0n],
    transferRestrictedRelayerBalances: [250n],
  };

  it("default 0.8 multiplier, non-lite route", () => {
    // reserves after cushion: 2000 - 500 = 1500
    // instant = max(100, 300, 250) = 300 (≤ 1500); short delay = max(100+1000, 300+0, 250) = 1100 (≤ 1500)
    // buffered: 300 * 0.8 = 240; 1100 * 0.8 = 880; maxDeposit = buffered short delay = 880
    // minDeposit = min(880, max(50, 70)) = 70
    expect(computeLimits(base)).toEqual({
      minDeposit: 70n,
      maxDeposit: 880n,
      maxDepositInstant: 240n,
      maxDepositShortDelay: 880n,
      recommendedDepositInstant: 240n,
    });
  });

  it("multiplier 1 on a non-lite route: maxDeposit = liquid reserves (after cushion)", () => {
    expect(computeLimits({ ...base, bufferMultiplier: WAD })).toEqual({
      minDeposit: 70n,
      maxDeposit: 1500n,
      maxDepositInstant: 300n,
      maxDepositShortDelay: 1100n,
      recommendedDepositInstant: 300n,
    });
  });

  it("multiplier 1 with a chain boundary: maxDeposit = min(reserves, buffered short delay)", () => {
    // boundary 1000: short delay min(1100, 1000) = 1000 → maxDeposit = min(1500, 1000) = 1000
    expect(computeLimits({ ...base, bufferMultiplier: WAD, chainMaxBoundary: 1000n }).maxDeposit).toBe(1000n);
    // boundary 60 also caps the fee minimum and the floor: min(50, 60) = 50, min(70, 60) = 60 → max = 60;
    // the short delay is min(1100, 60) * 0.8 = 48 = maxDeposit, and minDeposit = min(48, 60) = 48
    expect(computeLimits({ ...base, chainMaxBoundary: 60n }).minDeposit).toBe(48n);
  });

  it("reserves cap the relayer-based limits", () => {
    // reserves 200 - cushion 0 = 200: instant min(300, 200) = 200 → 160; short min(1100, 200) = 200 → 160
    const limits = computeLimits({ ...base, liquidReserves: 200n, lpCushion: 0n });
    expect(limits.maxDepositInstant).toBe(160n);
    expect(limits.maxDepositShortDelay).toBe(160n);
    expect(limits.maxDeposit).toBe(160n);
  });

  it("a cushion above the reserves leaves 0", () => {
    const limits = computeLimits({ ...base, liquidReserves: 100n, lpCushion: 500n });
    expect(limits.maxDeposit).toBe(0n);
    expect(limits.minDeposit).toBe(0n);
  });

  it("lite routes ignore reserves and cushion, and never use reserves as maxDeposit", () => {
    // instant 300 → 240; short 1100 → 880 even though reserves (after cushion) would be 0
    const limits = computeLimits({ ...base, liquidReserves: 0n, routeInvolvesLiteChain: true });
    expect(limits.maxDepositInstant).toBe(240n);
    expect(limits.maxDeposit).toBe(880n);
    expect(computeLimits({ ...base, routeInvolvesLiteChain: true, bufferMultiplier: WAD }).maxDeposit).toBe(1100n);
  });

  it("the limit cap applies to every limit", () => {
    expect(computeLimits({ ...base, limitCap: 60n })).toEqual({
      minDeposit: 60n,
      maxDeposit: 60n,
      maxDepositInstant: 60n,
      maxDepositShortDelay: 60n,
      recommendedDepositInstant: 60n,
    });
  });

  it("minDeposit never exceeds maxDeposit", () => {
    expect(computeLimits({ ...base, minDepositFromFees: MAX_UINT256 }).minDeposit).toBe(880n);
  });

  it("no relayers → zero relayer limits", () => {
    const limits = computeLimits({ minDepositFromFees: 5n, liquidReserves: 1000n, fullRelayerBalances: [] });
    expect(limits.maxDepositInstant).toBe(0n);
    expect(limits.maxDeposit).toBe(0n);
    expect(limits.minDeposit).toBe(0n);
  });

  it("serializes as decimal strings", () => {
    expect(toTransferLimitsJson(computeLimits(base))).toEqual({
      minDeposit: "70",
      maxDeposit: "880",
      maxDepositInstant: "240",
      maxDepositShortDelay: "880",
      recommendedDepositInstant: "240",
    });
  });
});
