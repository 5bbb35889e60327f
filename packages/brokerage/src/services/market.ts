/**
 * The market's reference data as the trading API serves it: the asset universe (`/v2/assets`), the clock
 * (`/v2/clock`) and the NYSE calendar (`/v2/calendar`). Pure reads over immutable data, so no repository.
 */
import type { AssetFilter, AssetObject, AssetUniverse } from "../market/assets.ts";
import { dateOfDayNumber, dayNumber, newYorkWallTime } from "../market/newYorkTime.ts";
import { type CalendarDay, type Clock, calendarDays, clockAt, type MarketSessionMode } from "../market/nyseCalendar.ts";

/** Widest `/v2/calendar` range answered at once: five years of days, about 1,260 trading days. */
export const MAX_CALENDAR_DAYS = 5 * 366;

/** Days a `/v2/calendar` range spans when only one of its ends is given, or neither (from today). */
export const DEFAULT_CALENDAR_DAYS = 366;

/** A calendar range the service does not answer (end before start, or wider than {@link MAX_CALENDAR_DAYS}). */
export class CalendarRangeError extends Error {
  override name = "CalendarRangeError" as const;
}

export interface CreateMarketServiceParameters {
  universe: AssetUniverse;
  /** `always`: the clock says open at any hour; `nyse`: it follows the exchange's sessions. */
  sessionMode: MarketSessionMode;
  /** The current instant; tests pin it. */
  now?: () => Date;
}

export function createMarketService({ universe, sessionMode, now = () => new Date() }: CreateMarketServiceParameters) {
  return {
    sessionMode,
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
    calendar(range: { start?: string | undefined; end?: string | undefined } = {}): CalendarDay[] {
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
      return calendarDays(start, end);
    },
  };
}

export type MarketService = ReturnType<typeof createMarketService>;
