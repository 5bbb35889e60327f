/**
 * `GET /v2/account/portfolio/history` (live and paper hosts, read-only): the account's equity and profit/loss
 * over time, from the equity snapshots, as the anchor's `PortfolioHistory` (the official client's
 * `PortfolioHistoryApi.getAccountPortfolioHistory`; numbers are JSON numbers there). Rules of ranges,
 * timeframes and values: domain/portfolioHistory.ts. A bad parameter is the anchor's 422, never a 500.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { InvalidPortfolioHistoryQueryError } from "../../domain/accountHistoryErrors.ts";
import { historySeries, MAX_INTRADAY_DAYS, MAX_POINTS, TIMEFRAMES } from "../../domain/portfolioHistory.ts";
import { QUERY_INSTANT_PATTERN } from "../../domain/queryInstants.ts";
import type { PortfolioHistoryService } from "../../services/portfolioHistory.ts";
import { alpacaCode } from "./errorFormat.ts";
import { tradingErrorResponses } from "./schemas.ts";
import { principalOf } from "./tradingAuth.ts";

const QueryTime = (description: string) => Type.String({ pattern: QUERY_INSTANT_PATTERN, maxLength: 40, description });

const PortfolioHistoryQuery = Type.Object({
  period: Type.Optional(
    Type.String({
      pattern: "^[1-9]\\d{0,3}[DWMA]$",
      description: "Length of the history: `<n>` days (D), weeks (W), months (M) or years (A); default `1M`.",
    }),
  ),
  timeframe: Type.Optional(
    Type.Union(
      TIMEFRAMES.map((t) => Type.Literal(t)),
      {
        description:
          "Length of a point: `1Min`, `5Min`, `15Min`, `1H` or `1D`. Default: `1Min` under 7 days, `15Min` under " +
          `30 days, else \`1D\`. Intraday ones cover at most ${MAX_INTRADAY_DAYS} days; at most ${MAX_POINTS} points.`,
      },
    ),
  ),
  start: Type.Optional(QueryTime("First time of the history (RFC 3339). Not with both `end` and `period`.")),
  end: Type.Optional(QueryTime("End of the history (RFC 3339); default now.")),
  date_end: Type.Optional(QueryTime("Deprecated: the history ends with this New York day. Not with `end`.")),
  extended_hours: Type.Optional(Type.Boolean({ description: "Accepted; the history is continuous." })),
  intraday_reporting: Type.Optional(
    Type.Union([Type.Literal("market_hours"), Type.Literal("extended_hours"), Type.Literal("continuous")], {
      description: "Accepted; the history is continuous (every timestamp, the brokerage trades crypto all day).",
    }),
  ),
  pnl_reset: Type.Optional(
    Type.Union([Type.Literal("no_reset"), Type.Literal("per_day")], {
      description: "Accepted; profit/loss is always relative to the first point (`no_reset`).",
    }),
  ),
  cashflow_types: Type.Optional(Type.String({ maxLength: 512, description: "Accepted; `cashflow` is always empty." })),
});

const HISTORY_EXAMPLE = historySeries(
  {
    timeframe: "1D",
    labels: [1767589200000, 1767675600000, 1767762000000],
    ends: [1767675600000, 1767762000000, 1767848400000],
  },
  ["100000", "100250.5", "99800.25"],
);

/** The anchor's `PortfolioHistory`. */
export const PortfolioHistory = Type.Object(
  {
    timestamp: Type.Array(Type.Integer(), { description: "Start of each point's window, epoch seconds." }),
    equity: Type.Array(Type.Number(), { description: "Equity at the end of each window, dollars." }),
    profit_loss: Type.Array(Type.Number(), { description: "equity − base_value, dollars." }),
    profit_loss_pct: Type.Array(Type.Number(), { description: "equity / base_value − 1 (0.01 is 1 %)." }),
    base_value: Type.Number({ description: "Equity of the first point (0 when there is none)." }),
    base_value_asof: Type.Optional(
      Type.String({ format: "date", description: "Absent: base_value is the first point's equity." }),
    ),
    timeframe: Type.String({ description: "The timeframe of the points." }),
    cashflow: Type.Object({}, { description: "Cash flows per type: none are reported." }),
  },
  { $id: "PortfolioHistory", examples: [HISTORY_EXAMPLE] },
);

export function registerPortfolioHistoryRoutes(
  app: HttpServer,
  { portfolioHistory }: { portfolioHistory: PortfolioHistoryService },
) {
  app.get(
    "/v2/account/portfolio/history",
    {
      schema: {
        operationId: "getAccountPortfolioHistory",
        tags: ["Accounts"],
        summary: "Get account portfolio history",
        description:
          "Equity and profit/loss of the account over `period` (default `1M`) or `start`–`end`, one point per " +
          "`timeframe` window: the equity at the window's end, recorded by the equity snapshots. Profit/loss is " +
          "relative to the first point. Windows before the account's first snapshot are left out.",
        querystring: PortfolioHistoryQuery,
        response: { 200: PortfolioHistory, ...tradingErrorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      try {
        return await portfolioHistory.get(principalOf(request).account.id, {
          period: q.period,
          timeframe: q.timeframe,
          start: q.start,
          end: q.end,
          dateEnd: q.date_end,
        });
      } catch (error) {
        if (error instanceof InvalidPortfolioHistoryQueryError) {
          const { parameter } = error;
          throw new HttpError(422, `query.${parameter}: ${error.message}`, String(alpacaCode(422)), parameter);
        }
        throw error;
      }
    },
  );
}
