import { convertDecimals, MAX_UINT256, maxBig, maxOf, minBig, WAD } from "./fixedPoint.ts";
import type { GasFeeDetailsJson } from "./gasFee.ts";
import type { HubPoolLiquidity } from "./lpFee.ts";
import type { RelayerFeeDetailsJson } from "./relayerFee.ts";

/**
 * Transfer limits (`/limits`, and `limits` of `/suggested-fees`).
 *
 * - minDeposit: the smallest amount whose gas fee stays within the fee limit (25%) once the capital fee is
 *   taken, floored by a USD minimum;
 * - maxDepositInstant / maxDepositShortDelay: what the known relayers can fill from their destination
 *   balances (plus hub-chain balances for the short delay), capped by the pool's liquid reserves;
 * - all scaled by a safety buffer multiplier (default 0.8) and capped by an optional per-token cap.
 */

/** 25% (the anchor's `maxRelayFeePct = 0.25`), 1e18-scaled. */
export const DEFAULT_MAX_RELAY_FEE_PCT = WAD / 4n;

/** 0.8, the default limits buffer multiplier, 1e18-scaled. */
export const DEFAULT_LIMITS_BUFFER_MULTIPLIER = (WAD * 8n) / 10n;

/** Inputs of {@link minDepositForFees}. */
export interface MinDepositForFeesInput {
  /** Gas fee total (token units) for the quoted amount. */
  gasFeeTotal: bigint;
  /** Extra fee totals that must also fit the limit (e.g. destination native top-up); default 0. */
  auxFeeTotal?: bigint;
  capitalFeePct: bigint;
  /** Default {@link DEFAULT_MAX_RELAY_FEE_PCT}. */
  maxRelayFeePct?: bigint;
}

/**
 * The fee-derived minimum deposit: `(gasFeeTotal + aux) * 1e18 / (maxRelayFeePct - capitalFeePct)`;
 * {@link MAX_UINT256} when the denominator is ≤ 0 (no amount can satisfy the limit).
 */
export function minDepositForFees(input: MinDepositForFeesInput): bigint {
  const denominator = (input.maxRelayFeePct ?? DEFAULT_MAX_RELAY_FEE_PCT) - input.capitalFeePct;
  if (denominator <= 0n) return MAX_UINT256;
  return ((input.gasFeeTotal + (input.auxFeeTotal ?? 0n)) * WAD) / denominator;
}

/**
 * A USD amount (1e18-scaled) in token units at `tokenPriceUsd` (1e18-scaled USD per token): the USD amount
 * is first truncated to the token's decimals, then `* 1e18 / price`. 0 when the price is ≤ 0.
 */
export function usdToTokenAmount(usdAmount: bigint, tokenPriceUsd: bigint, tokenDecimals: number): bigint {
  if (tokenPriceUsd <= 0n) return 0n;
  return (convertDecimals(usdAmount, 18, tokenDecimals) * WAD) / tokenPriceUsd;
}

/** The multiplier actually applied: default 0.8, clamped to [0, 1] (1e18-scaled). */
export function effectiveBufferMultiplier(multiplier?: bigint): bigint {
  if (multiplier === undefined) return DEFAULT_LIMITS_BUFFER_MULTIPLIER;
  return minBig(WAD, maxBig(0n, multiplier));
}

/** Inputs of {@link computeLimits}; every amount is in input token units. */
export interface LimitsInput {
  /** {@link minDepositForFees} of the quote. */
  minDepositFromFees: bigint;
  /** USD minimum deposit converted to token units (see {@link usdToTokenAmount}); default 0. */
  minDepositFloor?: bigint;
  /** HubPool liquid reserves of the token. */
  liquidReserves: bigint;
  /** Destination-chain balances of the full (auto-rebalancing) relayers. */
  fullRelayerBalances: readonly bigint[];
  /** Hub-chain balances of the same relayers, same order (0 when the destination is the hub chain). */
  fullRelayerHubBalances?: readonly bigint[];
  /** Destination-chain balances of the transfer-restricted relayers (funds stay put). */
  transferRestrictedRelayerBalances?: readonly bigint[];
  /** Routes touching a lite chain skip the reserves cap and never use liquidReserves as maxDeposit. */
  routeInvolvesLiteChain?: boolean;
  /** Reserves kept back for LPs (non-lite routes only); default 0. */
  lpCushion?: bigint;
  /** 1e18-scaled; default 0.8, clamped to [0, 1]. */
  bufferMultiplier?: bigint;
  /** Per-token cap applied to every limit; default none. */
  limitCap?: bigint;
  /** Origin-chain deposit boundary (lite chains' max balance/deposit) when one applies; default none. */
  chainMaxBoundary?: bigint;
}

