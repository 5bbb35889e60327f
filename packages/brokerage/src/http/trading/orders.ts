/**
 * The orders API (live and paper hosts): place, list, get (by id or client order id), replace, cancel one,
 * cancel all (207), with the anchor's parameters validated here so a bad one is a 422 naming it (never a
 * 500). Orders come from `services/orders.ts`; its `OrderRejectedError`s become the anchor's bodies.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import type { FastifyReply } from "fastify";
import { type Static, Type } from "typebox";
import { OrderRejectedError } from "../../domain/orderErrors.ts";
import type { OrderListQuery, OrdersService } from "../../services/orders.ts";
import { alpacaCode } from "./errorFormat.ts";
import { errorResponse, Order, tradingErrorResponses } from "./schemas.ts";
import { principalOf } from "./tradingAuth.ts";

/** The anchor's body of a rejected order operation (with its extra fields, e.g. `available`). */
export async function answerRejection<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof OrderRejectedError)) throw error;
    return reply.code(error.status).send({ code: error.code, message: error.message, ...error.details }) as never;
  }
}

const Decimal = (description: string) => Type.Union([Type.String({ maxLength: 32 }), Type.Number()], { description });

const PlaceOrderBody = Type.Object(
  {
    symbol: Type.String({ minLength: 1, maxLength: 32, description: "Symbol or asset id, e.g. `AAPL`, `BTC/USD`." }),
    qty: Type.Optional(Decimal("Shares or coins (fractional for fractionable assets); or use notional.")),
    notional: Type.Optional(Decimal("Dollar amount to trade (market day orders); or use qty.")),
    side: Type.Union([Type.Literal("buy"), Type.Literal("sell")]),
    type: Type.Union(["market", "limit", "stop", "stop_limit", "trailing_stop"].map((t) => Type.Literal(t)) as never),
    time_in_force: Type.Union(["day", "gtc", "opg", "cls", "ioc", "fok"].map((t) => Type.Literal(t)) as never),
    limit_price: Type.Optional(Decimal("Limit price (limit and stop_limit orders).")),
    stop_price: Type.Optional(Decimal("Stop price (stop and stop_limit orders).")),
    trail_price: Type.Optional(Decimal("Trailing stop distance in dollars.")),
    trail_percent: Type.Optional(Decimal("Trailing stop distance in percent.")),
    extended_hours: Type.Optional(
      Type.Boolean({ description: "Also trade in the extended sessions (limit day only)." }),
    ),
    client_order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "Unique per account." })),
    order_class: Type.Optional(
      Type.Union(["simple", "bracket", "oco", "oto", ""].map((t) => Type.Literal(t)) as never),
    ),
    take_profit: Type.Optional(Type.Object({ limit_price: Decimal("Take-profit limit price.") })),
    stop_loss: Type.Optional(
      Type.Object({
        stop_price: Decimal("Stop-loss stop price."),
        limit_price: Type.Optional(Decimal("Stop-loss limit price (a stop-limit leg).")),
      }),
    ),
    position_intent: Type.Optional(Type.String({ maxLength: 32 })),
  },
  {
    additionalProperties: false,
    examples: [{ symbol: "AAPL", qty: "1", side: "buy", type: "market", time_in_force: "day" }],
  },
);

const ReplaceOrderBody = Type.Object(
  {
    qty: Type.Optional(Decimal("New quantity.")),
    time_in_force: Type.Optional(
      Type.Union(["day", "gtc", "opg", "cls", "ioc", "fok"].map((t) => Type.Literal(t)) as never),
    ),
    limit_price: Type.Optional(Decimal("New limit price.")),
    stop_price: Type.Optional(Decimal("New stop price.")),
    trail: Type.Optional(Decimal("New trail (price or percent, as the order's).")),
    client_order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false, examples: [{ limit_price: "185.5" }] },
);

const OrderIdParams = Type.Object({ order_id: Type.String({ maxLength: 64, description: "Order id (UUID)." }) });

