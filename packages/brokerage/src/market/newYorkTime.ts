/**
 * America/New_York wall time without a time-zone library: US daylight saving rules computed here (second
 * Sunday of March to first Sunday of November since 2007; first Sunday of April to last Sunday of October
 * 1987–2006), so results never depend on the ICU data a Node build ships. Civil dates are "YYYY-MM-DD"
 * strings; instants are epoch milliseconds.
 */

export const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export class InvalidDateError extends Error {
  override name = "InvalidDateError" as const;
  constructor(readonly input: string) {
    super(`invalid date "${input}" (expected YYYY-MM-DD)`);
  }
}
export type InvalidDateErrorType = InvalidDateError & { name: "InvalidDateError" };

/**
 * Days since 1970-01-01 of a civil date "YYYY-MM-DD".
 * @throws {InvalidDateError} when the text is not a real calendar date.
 */
export function dayNumber(date: string): number {
  const match = DATE_PATTERN.exec(date);
  if (!match) throw new InvalidDateError(date);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) throw new InvalidDateError(date);
  return ms / MS_PER_DAY;
}

/** The civil date "YYYY-MM-DD" of a day number (days since 1970-01-01). */
export const dateOfDayNumber = (day: number): string => new Date(day * MS_PER_DAY).toISOString().slice(0, 10);

/** Day of the week of a day number: 0 = Sunday … 6 = Saturday. */
export const weekdayOf = (day: number): number => (((day + 4) % 7) + 7) % 7;

/** Day number of the `n`-th (1-based) `weekday` of a month (`month` 1–12). */
export function nthWeekdayOfMonth(year: number, month: number, weekday: number, n: number): number {
  const first = Date.UTC(year, month - 1, 1) / MS_PER_DAY;
  return first + ((weekday - weekdayOf(first) + 7) % 7) + (n - 1) * 7;
}

/** Day number of the last `weekday` of a month (`month` 1–12). */
export function lastWeekdayOfMonth(year: number, month: number, weekday: number): number {
  const last = Date.UTC(year, month, 0) / MS_PER_DAY;
  return last - ((weekdayOf(last) - weekday + 7) % 7);
}

/** [start, end) of daylight saving time in a year, as UTC instants: both switches happen at 02:00 local. */
function daylightSavingUtc(year: number): [number, number] {
  const SUNDAY = 0;
  const [startDay, endDay] =
    year >= 2007
      ? [nthWeekdayOfMonth(year, 3, SUNDAY, 2), nthWeekdayOfMonth(year, 11, SUNDAY, 1)]
      : [nthWeekdayOfMonth(year, 4, SUNDAY, 1), lastWeekdayOfMonth(year, 10, SUNDAY)];
  // 02:00 EST = 07:00 UTC (clocks jump to 03:00 EDT); 02:00 EDT = 06:00 UTC (clocks fall back to 01:00 EST).
  return [startDay * MS_PER_DAY + 7 * 3_600_000, endDay * MS_PER_DAY + 6 * 3_600_000];
}

/** UTC offset of New York at an instant, in minutes: -240 (EDT) or -300 (EST). */
export function newYorkOffsetMinutes(ms: number): -240 | -300 {
  const [start, end] = daylightSavingUtc(new Date(ms).getUTCFullYear());
  return ms >= start && ms < end ? -240 : -300;
}

/** New York's civil date and minute of the day at an instant. */
export function newYorkWallTime(ms: number): { date: string; day: number; minuteOfDay: number } {
  const local = ms + newYorkOffsetMinutes(ms) * MS_PER_MINUTE;
  const day = Math.floor(local / MS_PER_DAY);
  return { date: dateOfDayNumber(day), day, minuteOfDay: Math.floor((local - day * MS_PER_DAY) / MS_PER_MINUTE) };
}

/**
 * The instant of a New York wall time (`minuteOfDay` after local midnight of `day`). Meant for session
 * times (04:00 and later), which are never inside the spring-forward gap or the fall-back hour.
 */
export function newYorkInstant(day: number, minuteOfDay: number): number {
  const local = day * MS_PER_DAY + minuteOfDay * MS_PER_MINUTE;
  const asStandard = local + 300 * MS_PER_MINUTE;
  return newYorkOffsetMinutes(asStandard) === -240 ? local + 240 * MS_PER_MINUTE : asStandard;
}

/**
 * RFC 3339 with New York's offset, as the anchor's clock writes it: `2026-11-25T10:15:00.000-05:00`
 * (`fractionDigits` 3) or `2026-11-25T09:30:00-05:00` (0).
 */
export function formatNewYorkTime(ms: number, fractionDigits: 0 | 3 = 3): string {
  const offset = newYorkOffsetMinutes(ms);
  const wall = new Date(ms + offset * MS_PER_MINUTE).toISOString(); // "…T10:15:00.000Z" in local digits
  const body = fractionDigits === 3 ? wall.slice(0, 23) : wall.slice(0, 19);
  return `${body}-0${-offset / 60}:00`;
}
