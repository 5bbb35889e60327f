/** Apple Health export dates, `"2026-03-01 07:15:00 +0100"`: the instant and the device clock's zone offset. */

export interface AppleDate {
  /** Epoch ms. */
  ms: number;
  /** Minutes east of UTC. */
  offsetMinutes: number;
}

const APPLE_DATE = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)$/;

/** The instant and zone offset of an export date, or undefined when it is not one. */
export function parseAppleDate(text: string | undefined): AppleDate | undefined {
  const m = text === undefined ? null : APPLE_DATE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, , oh, om] = m.map(Number) as number[];
  const offsetMinutes = (m[7] === "-" ? -1 : 1) * ((oh as number) * 60 + (om as number));
  const local = Date.UTC(y as number, (mo as number) - 1, d as number, h as number, mi as number, s as number);
  if (!Number.isFinite(local) || (mo as number) < 1 || (mo as number) > 12 || (d as number) > 31) return undefined;
  return { ms: local - offsetMinutes * 60_000, offsetMinutes };
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