const forbidden = errorResponse("Buying power, available quantity or permission does not allow the order.", {
  code: 40310000,
  message: "insufficient buying power",
});
const notFound = errorResponse("No such order of this account.", { code: 40410000, message: "order not found" });
const rejected = errorResponse("The order's parameters are not accepted.", {
  code: 42210000,
  message: 'asset "XYZ" not found',
});

/** A date (`2026-01-05`) or an RFC 3339 timestamp, as the anchor accepts for `after` and `until`. */
const TIMESTAMP = "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})?)?$";
/** One symbol (`AAPL`, `BRK.B`, `BTC/USD`), or several separated by commas. */
const SYMBOL = "[A-Za-z0-9./:_-]{1,32}";

/** Alpaca's asset classes of `GET /v2/orders?asset_class=`. */
const ASSET_CLASS =
  "(us_equity|us_option|crypto|crypto_perp|treasury|corporate|global_equity|us_index|us_equity_chain|ipo|all)";

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
  asset_class: Type.Optional(
    Type.Array(Type.String({ pattern: `^${ASSET_CLASS}(,${ASSET_CLASS})*$` }), {
      description:
        "Only orders of these asset classes (comma-separated or repeated; `all` for every class). Our market " +
        "lists `us_equity` and `crypto`; Alpaca's other classes match no order.",
    }),
  ),
  before_order_id: Type.Optional(
    Type.String({ format: "uuid", description: "Only orders submitted before this order (exclusive)." }),
  ),
  after_order_id: Type.Optional(
    Type.String({ format: "uuid", description: "Only orders submitted after this order (exclusive)." }),
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
    assetClasses: assetClassesOf(q.asset_class),
    ...orderCursor(q),
  };
}

/** The classes asked for, or `undefined` for every class (none given, or `all`). */
function assetClassesOf(values: string[] | undefined): string[] | undefined {
  const classes = values?.flatMap((v) => v.split(","));
  return !classes || classes.includes("all") ? undefined : classes;
}

/** `before_order_id` / `after_order_id`: one at most, and not with `after`/`until` (Alpaca's rule). */
function orderCursor(q: Static<typeof ListOrdersQuery>): Pick<OrderListQuery, "beforeOrderId" | "afterOrderId"> {
  const cursor = q.before_order_id !== undefined ? "before_order_id" : "after_order_id";
  const conflict =
    q.before_order_id !== undefined && q.after_order_id !== undefined
      ? "before_order_id and after_order_id are mutually exclusive"
      : (q.before_order_id ?? q.after_order_id) !== undefined && (q.after ?? q.until) !== undefined
        ? `${cursor} cannot be combined with after or until`
        : undefined;
  if (conflict) throw new HttpError(422, `query.${cursor}: ${conflict}`, String(alpacaCode(422)), cursor);
  return { beforeOrderId: q.before_order_id, afterOrderId: q.after_order_id };
}

