/**
 * The date and time query parameters of the data endpoints (`start_time`, `start_date`, …), read as the anchor
 * reads them: ISO 8601 with or without a time and a zone, or Unix seconds. A time without a zone is UTC, a
 * date alone is its midnight UTC. Errors carry the anchor's messages; routes answer them with 400.
 */

/** A query parameter the data endpoints cannot use (a bad date, an inverted range, a bad cursor). */
export class InvalidQueryError extends Error {
  override name: string = "InvalidQueryError";
}

export class DatetimeParseError extends InvalidQueryError {
  override name = "DatetimeParseError" as const;
  constructor(readonly value: string) {
    super(`Invalid datetime format: '${value}'. Expected ISO 8601 format or Unix timestamp.`);
  }
}

export class InvalidRangeError extends InvalidQueryError {
  override name = "InvalidRangeError" as const;
  constructor(startName: string, endName: string) {
    super(`${startName} must be before ${endName}`);
  }
}

const UNIX_SECONDS = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** A moment from a query parameter. @throws {DatetimeParseError} */
export function parseQueryDatetime(value: string): Date {
  const text = value.trim();
  if (UNIX_SECONDS.test(text)) {
    const ms = Number(text) * 1000;
    if (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15) return new Date(Math.round(ms));
    throw new DatetimeParseError(value);
  }
  const m = ISO.exec(text);
  if (!m) throw new DatetimeParseError(value);
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "", zone = "Z"] = m;
  const fields = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)] as const;
  const [year, month, day, hour, minute, second] = fields;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, Number(frac.padEnd(3, "0").slice(0, 3)));
  const check = new Date(utc);
  // Date.UTC rolls 2026-02-30 over into March: a rolled-over date was not a date.
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    throw new DatetimeParseError(value);
  }
  const offset = zoneOffsetMinutes(zone);
  if (offset === undefined) throw new DatetimeParseError(value);
  return new Date(utc - offset * 60_000);
}

/** Minutes east of UTC of `Z`, `+01`, `+0130` or `+01:30`; undefined when out of range. */
function zoneOffsetMinutes(zone: string): number | undefined {
  if (zone.toUpperCase() === "Z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || "0");
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

/** True when the moment is exactly a UTC midnight (what a date-only end means at the anchor). */
export const isUtcMidnight = (moment: Date) => moment.getTime() % 86_400_000 === 0;

const DAY_MS = 86_400_000;

/**
 * The timeseries window `[start, end)` of `start_time`/`end_time`: an end at midnight means "through that
 * day", so it moves a day on (the anchor's rule; `end_time=2026-05-01` includes May 1st).
 * @throws {DatetimeParseError} @throws {InvalidRangeError} when the window is empty or inverted.
 */
export function timeseriesWindow(startTime: string, endTime: string): { start: Date; end: Date } {
  const start = parseQueryDatetime(startTime);
  const parsedEnd = parseQueryDatetime(endTime);
  const end = isUtcMidnight(parsedEnd) ? new Date(parsedEnd.getTime() + DAY_MS) : parsedEnd;
  if (start.getTime() >= end.getTime()) throw new InvalidRangeError("start_time", "end_time");
  return { start, end };
}

/**
 * The events window: `start_date` ≤ start and end < `end_date`, as given.
 * @throws {DatetimeParseError} @throws {InvalidRangeError} when `start_date` is not before `end_date`.
 */
export function eventWindow(startDate: string, endDate: string): { start: Date; end: Date } {
  const start = parseQueryDatetime(startDate);
  const end = parseQueryDatetime(endDate);
  if (start.getTime() >= end.getTime()) throw new InvalidRangeError("start_date", "end_date");
  return { start, end };
}

/** Optional bounds (health scores): each parsed when given, inverted ones refused. */
export function optionalWindow(
  startDate: string | undefined,
  endDate: string | undefined,
): { start: Date | null; end: Date | null } {
  const start = startDate === undefined ? null : parseQueryDatetime(startDate);
  const end = endDate === undefined ? null : parseQueryDatetime(endDate);
  if (start && end && start.getTime() >= end.getTime()) throw new InvalidRangeError("start_date", "end_date");
  return { start, end };
}

/** Minutes east of UTC as the anchor shows zone offsets: 60 → "+01:00", -330 → "-05:30"; null stays null. */
export function formatZoneOffset(minutes: number | null | undefined): string | null {
  if (minutes === null || minutes === undefined) return null;
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${sign}${hh}:${mm}`;
}
