import { Decimal } from "decimal.js";
import { formatUnits } from "viem";
import { applyPct, convertDecimals, maxBig, minBig, WAD } from "./fixedPoint.ts";

/**
 * LP fee: the fee paid to HubPool liquidity providers for borrowing their funds.
 *
 * Port of the anchor's LP fee calculator: a piecewise-linear yearly rate curve over pool utilization
 * with a kink at `UBar`; the APY of a deposit is the average rate between the utilization before and
 * after the deposit; the fee charged is the one-week share of that APY.
 */

/** Piecewise-linear rate model; every field is 1e18-scaled. */
export interface RateModel {
  /** Utilization kink where the slope changes. */
  UBar: bigint;
  /** Rate at 0% utilization. */
  R0: bigint;
  /** R0 + R1 is the rate at `UBar`. */
  R1: bigint;
  /** R0 + R1 + R2 is the rate at 100% utilization. */
  R2: bigint;
}

/** The rate model used when the config store has none for the token: always yields a zero LP fee. */
export const DEFAULT_RATE_MODEL: Readonly<RateModel> = Object.freeze({ UBar: WAD / 100n, R0: 0n, R1: 0n, R2: 0n });

/**
 * The HubPool's liquidity of an L1 token (`pooledTokens(l1Token)`), in L1 token units: what the LP fee's
 * utilization is computed from (not to be confused with an AMM pool's reserves, quotes/prices.ts).
 */
export interface HubPoolLiquidity {
  liquidReserves: bigint;
  /** Can be negative on-chain (int256); negative values are treated as 0. */
  utilizedReserves: bigint;
}

/** Config store JSON of an L1 token, reduced to what the LP fee needs. */
export interface L1TokenRateConfig {
  rateModel?: RateModel;
  /** Per-route overrides keyed `"<originChainId>-<destinationChainId>"`. */
  routeRateModel?: Readonly<Record<string, RateModel>>;
}

const RATE_FIELDS = ["UBar", "R0", "R1", "R2"] as const;

function parseRateModel(value: unknown): RateModel | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const model: Partial<RateModel> = {};
  for (const k of RATE_FIELDS) {
    const v = fields[k];
    if (!(typeof v === "string" && /^\d+$/.test(v)) && !(typeof v === "number" && Number.isSafeInteger(v) && v >= 0)) {
      return undefined;
    }
    model[k] = BigInt(v);
  }
  return model as RateModel;
}

/**
 * `AcrossConfigStore.l1TokenConfig` JSON reduced to the rate models (the anchor's `parseL1TokenConfigSafe`):
 * undefined when empty or not JSON; invalid models are dropped, so the default applies.
 *
 * @example
 * parseL1TokenConfig('{"rateModel":{"UBar":"650000000000000000","R0":"0","R1":"80000000000000000","R2":"1000000000000000000"}}')
 */
export function parseL1TokenConfig(json: string): L1TokenRateConfig | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof raw !== "object" || raw === null) return undefined;
  const { rateModel, routeRateModel } = raw as { rateModel?: unknown; routeRateModel?: unknown };
  const routes: Record<string, RateModel> = {};
  if (typeof routeRateModel === "object" && routeRateModel !== null) {
    for (const [route, model] of Object.entries(routeRateModel)) {
      const parsed = parseRateModel(model);
      if (parsed && /^\d+-\d+$/.test(route)) routes[route] = parsed;
    }
  }
  return { rateModel: parseRateModel(rateModel), routeRateModel: routes };
}

/** Pick the route override, else the token's rate model, else {@link DEFAULT_RATE_MODEL}. */
export function resolveRateModel(
  config: L1TokenRateConfig | undefined,
  originChainId: number | string,
  destinationChainId: number | string,
): RateModel {
  return config?.routeRateModel?.[`${originChainId}-${destinationChainId}`] ?? config?.rateModel ?? DEFAULT_RATE_MODEL;
}

/**
 * Pool utilization after relaying `relayedAmount` (L1 units), 1e18-scaled:
 * `(x + max(utilized,0)) * 1e18 / (liquid + max(utilized,0))`; 1e18 when the denominator is 0.
 * `relayedAmount = 0` gives the current utilization.
 */
export function computeUtilizationPostRelay(reserves: HubPoolLiquidity, relayedAmount: bigint): bigint {
  const utilized = maxBig(reserves.utilizedReserves, 0n);
  const denominator = reserves.liquidReserves + utilized;
  if (denominator === 0n) return WAD;
  return ((relayedAmount + utilized) * WAD) / denominator;
}

/**
 * Instantaneous yearly rate at a utilization:
 * `R0 + min(u,UBar)*R1/UBar + max(0,u-UBar)*R2/(1e18-UBar)`.
 * A term whose divisor is 0 (UBar = 0, or UBar = 1e18) contributes 0.
 */
