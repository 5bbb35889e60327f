/** Apple Health export dates, `"2026-03-01 07:15:00 +0100"`: the instant and the device clock's zone offset. */

export interface AppleDate {
  /** Epoch ms. */
  ms: number;
  /** Minutes east of UTC. */
  offsetMinutes: number;
}

/** The last day parsed and its UTC midnight: an export's dates come in runs of one day (Date.UTC is slow). */
let lastDay = "";
let lastDayMs = 0;

/**
 * The instant and zone offset of an export date (`YYYY-MM-DD hh:mm:ss ±hhmm`, exactly), or undefined when it is
 * not one. Read by character codes, not a regular expression: it runs once per Record, hundreds of thousands
 * of times per import.
 */
export function parseAppleDate(text: string | undefined): AppleDate | undefined {
  if (text === undefined || text.length !== 25) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32) return undefined;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58 || text.charCodeAt(19) !== 32) return undefined;
  const sign = text.charCodeAt(20);
  if (sign !== 43 && sign !== 45) return undefined;
  const y = digits(text, 0, 4);
  const mo = digits(text, 5, 2);
  const d = digits(text, 8, 2);
  const h = digits(text, 11, 2);
  const mi = digits(text, 14, 2);
  const s = digits(text, 17, 2);
  const oh = digits(text, 21, 2);
  const om = digits(text, 23, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 0 || d > 31 || h < 0 || mi < 0 || s < 0 || oh < 0 || om < 0) return undefined;
  const day = text.slice(0, 10);
  if (day !== lastDay) {
    lastDayMs = Date.UTC(y, mo - 1, d);
    lastDay = day;
  }
  // What Date.UTC(y, mo - 1, d, h, mi, s) answers: the time of day is added to the day linearly.
  const local = lastDayMs + h * 3_600_000 + mi * 60_000 + s * 1_000;
  if (!Number.isFinite(local)) return undefined;
  const offsetMinutes = (sign === 45 ? -1 : 1) * (oh * 60 + om);
  return { ms: local - offsetMinutes * 60_000, offsetMinutes };
}

/** The number written by `length` ASCII digits at `at`, or -1 when one is not a digit. */
function digits(text: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** `"+01:00"` for 60, `"-05:30"` for -330 (the anchor's zone offset form). */
export function formatZoneOffset(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** The local date ("YYYY-MM-DD") of an instant at a zone offset. */
export function localDate(ms: number, offsetMinutes: number): string {
  return new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 10);
}
