import { describe, expect, it } from "vitest";
import { DEFAULT_CAPITAL_COST_CONFIGS } from "./capitalFee.ts";
import { MAX_UINT256, WAD } from "./fixedPoint.ts";
import { computeGasFee, toGasFeeDetailsJson } from "./gasFee.ts";
import { buildLimitsResponse, computeLimits } from "./limits.ts";
import { computeRelayerFeeDetails, toRelayerFeeDetailsJson } from "./relayerFee.ts";

const USDC = DEFAULT_CAPITAL_COST_CONFIGS.USDC!.default;

describe("computeRelayerFeeDetails", () => {
  it("adds capital and gas fees and derives the minimum deposit", () => {
    // 1,000 USDC, gas 0.5 USDC:
    // gas pct = 500000 * 1e18 / 1e9 = 5e14, total 500000; capital 1 bp → pct 1e14, total 100000
    // minDeposit = 500000 * 1e18 / (2.5e17 - 1e14) = 500000 / 0.2499 = 2000800.32 → 2000800 (2.0008 USDC)
    const details = computeRelayerFeeDetails({
      amount: 1_000n * 10n ** 6n,
      capitalCostConfig: USDC,
      gasFeeInToken: 500_000n,
    });
    expect(details).toEqual({
      gasFeePercent: 5n * 10n ** 14n,
      gasFeeTotal: 500_000n,
      capitalFeePercent: 10n ** 14n,
      capitalFeeTotal: 100_000n,
      relayFeePercent: 6n * 10n ** 14n,
      relayFeeTotal: 600_000n,
      minDeposit: 2_000_800n,
      isAmountTooLow: false,
    });
    expect(toRelayerFeeDetailsJson(details)).toEqual({
      relayFeeTotal: "600000",
      relayFeePercent: "600000000000000",
      gasFeeTotal: "500000",
      gasFeePercent: "500000000000000",
      capitalFeeTotal: "100000",
      capitalFeePercent: "100000000000000",
    });
  });

  it("flags an amount whose gas fee exceeds the limit", () => {
    // 1 USDC with 0.5 USDC of gas: gas pct 50% > 25% - 1 bp
    // gas pct = 500000 * 1e18 / 1e6 = 5e17; minDeposit = 500000 * 1e18 / 2.499e17 = 2000800
    const details = computeRelayerFeeDetails({ amount: 10n ** 6n, capitalCostConfig: USDC, gasFeeInToken: 500_000n });
    expect(details.gasFeePercent).toBe(WAD / 2n);
    expect(details.minDeposit).toBe(2_000_800n);
    expect(details.isAmountTooLow).toBe(true);
  });

  it("a zero amount yields MAX pcts and an infinite minimum", () => {
    const details = computeRelayerFeeDetails({ amount: 0n, capitalCostConfig: USDC, gasFeeInToken: 1n });
    expect(details.capitalFeePercent).toBe(MAX_UINT256);
    expect(details.minDeposit).toBe(MAX_UINT256);
    expect(details.isAmountTooLow).toBe(true);
  });
});

describe("buildLimitsResponse", () => {
  it("assembles the /limits body", () => {
    const gas = computeGasFee({
      nativeGasUnits: 137265n,
      gasPrice: 1000740n,
      opStackL1GasCost: 3993981356n,
      amount: 100n,
      tokenDecimals: 18,
      tokenPriceInNative: WAD,
    });
    const details = computeRelayerFeeDetails({
      amount: 100n,
      capitalCostConfig: { lowerBound: 0n, upperBound: 0n, cutoff: 0n, decimals: 18 },
      gasFeeInToken: gas.gasFeeInToken,
    });
    const limits = computeLimits({
      minDepositFromFees: details.minDeposit,
      liquidReserves: 1000n * WAD,
      fullRelayerBalances: [10n * WAD],
    });
    const body = buildLimitsResponse({
      limits,
      relayerFeeDetails: toRelayerFeeDetailsJson(details),
      gasFeeDetails: toGasFeeDetailsJson(gas),
      reserves: { liquidReserves: 1000n * WAD, utilizedReserves: -5n },
    });
    expect(body).toEqual({
      // 141360557456 * 1e18 / 2.5e17 = 565442229824
      minDeposit: "565442229824",
      maxDeposit: "8000000000000000000",
      maxDepositInstant: "8000000000000000000",
      maxDepositShortDelay: "8000000000000000000",
      recommendedDepositInstant: "8000000000000000000",
      relayerFeeDetails: {
        relayFeeTotal: "141360557456",
        relayFeePercent: "1413605574560000000000000000",
        gasFeeTotal: "141360557456",
        gasFeePercent: "1413605574560000000000000000",
        capitalFeeTotal: "0",
        capitalFeePercent: "0",
      },
      gasFeeDetails: {
        nativeGasCost: "137265",
        opStackL1GasCost: "3993981356",
        gasPrice: "1000740",
        tokenGasCost: "141360557456",
      },
      reserves: { liquidReserves: "1000000000000000000000", utilizedReserves: "-5" },
    });
    expect(
      "gasFeeDetails" in
        buildLimitsResponse({
          limits,
          relayerFeeDetails: toRelayerFeeDetailsJson(details),
          reserves: { liquidReserves: 0n, utilizedReserves: 0n },
        }),
    ).toBe(false);
  });
});
