/**
 * `GET /v3/clock` and `GET /v3/calendar/{market}` (live and paper hosts, read-only): Alpaca's multi-market
 * clock and calendar (operations `Clock` and `Calendar` of its trading API document, the methods the 4.x
 * client calls first), answered for our markets (market/publicMarkets.ts) from the same NYSE calendar as
 * `/v2/clock` and `/v2/calendar`. Their errors are 400s, as the document declares: an unknown market, a
 * malformed date or time, a reversed or too wide range.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { InvalidDateError } from "../../market/newYorkTime.ts";
import {
  CalendarRangeError,
  DEFAULT_MARKET_CALENDAR_DAYS,
  MAX_CALENDAR_DAYS,
  type MarketService,
  UnknownMarketError,
} from "../../services/market.ts";
import { alpacaCode, type ParameterErrorConfig } from "./errorFormat.ts";
import { ApiError, tradingErrorResponses } from "./schemas.ts";

const badRequest = (message: string, param: string) => new HttpError(400, message, String(alpacaCode(400)), param);

const DATE = "^\\d{4}-\\d{2}-\\d{2}$";

const PublicMarket = Type.Object(
  {
    acronym: Type.String({ description: "The market's acronym." }),
    mic: Type.String({ description: "Its market identifier code (ISO 10383)." }),
    name: Type.String(),
    timezone: Type.String({ description: "Its time zone (IANA)." }),
  },
  { description: "A market." },
);

const MARKET_EXAMPLE = {
  acronym: "NYSE",
  mic: "XNYS",
  name: "New York Stock Exchange",
  timezone: "America/New_York",
};

const ClockResponse = Type.Object(
  {
    clocks: Type.Array(
      Type.Object({
        market: PublicMarket,
        timestamp: Type.String({ format: "date-time", description: "The time on the clock." }),
        is_market_day: Type.Boolean({ description: "Whether the market trades on this day." }),
        next_market_open: Type.String({ format: "date-time" }),
        next_market_close: Type.String({ format: "date-time" }),
        phase: Type.Union([Type.Literal("closed"), Type.Literal("pre"), Type.Literal("core"), Type.Literal("post")], {
          description: "`pre` 04:00–09:30, `core` the regular session, `post` until 20:00 (17:00 on early closes).",
        }),
        phase_until: Type.String({ format: "date-time", description: "The end of the current phase." }),
      }),
    ),
  },
  {
    examples: [
      {
        clocks: [
          {
            market: MARKET_EXAMPLE,
            timestamp: "2026-11-25T10:15:00.123-05:00",
            is_market_day: true,
            next_market_open: "2026-11-27T09:30:00-05:00",
            next_market_close: "2026-11-25T16:00:00-05:00",
            phase: "core",
            phase_until: "2026-11-25T16:00:00-05:00",
          },
        ],
      },
    ],
  },
);

const CalendarResponse = Type.Object(
  {
    market: PublicMarket,
    calendar: Type.Array(
      Type.Object({
        date: Type.String({ format: "date" }),
        pre_start: Type.String({ format: "date-time" }),
        pre_end: Type.String({ format: "date-time" }),
        core_start: Type.String({ format: "date-time" }),
        core_end: Type.String({ format: "date-time" }),
        post_start: Type.String({ format: "date-time" }),
        post_end: Type.String({ format: "date-time" }),
        settlement_date: Type.String({ format: "date" }),
      }),
    ),
  },
  {
    examples: [
      {
        market: MARKET_EXAMPLE,
        calendar: [
          {
            date: "2026-11-27",
            pre_start: "2026-11-27T04:00:00-05:00",
            pre_end: "2026-11-27T09:30:00-05:00",
            core_start: "2026-11-27T09:30:00-05:00",
            core_end: "2026-11-27T13:00:00-05:00",
            post_start: "2026-11-27T13:00:00-05:00",
            post_end: "2026-11-27T17:00:00-05:00",
            settlement_date: "2026-11-30",
          },
        ],
      },
    ],
  },
);

const BadRequest = Type.Object(ApiError.properties, {
  description: "An unknown market, a malformed date or time, or a reversed or too wide range.",
  examples: [{ code: 40010000, message: "unknown market: LSE" }],
});

export function registerMarketClockRoutes(app: HttpServer, { market }: { market: MarketService }) {
  const config: ParameterErrorConfig = { invalidParameterStatus: 400 };
  app.get(
    "/v3/clock",
    {
      config,
      schema: {
        operationId: "clock",
        tags: ["Calendar"],
        summary: "Get the clocks of markets",
        description:
          "The time, whether it is a market day, the current phase and when it ends, and the next open and close " +
          "of each market named (`NYSE` or `XNYS`, `NASDAQ` or `XNAS`; default NYSE), now or at `time`. With " +
          "`BROKERAGE_MARKET_SESSION=always` (the default) the phase is `core` until the New York day ends.",
        querystring: Type.Object({
          markets: Type.Optional(Type.String({ description: "Comma-separated market codes (acronym or MIC)." })),
          time: Type.Optional(
            Type.String({ format: "date-time", description: "The instant of the clock instead of now (RFC 3339)." }),
          ),
        }),
        response: { 200: ClockResponse, 400: BadRequest, 401: tradingErrorResponses[401] },
      },
    },
    async (request) => {
      const codes = (request.query.markets ?? "").split(",").filter((code) => code.trim() !== "");
      const time = request.query.time === undefined ? undefined : Date.parse(request.query.time);
      try {
        return { clocks: market.clocks(codes, time) };
      } catch (error) {
        if (error instanceof UnknownMarketError) throw badRequest(error.message, "markets");
        throw error;
      }
    },
  );

  app.get(
    "/v3/calendar/:market",
    {
      config,
      schema: {
        operationId: "calendar",
        tags: ["Calendar"],
        summary: "Get the calendar of a market",
        description:
          "The trading days of one market (`NYSE` or `XNYS`, `NASDAQ` or `XNAS`) from `start` to `end` inclusive " +
          "with the times of their pre-market, core and after-hours sessions and their settlement dates; " +
          "holidays are absent, early closes end their core session at 13:00. Times are in the market's offset, " +
          "or in UTC with `timezone=UTC`.",
        params: Type.Object({ market: Type.String({ description: "The market's acronym or MIC." }) }),
        querystring: Type.Object({
          start: Type.Optional(Type.String({ pattern: DATE, description: "First day (inclusive); default today." })),
          end: Type.Optional(
            Type.String({
              pattern: DATE,
              description: `Last day (inclusive); default ${DEFAULT_MARKET_CALENDAR_DAYS} days after start; at most ${MAX_CALENDAR_DAYS} days in all.`,
            }),
          ),
          timezone: Type.Optional(Type.Literal("UTC", { description: "Times in UTC instead of the market's." })),
        }),
        response: { 200: CalendarResponse, 400: BadRequest, 401: tradingErrorResponses[401] },
      },
    },
    async (request) => {
      const { start, end, timezone } = request.query;
      try {
        return market.marketCalendar(request.params.market, { start, end, timezone: timezone ?? "market" });
      } catch (error) {
        if (error instanceof UnknownMarketError) throw badRequest(error.message, "market");
        if (error instanceof InvalidDateError) {
          throw badRequest(`not a valid date: ${error.input}`, error.input === start ? "start" : "end");
        }
        if (error instanceof CalendarRangeError) throw badRequest(error.message, "end");
        throw error;
      }
    },
  );
}
