/**
 * The market as the trading API and the exchange read it: the asset universe (`/v2/assets`), the clock
 * (`/v2/clock`), the NYSE calendar (`/v2/calendar`) and the seeded price process (prices, quotes, the tape).
 * Pure reads over immutable data and a deterministic function of time, so no repository.
 */
import type { AssetFilter, AssetObject, AssetUniverse, ListedAsset } from "../market/assets.ts";
import { dateOfDayNumber, dayNumber, newYorkWallTime } from "../market/newYorkTime.ts";
import { type CalendarDay, type Clock, calendarDays, clockAt, type MarketSessionMode } from "../market/nyseCalendar.ts";
import { PriceProcess, type Quote, type TradePrint } from "../market/priceProcess.ts";
import {
  type CalendarTimezone,
  DEFAULT_MARKET,
  type MarketCalendarDay,
  type MarketClock,
  marketCalendarDays,
  marketClockAt,
  type PublicMarket,
  publicMarket,
} from "../market/publicMarkets.ts";

/** Widest `/v2/calendar` range answered at once: five years of days, about 1,260 trading days. */
export const MAX_CALENDAR_DAYS = 5 * 366;

/** Days a `/v2/calendar` range spans when only one of its ends is given, or neither (from today). */
export const DEFAULT_CALENDAR_DAYS = 366;

/** A calendar range the service does not answer (end before start, or wider than {@link MAX_CALENDAR_DAYS}). */
export class CalendarRangeError extends Error {
  override name = "CalendarRangeError" as const;
}

/** Calendar days before a settlement date its trade date can be (T+5 of old, across weekends and holidays). */
const SETTLEMENT_LOOKBACK_DAYS = 14;

/** Days after `start` a `/v3/calendar/{market}` range ends when `end` is missing (Alpaca: one week). */
export const DEFAULT_MARKET_CALENDAR_DAYS = 7;

/** A market code (`/v3/clock?markets=`, `/v3/calendar/{market}`) that names none of our markets. */
export class UnknownMarketError extends Error {
  override name = "UnknownMarketError" as const;
  constructor(readonly code: string) {
    super(`unknown market: ${code}`);
  }
}

/** The market a code names. @throws {UnknownMarketError} */
function marketNamed(code: string): PublicMarket {
  const market = publicMarket(code);
  if (!market) throw new UnknownMarketError(code);
  return market;
}

export interface CreateMarketServiceParameters {
  universe: AssetUniverse;
  /** `always`: the clock says open at any hour; `nyse`: it follows the exchange's sessions. */
  sessionMode: MarketSessionMode;
  /** Seed of the price process (`BROKERAGE_MARKET_SEED`); every instance with the same seed sees the same prices. */
  seed?: string;
  /** The current instant; tests pin it. */
  now?: () => Date;
}

