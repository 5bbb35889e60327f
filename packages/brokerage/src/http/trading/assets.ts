/**
 * `GET /v2/assets` and `GET /v2/assets/{symbol_or_asset_id}` (live and paper hosts, read-only): the market's
 * asset universe with the anchor's filters and lookup forms. A crypto pair may be asked for with its slash
 * encoded (`BTC%2FUSD`, as generated clients send it), without the slash (`BTCUSD`), or with a literal slash
 * (`/v2/assets/BTC/USD`, as the anchor also answers).
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { ASSET_ATTRIBUTES, AssetNotFoundError, EXCHANGES } from "../../market/assets.ts";
import type { MarketService } from "../../services/market.ts";
import { alpacaCode } from "./errorFormat.ts";
import { Asset, errorResponse, tradingErrorResponses } from "./schemas.ts";

const ATTRIBUTE = `(${ASSET_ATTRIBUTES.join("|")})`;

const ListAssetsQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal("active"), Type.Literal("inactive")], { description: "Only assets of this status." }),
  ),
  asset_class: Type.Union([Type.Literal("us_equity"), Type.Literal("crypto")], {
    default: "us_equity",
    description: "Only assets of this class.",
  }),
  exchange: Type.Optional(
    Type.Union(
      EXCHANGES.map((e) => Type.Literal(e)),
      { description: "Only assets listed on this exchange." },
    ),
  ),
  attributes: Type.Optional(
    Type.String({
      pattern: `^${ATTRIBUTE}(,${ATTRIBUTE})*$`,
      maxLength: 512,
      description: "Comma-separated attributes: assets having any of them, e.g. `has_options,ipo`.",
    }),
  ),
});

const SymbolOrAssetId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "A symbol (`AAPL`, `BTC/USD`, `BTCUSD`, `AAPL:NASDAQ`, `AAPL:NASDAQ:us_equity`) or an asset id.",
});

/** The asset, or the anchor's 404 `{"code":40410000,"message":"asset not found for …"}`. */
function assetOr404(market: MarketService, symbolOrId: string) {
  try {
    return market.getAsset(symbolOrId);
  } catch (error) {
    if (error instanceof AssetNotFoundError) throw new HttpError(404, error.message, String(alpacaCode(404)));
    throw error;
  }
}

export function registerAssetRoutes(app: HttpServer, { market }: { market: MarketService }) {
  app.get(
    "/v2/assets",
    {
      schema: {
        operationId: "getAssets",
        tags: ["Assets"],
        summary: "List assets",
        description:
          "The market's assets matching every filter given (US equities unless `asset_class` says otherwise), " +
          "ordered by class, exchange and symbol.",
        querystring: ListAssetsQuery,
        response: {
          200: Type.Array(Asset),
          401: tradingErrorResponses[401],
          422: tradingErrorResponses[422],
        },
      },
    },
    async (request) => {
      const { attributes, ...filter } = request.query;
      return market.listAssets({ ...filter, attributes: attributes?.split(",") });
    },
  );

  app.get(
    "/v2/assets/:symbol_or_asset_id",
    {
      schema: {
        operationId: "getAsset",
        tags: ["Assets"],
        summary: "Get an asset",
        description:
          "One asset by symbol in any case (`aapl`), by crypto pair with or without its slash (`BTC/USD`, " +
          "`BTCUSD`), by `{symbol}:{exchange}[:{asset_class}]`, or by asset id.",
        params: Type.Object({ symbol_or_asset_id: SymbolOrAssetId }),
        response: {
          200: Asset,
          401: tradingErrorResponses[401],
          404: errorResponse("No asset has this symbol or id.", { code: 40410000, message: "asset not found for XYZ" }),
          422: tradingErrorResponses[422],
        },
      },
    },
    async (request) => assetOr404(market, request.params.symbol_or_asset_id),
  );

  // `/v2/assets/BTC/USD` with its slash unencoded: the same lookup, kept out of the API document.
  app.get(
    "/v2/assets/:base/:quote",
    {
      schema: {
        hide: true,
        params: Type.Object({
          base: Type.String({ minLength: 1, maxLength: 32 }),
          quote: Type.String({ minLength: 1, maxLength: 32 }),
        }),
      },
    },
    async (request) => assetOr404(market, `${request.params.base}/${request.params.quote}`),
  );
}
