/**
 * Price increments. US equities follow Reg NMS rule 612 as the anchor enforces it: whole cents at $1.00
 * and above, $0.0001 below; a crypto pair has its asset's `price_increment`. Ticks are decimal strings
 * ("0.01", "1"): a tick's size is a power of ten or any decimal, and rounding works on tick counts so that
 * results print without binary noise (0.1 + 0.2 never shows up as 0.30000000000000004).
 */

/** A price increment: its size and the decimals needed to print multiples of it. */
export interface PriceTick {
  size: number;
  decimals: number;
}

/** Relative slack for float division landing a hair beside an integer (0.3 / 0.1 = 2.9999999999999996). */
const EPSILON = 1e-9;

/** The tick of a decimal increment string such as "0.01" or "1". */
export function tickOf(increment: string): PriceTick {
  const size = Number(increment);
  if (!(size > 0) || !Number.isFinite(size)) throw new RangeError(`invalid price increment "${increment}"`);
  const dot = increment.indexOf(".");
  return { size, decimals: dot < 0 ? 0 : increment.length - dot - 1 };
}

const CENT = tickOf("0.01");
const SUB_PENNY = tickOf("0.0001");

/** The equity tick at a price: $0.01 at $1.00 and above, $0.0001 below. */
export const equityTick = (price: number): PriceTick => (price >= 1 ? CENT : SUB_PENNY);

/** What an asset's tick depends on: its class and, for crypto, its `price_increment`. */
export interface TickedAsset {
  class: "us_equity" | "crypto";
  price_increment?: string;
}

/** The tick that applies to an asset at a price. */
export function tickFor(asset: TickedAsset, price: number): PriceTick {
  return asset.class === "crypto" && asset.price_increment ? tickOf(asset.price_increment) : equityTick(price);
}

/** A price rounded to a multiple of the tick (`nearest`, or `down`/`up` for bids and asks). */
export function roundToTick(price: number, tick: PriceTick, direction: "nearest" | "down" | "up" = "nearest"): number {
  const ticks = price / tick.size;
  const count =
    direction === "down"
      ? Math.floor(ticks + EPSILON)
      : direction === "up"
        ? Math.ceil(ticks - EPSILON)
        : Math.round(ticks);
  return Number((count * tick.size).toFixed(tick.decimals));
}

/** Whether a price is a whole number of ticks (the anchor's "sub-penny increment" check). */
export function isOnTick(price: number, tick: PriceTick): boolean {
  const ticks = price / tick.size;
  return Math.abs(ticks - Math.round(ticks)) <= EPSILON * Math.max(1, Math.abs(ticks));
}

/** A price as a decimal string with at most the tick's decimals and no trailing zeros ("187.5", "0.1234"). */
export const formatPrice = (price: number, tick: PriceTick): string => String(roundToTick(price, tick));
