/** Etherscan's date parameters (`yyyy-MM-dd`, UTC) and the UTC day of a block timestamp. */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses a real calendar date `yyyy-MM-dd`; undefined for anything else (2026-02-30, 2026-2-1, …). */
export function parseUtcDate(value: string): string | undefined {
  const m = DATE.exec(value);
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value ? value : undefined;
}

/** `yyyy-MM-dd` of a Unix timestamp in seconds. */
export const utcDay = (timestampSec: number) => new Date(timestampSec * 1000).toISOString().slice(0, 10);
