/** Fee model of the crosschain service: LP, relayer capital and gas fees, limits, fill time, deadlines, quotes. */
export * from "./capitalFee.ts";
export * from "./deadlines.ts";
export {
  amountToUsd,
  computeSuggestedFees,
  type ExclusivityInput,
  type FeeJson,
  resolveExclusivity,
  type SuggestedFeesBreakdown,
  type SuggestedFeesError,
  type SuggestedFeesErrorCode,
  type SuggestedFeesInput,
  type SuggestedFeesResponse,
  type SuggestedFeesResult,
  type TokenInfo,
  ZERO_ADDRESS,
} from "./feeQuote.ts";
export * from "./fillTime.ts";
export * from "./fixedPoint.ts";
export * from "./gasFee.ts";
export * from "./limits.ts";
export * from "./lpFee.ts";
export * from "./relayerFee.ts";
