import { formatUnits } from "viem";
import type { CapitalCostConfig } from "./capitalFee.ts";
import { computeFillDeadline, DEFAULT_FILL_DEADLINE_BUFFER_SEC } from "./deadlines.ts";
import { estimateFillTimeSec, type FillTimeConfig } from "./fillTime.ts";
import { convertDecimals, pow10 } from "./fixedPoint.ts";
import { computeGasFee, type GasCostInput, type GasFeeResult, toGasFeeDetailsJson } from "./gasFee.ts";
import {
  buildLimitsResponse,
  computeLimits,
  type LimitsInput,
  type LimitsResponseJson,
  type TransferLimits,
  type TransferLimitsJson,
  toTransferLimitsJson,
  usdToTokenAmount,
} from "./limits.ts";
import { computeLpFee, type HubPoolLiquidity, type LpFeeResult, type RateModel } from "./lpFee.ts";
import { computeRelayerFeeDetails, type RelayerFeeDetails, toRelayerFeeDetailsJson } from "./relayerFee.ts";

export { convertDecimals } from "./fixedPoint.ts";

/**
 * Assemble a `/suggested-fees` quote from already-fetched inputs: LP fee + relayer capital fee + relayer gas
 * fee, limits, fill time, deadlines and exclusivity, serialized with the anchor's exact response keys.
 * Refusals (mismatched decimals, amount too high/low) come back as typed errors, never thrown.
 */

/** The zero address: "no exclusive relayer". */
export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** Token object of the response. */
export interface TokenInfo {
  address: string;
  symbol: string;
  decimals: number;
  chainId: number;
}

/** Suggested exclusivity for the deposit. */
export interface ExclusivityInput {
  exclusiveRelayer: string;
  /** Seconds of exclusivity; 0 disables it. */
  exclusivityPeriodSec: number;
  /** On chains that need an absolute deadline, the block time added to the period. */
  addTimestamp?: number;
}

/** Inputs of {@link computeSuggestedFees}; amounts are in input token units unless stated. */
export interface SuggestedFeesInput {
  amount: bigint;
  inputToken: TokenInfo;
  outputToken: TokenInfo;
  /** Required to quote tokens with different decimals. */
  allowUnmatchedDecimals?: boolean;
  /** Do not refuse amounts below `limits.minDeposit`. */
  skipAmountLimit?: boolean;

  /** HubPool reserves (L1 token units) at the quote block. */
  reserves: HubPoolLiquidity;
  /** Decimals of the HubPool token; default the input token's. */
  l1TokenDecimals?: number;
  /** Resolved rate model (route override applied); default: zero-fee model. */
  rateModel?: RateModel;

  /** Resolved capital cost curve of the input token for this route. */
  capitalCostConfig: CapitalCostConfig;
  /** Destination fill cost and the input token's price in the destination native token (1e18-scaled). */
  gas: GasCostInput & { tokenPriceInNative: bigint; nativeDecimals?: number };
  /** Fee limit, default 25%. */
  maxRelayFeePct?: bigint;

  /** Relayer balances and limit settings; liquid reserves come from `reserves`. */
  limits: Omit<LimitsInput, "minDepositFromFees" | "liquidReserves" | "minDepositFloor">;
  /** Input token price in USD (1e18-scaled), for the USD minimum deposit and the fill-time size. */
  tokenPriceUsd?: bigint;
  /** Global minimum deposit in USD (1e18-scaled); default none. */
  minDepositUsd?: bigint;

  /** Quote timestamp (HubPool time at the quote block, or the validated caller timestamp). */
  quoteTimestamp: number;
  quoteBlock: number | bigint;
  /** Default 7200 s. */
  fillDeadlineBufferSec?: number;
  exclusivity?: ExclusivityInput;
  fillTime?: FillTimeConfig;

  spokePoolAddress: string;
  destinationSpokePoolAddress: string;
}

/** `{pct,total}` pair of the response. */
export interface FeeJson {
  pct: string;
  total: string;
}

/** The `/suggested-fees` body (the HTTP layer adds `id`). Key order follows the anchor. */
export interface SuggestedFeesResponse {
  estimatedFillTimeSec: number;
  capitalFeePct: string;
  capitalFeeTotal: string;
  relayGasFeePct: string;
  relayGasFeeTotal: string;
  /** capital + gas + LP pct (legacy flat field). */
  relayFeePct: string;
  /** capital + gas + LP total (legacy flat field). */
  relayFeeTotal: string;
  /** Always "0": the LP fee is included in relayFeePct (backwards compatibility). */
  lpFeePct: "0";
  timestamp: string;
  isAmountTooLow: boolean;
  quoteBlock: string;
  exclusiveRelayer: string;
  /** Exclusivity period in seconds (or absolute when `addTimestamp` was given); 0 without exclusivity. */
  exclusivityDeadline: number;
  spokePoolAddress: string;
  destinationSpokePoolAddress: string;
  totalRelayFee: FeeJson;
  relayerCapitalFee: FeeJson;
  relayerGasFee: FeeJson;
  lpFee: FeeJson;
  limits: TransferLimitsJson;
  fillDeadline: string;
  outputAmount: string;
  inputToken: TokenInfo;
  outputToken: TokenInfo;
}

