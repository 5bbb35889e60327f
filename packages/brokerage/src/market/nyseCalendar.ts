/**
 * Market sessions: the NYSE calendar behind `/v2/clock` and `/v2/calendar`, whether an order can trade now,
 * and the anchor's acceptance windows of `opg`/`cls` orders. Regular session 09:30–16:00 New York time
 * (13:00 on early closes), pre-market from 04:00, after-hours until 20:00 (17:00 on early closes).
 * Mode `always` (the embedded default) treats every instant as in session so a developer can trade at any
 * hour; `nyse` follows the exchange. Crypto trades around the clock in both.
 */
import {
  dateOfDayNumber,
  dayNumber,
  formatNewYorkTime,
  newYorkInstant,
  newYorkWallTime,
  weekdayOf,
} from "./newYorkTime.ts";
import { isBankOnlyHoliday, nyseSpecialDayOn } from "./nyseHolidays.ts";

export const MARKET_SESSION_MODES = ["always", "nyse"] as const;
export type MarketSessionMode = (typeof MARKET_SESSION_MODES)[number];

const PRE_MARKET_OPEN = 4 * 60;
const REGULAR_OPEN = 9 * 60 + 30;
const REGULAR_CLOSE = 16 * 60;
const EARLY_CLOSE = 13 * 60;
const AFTER_HOURS_CLOSE = 20 * 60;
const EARLY_AFTER_HOURS_CLOSE = 17 * 60;
/** The anchor rejects `opg` orders from 9:28am and `cls` orders from 3:50pm, until 7:00pm. */
const OPG_CUTOFF = 9 * 60 + 28;
const CLS_CUTOFF_BEFORE_CLOSE = 10;
const AUCTION_WINDOW_REOPENS = 19 * 60;

/** One trading day with its session boundaries as epoch milliseconds. */
export interface NyseTradingDay {
  date: string;
  day: number;
  earlyClose: boolean;
  preMarketOpen: number;
  open: number;
  close: number;
  afterHoursClose: number;
}

/** The trading day of a date ("YYYY-MM-DD" or day number), or `undefined` on weekends and holidays. */
export function nyseTradingDay(date: string | number): NyseTradingDay | undefined {
  const day = typeof date === "number" ? date : dayNumber(date);
  const weekday = weekdayOf(day);
  if (weekday === 0 || weekday === 6) return undefined;
  const iso = dateOfDayNumber(day);
  const special = nyseSpecialDayOn(iso);
  if (special?.kind === "holiday") return undefined;
  const earlyClose = special?.kind === "early_close";
  return {
    date: iso,
    day,
    earlyClose,
    preMarketOpen: newYorkInstant(day, PRE_MARKET_OPEN),
    open: newYorkInstant(day, REGULAR_OPEN),
    close: newYorkInstant(day, earlyClose ? EARLY_CLOSE : REGULAR_CLOSE),
    afterHoursClose: newYorkInstant(day, earlyClose ? EARLY_AFTER_HOURS_CLOSE : AFTER_HOURS_CLOSE),
  };
}

/** The first trading day strictly after a day number (never more than a few days away). */
export function nextTradingDay(day: number): NyseTradingDay {
  for (let next = day + 1; ; next++) {
    const tradingDay = nyseTradingDay(next);
    if (tradingDay) return tradingDay;
  }
}

/** Business days to settlement (SEC rule 15c6-1): T+1 since 2024-05-28, T+2 since 2017-09-05, T+3 since 1995-06-07. */
function settlementCycle(day: number): number {
  if (day >= dayNumber("2024-05-28")) return 1;
  if (day >= dayNumber("2017-09-05")) return 2;
  return day >= dayNumber("1995-06-07") ? 3 : 5;
}

/** Settlement date of a trade day: business days when the exchange trades and the banks are open. */
export function settlementDate(tradeDay: number): string {
  let day = tradeDay;
  for (let remaining = settlementCycle(tradeDay); remaining > 0; ) {
    day = nextTradingDay(day).day;
    if (!isBankOnlyHoliday(day)) remaining--;
  }
  return dateOfDayNumber(day);
}

/** The anchor's calendar entry (`GET /v2/calendar`): times "HH:MM", session times "HHMM". */
export interface CalendarDay {
  date: string;
  open: string;
  close: string;
  session_open: string;
  session_close: string;
  settlement_date: string;
}

