import { applyPct, MAX_UINT256, maxBig, minBig, parseFixed, pow10, WAD } from "./fixedPoint.ts";

/**
 * Relayer capital fee: what a relayer charges for fronting its own capital.
 *
 * The marginal fee rate rises linearly from `lowerBound` to `upperBound` over `[0, cutoff]` and stays at
 * `upperBound` after it; the fee pct is the average marginal rate over the amount (the anchor's
 * `capitalFeePercent`).
 */

/** Curve of one token; bounds are 1e18-scaled pcts, `cutoff` is an amount with 18 decimals. */
export interface CapitalCostConfig {
  lowerBound: bigint;
  upperBound: bigint;
  /** Amount (scaled to 18 decimals, whatever the token's decimals) where the marginal rate reaches upperBound. */
  cutoff: bigint;
  /** The token's decimals: amounts are scaled by 10^(18 - decimals) before applying the curve. */
  decimals: number;
}

/** A token's default curve plus overrides. Chain ids are object keys (decimal strings). */
export interface TokenCapitalCostConfig {
  default: CapitalCostConfig;
  /** `routeOverrides[originChainId][destinationChainId]`. */
  routeOverrides?: Readonly<Record<string, Readonly<Record<string, CapitalCostConfig>>>>;
  destinationChainOverrides?: Readonly<Record<string, CapitalCostConfig>>;
  originChainOverrides?: Readonly<Record<string, CapitalCostConfig>>;
}

/** Capital cost configs keyed by token symbol (looked up case-insensitively). */
export type CapitalCostConfigTable = Readonly<Record<string, TokenCapitalCostConfig>>;

/** Build a curve from human-readable numbers, e.g. `{lowerBound:"0.0001", upperBound:"0.000075", cutoff:"0.3"}`. */
export function capitalCostConfigFromHuman(
  human: { lowerBound: string; upperBound: string; cutoff: string },
  decimals: number,
): CapitalCostConfig {
  return {
    lowerBound: parseFixed(human.lowerBound),
    upperBound: parseFixed(human.upperBound),
    cutoff: parseFixed(human.cutoff),
    decimals,
  };
}

/** Throws a RangeError when a curve cannot be evaluated (decimals outside 1..18, negative values). */
export function validateCapitalCostConfig(config: CapitalCostConfig): void {
  if (!Number.isInteger(config.decimals) || config.decimals < 1 || config.decimals > 18) {
    throw new RangeError(`invalid decimals: ${config.decimals}`);
  }
  if (config.lowerBound < 0n || config.upperBound < 0n || config.cutoff < 0n) {
    throw new RangeError("capital cost bounds and cutoff must be non-negative");
  }
}

const human = capitalCostConfigFromHuman;
const stableFlat = { lowerBound: "0.0001", upperBound: "0.0001" };
const ethCurve = { lowerBound: "0.0001", upperBound: "0.000075", cutoff: "0.3" };

/**
 * The anchor's default curves: USDC/USDT/DAI a flat 1 bp; WETH/ETH 1 bp falling to 0.75 bp at 0.3;
 * WBTC 3 bp rising to 25 bp at 10.
 */
export const DEFAULT_CAPITAL_COST_CONFIGS: CapitalCostConfigTable = Object.freeze({
  ETH: { default: human(ethCurve, 18) },
  WETH: { default: human(ethCurve, 18) },
  WBTC: { default: human({ lowerBound: "0.0003", upperBound: "0.0025", cutoff: "10" }, 8) },
  DAI: { default: human({ ...stableFlat, cutoff: "1500000" }, 18) },
  USDC: { default: human({ ...stableFlat, cutoff: "100000" }, 6) },
  USDT: { default: human({ ...stableFlat, cutoff: "1500000" }, 6) },
});

/** The config entry of a symbol (case-insensitive), or undefined. */
export function findTokenCapitalCostConfig(
  table: CapitalCostConfigTable,
  symbol: string,
): TokenCapitalCostConfig | undefined {
  const exact = table[symbol];
  if (exact) return exact;
  const upper = symbol.toUpperCase();
  for (const [key, value] of Object.entries(table)) if (key.toUpperCase() === upper) return value;
  return undefined;
}

/** Pick the curve for a route: route override → destination chain → origin chain → default. */
export function selectCapitalCostConfig(
  tokenConfig: TokenCapitalCostConfig,
  originChainId: number | string,
  destinationChainId: number | string,
): CapitalCostConfig {
  const origin = String(originChainId);
  const destination = String(destinationChainId);
  return (
    tokenConfig.routeOverrides?.[origin]?.[destination] ??
    tokenConfig.destinationChainOverrides?.[destination] ??
    tokenConfig.originChainOverrides?.[origin] ??
    tokenConfig.default
  );
}

/** {@link findTokenCapitalCostConfig} + {@link selectCapitalCostConfig}; undefined when the symbol has no config. */
export function resolveCapitalCostConfig(
  table: CapitalCostConfigTable,
  symbol: string,
  originChainId: number | string,
  destinationChainId: number | string,
): CapitalCostConfig | undefined {
  const tokenConfig = findTokenCapitalCostConfig(table, symbol);
  return tokenConfig && selectCapitalCostConfig(tokenConfig, originChainId, destinationChainId);
}

/**
 * Capital fee pct (1e18-scaled) of relaying `amount` (token units); {@link MAX_UINT256} when amount is 0.
 *
 * ```
 * y        = amount * 10^(18 - decimals)
 * minCharge = lower * y / 1e18
 * slope    = cutoff == 0 ? 0 : (upper - lower) * 1e18 / cutoff
 * yT       = min(cutoff, y)
 * triangle = (slope * yT / 1e18) * yT / 2e18
 * rem      = max(0, y - cutoff) * (upper - lower) / 1e18
 * pct      = (minCharge + triangle + rem) * 1e18 / y
 * ```
 * Every division truncates toward zero (upper < lower makes the slope negative, as for WETH).
 */
export function capitalFeePercent(amount: bigint, config: CapitalCostConfig): bigint {
  if (amount === 0n) return MAX_UINT256;
  validateCapitalCostConfig(config);
  const y = amount * pow10(18 - config.decimals);
  const spread = config.upperBound - config.lowerBound;
  const minCharge = (config.lowerBound * y) / WAD;
  const slope = config.cutoff === 0n ? 0n : (spread * WAD) / config.cutoff;
  const yTriangle = minBig(config.cutoff, y);
  const triangleHeight = (slope * yTriangle) / WAD;
  const triangleCharge = (triangleHeight * yTriangle) / (2n * WAD);
  const remainderCharge = (maxBig(0n, y - config.cutoff) * spread) / WAD;
  return ((minCharge + triangleCharge + remainderCharge) * WAD) / y;
}

/** `pct * amount / 1e18`, the capital fee in token units. */
export function capitalFeeTotal(amount: bigint, pct: bigint): bigint {
  return applyPct(amount, pct);
}
