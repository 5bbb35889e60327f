/**
 * Periods of a recurring job. A schedule runs every `everyMs` milliseconds, its periods starting at
 * `offsetMs` past each multiple of `everyMs` since the Unix epoch (UTC): `everyMs` 86,400,000 with
 * `offsetMs` 10,800,000 is "every day at 03:00 UTC", `everyMs` 60,000 is "at the start of every minute".
 * Pure: the caller passes the database's clock.
 *
 * @example
 * periodStart(Date.parse("2026-01-01T10:17:00Z"), { everyMs: 3_600_000, offsetMs: 900_000 })
 * // Date.parse("2026-01-01T10:15:00Z")
 */

export interface RecurrenceOptions {
  /** Length of a period, > 0. */
  everyMs: number;
  /** Where periods start within `everyMs` (0 ≤ offsetMs < everyMs); default 0. */
  offsetMs?: number;
}

/** A recurrence that cannot be: a period ≤ 0, or an offset outside [0, everyMs). */
export class InvalidRecurrenceError extends Error {
  override name = "InvalidRecurrenceError" as const;
}
export type InvalidRecurrenceErrorType = InvalidRecurrenceError & { name: "InvalidRecurrenceError" };

export function checkRecurrence({ everyMs, offsetMs = 0 }: RecurrenceOptions): void {
  if (!Number.isSafeInteger(everyMs) || everyMs <= 0) {
    throw new InvalidRecurrenceError(`everyMs must be a positive whole number of milliseconds, not ${everyMs}`);
  }
  if (!Number.isSafeInteger(offsetMs) || offsetMs < 0 || offsetMs >= everyMs) {
    throw new InvalidRecurrenceError(`offsetMs must be in [0, everyMs), not ${offsetMs}`);
  }
}

/** The start of the period that contains `atMs` (≤ atMs). */
export function periodStart(atMs: number, { everyMs, offsetMs = 0 }: RecurrenceOptions): number {
  return Math.floor((atMs - offsetMs) / everyMs) * everyMs + offsetMs;
}

/** The start of the first period after the one that contains `atMs` (> atMs). */
export function nextPeriodStart(atMs: number, recurrence: RecurrenceOptions): number {
  return periodStart(atMs, recurrence) + recurrence.everyMs;
}