const hhmm = (minutes: number, separator: string): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, "0")}${separator}${String(minutes % 60).padStart(2, "0")}`;

/**
 * The trading days from `start` to `end` inclusive ("YYYY-MM-DD"), as `GET /v2/calendar` lists them.
 * @throws {InvalidDateError} for a malformed date.
 */
export function calendarDays(start: string, end: string): CalendarDay[] {
  const days: CalendarDay[] = [];
  for (let day = dayNumber(start), last = dayNumber(end); day <= last; day++) {
    const tradingDay = nyseTradingDay(day);
    if (!tradingDay) continue;
    days.push({
      date: tradingDay.date,
      open: hhmm(REGULAR_OPEN, ":"),
      close: hhmm(tradingDay.earlyClose ? EARLY_CLOSE : REGULAR_CLOSE, ":"),
      session_open: hhmm(PRE_MARKET_OPEN, ""),
      session_close: hhmm(tradingDay.earlyClose ? EARLY_AFTER_HOURS_CLOSE : AFTER_HOURS_CLOSE, ""),
      settlement_date: settlementDate(day),
    });
  }
  return days;
}

/** Where an instant falls in the NYSE day. */
export type SessionPhase = "pre_market" | "regular" | "after_hours" | "closed";

/** The NYSE session phase at an instant. */
export function sessionPhaseAt(now: number): SessionPhase {
  const tradingDay = nyseTradingDay(newYorkWallTime(now).day);
  if (!tradingDay || now < tradingDay.preMarketOpen || now >= tradingDay.afterHoursClose) return "closed";
  if (now < tradingDay.open) return "pre_market";
  return now < tradingDay.close ? "regular" : "after_hours";
}

/** The next regular-session open strictly after `now` (today's if before 09:30, else a later day's). */
export function nextOpen(now: number): number {
  const today = nyseTradingDay(newYorkWallTime(now).day);
  if (today && now < today.open) return today.open;
  return nextTradingDay(newYorkWallTime(now).day).open;
}

/** The next regular-session close at or after `now` (today's until 16:00, else the next trading day's). */
export function nextClose(now: number): number {
  const today = nyseTradingDay(newYorkWallTime(now).day);
  if (today && now < today.close) return today.close;
  return nextTradingDay(newYorkWallTime(now).day).close;
}

/** The anchor's clock object (`GET /v2/clock`). */
export interface Clock {
  timestamp: string;
  is_open: boolean;
  next_open: string;
  next_close: string;
}

/**
 * The clock at `now`: `timestamp` with milliseconds, `next_open`/`next_close` to the second, all with New
 * York's offset as the anchor writes them. In mode `always` the market is open and the next times are the
 * exchange's, for information.
 */
export function clockAt(now: number, mode: MarketSessionMode): Clock {
  return {
    timestamp: formatNewYorkTime(now, 3),
    is_open: mode === "always" || sessionPhaseAt(now) === "regular",
    next_open: formatNewYorkTime(nextOpen(now), 0),
    next_close: formatNewYorkTime(nextClose(now), 0),
  };
}

/** What decides whether an order can trade now. */
export interface TradingHoursOptions {
  mode: MarketSessionMode;
  /** The order's `extended_hours`: pre-market and after-hours count as open. */
  extendedHours?: boolean;
  /** Crypto trades around the clock; default `us_equity`. */
  assetClass?: "us_equity" | "crypto";
}

/** Whether an order with these options can execute at `now`. */
export function isMarketOpen(now: number, options: TradingHoursOptions): boolean {
  if (options.mode === "always" || options.assetClass === "crypto") return true;
  const phase = sessionPhaseAt(now);
  return phase === "regular" || (options.extendedHours === true && phase !== "closed");
}

/**
 * Whether an `opg` or `cls` order is accepted at `now`. In mode `nyse`, on a trading day the anchor rejects
 * `opg` from 9:28am and `cls` from 3:50pm until 7:00pm ET; on an early close `cls` is rejected from ten
 * minutes before the 1:00pm close [inferred from the 3:50pm rule]. Mode `always` accepts both at any time.
 */
export function auctionOrderAccepted(timeInForce: "opg" | "cls", now: number, mode: MarketSessionMode): boolean {
  if (mode === "always") return true;
  const wall = newYorkWallTime(now);
  const tradingDay = nyseTradingDay(wall.day);
  if (!tradingDay) return true;
  const cutoff =
    timeInForce === "opg"
      ? OPG_CUTOFF
      : (tradingDay.earlyClose ? EARLY_CLOSE : REGULAR_CLOSE) - CLS_CUTOFF_BEFORE_CLOSE;
  return wall.minuteOfDay < cutoff || wall.minuteOfDay >= AUCTION_WINDOW_REOPENS;
}
