/**
 * Days as the anchor counts them (reference §3): a sample or an event belongs to the calendar day of the
 * device's local clock — its UTC instant shifted by its zone offset (no offset = UTC) — and daily sums
 * "prefer the daily total": a provider's own daily total wins over the sum of its intraday samples, so a
 * source that sends both is not counted twice.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Steps in one minute from which the minute counts as active (the anchor's `ACTIVE_STEPS_THRESHOLD`). */
export const ACTIVE_STEPS_PER_MINUTE = 30;
/** Height of one floor, to count floors from a workout's elevation gain (the anchor's `METERS_PER_FLOOR`). */
export const METERS_PER_FLOOR = 3;

/** The local calendar date ("YYYY-MM-DD") of an instant, `offsetMinutes` east of UTC (null = UTC). */
export function localDate(instantMs: number, offsetMinutes: number | null | undefined): string {
  return new Date(instantMs + (offsetMinutes ?? 0) * MINUTE_MS).toISOString().slice(0, 10);
}

/** "+01:00" / "-05:30" / "Z" → minutes east of UTC; null for null or a malformed offset. */
export function parseZoneOffset(offset: string | null | undefined): number | null {
  if (!offset) return null;
  if (offset === "Z") return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(offset);
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === "-" ? -minutes : minutes;
}

/** "YYYY-MM-DD" + `days` (negative allowed). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The UTC calendar date of an instant (how the anchor casts a query datetime to a date). */
export const utcDate = (instantMs: number): string => new Date(instantMs).toISOString().slice(0, 10);

/** Epoch ms of a date's UTC midnight. */
export const dateStartMs = (date: string): number => Date.parse(`${date}T00:00:00Z`);

/**
 * The day's value of a `sum` series for one source: its daily total when it sent one, else the sum of its
 * intraday samples, else null (the anchor's `COALESCE(SUM(daily), SUM(samples))`).
 */
export function preferDailyTotal(dailyTotalSum: number | null, sampleSum: number | null): number | null {
  return dailyTotalSum ?? sampleSum;
}

/** Active and sedentary minutes from step minutes: the provider's active time wins when it sent one. */
export function activeMinutes(parameters: {
  /** Provider-reported active time of the day (minutes), or null. */
  providerActiveMinutes: number | null;
  /** Minutes with at least {@link ACTIVE_STEPS_PER_MINUTE} steps, or null when no step minute was tracked. */
  activeStepMinutes: number | null;
  /** Minutes with any intraday step sample, or null. */
  trackedStepMinutes: number | null;
}): { active: number | null; sedentary: number | null } {
  const { providerActiveMinutes, activeStepMinutes, trackedStepMinutes } = parameters;
  const sedentary =
    trackedStepMinutes === null || activeStepMinutes === null ? null : trackedStepMinutes - activeStepMinutes;
  return { active: providerActiveMinutes ?? activeStepMinutes, sedentary };
}

/** Floors: flights climbed when the day has them, else the workouts' elevation gain / 3 m, else null. */
export function floorsClimbed(flights: number | null, workoutElevationMeters: number | null): number | null {
  if (flights !== null) return Math.trunc(flights);
  if (workoutElevationMeters !== null && workoutElevationMeters > 0) {
    return Math.trunc(workoutElevationMeters / METERS_PER_FLOOR);
  }
  return null;
}

/** Python's `round()`: halves go to the even neighbour (72.5 → 72, 73.5 → 74), as the anchor rounds. */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * Sums and means of stored values to 3 decimals: samples are 4-byte floats (36.6 is 36.5999985 as a double),
 * the anchor's values numeric(10,3).
 */
export function round3(x: number): number;
export function round3(x: number | null): number | null;
export function round3(x: number | null): number | null {
  return x === null ? null : Math.round(x * 1000) / 1000;
}

/** Whole years between a birth date and a date ("YYYY-MM-DD" both), birthday counted on its day. */
export function ageOn(birthDate: string, date: string): number {
  const [by, bm, bd] = birthDate.split("-").map(Number) as [number, number, number];
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  let age = y - by;
  if (m < bm || (m === bm && d < bd)) age -= 1;
  return age;
}
