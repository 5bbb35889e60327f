/**
 * Conversions between the API's decimal strings and the exchange's integers: quantities in units of 1e-9
 * (`bigint`) and prices in ticks of the asset's tick size (`number`). Exact decimal arithmetic on strings, never
 * floats, so "0.1" share is exactly 100000000 units and "$10.07" is exactly 1007 ticks of $0.01.
 */

/** Decimal places of a quantity unit: 1 unit = 1e-9 share or coin. */
export const QTY_DECIMALS = 9;
/** Units in one share or coin. */
export const UNITS_PER_SHARE = 10n ** BigInt(QTY_DECIMALS);

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** A non-negative decimal string as an integer scaled by 10^decimals; undefined when malformed or finer. */
export function decimalToScaled(value: string, decimals: number): bigint | undefined {
  const match = DECIMAL.exec(value);
  if (!match) return undefined;
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > decimals) return undefined;
  return BigInt(match[1] as string) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

/** An integer scaled by 10^decimals as the shortest decimal string ("1.5", "2", "-0.25"). */
export function scaledToDecimal(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const scale = 10n ** BigInt(decimals);
  const fraction = (abs % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${abs / scale}${fraction ? `.${fraction}` : ""}`;
}

/** "1.5" → 1500000000n; undefined when malformed, negative or finer than 1e-9. */
export function qtyToUnits(qty: string): bigint | undefined {
  return decimalToScaled(qty, QTY_DECIMALS);
}

/** 1500000000n → "1.5". */
export function unitsToQty(units: bigint): string {
  return scaledToDecimal(units, QTY_DECIMALS);
}

const decimalsOf = (value: string) => (value.split(".")[1] ?? "").replace(/0+$/, "").length;

/**
 * A price as a whole number of ticks ("10.07" with tick "0.01" → 1007); undefined when malformed, not a
 * multiple of the tick (Alpaca's sub-penny rejection), zero, or beyond what a `number` holds exactly.
 */
export function priceToTicks(price: string, tickSize: string): number | undefined {
  const decimals = Math.max(decimalsOf(price), decimalsOf(tickSize));
  const p = decimalToScaled(price, decimals);
  const t = decimalToScaled(tickSize, decimals);
  if (p === undefined || t === undefined || t === 0n || p % t !== 0n) return undefined;
  const ticks = p / t;
  return ticks >= 1n && ticks <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(ticks) : undefined;
}

/** 1007 ticks of "0.01" → "10.07". */
export function ticksToPrice(ticks: number, tickSize: string): string {
  const decimals = decimalsOf(tickSize);
  return scaledToDecimal(BigInt(ticks) * (decimalToScaled(tickSize, decimals) as bigint), decimals);
}