export function registerOrderRoutes(app: HttpServer, { orders }: { orders: OrdersService }) {
  const accountOf = (request: Parameters<typeof principalOf>[0]) => principalOf(request).account.id;
  app.get(
    "/v2/orders",
    {
      schema: {
        operationId: "getAllOrders",
        tags: ["Orders"],
        summary: "List orders",
        description: "The account's orders matching the filters, newest first by default.",
        querystring: ListOrdersQuery,
        response: {
          200: Type.Array(Order, { examples: [[]] }),
          401: tradingErrorResponses[401],
          422: tradingErrorResponses[422],
        },
      },
    },
    async (request) => orders.list(accountOf(request), toOrderListQuery(request.query)),
  );

  app.post(
    "/v2/orders",
    {
      schema: {
        operationId: "postOrder",
        tags: ["Orders"],
        summary: "Place an order",
        description:
          "Places an order for the account. It is checked at once against buying power and available quantity " +
          "(403), then executed by the exchange (live) or the simulation (paper); follow it with `GET " +
          "/v2/orders/{order_id}` or the trade-update stream.",
        body: PlaceOrderBody,
        response: {
          200: Order,
          401: tradingErrorResponses[401],
          403: forbidden,
          422: rejected,
        },
      },
    },
    async (request, reply) => answerRejection(reply, () => orders.place(accountOf(request), request.body as never)),
  );

  app.get(
    // `::` is a literal colon in a Fastify path; one colon made `by_client_order_id` a path parameter glued
    // to `/v2/orders` (any `/v2/orders…` answered, and the document showed `/v2/orders{by_client_order_id}`).
    "/v2/orders::by_client_order_id",
    {
      schema: {
        operationId: "getOrderByClientOrderId",
        tags: ["Orders"],
        summary: "Get an order by client order id",
        description: "The account's order with this `client_order_id`.",
        querystring: Type.Object({ client_order_id: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 200: Order, 401: tradingErrorResponses[401], 404: notFound, 422: tradingErrorResponses[422] },
      },
    },
    async (request, reply) =>
      answerRejection(reply, () => orders.byClientOrderId(accountOf(request), request.query.client_order_id)),
  );

  app.get(
    "/v2/orders/:order_id",
    {
      schema: {
        operationId: "getOrderByOrderID",
        tags: ["Orders"],
        summary: "Get an order",
        description: "One order of the account; with `nested`, its legs under `legs`.",
        params: OrderIdParams,
        querystring: Type.Object({ nested: Type.Boolean({ default: false }) }),
        response: { 200: Order, 401: tradingErrorResponses[401], 404: notFound, 422: tradingErrorResponses[422] },
      },
    },
    async (request, reply) =>
      answerRejection(reply, () => orders.get(accountOf(request), request.params.order_id, request.query.nested)),
  );

  app.patch(
    "/v2/orders/:order_id",
    {
      schema: {
        operationId: "patchOrderByOrderId",
        tags: ["Orders"],
        summary: "Replace an order",
        description:
          "Replaces an open order by a new one (a new id; `replaces` names the old one, which becomes `replaced`).",
        params: OrderIdParams,
        body: ReplaceOrderBody,
        response: { 200: Order, 401: tradingErrorResponses[401], 403: forbidden, 404: notFound, 422: rejected },
      },
    },
    async (request, reply) =>
      answerRejection(reply, () => orders.replace(accountOf(request), request.params.order_id, request.body as never)),
  );

  app.delete(
    "/v2/orders/:order_id",
    {
      schema: {
        operationId: "deleteOrderByOrderID",
        tags: ["Orders"],
        summary: "Cancel an order",
        description: "Requests the cancel of an open order (204); it may still fill before the cancel takes effect.",
        params: OrderIdParams,
        response: {
          204: Type.Null({ description: "Cancel requested." }),
          401: tradingErrorResponses[401],
          404: notFound,
          422: errorResponse("The order is not open.", { code: 42210000, message: "order is not cancelable" }),
        },
      },
    },
    async (request, reply) =>
      answerRejection(reply, async () => {
        await orders.cancel(accountOf(request), request.params.order_id);
        return reply.code(204).send(null);
      }),
  );

  app.delete(
    "/v2/orders",
    {
      schema: {
        operationId: "deleteAllOrders",
        tags: ["Orders"],
        summary: "Cancel all orders",
        description: "Requests the cancel of every open order: 207 with one entry (id, status) per order.",
        response: {
          207: Type.Array(
            Type.Object({ id: Type.String(), status: Type.Integer(), body: Type.Optional(Type.Unknown()) }),
            { examples: [[{ id: "61e69015-8549-4bfd-b9c3-01e75843f47d", status: 200 }]] },
          ),
          401: tradingErrorResponses[401],
        },
      },
    },
    async (request, reply) => reply.code(207).send(await orders.cancelAll(accountOf(request))),
  );
}