/** The numbers behind a quote, for callers that need bigints (e.g. the swap quote's bridge step). */
export interface SuggestedFeesBreakdown {
  lpFee: LpFeeResult;
  gasFee: GasFeeResult;
  relayerFeeDetails: RelayerFeeDetails;
  limits: TransferLimits;
  totalRelayFeePct: bigint;
  totalRelayFeeTotal: bigint;
  /** Output token units. */
  outputAmount: bigint;
  amountUsd: bigint;
  fillDeadline: number;
  exclusivityDeadline: number;
  estimatedFillTimeSec: number;
}

/** Error codes a quote can be refused with (all HTTP 400 in the anchor). */
export type SuggestedFeesErrorCode = "INVALID_PARAM" | "AMOUNT_TOO_HIGH" | "AMOUNT_TOO_LOW";

/** A refused quote. */
export interface SuggestedFeesError {
  code: SuggestedFeesErrorCode;
  message: string;
  param?: string;
}

/** Result of {@link computeSuggestedFees}. */
export type SuggestedFeesResult =
  | { ok: true; response: SuggestedFeesResponse; breakdown: SuggestedFeesBreakdown }
  | { ok: false; error: SuggestedFeesError };

/** Exclusive relayer and `exclusivityDeadline` of the response (zero address / 0 when disabled). */
export function resolveExclusivity(exclusivity?: ExclusivityInput): {
  exclusiveRelayer: string;
  exclusivityDeadline: number;
} {
  if (
    !exclusivity ||
    exclusivity.exclusivityPeriodSec <= 0 ||
    /^0x0{40}$/i.test(exclusivity.exclusiveRelayer) ||
    /^0x0{64}$/i.test(exclusivity.exclusiveRelayer)
  ) {
    return { exclusiveRelayer: ZERO_ADDRESS, exclusivityDeadline: 0 };
  }
  return {
    exclusiveRelayer: exclusivity.exclusiveRelayer,
    exclusivityDeadline: exclusivity.exclusivityPeriodSec + (exclusivity.addTimestamp ?? 0),
  };
}

/** USD value (1e18-scaled) of `amount` at `tokenPriceUsd` (1e18-scaled); 0 without a price. */
export function amountToUsd(amount: bigint, tokenPriceUsd: bigint | undefined, decimals: number): bigint {
  if (!tokenPriceUsd || tokenPriceUsd <= 0n) return 0n;
  return (amount * tokenPriceUsd) / pow10(decimals);
}

const fee = (pct: bigint, total: bigint): FeeJson => ({ pct: pct.toString(), total: total.toString() });
const tokenJson = (t: TokenInfo): TokenInfo => ({
  address: t.address,
  symbol: t.symbol,
  decimals: t.decimals,
  chainId: t.chainId,
});

/** The fee model's parts of a deposit (LP fee, gas fee, relayer fee details, limits), before any amount check. */
function computeFeeParts(input: SuggestedFeesInput) {
  const { amount, inputToken } = input;
  const l1Decimals = input.l1TokenDecimals ?? inputToken.decimals;
  const lpFee = computeLpFee({
    amount,
    inputDecimals: inputToken.decimals,
    l1Decimals,
    reserves: input.reserves,
    rateModel: input.rateModel,
  });
  const gasFee = computeGasFee({
    ...input.gas,
    amount,
    tokenDecimals: inputToken.decimals,
  });
  const relayerFeeDetails = computeRelayerFeeDetails({
    amount,
    capitalCostConfig: input.capitalCostConfig,
    gasFeeInToken: gasFee.gasFeeInToken,
    maxRelayFeePct: input.maxRelayFeePct,
  });
  const limits = computeLimits({
    ...input.limits,
    minDepositFromFees: relayerFeeDetails.minDeposit,
    minDepositFloor:
      input.minDepositUsd === undefined || input.tokenPriceUsd === undefined
        ? 0n
        : usdToTokenAmount(input.minDepositUsd, input.tokenPriceUsd, inputToken.decimals),
    liquidReserves: convertDecimals(input.reserves.liquidReserves, l1Decimals, inputToken.decimals),
  });
  return { lpFee, gasFee, relayerFeeDetails, limits };
}

/**
 * The anchor's `/limits` body for the deposit: the same limits `/suggested-fees` returns in `limits`, with the
 * relayer fee details, the gas cost behind them and the HubPool reserves. Never refused for its amount.
 */
