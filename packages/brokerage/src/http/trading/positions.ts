/**
 * The positions API (live and paper hosts): list, get, close one (qty or percentage), close all (207).
 * Closing places a market order through the orders service; its answer is that order.
 */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { invalidOrder } from "../../domain/orderErrors.ts";
import type { PositionsService } from "../../services/positions.ts";
import { answerRejection } from "./orders.ts";
import { errorResponse, Order, tradingErrorResponses } from "./schemas.ts";
import { principalOf } from "./tradingAuth.ts";

const POSITION_EXAMPLE = {
  asset_id: "b0b6dd9d-8b9b-48a9-ba46-b9d54906e415",
  symbol: "AAPL",
  exchange: "NASDAQ",
  asset_class: "us_equity",
  asset_marginable: true,
  avg_entry_price: "187.31",
  qty: "10",
  qty_available: "10",
  side: "long",
  market_value: "1880.2",
  cost_basis: "1873.1",
  unrealized_pl: "7.1",
  unrealized_plpc: "0.003790507",
  unrealized_intraday_pl: "12.4",
  unrealized_intraday_plpc: "0.006617574",
  current_price: "188.02",
  lastday_price: "186.78",
  change_today: "0.006638826",
};
const Position = Type.Object(
  {
    asset_id: Type.String(),
    symbol: Type.String(),
    exchange: Type.String(),
    asset_class: Type.String(),
    asset_marginable: Type.Boolean(),
    avg_entry_price: Type.String(),
    qty: Type.String(),
    qty_available: Type.String(),
    side: Type.Union([Type.Literal("long"), Type.Literal("short")]),
    market_value: Type.String(),
    cost_basis: Type.String(),
    unrealized_pl: Type.String(),
    unrealized_plpc: Type.String(),
    unrealized_intraday_pl: Type.String(),
    unrealized_intraday_plpc: Type.String(),
    current_price: Type.String(),
    lastday_price: Type.String(),
    change_today: Type.String(),
  },
  { examples: [POSITION_EXAMPLE] },
);
const SymbolParams = Type.Object({
  symbol_or_asset_id: Type.String({ minLength: 1, maxLength: 64, description: "Symbol or asset id." }),
});
const Percent = "^(100(\\.0+)?|\\d{1,2}(\\.\\d{1,9})?)$";
const notFound = errorResponse("The account has no position in this asset.", {
  code: 40410000,
  message: "position does not exist",
});

export function registerPositionRoutes(app: HttpServer, { positions }: { positions: PositionsService }) {
  const accountOf = (request: Parameters<typeof principalOf>[0]) => principalOf(request).account.id;
  app.get(
    "/v2/positions",
    {
      schema: {
        operationId: "getAllOpenPositions",
        tags: ["Positions"],
        summary: "List open positions",
        description: "The account's open positions, valued at the market's current price.",
        response: { 200: Type.Array(Position, { examples: [[POSITION_EXAMPLE]] }), 401: tradingErrorResponses[401] },
      },
    },
    async (request) => positions.list(accountOf(request)),
  );
  app.get(
    "/v2/positions/:symbol_or_asset_id",
    {
      schema: {
        operationId: "getOpenPosition",
        tags: ["Positions"],
        summary: "Get an open position",
        description: "The account's position in one asset.",
        params: SymbolParams,
        response: { 200: Position, 401: tradingErrorResponses[401], 404: notFound },
      },
    },
    async (request, reply) =>
      answerRejection(reply, () => positions.get(accountOf(request), request.params.symbol_or_asset_id)),
  );
  app.delete(
    "/v2/positions/:symbol_or_asset_id",
    {
      schema: {
        operationId: "deleteOpenPosition",
        tags: ["Positions"],
        summary: "Close a position",
        description: "Closes the position, or `qty` or `percentage` of it, with a market order (the answer).",
        params: SymbolParams,
        querystring: Type.Object({
          qty: Type.Optional(Type.String({ pattern: "^\\d{1,13}(\\.\\d{1,9})?$" })),
          percentage: Type.Optional(Type.String({ pattern: Percent })),
        }),
        response: {
          200: Order,
          401: tradingErrorResponses[401],
          403: errorResponse("The quantity is not available.", {
            code: 40310000,
            message: "insufficient qty available for order (requested: 20, available: 10)",
          }),
          404: notFound,
          422: tradingErrorResponses[422],
        },
      },
    },
    async (request, reply) =>
      answerRejection(reply, () => {
        const { qty, percentage } = request.query;
        if (qty !== undefined && percentage !== undefined)
          return Promise.reject(invalidOrder("only one of qty or percentage is accepted"));
        return positions.close(accountOf(request), request.params.symbol_or_asset_id, { qty, percentage });
      }),
  );
  app.delete(
    "/v2/positions",
    {
      schema: {
        operationId: "deleteAllOpenPositions",
        tags: ["Positions"],
        summary: "Close all positions",
        description:
          "Closes every position with market orders (canceling open orders first with `cancel_orders`): 207.",
        querystring: Type.Object({ cancel_orders: Type.Boolean({ default: false }) }),
        response: {
          207: Type.Array(Type.Object({ symbol: Type.String(), status: Type.Integer(), body: Type.Unknown() }), {
            examples: [[{ symbol: "AAPL", status: 200, body: {} }]],
          }),
          401: tradingErrorResponses[401],
        },
      },
    },
    async (request, reply) =>
      reply.code(207).send(await positions.closeAll(accountOf(request), request.query.cancel_orders)),
  );
}
