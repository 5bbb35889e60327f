/**
 * Bar timeframes as the anchor spells them (`5Min`/`5T`, `4Hour`/`4H`, `1Day`/`1D`, `1Week`/`1W`,
 * `3Month`/`3M`), mapped onto the three stored rollups (`brokerage.market_bars`: 1Min and 1Hour buckets on the
 * UTC minute/hour, 1Day buckets at New York midnight). Any other timeframe is read by merging stored bars into
 * buckets (`bucketOf`, `mergeBars`): o = first bar's open, c = last bar's close, h = max, l = min, v, n and the
 * notional summed, vw = notional / volume.
 *
 * Decisions where the anchor is silent: `N`Min and `N`Hour buckets count from UTC midnight (a bucket never
 * spans two UTC days; for N dividing 60 or 24 that is the clock alignment); weeks start on Monday at New York
 * midnight (ISO weeks); `N`Month buckets start on the first of January, April, … (months counted from January)
 * at New York midnight.
 */
import { dayNumber, newYorkInstant, newYorkWallTime, weekdayOf } from "../market/newYorkTime.ts";
import { InvalidTimeframeError } from "./marketDataErrors.ts";

export type SourceTimeframe = "1Min" | "1Hour" | "1Day";
export type TimeframeUnit = "Min" | "Hour" | "Day" | "Week" | "Month";

export interface BarTimeframe {
  amount: number;
  unit: TimeframeUnit;
  /** The stored rollup the bars are read from. */
  source: SourceTimeframe;
  /** Whether stored bars are merged (false: they are returned as stored). */
  merged: boolean;
  /** The start (epoch ms) of the bucket a stored bar starting at `t` belongs to. */
  bucketOf(t: number): number;
}

/** One bar: stored or merged. Numbers are JSON numbers; `notional` is Σ price × size. */
export interface BarValues {
  /** Bucket start, epoch ms. */
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  n: number;
  notional: number;
}

const GRAMMAR = /^([1-9]\d?)(Min|T|Hour|H|Day|D|Week|W|Month|M)$/;
const UNIT_OF: Record<string, TimeframeUnit> = {
  Min: "Min",
  T: "Min",
  Hour: "Hour",
  H: "Hour",
  Day: "Day",
  D: "Day",
  Week: "Week",
  W: "Week",
  Month: "Month",
  M: "Month",
};
const MONTH_AMOUNTS = [1, 2, 3, 4, 6, 12];
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

function allowed(unit: TimeframeUnit, amount: number): boolean {
  switch (unit) {
    case "Min":
      return amount <= 59;
    case "Hour":
      return amount <= 23;
    case "Day":
    case "Week":
      return amount === 1;
    case "Month":
      return MONTH_AMOUNTS.includes(amount);
  }
}

/** Within a UTC day, the start of the `size`-ms bucket of `t` counted from midnight. */
const utcBucket = (t: number, size: number): number => {
  const midnight = Math.floor(t / DAY) * DAY;
  return midnight + Math.floor((t - midnight) / size) * size;
};

/** New York midnight of the Monday of the week of `t`. */
function weekBucket(t: number): number {
  const { day } = newYorkWallTime(t);
  const sinceMonday = (weekdayOf(day) + 6) % 7;
  return newYorkInstant(day - sinceMonday, 0);
}

/** New York midnight of the first day of `t`'s `amount`-month bucket (counted from January). */
function monthBucket(t: number, amount: number): number {
  const { date } = newYorkWallTime(t);
  const year = Number(date.slice(0, 4));
  const month = Math.floor((Number(date.slice(5, 7)) - 1) / amount) * amount + 1;
  return newYorkInstant(dayNumber(`${year}-${String(month).padStart(2, "0")}-01`), 0);
}

/**
 * The timeframe a `timeframe` parameter names.
 * @throws {InvalidTimeframeError} outside the anchor's grammar.
 */
export function parseBarTimeframe(input: string): BarTimeframe {
  const match = GRAMMAR.exec(input);
  const unit = match ? UNIT_OF[match[2] as string] : undefined;
  const amount = Number(match?.[1]);
  if (!unit || !allowed(unit, amount)) throw new InvalidTimeframeError(input);
  switch (unit) {
    case "Min":
      return { amount, unit, source: "1Min", merged: amount > 1, bucketOf: (t) => utcBucket(t, amount * MINUTE) };
    case "Hour":
      return { amount, unit, source: "1Hour", merged: amount > 1, bucketOf: (t) => utcBucket(t, amount * HOUR) };
    case "Day":
      return { amount, unit, source: "1Day", merged: false, bucketOf: (t) => t };
    case "Week":
      return { amount, unit, source: "1Day", merged: true, bucketOf: weekBucket };
    case "Month":
      return { amount, unit, source: "1Day", merged: true, bucketOf: (t) => monthBucket(t, amount) };
  }
}

/** Two consecutive bars of one bucket merged: `first` is the earlier (its open), `last` the later (its close). */
export function mergeBars(first: BarValues, last: BarValues, bucket: number): BarValues {
  return {
    t: bucket,
    o: first.o,
    h: Math.max(first.h, last.h),
    l: Math.min(first.l, last.l),
    c: last.c,
    v: first.v + last.v,
    n: first.n + last.n,
    notional: first.notional + last.notional,
  };
}

/** The volume-weighted average price of a bar (0 for a bar without volume). */
export const vwapOf = (bar: Pick<BarValues, "v" | "notional">): number => (bar.v > 0 ? bar.notional / bar.v : 0);