export function computeLimitsResponse(input: SuggestedFeesInput): LimitsResponseJson {
  const { gasFee, relayerFeeDetails, limits } = computeFeeParts(input);
  return buildLimitsResponse({
    limits,
    relayerFeeDetails: toRelayerFeeDetailsJson(relayerFeeDetails),
    gasFeeDetails: toGasFeeDetailsJson(gasFee),
    reserves: input.reserves,
  });
}

/** Compute the whole fee quote (see {@link SuggestedFeesInput}); never throws for a refused quote. */
export function computeSuggestedFees(input: SuggestedFeesInput): SuggestedFeesResult {
  const { amount, inputToken, outputToken } = input;
  if (amount < 1n) {
    return {
      ok: false,
      error: { code: "INVALID_PARAM", param: "amount", message: "Amount must be a positive integer" },
    };
  }
  if (inputToken.decimals !== outputToken.decimals && !input.allowUnmatchedDecimals) {
    return {
      ok: false,
      error: {
        code: "INVALID_PARAM",
        param: "allowUnmatchedDecimals",
        message:
          `Decimals of input token (${inputToken.decimals}) and output token (${outputToken.decimals}) do not match. ` +
          "Set 'allowUnmatchedDecimals=true' to quote this route.",
      },
    };
  }

  const { lpFee, gasFee, relayerFeeDetails, limits } = computeFeeParts(input);

  if (amount > limits.maxDeposit) {
    return {
      ok: false,
      error: {
        code: "AMOUNT_TOO_HIGH",
        message: `Amount exceeds max. deposit limit: ${formatUnits(limits.maxDeposit, inputToken.decimals)} ${inputToken.symbol}`,
      },
    };
  }
  const isAmountTooLow = amount < limits.minDeposit;
  if (isAmountTooLow && !input.skipAmountLimit) {
    return { ok: false, error: { code: "AMOUNT_TOO_LOW", message: "Sent amount is too low relative to fees" } };
  }

  const totalRelayFeePct = relayerFeeDetails.relayFeePercent + lpFee.pct;
  const totalRelayFeeTotal = relayerFeeDetails.relayFeeTotal + lpFee.total;
  const outputAmount = convertDecimals(amount - totalRelayFeeTotal, inputToken.decimals, outputToken.decimals);
  const { exclusiveRelayer, exclusivityDeadline } = resolveExclusivity(input.exclusivity);
  const fillDeadline = computeFillDeadline(
    input.quoteTimestamp,
    input.fillDeadlineBufferSec ?? DEFAULT_FILL_DEADLINE_BUFFER_SEC,
  );
  const amountUsd = amountToUsd(amount, input.tokenPriceUsd, inputToken.decimals);
  const estimatedFillTimeSec = estimateFillTimeSec(
    {
      amount,
      maxDepositInstant: limits.maxDepositInstant,
      originChainId: inputToken.chainId,
      destinationChainId: outputToken.chainId,
      symbol: inputToken.symbol,
      amountUsd,
    },
    input.fillTime,
  );

  const response: SuggestedFeesResponse = {
    estimatedFillTimeSec,
    capitalFeePct: relayerFeeDetails.capitalFeePercent.toString(),
    capitalFeeTotal: relayerFeeDetails.capitalFeeTotal.toString(),
    relayGasFeePct: relayerFeeDetails.gasFeePercent.toString(),
    relayGasFeeTotal: relayerFeeDetails.gasFeeTotal.toString(),
    relayFeePct: totalRelayFeePct.toString(),
    relayFeeTotal: totalRelayFeeTotal.toString(),
    lpFeePct: "0",
    timestamp: String(input.quoteTimestamp),
    isAmountTooLow,
    quoteBlock: input.quoteBlock.toString(),
    exclusiveRelayer,
    exclusivityDeadline,
    spokePoolAddress: input.spokePoolAddress,
    destinationSpokePoolAddress: input.destinationSpokePoolAddress,
    totalRelayFee: fee(totalRelayFeePct, totalRelayFeeTotal),
    relayerCapitalFee: fee(relayerFeeDetails.capitalFeePercent, relayerFeeDetails.capitalFeeTotal),
    relayerGasFee: fee(relayerFeeDetails.gasFeePercent, relayerFeeDetails.gasFeeTotal),
    lpFee: fee(lpFee.pct, lpFee.total),
    limits: toTransferLimitsJson(limits),
    fillDeadline: String(fillDeadline),
    outputAmount: outputAmount.toString(),
    inputToken: tokenJson(inputToken),
    outputToken: tokenJson(outputToken),
  };

  return {
    ok: true,
    response,
    breakdown: {
      lpFee,
      gasFee,
      relayerFeeDetails,
      limits,
      totalRelayFeePct,
      totalRelayFeeTotal,
      outputAmount,
      amountUsd,
      fillDeadline,
      exclusivityDeadline,
      estimatedFillTimeSec,
    },
  };
}
