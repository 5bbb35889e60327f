/**
 * When equity orders may execute and when `day` orders end, in the two session modes
 * (`BROKERAGE_MARKET_SESSION`):
 * - `always`: the market never closes; a "day" is the New York calendar day, so a `day` order expires at the
 *   next New York midnight, and `opg`/`cls` orders execute at once as market (or limit) orders;
 * - `nyse`: regular hours 09:30–16:00 ET on NYSE trading days (13:00 on early closes); `extended_hours`
 *   limit orders also trade 04:00–09:30 and 16:00–20:00. Orders placed while closed wait (status `accepted`)
 *   for the next session; `day` orders expire at its close (20:00 for extended hours); `opg` orders execute
 *   at the open, `cls` orders at the close (the last 10 s before it).
 * Crypto trades around the clock in both modes (and has no `day` orders).
 */
import { newYorkInstant, newYorkWallTime } from "../market/newYorkTime.ts";
import { type MarketSessionMode, nextTradingDay, nyseTradingDay, sessionPhaseAt } from "../market/nyseCalendar.ts";

/** How long before the close `cls` orders are released to execute. */
export const CLOSING_AUCTION_LEAD_MS = 10_000;

/** When a `day` equity order placed at `at` expires. */
export function expiryOfDayOrder(at: number, mode: MarketSessionMode, extendedHours: boolean): Date {
  const wall = newYorkWallTime(at);
  if (mode === "always") return new Date(newYorkInstant(wall.day + 1, 0));
  const today = nyseTradingDay(wall.day);
  const session =
    today && at < (extendedHours ? today.afterHoursClose : today.close) ? today : nextTradingDay(wall.day);
  return new Date(extendedHours ? session.afterHoursClose : session.close);
}

/** Calendar days a `gtc` order lives (Alpaca's aged order policy). */
export const GTC_LIFETIME_DAYS = 90;

/**
 * When a `gtc` order placed at `at` expires, as Alpaca's aged order policy ends GTC orders (the field
 * `expires_at`, alpaca-py PR #558 "Add expires_at into Order", linking docs.alpaca.markets "Orders at Alpaca
 * § Aged order policy"): {@link GTC_LIFETIME_DAYS} calendar days after placement. The hour is our choice (no
 * source we found states it): an equity order ends at the regular close of the last NYSE trading day on or
 * before that New York date, as a day order ends; a crypto order, which trades around the clock, at the
 * same instant 90 days later.
 */
export function expiryOfGtcOrder(at: number, assetClass: string): Date {
  if (assetClass === "crypto") return new Date(at + GTC_LIFETIME_DAYS * 86_400_000);
  for (let day = newYorkWallTime(at).day + GTC_LIFETIME_DAYS; ; day--) {
    const tradingDay = nyseTradingDay(day);
    if (tradingDay) return new Date(tradingDay.close);
  }
}

export interface SessionOrder {
  asset_class: string;
  time_in_force: string;
  extended_hours: boolean;
}

/**
 * Whether `order` may execute at `now`: crypto always; in `always` mode everything; in `nyse` mode regular
 * hours (plus the extended sessions for extended-hours orders), `opg` only at the open's minute, `cls` only
 * in the closing seconds.
 */
export function mayExecute(order: SessionOrder, now: number, mode: MarketSessionMode): boolean {
  if (order.asset_class === "crypto" || mode === "always") return true;
  const phase = sessionPhaseAt(now);
  const today = nyseTradingDay(newYorkWallTime(now).day);
  if (!today) return false;
  if (order.time_in_force === "opg") return phase === "regular" && now < today.open + 60_000;
  if (order.time_in_force === "cls") return phase === "regular" && now >= today.close - CLOSING_AUCTION_LEAD_MS;
  if (phase === "regular") return true;
  return order.extended_hours && (phase === "pre_market" || phase === "after_hours");
}
