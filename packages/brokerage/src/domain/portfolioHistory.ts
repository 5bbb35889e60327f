/**
 * Portfolio history (`GET /v2/account/portfolio/history`), the pure part: which time windows ("buckets") a
 * query asks for, and the anchor's series from the equity at the end of each. Rules (the anchor's where it
 * states them, ours where it does not):
 *
 * - `period` is `<n>D|W|M|A` (days, weeks, calendar months, years), default `1M`. Of `start`, `end` and
 *   `period` at most two are given. `end` defaults to now (or `start + period` when both are given); `start`
 *   to `end − period`.
 * - `timeframe` is `1Min`, `5Min`, `15Min`, `1H` or `1D`. Default (the anchor's rule): `1Min` for a range
 *   shorter than 7 days, `15Min` for one shorter than 30 days, else `1D`; the range is the period's nominal
 *   length (1D = 1 day, 1W = 7, 1M = 30, 1A = 365) when a period is given, else `end − start`. Intraday
 *   timeframes cover at most {@link MAX_INTRADAY_DAYS} days (the anchor: "only 1D" beyond a month), and an
 *   answer has at most {@link MAX_POINTS} points.
 * - Buckets are labelled by their start (epoch seconds, the anchor's left labels): intraday ones aligned to
 *   their length (an hour boundary is one in New York too); `1D` ones are New York calendar days (midnight
 *   to midnight; every day, as the brokerage trades crypto around the clock). A bucket's equity is that of
 *   the last snapshot at or before its end; buckets before the first snapshot, and after now, are left out.
 * - `base_value` is, for intraday timeframes, the account's equity at the close of the last NYSE trading day
 *   before the first bucket's day, named by `base_value_asof` (the anchor: "the account's closing equity
 *   value at this trading date"); for `1D`, or without a snapshot by that close, the equity of the first
 *   point, and no `base_value_asof`. `profit_loss` = equity − base_value and `profit_loss_pct` =
 *   equity / base_value − 1 (0 when base_value is 0), as the anchor computes them.
 *   `intraday_reporting`, `pnl_reset`, `extended_hours` and `cashflow_types` are accepted and change nothing:
 *   the series is continuous and never resets.
 */
import { dayNumber, MS_PER_DAY, newYorkInstant, newYorkWallTime } from "../market/newYorkTime.ts";
import { nyseTradingDay } from "../market/nyseCalendar.ts";
import { InvalidPortfolioHistoryQueryError } from "./accountHistoryErrors.ts";
import { fromNanos, toNanos } from "./portfolioValue.ts";

export const TIMEFRAMES = ["1Min", "5Min", "15Min", "1H", "1D"] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

const INTRADAY_MS: Record<Exclude<Timeframe, "1D">, number> = {
  "1Min": 60_000,
  "5Min": 300_000,
  "15Min": 900_000,
  "1H": 3_600_000,
};

/** Most points one answer holds (a week of minutes is 10,080: ask 5Min or a shorter range). */
export const MAX_POINTS = 10_000;
/** Longest range of an intraday timeframe, in days. */
export const MAX_INTRADAY_DAYS = 31;

export interface Period {
  count: number;
  unit: "D" | "W" | "M" | "A";
}

/** `1D`, `2W`, `3M`, `1A` (a count of 1 to 9999); undefined for anything else. */
export function parsePeriod(text: string): Period | undefined {
  const match = /^([1-9]\d{0,3})([DWMA])$/.exec(text);
  return match ? { count: Number(match[1]), unit: match[2] as Period["unit"] } : undefined;
}

const NOMINAL_DAYS: Record<Period["unit"], number> = { D: 1, W: 7, M: 30, A: 365 };