export function createMarketService({
  universe,
  sessionMode,
  seed = "platform",
  now = () => new Date(),
}: CreateMarketServiceParameters) {
  const prices = new PriceProcess({ seed, universe });
  return {
    sessionMode,
    now,
    /** Every listing (the market data recorder records the active ones). */
    listings: (): readonly ListedAsset[] => universe.all(),
    /**
     * A tradable listing by symbol or id, or undefined.
     */
    findListing: (symbolOrId: string): ListedAsset | undefined => universe.find(symbolOrId),
    /** The symbol's price at `at` (default now), on its tick: what positions are valued at. */
    priceOf: (symbol: string, at: number = now().getTime()): number => prices.priceAt(symbol, at),
    /** The best bid and offer at `at` (default now). */
    quoteOf: (symbol: string, at: number = now().getTime()): Quote => prices.quoteAt(symbol, at),
    /** The tape's prints in `[from, to)` (epoch ms), oldest first. */
    tradesBetween: (symbol: string, from: number, to: number): TradePrint[] => prices.tradesBetween(symbol, from, to),
    /** The assets matching the `/v2/assets` filters, in the anchor's order. */
    listAssets: (filter: AssetFilter): AssetObject[] => universe.list(filter),
    /**
     * One asset by symbol (`AAPL`, `BTC/USD`, `BTCUSD`, `AAPL:NASDAQ`) or id.
     * @throws {AssetNotFoundError} when nothing matches.
     */
    getAsset: (symbolOrId: string): AssetObject => universe.get(symbolOrId).asset,
    /** The clock now, in this service's session mode. */
    clock: (): Clock => clockAt(now().getTime(), sessionMode),
    /**
     * The trading days from `start` to `end` inclusive ("YYYY-MM-DD"). The anchor answers its whole calendar
     * when both are missing; we answer a bounded range instead: a year from today (New York), or a year
     * after `start` / before `end` when only one is given.
     * @throws {InvalidDateError} for a malformed date; {@link CalendarRangeError} for a reversed or too wide range.
     */
    calendar(
      range: { start?: string | undefined; end?: string | undefined; dateType?: "TRADING" | "SETTLEMENT" } = {},
    ): CalendarDay[] {
      const span = DEFAULT_CALENDAR_DAYS - 1;
      const first =
        range.start !== undefined
          ? dayNumber(range.start)
          : range.end !== undefined
            ? dayNumber(range.end) - span
            : newYorkWallTime(now().getTime()).day;
      const last = range.end !== undefined ? dayNumber(range.end) : first + span;
      const [start, end] = [dateOfDayNumber(first), dateOfDayNumber(last)];
      const days = last - first + 1;
      if (days < 1) throw new CalendarRangeError(`end ${end} is before start ${start}`);
      if (days > MAX_CALENDAR_DAYS) {
        throw new CalendarRangeError(`range of ${days} days is wider than ${MAX_CALENDAR_DAYS} days`);
      }
      if (range.dateType !== "SETTLEMENT") return calendarDays(start, end);
      // The days that settle in the range: trade dates up to a settlement cycle (and its holidays) earlier.
      return calendarDays(dateOfDayNumber(first - SETTLEMENT_LOOKBACK_DAYS), end).filter(
        (day) => day.settlement_date >= start && day.settlement_date <= end,
      );
    },
    /**
     * The clocks of the markets named (acronyms or MICs; default NYSE) at `time` (epoch ms; default now).
     * @throws {UnknownMarketError} for a code that names none of our markets.
     */
    clocks(codes: readonly string[], time: number = now().getTime()): MarketClock[] {
      const markets = codes.length === 0 ? [DEFAULT_MARKET] : codes.map(marketNamed);
      return markets.map((market) => marketClockAt(market, time, sessionMode));
    },
    /**
     * The trading days of one market from `start` (default today in New York) to `end` (default a week
     * later) inclusive, with their sessions.
     * @throws {UnknownMarketError}; {@link InvalidDateError}; {@link CalendarRangeError} for a reversed or too wide range.
     */
    marketCalendar(
      code: string,
      range: { start?: string | undefined; end?: string | undefined; timezone: CalendarTimezone },
    ): { market: PublicMarket; calendar: MarketCalendarDay[] } {
      const market = marketNamed(code);
      const first = range.start !== undefined ? dayNumber(range.start) : newYorkWallTime(now().getTime()).day;
      const last = range.end !== undefined ? dayNumber(range.end) : first + DEFAULT_MARKET_CALENDAR_DAYS;
      const days = last - first + 1;
      if (days < 1) {
        throw new CalendarRangeError(`end ${dateOfDayNumber(last)} is before start ${dateOfDayNumber(first)}`);
      }
      if (days > MAX_CALENDAR_DAYS) {
        throw new CalendarRangeError(`range of ${days} days is wider than ${MAX_CALENDAR_DAYS} days`);
      }
      return { market, calendar: marketCalendarDays(first, last, range.timezone) };
    },
  };
}

export type MarketService = ReturnType<typeof createMarketService>;