/** The five limits, token units. */
export interface TransferLimits {
  minDeposit: bigint;
  maxDeposit: bigint;
  maxDepositInstant: bigint;
  maxDepositShortDelay: bigint;
  recommendedDepositInstant: bigint;
}

/** The limits as the API serializes them (decimal strings). */
export interface TransferLimitsJson {
  minDeposit: string;
  maxDeposit: string;
  maxDepositInstant: string;
  maxDepositShortDelay: string;
  recommendedDepositInstant: string;
}

/** Compute the five limits (see the module comment for the rules). */
export function computeLimits(input: LimitsInput): TransferLimits {
  const full = input.fullRelayerBalances;
  const hub = input.fullRelayerHubBalances ?? [];
  const restricted = input.transferRestrictedRelayerBalances ?? [];
  const lite = input.routeInvolvesLiteChain ?? false;

  let maxDepositInstant = maxOf([...full, ...restricted]);
  let maxDepositShortDelay = maxOf([...full.map((balance, i) => balance + (hub[i] ?? 0n)), ...restricted]);

  let liquidReserves = input.liquidReserves;
  if (!lite) {
    liquidReserves = maxBig(0n, liquidReserves - (input.lpCushion ?? 0n));
    maxDepositInstant = minBig(maxDepositInstant, liquidReserves);
    maxDepositShortDelay = minBig(maxDepositShortDelay, liquidReserves);
  }

  const boundary = input.chainMaxBoundary ?? MAX_UINT256;
  const minDepositFromFees = minBig(input.minDepositFromFees, boundary);
  const minDepositFloor = minBig(input.minDepositFloor ?? 0n, boundary);
  maxDepositInstant = minBig(maxDepositInstant, boundary);
  maxDepositShortDelay = minBig(maxDepositShortDelay, boundary);

  const multiplier = effectiveBufferMultiplier(input.bufferMultiplier);
  const bufferedInstant = (multiplier * maxDepositInstant) / WAD;
  const bufferedShortDelay = (multiplier * maxDepositShortDelay) / WAD;

  let maxDeposit = bufferedShortDelay;
  if (multiplier === WAD && !lite) {
    maxDeposit = input.chainMaxBoundary === undefined ? liquidReserves : minBig(liquidReserves, bufferedShortDelay);
  }
  const minDeposit = minBig(maxDeposit, maxBig(minDepositFromFees, minDepositFloor));

  const cap = input.limitCap ?? MAX_UINT256;
  return {
    minDeposit: minBig(minDeposit, cap),
    maxDeposit: minBig(maxDeposit, cap),
    maxDepositInstant: minBig(bufferedInstant, cap),
    maxDepositShortDelay: minBig(bufferedShortDelay, cap),
    recommendedDepositInstant: minBig(bufferedInstant, cap),
  };
}

/** Serialize limits as decimal strings. */
export function toTransferLimitsJson(limits: TransferLimits): TransferLimitsJson {
  return {
    minDeposit: limits.minDeposit.toString(),
    maxDeposit: limits.maxDeposit.toString(),
    maxDepositInstant: limits.maxDepositInstant.toString(),
    maxDepositShortDelay: limits.maxDepositShortDelay.toString(),
    recommendedDepositInstant: limits.recommendedDepositInstant.toString(),
  };
}

/** The `/limits` response body (before the HTTP layer adds an `id`). */
export interface LimitsResponseJson extends TransferLimitsJson {
  relayerFeeDetails: RelayerFeeDetailsJson;
  /** Omitted when the gas cost was not simulated (e.g. a message-bearing deposit). */
  gasFeeDetails?: GasFeeDetailsJson;
  reserves: { liquidReserves: string; utilizedReserves: string };
}

/** Assemble the `/limits` response from already computed (and serialized) parts. */
export function buildLimitsResponse(parts: {
  limits: TransferLimits;
  relayerFeeDetails: RelayerFeeDetailsJson;
  gasFeeDetails?: GasFeeDetailsJson;
  reserves: HubPoolLiquidity;
}): LimitsResponseJson {
  return {
    ...toTransferLimitsJson(parts.limits),
    relayerFeeDetails: parts.relayerFeeDetails,
    ...(parts.gasFeeDetails ? { gasFeeDetails: parts.gasFeeDetails } : {}),
    reserves: {
      liquidReserves: parts.reserves.liquidReserves.toString(),
      utilizedReserves: parts.reserves.utilizedReserves.toString(),
    },
  };
}