export function instantaneousRate(model: RateModel, utilization: bigint): bigint {
  const beforeKink = model.UBar === 0n ? 0n : (minBig(utilization, model.UBar) * model.R1) / model.UBar;
  const afterKinkRange = WAD - model.UBar;
  const afterKink = afterKinkRange === 0n ? 0n : (maxBig(0n, utilization - model.UBar) * model.R2) / afterKinkRange;
  return model.R0 + beforeKink + afterKink;
}

/**
 * Area under the rate curve on `[0, utilization]` (a rectangle plus a triangle on each side of the kink),
 * with the anchor's truncation order.
 */
export function areaUnderRateCurve(model: RateModel, utilization: bigint): bigint {
  const half = WAD / 2n;
  const uBefore = minBig(utilization, model.UBar);
  const rectangle1 = (uBefore * model.R0) / WAD;
  const triangle1 = (half * (instantaneousRate(model, uBefore) - model.R0) * uBefore) / WAD / WAD;

  const uAfter = maxBig(0n, utilization - model.UBar);
  const kinkRate = model.R0 + model.R1;
  const rectangle2 = (uAfter * kinkRate) / WAD;
  const triangle2 = (half * (instantaneousRate(model, utilization) - kinkRate) * uAfter) / WAD / WAD;

  return rectangle1 + triangle1 + rectangle2 + triangle2;
}

/**
 * Yearly rate paid by a deposit moving utilization from `currentUt` to `nextUt`: the average of the curve,
 * `(Area(next) - Area(current)) * 1e18 / (next - current)`; `r(currentUt)` when the two are equal.
 */
export function apyFromUtilization(model: RateModel, currentUt: bigint, nextUt: bigint): bigint {
  if (currentUt === nextUt) return instantaneousRate(model, currentUt);
  const numerator = areaUnderRateCurve(model, nextUt) - areaUnderRateCurve(model, currentUt);
  return (numerator * WAD) / (nextUt - currentUt);
}

// decimal.js with its library defaults (20 significant digits, ROUND_HALF_UP), isolated from any global
// reconfiguration: the anchor uses the default-configured global Decimal, and the precision changes the floor.
const AnchorDecimal = Decimal.clone({ precision: 20, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -7, toExpPos: 21 });

/**
 * One-week fee for a yearly rate: `min(1e18, floor(((1 + apy)^(1/52) - 1) * 1e18))`, computed with
 * decimal.js at its default 20-digit precision like the anchor.
 */
export function weeklyFeeFromApy(apy: bigint): bigint {
  // Exact decimal text of apy / 1e18 (the constructor does not round; `plus` then rounds once, as in the anchor).
  const apyFraction = new AnchorDecimal(formatUnits(apy, 18));
  const weekly = AnchorDecimal.pow(new AnchorDecimal(1).plus(apyFraction), new AnchorDecimal(1).div(52)).minus(1);
  const scaled = BigInt(weekly.times(WAD.toString()).floor().toFixed(0));
  return minBig(WAD, scaled);
}

/** The realized LP fee pct for a utilization move (the weekly fee of {@link apyFromUtilization}). */
export function lpFeePct(model: RateModel, currentUt: bigint, nextUt: bigint): bigint {
  return weeklyFeeFromApy(apyFromUtilization(model, currentUt, nextUt));
}

/** `amount * lpFeePct / 1e18` in the deposit's input token units. */
export function lpFeeTotal(amount: bigint, feePct: bigint): bigint {
  return applyPct(amount, feePct);
}

/** Inputs of {@link computeLpFee}. */
export interface LpFeeInput {
  /** Deposit amount in input token units. */
  amount: bigint;
  inputDecimals: number;
  /** Decimals of the HubPool (L1) token; the reserves are in these units. */
  l1Decimals: number;
  reserves: HubPoolLiquidity;
  /** Defaults to {@link DEFAULT_RATE_MODEL}. */
  rateModel?: RateModel;
}

/** Result of {@link computeLpFee}. */
export interface LpFeeResult {
  currentUt: bigint;
  nextUt: bigint;
  apy: bigint;
  pct: bigint;
  /** In input token units. */
  total: bigint;
}

/** Full LP fee of a deposit: utilization before/after (amount converted to L1 decimals), APY, pct, total. */
export function computeLpFee(input: LpFeeInput): LpFeeResult {
  const model = input.rateModel ?? DEFAULT_RATE_MODEL;
  const currentUt = computeUtilizationPostRelay(input.reserves, 0n);
  const nextUt = computeUtilizationPostRelay(
    input.reserves,
    convertDecimals(input.amount, input.inputDecimals, input.l1Decimals),
  );
  const apy = apyFromUtilization(model, currentUt, nextUt);
  const pct = weeklyFeeFromApy(apy);
  return { currentUt, nextUt, apy, pct, total: lpFeeTotal(input.amount, pct) };
}
