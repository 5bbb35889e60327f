/** `GET /available-routes`: the enabled routes, filtered (the anchor's legacy route listing). */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { QuoteContext } from "../quotes/quoteContext.ts";
import { quotesTag } from "./openapiTags.ts";
import { AddressParam, ChainIdParam, InvalidParamBody, UnauthorizedBody } from "./schemas.ts";

const SymbolParam = (description: string) =>
  Type.String({ minLength: 1, maxLength: 32, pattern: "^[A-Za-z0-9._-]+$", description });

export const AvailableRoutesQuery = Type.Object({
  originChainId: Type.Optional(ChainIdParam("Only routes from this chain.")),
  destinationChainId: Type.Optional(ChainIdParam("Only routes to this chain.")),
  originToken: Type.Optional(AddressParam("Only routes from this token (address on the origin chain).")),
  destinationToken: Type.Optional(AddressParam("Only routes to this token (address on the destination chain).")),
  originTokenSymbol: Type.Optional(
    SymbolParam("Only routes from this symbol (case-insensitive; ETH = native routes)."),
  ),
  destinationTokenSymbol: Type.Optional(SymbolParam("Only routes to this symbol (case-insensitive).")),
});

export const RouteRecordSchema = Type.Object({
  originChainId: Type.Integer(),
  originToken: Type.String(),
  destinationChainId: Type.Integer(),
  destinationToken: Type.String(),
  originTokenSymbol: Type.String(),
  destinationTokenSymbol: Type.String(),
  isNative: Type.Boolean(),
});

/** The anchor's example: WETH from chain 1 to chain 10, as a token route and as the native route. */
const ROUTES_EXAMPLE = [false, true].map((isNative) => ({
  originChainId: 1,
  originToken: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
  destinationChainId: 10,
  destinationToken: "0x4200000000000000000000000000000000000006",
  originTokenSymbol: isNative ? "ETH" : "WETH",
  destinationTokenSymbol: isNative ? "ETH" : "WETH",
  isNative,
}));

export function registerAvailableRoutesRoute(app: HttpServer, quotes: QuoteContext) {
  app.get(
    "/available-routes",
    {
      schema: {
        operationId: "getAvailableRoutes",
        tags: [quotesTag.name],
        summary: "Enabled routes",
        description:
          "Every enabled route matching all given filters (addresses compare case-insensitively, symbols " +
          "upper-cased). A native route (isNative: true, symbol ETH) carries the wrapped token addresses.",
        querystring: AvailableRoutesQuery,
        response: {
          200: Type.Array(RouteRecordSchema, { examples: [ROUTES_EXAMPLE] }),
          400: InvalidParamBody("originToken", 'must match pattern "^0x[0-9a-fA-F]{40}$"'),
          401: UnauthorizedBody,
        },
      },
    },
    async (request) => quotes.routes.filter(request.query),
  );
}
