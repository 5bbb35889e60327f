/**
 * The markets of Alpaca's multi-market clock and calendar (`GET /v3/clock`, `GET /v3/calendar/{market}`)
 * that our market serves: the two US equity exchanges its listings trade on, both on the NYSE calendar
 * (nyseCalendar.ts). Each is named by its acronym or its MIC, as Alpaca's `market` parameter allows; the
 * other markets Alpaca lists (banking calendars, European and Asian exchanges, OPRA) are not ours.
 * Phases: `pre` 04:00–09:30, `core` 09:30–16:00 (13:00 on early closes), `post` until 20:00 (17:00),
 * otherwise `closed`; no market of ours has a `lunch`.
 */
import { formatNewYorkTime, newYorkInstant, newYorkWallTime } from "./newYorkTime.ts";
import {
  type MarketSessionMode,
  nextClose,
  nextOpen,
  nextTradingDay,
  nyseTradingDay,
  sessionPhaseAt,
  settlementDate,
} from "./nyseCalendar.ts";

/** Alpaca's `public_market` object. */
export interface PublicMarket {
  acronym: string;
  mic: string;
  name: string;
  timezone: string;
}

const MARKETS: readonly PublicMarket[] = [
  { acronym: "NYSE", mic: "XNYS", name: "New York Stock Exchange", timezone: "America/New_York" },
  { acronym: "NASDAQ", mic: "XNAS", name: "Nasdaq Stock Market", timezone: "America/New_York" },
];

/** The market a code names (acronym or MIC, any case), or `undefined`. */
export function publicMarket(code: string): PublicMarket | undefined {
  const upper = code.trim().toUpperCase();
  return MARKETS.find((m) => m.acronym === upper || m.mic === upper);
}

/** The market the clock answers when the request names none. */
export const DEFAULT_MARKET = MARKETS[0] as PublicMarket;

/** Alpaca's phases, less `lunch`, which no market of ours has. */
export type MarketPhase = "closed" | "pre" | "core" | "post";

/** Alpaca's `clock` object of one market. */
export interface MarketClock {
  market: PublicMarket;
  timestamp: string;
  is_market_day: boolean;
  next_market_open: string;
  next_market_close: string;
  phase: MarketPhase;
  phase_until: string;
}

/**
 * The clock of `market` at `now`, times in New York's offset. In session mode `always` the market is in its
 * `core` phase at any hour until the New York day ends (as `/v2/clock` says open); the next open and close
 * are the exchange's, for information.
 */
export function marketClockAt(market: PublicMarket, now: number, mode: MarketSessionMode): MarketClock {
  const today = nyseTradingDay(newYorkWallTime(now).day);
  const { phase, until } = mode === "always" ? { phase: "core" as const, until: midnightAfter(now) } : phaseAt(now);
  return {
    market,
    timestamp: formatNewYorkTime(now, 3),
    is_market_day: today !== undefined,
    next_market_open: formatNewYorkTime(nextOpen(now), 0),
    next_market_close: formatNewYorkTime(nextClose(now), 0),
    phase,
    phase_until: formatNewYorkTime(until, 0),
  };
}

/** The next New York midnight after `now`. */
const midnightAfter = (now: number): number => newYorkInstant(newYorkWallTime(now).day + 1, 0);

/** The NYSE phase at `now` and when it ends. */
function phaseAt(now: number): { phase: MarketPhase; until: number } {
  const day = newYorkWallTime(now).day;
  const today = nyseTradingDay(day);
  switch (sessionPhaseAt(now)) {
    case "pre_market":
      return { phase: "pre", until: (today as NonNullable<typeof today>).open };
    case "regular":
      return { phase: "core", until: (today as NonNullable<typeof today>).close };
    case "after_hours":
      return { phase: "post", until: (today as NonNullable<typeof today>).afterHoursClose };
    default:
      return {
        phase: "closed",
        until: today && now < today.preMarketOpen ? today.preMarketOpen : nextTradingDay(day).preMarketOpen,
      };
  }
}

/** Alpaca's `calendar_day`: the sessions of one trading day. */
export interface MarketCalendarDay {
  date: string;
  pre_start: string;
  pre_end: string;
  core_start: string;
  core_end: string;
  post_start: string;
  post_end: string;
  settlement_date: string;
}

/** How calendar times are written: in the market's offset (Alpaca's default) or in UTC (`timezone=UTC`). */
export type CalendarTimezone = "market" | "UTC";

const utc = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/** The trading days of `[first, last]` (day numbers) with their sessions. */
export function marketCalendarDays(first: number, last: number, timezone: CalendarTimezone): MarketCalendarDay[] {
  const write = timezone === "UTC" ? utc : (ms: number) => formatNewYorkTime(ms, 0);
  const days: MarketCalendarDay[] = [];
  for (let day = first; day <= last; day++) {
    const t = nyseTradingDay(day);
    if (!t) continue;
    days.push({
      date: t.date,
      pre_start: write(t.preMarketOpen),
      pre_end: write(t.open),
      core_start: write(t.open),
      core_end: write(t.close),
      post_start: write(t.close),
      post_end: write(t.afterHoursClose),
      settlement_date: settlementDate(day),
    });
  }
  return days;
}
