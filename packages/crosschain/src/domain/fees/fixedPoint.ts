/**
 * Fixed-point helpers shared by the fee modules.
 *
 * Conventions (same as the Across contracts and API):
 * - a "pct" is a 1e18 fixed-point fraction: 1e18 = 100%, 1e16 = 1%;
 * - amounts are integers in a token's base units.
 *
 * All division is bigint division, which truncates toward zero exactly like ethers' BigNumber `div`
 * used by the anchor implementation (= floor for the non-negative values that occur in practice).
 */

/** 1e18, the fixed-point unit. */
export const WAD = 10n ** 18n;

/** 2^256 - 1: the anchor's "infinite" value (`MAX_UINT` / `MaxUint256`). */
export const MAX_UINT256 = 2n ** 256n - 1n;

/** The smaller of two bigints. */
export function minBig(a: bigint, b: bigint): bigint {
  return a <= b ? a : b;
}

/** The larger of two bigints. */
export function maxBig(a: bigint, b: bigint): bigint {
  return a >= b ? a : b;
}

/** The largest value of a list, or `fallback` (default 0) when the list is empty. */
export function maxOf(values: readonly bigint[], fallback = 0n): bigint {
  let result: bigint | undefined;
  for (const v of values) if (result === undefined || v > result) result = v;
  return result ?? fallback;
}

/** `10^n` as a bigint. */
export function pow10(n: number): bigint {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`pow10: invalid exponent ${n}`);
  return 10n ** BigInt(n);
}

/**
 * Convert an amount between two decimal scales.
 *
 * Scaling down divides by `10^(from-to)` (truncating, i.e. floor for non-negative amounts); scaling up
 * multiplies. Mirrors the anchor's `ConvertDecimals(from, to)(amount)`.
 */
export function convertDecimals(amount: bigint, fromDecimals: number, toDecimals: number): bigint {
  if (amount === 0n || fromDecimals === toDecimals) return amount;
  if (fromDecimals > toDecimals) return amount / pow10(fromDecimals - toDecimals);
  return amount * pow10(toDecimals - fromDecimals);
}

/** `numerator * 1e18 / denominator` (the anchor's `percent()`); throws on a zero denominator. */
export function percent(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError("percent: zero denominator");
  return (numerator * WAD) / denominator;
}

/** `amount * pct / 1e18`: the total that a 1e18-scaled pct represents for `amount`. */
export function applyPct(amount: bigint, pct: bigint): bigint {
  return (amount * pct) / WAD;
}

/**
 * Parse a non-negative decimal string (e.g. "0.0001", "1500000") into a bigint scaled by `10^decimals`,
 * truncating extra fractional digits. For config values written as human numbers.
 */
export function parseFixed(value: string | number, decimals = 18): bigint {
  const text = typeof value === "number" ? numberToPlainString(value) : value.trim();
  const match = /^(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[1] === "" && (match[2] ?? "") === "")) {
    throw new RangeError(`parseFixed: not a non-negative decimal: ${String(value)}`);
  }
  const whole = match[1] === "" ? 0n : BigInt(match[1] ?? "0");
  const frac = (match[2] ?? "").slice(0, decimals).padEnd(decimals, "0");
  return whole * pow10(decimals) + (frac === "" ? 0n : BigInt(frac));
}

function numberToPlainString(value: number): string {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`parseFixed: invalid number ${value}`);
  // toFixed(20) would introduce binary noise; toString is exact for short decimals but may use exponents.
  const s = value.toString();
  if (!/e/i.test(s)) return s;
  return value.toFixed(20).replace(/0+$/, "").replace(/\.$/, "");
}
