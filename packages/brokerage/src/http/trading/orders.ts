/**
 * `GET /v2/orders` (live and paper hosts) with the anchor's query parameters, validated here so that a bad
 * one is a 422 naming it (never a 500). Orders come from `services/orders.ts`.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { type Static, Type } from "typebox";
import type { OrderListQuery, OrdersService } from "../../services/orders.ts";
import { alpacaCode } from "./errorFormat.ts";
import { Order, tradingErrorResponses } from "./schemas.ts";
import { principalOf } from "./tradingAuth.ts";

/** A date (`2026-01-05`) or an RFC 3339 timestamp, as the anchor accepts for `after` and `until`. */
const TIMESTAMP = "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})?)?$";
/** One symbol (`AAPL`, `BRK.B`, `BTC/USD`), or several separated by commas. */
const SYMBOL = "[A-Za-z0-9./:_-]{1,32}";

const Timestamp = (description: string) => Type.String({ pattern: TIMESTAMP, maxLength: 40, description });

const ListOrdersQuery = Type.Object({
  status: Type.Union([Type.Literal("open"), Type.Literal("closed"), Type.Literal("all")], {
    default: "open",
    description: "Orders of this status.",
  }),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: "Most orders answered." }),
  after: Type.Optional(Timestamp("Only orders submitted after this time (exclusive).")),
  until: Type.Optional(Timestamp("Only orders submitted until this time (exclusive).")),
  direction: Type.Union([Type.Literal("asc"), Type.Literal("desc")], {
    default: "desc",
    description: "Chronological order of the answer.",
  }),
  nested: Type.Boolean({ default: false, description: "Roll multi-leg orders up under their parent's `legs`." }),
  side: Type.Optional(Type.Union([Type.Literal("buy"), Type.Literal("sell")], { description: "Only this side." })),
  symbols: Type.Optional(
    Type.String({
      pattern: `^ *${SYMBOL} *(, *${SYMBOL} *)*$`,
      maxLength: 4_096,
      description: "Comma-separated symbols, e.g. `AAPL,TSLA`.",
    }),
  ),
});

/** The instant of a validated `after`/`until` value; a well-shaped but impossible date is a 422. */
function instant(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(/T/.test(value) && !/(Z|[+-]\d{2}:\d{2})$/.test(value) ? `${value}Z` : value);
  if (Number.isNaN(date.getTime())) {
    throw new HttpError(422, `query.${name}: not a valid date or time`, String(alpacaCode(422)), name);
  }
  return date;
}

function toOrderListQuery(q: Static<typeof ListOrdersQuery>): OrderListQuery {
  return {
    status: q.status,
    limit: q.limit,
    after: instant("after", q.after),
    until: instant("until", q.until),
    direction: q.direction,
    nested: q.nested,
    side: q.side,
    symbols: q.symbols?.split(",").map((s) => s.trim()),
  };
}

export function registerOrderRoutes(app: HttpServer, { orders }: { orders: OrdersService }) {
  app.get(
    "/v2/orders",
    {
      schema: {
        operationId: "getAllOrders",
        tags: ["Orders"],
        summary: "List orders",
        description:
          "The account's orders matching the filters, newest first by default. Orders cannot be placed yet, so " +
          "the list is empty.",
        querystring: ListOrdersQuery,
        response: {
          200: Type.Array(Order, { examples: [[]] }),
          401: tradingErrorResponses[401],
          422: tradingErrorResponses[422],
        },
      },
    },
    async (request) => orders.list(principalOf(request).account.id, toOrderListQuery(request.query)),
  );
}