/** `at` moved by `sign × period`: days and weeks exactly, months and years on the UTC calendar (day clamped). */
export function shiftByPeriod(at: number, period: Period, sign: 1 | -1): number {
  if (period.unit === "D" || period.unit === "W")
    return at + sign * period.count * NOMINAL_DAYS[period.unit] * MS_PER_DAY;
  const months = sign * period.count * (period.unit === "A" ? 12 : 1);
  const date = new Date(at);
  const target = date.getUTCMonth() + months;
  const year = date.getUTCFullYear() + Math.floor(target / 12);
  const month = ((target % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const shifted = new Date(at);
  shifted.setUTCFullYear(year, month, Math.min(date.getUTCDate(), lastDay));
  return shifted.getTime();
}

/** What a query asks for, its times already instants (epoch ms). */
export interface HistoryQuery {
  period?: Period | undefined;
  timeframe?: Timeframe | undefined;
  start?: number | undefined;
  end?: number | undefined;
}

/** The buckets a query covers. */
export interface HistoryPlan {
  timeframe: Timeframe;
  /** Start of each bucket, epoch ms, oldest first (only buckets that started by now). */
  labels: number[];
  /** End of each bucket (the start of the next), epoch ms. */
  ends: number[];
}

const refuse = (parameter: string, reason: string): never => {
  throw new InvalidPortfolioHistoryQueryError(parameter, reason);
};

/** The range `[start, end)` of a query (rules in the module comment). */
function rangeOf(query: HistoryQuery, now: number): { start: number; end: number; days: number } {
  const { start, end, period } = query;
  if (start !== undefined && end !== undefined && period !== undefined) {
    refuse("period", "at most two of start, end and period may be given");
  }
  const span = period ?? { count: 1, unit: "M" as const };
  const to = end ?? (start !== undefined && period !== undefined ? shiftByPeriod(start, period, 1) : now);
  const from = start ?? shiftByPeriod(to, span, -1);
  if (!(from < to)) refuse(start !== undefined ? "start" : "end", "start must be before end");
  // A period's nominal length decides the default timeframe, so `1M` is the same query every month.
  const spanGiven = start !== undefined && (end !== undefined || period === undefined);
  const days = spanGiven ? (to - from) / MS_PER_DAY : span.count * NOMINAL_DAYS[span.unit];
  return { start: from, end: to, days };
}

/** The anchor's default timeframe of a range of `days`. */
export const defaultTimeframe = (days: number): Timeframe => (days < 7 ? "1Min" : days < 30 ? "15Min" : "1D");

/**
 * The buckets of a query at `now`.
 * @throws {InvalidPortfolioHistoryQueryError} for start, end and period together, an empty range, an intraday
 *   timeframe over more than {@link MAX_INTRADAY_DAYS} days, or more than {@link MAX_POINTS} points.
 */
export function planHistory(query: HistoryQuery, now: number): HistoryPlan {
  const { start, end, days } = rangeOf(query, now);
  const timeframe = query.timeframe ?? defaultTimeframe(days);
  const last = Math.min(end - 1, now);
  const labels: number[] = [];
  const ends: number[] = [];
  if (timeframe === "1D") {
    const first = newYorkWallTime(start).day;
    const lastDay = newYorkWallTime(end - 1).day;
    if (lastDay - first + 1 > MAX_POINTS) refuse("period", `more than ${MAX_POINTS} days; ask a shorter range`);
    for (let day = first; day <= lastDay; day++) {
      const label = newYorkInstant(day, 0);
      if (label > last) break;
      labels.push(label);
      ends.push(newYorkInstant(day + 1, 0));
    }
    return { timeframe, labels, ends };
  }
  if ((end - start) / MS_PER_DAY > MAX_INTRADAY_DAYS) {
    refuse("timeframe", `only 1D is available for ranges longer than ${MAX_INTRADAY_DAYS} days`);
  }
  const size = INTRADAY_MS[timeframe];
  const first = Math.floor(start / size) * size;
  if (Math.ceil((end - first) / size) > MAX_POINTS) {
    refuse("timeframe", `more than ${MAX_POINTS} points; ask a longer timeframe or a shorter range`);
  }
  for (let label = first; label <= last; label += size) {
    labels.push(label);
    ends.push(label + size);
  }
  return { timeframe, labels, ends };
}

/** The anchor's `PortfolioHistory` (numbers are JSON numbers there, unlike the rest of the API). */
export interface PortfolioHistoryObject {
  timestamp: number[];
  equity: number[];
  profit_loss: number[];
  profit_loss_pct: number[];
  base_value: number;
  /** The trading day whose closing equity is `base_value` (`YYYY-MM-DD`), when it is one. */
  base_value_asof?: string;
  timeframe: Timeframe;
  cashflow: Record<string, never>;
}

/** A trading day's close whose equity may serve as a history's base. */
export interface HistoryBaseline {
  date: string;
  /** The close, epoch ms. */
  at: number;
}

/** The close an intraday plan's base is taken at (none for `1D` or an empty plan). */
export function baselineOf(plan: HistoryPlan): HistoryBaseline | undefined {
  const first = plan.labels[0];
  if (plan.timeframe === "1D" || first === undefined) return undefined;
  for (let day = newYorkWallTime(first).day - 1; ; day--) {
    const tradingDay = nyseTradingDay(day);
    if (tradingDay) return { date: tradingDay.date, at: tradingDay.close };
  }
}

const ONE = 1_000_000_000n;
const toNumber = (nanos: bigint): number => Number(fromNanos(nanos));

/**
 * The series of a plan from the equity at each bucket's end (a decimal string, or undefined when no snapshot
 * precedes it). Differences are exact (1e-9 units) before becoming numbers.
 */
export function historySeries(
  plan: HistoryPlan,
  equityAtEnds: readonly (string | undefined)[],
  baseline?: { date: string; equity: string | undefined },
): PortfolioHistoryObject {
  const series: PortfolioHistoryObject = {
    timestamp: [],
    equity: [],
    profit_loss: [],
    profit_loss_pct: [],
    base_value: 0,
    timeframe: plan.timeframe,
    cashflow: {},
  };
  let base: bigint | undefined;
  if (baseline?.equity !== undefined) {
    base = toNanos(baseline.equity);
    series.base_value_asof = baseline.date;
  }
  plan.labels.forEach((label, i) => {
    const text = equityAtEnds[i];
    if (text === undefined) return;
    const equity = toNanos(text);
    base ??= equity;
    series.timestamp.push(label / 1000);
    series.equity.push(toNumber(equity));
    series.profit_loss.push(toNumber(equity - base));
    series.profit_loss_pct.push(base === 0n ? 0 : toNumber(((equity - base) * ONE) / base));
  });
  series.base_value = base === undefined ? 0 : toNumber(base);
  return series;
}

/** The instant a `date_end` (`YYYY-MM-DD`) ends: midnight New York after it. */
export const endOfNewYorkDay = (date: string): number => newYorkInstant(dayNumber(date) + 1, 0);
