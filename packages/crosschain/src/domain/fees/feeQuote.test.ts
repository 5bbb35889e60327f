import { describe, expect, it } from "vitest";
import { DEFAULT_CAPITAL_COST_CONFIGS } from "./capitalFee.ts";
import {
  amountToUsd,
  computeLimitsResponse,
  computeSuggestedFees,
  convertDecimals,
  resolveExclusivity,
  type SuggestedFeesInput,
  ZERO_ADDRESS,
} from "./feeQuote.ts";
import { WAD } from "./fixedPoint.ts";

const WETH_1 = { address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", symbol: "ETH", decimals: 18, chainId: 1 };
const WETH_10 = { address: "0x4200000000000000000000000000000000000006", symbol: "ETH", decimals: 18, chainId: 10 };
const RELAYER = "0x394311A6Aaa0D8E3411D8b62DE4578D41322d1bD";

/**
 * Inputs chosen to reproduce the OpenAPI `/suggested-fees` example (1 WETH, 1 → 10):
 * - capital: WETH default curve at 1 ETH → 78750000000001 (see capitalFee.test.ts);
 * - gas: 2 units * 77512154001 wei at a 1:1 WETH price → 155024308002 wei = 155024308002 WETH units;
 * - LP: default (zero) rate model → 0;
 * - limits: multiplier 1, reserves 1661211802629989209324, one full relayer holding 231397155893653275446;
 *   USD floor $0.50 at $3,707.48 → 5e17 * 1e18 / 3.70748e21 = 134862494200912;
 * - deadlines: fillDeadline - timestamp = 11830 s; exclusivity 180 s on top of 1754342087.
 */
const example: SuggestedFeesInput = {
  amount: WAD,
  inputToken: WETH_1,
  outputToken: WETH_10,
  reserves: { liquidReserves: 1661211802629989209324n, utilizedReserves: 0n },
  capitalCostConfig: DEFAULT_CAPITAL_COST_CONFIGS.WETH!.default,
  gas: { nativeGasUnits: 2n, gasPrice: 77512154001n, tokenPriceInNative: WAD },
  limits: {
    fullRelayerBalances: [231397155893653275446n],
    fullRelayerHubBalances: [2_000n * WAD],
    bufferMultiplier: WAD,
  },
  tokenPriceUsd: 3_707_480_000_000_000_000_000n,
  minDepositUsd: WAD / 2n,
  quoteTimestamp: 1754342087,
  quoteBlock: 23070320,
  fillDeadlineBufferSec: 11830,
  exclusivity: { exclusiveRelayer: RELAYER, exclusivityPeriodSec: 180, addTimestamp: 1754342087 },
  fillTime: {
    table: [
      {
        destinationChains: ["10"],
        originChains: ["1"],
        tokenGroups: ["ETH"],
        maxSizeUsd: 10_000n * WAD,
        fillTimeSec: 2,
      },
    ],
  },
  spokePoolAddress: "0x5c7BCd6E7De5423a257D81B442095A1a6ced35C5",
  destinationSpokePoolAddress: "0x6f26Bf09B1C792e3228e5467807a900A503c0281",
};

describe("computeSuggestedFees", () => {
  it("reproduces the OpenAPI example response (minus the request id)", () => {
    const result = computeSuggestedFees(example);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.response).toEqual({
      estimatedFillTimeSec: 2,
      capitalFeePct: "78750000000001",
      capitalFeeTotal: "78750000000001",
      relayGasFeePct: "155024308002",
      relayGasFeeTotal: "155024308002",
      relayFeePct: "78905024308003",
      relayFeeTotal: "78905024308003",
      lpFeePct: "0",
      timestamp: "1754342087",
      isAmountTooLow: false,
      quoteBlock: "23070320",
      exclusiveRelayer: RELAYER,
      exclusivityDeadline: 1754342267,
      spokePoolAddress: "0x5c7BCd6E7De5423a257D81B442095A1a6ced35C5",
      destinationSpokePoolAddress: "0x6f26Bf09B1C792e3228e5467807a900A503c0281",
      totalRelayFee: { pct: "78905024308003", total: "78905024308003" },
      relayerCapitalFee: { pct: "78750000000001", total: "78750000000001" },
      relayerGasFee: { pct: "155024308002", total: "155024308002" },
      lpFee: { pct: "0", total: "0" },
      limits: {
        minDeposit: "134862494200912",
        maxDeposit: "1661211802629989209324",
        maxDepositInstant: "231397155893653275446",
        maxDepositShortDelay: "1661211802629989209324",
        recommendedDepositInstant: "231397155893653275446",
      },
      fillDeadline: "1754353917",
      // 1e18 - 78905024308003
      outputAmount: "999921094975691997",
      inputToken: WETH_1,
      outputToken: WETH_10,
    });
    // key order of the anchor's response
    expect(Object.keys(result.response)).toEqual([
      "estimatedFillTimeSec",
      "capitalFeePct",
      "capitalFeeTotal",
      "relayGasFeePct",
      "relayGasFeeTotal",
      "relayFeePct",
      "relayFeeTotal",
      "lpFeePct",
      "timestamp",
      "isAmountTooLow",
      "quoteBlock",
      "exclusiveRelayer",
      "exclusivityDeadline",
      "spokePoolAddress",
      "destinationSpokePoolAddress",
      "totalRelayFee",
      "relayerCapitalFee",
      "relayerGasFee",
      "lpFee",
      "limits",
      "fillDeadline",
      "outputAmount",
      "inputToken",
      "outputToken",
    ]);
    expect(result.breakdown.outputAmount).toBe(999921094975691997n);
    // $3,707.48 for 1 ETH
    expect(result.breakdown.amountUsd).toBe(3_707_480_000_000_000_000_000n);
  });

  it("adds the LP fee into the totals", () => {
    // README model; 1 ETH into a 100 ETH idle pool moves utilization 0 → 0.01 → weekly fee 11830749673498
    const result = computeSuggestedFees({
      ...example,
      reserves: { liquidReserves: 100n * WAD, utilizedReserves: 0n },
      rateModel: { UBar: (65n * WAD) / 100n, R0: 0n, R1: (8n * WAD) / 100n, R2: WAD },
    });
    if (!result.ok) throw new Error(result.error.message);
    const r = result.response;
    expect(r.lpFee).toEqual({ pct: "11830749673498", total: "11830749673498" });
    // 78905024308003 + 11830749673498 = 90735773981501
    expect(r.totalRelayFee).toEqual({ pct: "90735773981501", total: "90735773981501" });
    expect(r.relayFeePct).toBe("90735773981501");
    expect(r.relayFeeTotal).toBe("90735773981501");
    expect(r.lpFeePct).toBe("0");
    // 1e18 - 90735773981501
    expect(r.outputAmount).toBe("999909264226018499");
    // multiplier 1 → maxDeposit = reserves (100 ETH)
    expect(r.limits.maxDeposit).toBe("100000000000000000000");
  });

  it("refuses mismatched decimals unless allowed, and converts the output amount (floor)", () => {
    const usdc6 = { address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", symbol: "USDC", decimals: 6, chainId: 1 };
    const usdc18 = { address: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", symbol: "USDC", decimals: 18, chainId: 56 };
    const usdcInput: SuggestedFeesInput = {
      ...example,
      amount: 1_000n * 10n ** 6n,
      inputToken: usdc6,
      outputToken: usdc18,
      reserves: { liquidReserves: 10_000_000n * 10n ** 6n, utilizedReserves: 0n },
      capitalCostConfig: DEFAULT_CAPITAL_COST_CONFIGS.USDC!.default,
      // 2e14 wei of gas at 0.0004 ETH per USDC → 0.5 USDC
      gas: { nativeGasUnits: 200_000n, gasPrice: 10n ** 9n, tokenPriceInNative: 4n * 10n ** 14n },
      limits: { fullRelayerBalances: [1_000_000n * 10n ** 6n] },
      tokenPriceUsd: WAD,
      minDepositUsd: undefined,
      exclusivity: undefined,
    };
    const refused = computeSuggestedFees(usdcInput);
    expect(refused).toMatchObject({ ok: false, error: { code: "INVALID_PARAM", param: "allowUnmatchedDecimals" } });

    const result = computeSuggestedFees({ ...usdcInput, allowUnmatchedDecimals: true });
    if (!result.ok) throw new Error(result.error.message);
    // capital 1 bp of 1,000 USDC = 100000; gas 500000 → total 600000 (0.6 USDC)
    expect(result.response.relayerCapitalFee).toEqual({ pct: "100000000000000", total: "100000" });
    expect(result.response.relayerGasFee).toEqual({ pct: "500000000000000", total: "500000" });
    expect(result.response.totalRelayFee.total).toBe("600000");
    // (1e9 - 600000) = 999400000 (6 dec) → 999.4e18 (18 dec)
    expect(result.response.outputAmount).toBe("999400000000000000000");
    expect(result.response.exclusiveRelayer).toBe(ZERO_ADDRESS);
    expect(result.response.exclusivityDeadline).toBe(0);
    // no USDC table row → default 10 s; fill deadline uses the example's 11830 s buffer
    expect(result.response.estimatedFillTimeSec).toBe(10);
    expect(result.response.fillDeadline).toBe(String(1754342087 + 11830));
  });

  it("refuses an amount above maxDeposit with the anchor's message", () => {
    expect(computeSuggestedFees({ ...example, amount: 1661211802629989209325n })).toEqual({
      ok: false,
      error: { code: "AMOUNT_TOO_HIGH", message: "Amount exceeds max. deposit limit: 1661.211802629989209324 ETH" },
    });
  });

  it("refuses an amount below minDeposit unless skipAmountLimit", () => {
    const tooLow = { ...example, amount: 134862494200911n };
    expect(computeSuggestedFees(tooLow)).toEqual({
      ok: false,
      error: { code: "AMOUNT_TOO_LOW", message: "Sent amount is too low relative to fees" },
    });
    const skipped = computeSuggestedFees({ ...tooLow, skipAmountLimit: true });
    expect(skipped.ok && skipped.response.isAmountTooLow).toBe(true);
  });

  it("rejects a non-positive amount", () => {
    expect(computeSuggestedFees({ ...example, amount: 0n })).toMatchObject({
      ok: false,
      error: { code: "INVALID_PARAM", param: "amount" },
    });
  });

  it("reports the rebalance time when the amount exceeds the instant limit", () => {
    const result = computeSuggestedFees({ ...example, amount: 231397155893653275447n });
    expect(result.ok && result.response.estimatedFillTimeSec).toBe(900);
  });
});

describe("computeLimitsResponse", () => {
  it("reports the limits the quote returns, with their fee details and reserves, for any amount", () => {
    const quote = computeSuggestedFees(example);
    if (!quote.ok) throw new Error(quote.error.message);
    const limits = computeLimitsResponse(example);
    expect(limits).toEqual({
      ...quote.response.limits,
      relayerFeeDetails: {
        relayFeeTotal: quote.response.relayFeeTotal,
        relayFeePercent: quote.response.relayFeePct,
        gasFeeTotal: quote.response.relayGasFeeTotal,
        gasFeePercent: quote.response.relayGasFeePct,
        capitalFeeTotal: quote.response.capitalFeeTotal,
        capitalFeePercent: quote.response.capitalFeePct,
      },
      gasFeeDetails: {
        nativeGasCost: "2",
        opStackL1GasCost: "0",
        gasPrice: "77512154001",
        tokenGasCost: "155024308002",
      },
      reserves: { liquidReserves: "1661211802629989209324", utilizedReserves: "0" },
    });
    // An amount the quote refuses (above maxDeposit, below minDeposit) still has limits.
    const above = BigInt(limits.maxDeposit) + 1n;
    expect(computeSuggestedFees({ ...example, amount: above }).ok).toBe(false);
    expect(computeLimitsResponse({ ...example, amount: above }).maxDeposit).toBe(limits.maxDeposit);
    expect(computeLimitsResponse({ ...example, amount: 1n }).minDeposit).toBe(limits.minDeposit);
  });
});

describe("helpers", () => {
  it("convertDecimals floors when scaling down and multiplies when scaling up", () => {
    expect(convertDecimals(1_999_999n, 6, 0)).toBe(1n);
    expect(convertDecimals(999_999_999_999n, 18, 6)).toBe(0n);
    expect(convertDecimals(1_234_567n, 6, 18)).toBe(1_234_567_000_000_000_000n);
    expect(convertDecimals(42n, 8, 8)).toBe(42n);
  });

  it("resolveExclusivity disables zero relayers and zero periods", () => {
    expect(resolveExclusivity(undefined)).toEqual({ exclusiveRelayer: ZERO_ADDRESS, exclusivityDeadline: 0 });
    expect(resolveExclusivity({ exclusiveRelayer: ZERO_ADDRESS, exclusivityPeriodSec: 10 })).toEqual({
      exclusiveRelayer: ZERO_ADDRESS,
      exclusivityDeadline: 0,
    });
    expect(resolveExclusivity({ exclusiveRelayer: RELAYER, exclusivityPeriodSec: 0 }).exclusivityDeadline).toBe(0);
    expect(resolveExclusivity({ exclusiveRelayer: RELAYER, exclusivityPeriodSec: 10 })).toEqual({
      exclusiveRelayer: RELAYER,
      exclusivityDeadline: 10,
    });
  });

  it("amountToUsd values an amount at a 1e18 USD price", () => {
    // 2.5 USDC at $1.0 = 2.5e18
    expect(amountToUsd(2_500_000n, WAD, 6)).toBe(2_500_000_000_000_000_000n);
    expect(amountToUsd(2_500_000n, undefined, 6)).toBe(0n);
  });
});
