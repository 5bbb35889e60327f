/**
 * `GET /v2/clock` and `GET /v2/calendar` (live and paper hosts, read-only): the market clock in the
 * configured session mode (`BROKERAGE_MARKET_SESSION`) and the NYSE calendar of trading days.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { InvalidDateError } from "../../market/newYorkTime.ts";
import { CalendarRangeError, MAX_CALENDAR_DAYS, type MarketService } from "../../services/market.ts";
import { alpacaCode } from "./errorFormat.ts";
import { CalendarDay, Clock, tradingErrorResponses } from "./schemas.ts";

/**
 * A day, or an RFC 3339 timestamp whose date part is the day (Alpaca's client sends `toISOString()`):
 * the date is taken as written, never converted between time zones.
 */
const DATE = "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})?)?$";
function dayOf(value: string | undefined, param: string): string | undefined {
  if (value !== undefined && value.length > 10 && Number.isNaN(Date.parse(value))) {
    throw unprocessable("not a valid date or time", param);
  }
  return value?.slice(0, 10);
}

const CalendarQuery = Type.Object({
  start: Type.Optional(
    Type.String({
      pattern: DATE,
      description: "First day (YYYY-MM-DD, or a timestamp: its date as written; inclusive); default today in New York.",
    }),
  ),
  end: Type.Optional(
    Type.String({
      pattern: DATE,
      description: `Last day (YYYY-MM-DD, inclusive); default a year after start. At most ${MAX_CALENDAR_DAYS} days in all.`,
    }),
  ),
  date_type: Type.Union([Type.Literal("TRADING"), Type.Literal("SETTLEMENT")], {
    default: "TRADING",
    description: "Whether `start` and `end` bound the trading dates (default) or the settlement dates.",
  }),
});

const unprocessable = (message: string, param: string) =>
  new HttpError(422, `query.${param}: ${message}`, String(alpacaCode(422)), param);

export function registerClockRoutes(app: HttpServer, { market }: { market: MarketService }) {
  app.get(
    "/v2/clock",
    {
      schema: {
        operationId: "getClock",
        tags: ["Calendar"],
        summary: "Get the market clock",
        description:
          "Now, whether the market is open, and the exchange's next open and close, in New York's offset. With " +
          "`BROKERAGE_MARKET_SESSION=always` (the default) the market is open at any hour; with `nyse` it is open " +
          "during the NYSE regular session.",
        response: { 200: Clock, 401: tradingErrorResponses[401] },
      },
    },
    async () => market.clock(),
  );

  app.get(
    "/v2/calendar",
    {
      schema: {
        operationId: "getCalendar",
        tags: ["Calendar"],
        summary: "Get the market calendar",
        description:
          "The NYSE trading days from `start` to `end` inclusive, with their session times (New York) and " +
          "settlement dates; holidays are absent and early closes end at 13:00.",
        querystring: CalendarQuery,
        response: {
          200: Type.Array(CalendarDay),
          401: tradingErrorResponses[401],
          422: tradingErrorResponses[422],
        },
      },
    },
    async (request) => {
      const start = dayOf(request.query.start, "start");
      const end = dayOf(request.query.end, "end");
      try {
        return market.calendar({ start, end, dateType: request.query.date_type });
      } catch (error) {
        if (error instanceof InvalidDateError) {
          throw unprocessable("not a valid date", error.input === start ? "start" : "end");
        }
        if (error instanceof CalendarRangeError) throw unprocessable(error.message, "end");
        throw error;
      }
    },
  );
}
