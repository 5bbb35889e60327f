/**
 * Slippage of the swap legs: how far a leg's execution may fall from its quote before it reverts (origin) or
 * falls back (destination).
 *
 * - A number (0.005 = 0.5 %) is the whole transfer's tolerance; with two swap legs it is split equally
 *   between them (the spec's rule), with one leg that leg takes it all.
 * - `auto` is chosen per leg from the trade's size against the pools' depth: 0.5 % plus the largest share
 *   of a pool's reserve the leg sells into, capped at 5 %. A trade of 1 % of a pool moves its price by about
 *   2 %, so a trade that large also moves further when others trade the same pool before it lands; a small
 *   trade in a deep pool keeps the usual 0.5 % floor (the anchor's aggregators default to about that).
 */

export type SlippageRequest = "auto" | number;

export const AUTO_SLIPPAGE_FLOOR = 0.005;
export const AUTO_SLIPPAGE_CAP = 0.05;
/** The anchor's bounds of a numeric `slippage`. */
export const MAX_SLIPPAGE = 0.5;

const WAD = 10n ** 18n;
const SCALE = 1_000_000n;

/** `auto` slippage of one leg from its depth share (1e18-scaled, see `SwapRoute.depthShareWad`). */
export function autoSlippage(depthShareWad: bigint): number {
  const share = Number((depthShareWad * SCALE) / WAD) / Number(SCALE);
  return Math.min(AUTO_SLIPPAGE_CAP, AUTO_SLIPPAGE_FLOOR + share);
}

/** Slippage of one leg: `auto` from its depth share, or its equal part of a numeric request over `legCount` legs. */
export function legSlippage(request: SlippageRequest, legCount: number, depthShareWad: bigint): number {
  return request === "auto" ? autoSlippage(depthShareWad) : request / Math.max(1, legCount);
}

const ppm = (slippage: number) => BigInt(Math.round(slippage * 1_000_000));

/** The least a leg may give: `amount × (1 − slippage)`, rounded down. */
export function minimumAfterSlippage(amount: bigint, slippage: number): bigint {
  return (amount * (SCALE - ppm(slippage))) / SCALE;
}

/** The most a leg may take: `amount × (1 + slippage)`, rounded up. */
export function maximumAfterSlippage(amount: bigint, slippage: number): bigint {
  return (amount * (SCALE + ppm(slippage)) + SCALE - 1n) / SCALE;
}

/**
 * The least amount whose minimum after slippage still covers `amount`: `amount / (1 − slippage)`, rounded up
 * (the size of a leg that must deliver `amount` even when it lands at its worst).
 */
export function amountCoveringSlippage(amount: bigint, slippage: number): bigint {
  const kept = SCALE - ppm(slippage);
  return (amount * SCALE + kept - 1n) / kept;
}
