/**
 * The market data REST API of the data host: the anchor's stocks v2 and crypto v1beta3 paths behind the
 * data authentication hook (marketDataAuth.ts). The host's server is created with the trading hosts'
 * `formatError` (errors `{"code":…,"message":…}`), `tradingSecuritySchemes`/`tradingSecurity` and
 * `marketDataTags`.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { HttpServer } from "@platform/kernel";
import type { MarketDataService } from "../../services/marketData.ts";
import { tradingErrorResponses } from "../trading/schemas.ts";
import { closeQuerystring } from "../trading/strictQuery.ts";
import { registerBarRoutes } from "./bars.ts";
import { registerLatestRoutes } from "./latest.ts";
import { createMarketDataAuth, type MarketDataAuthParameters } from "./marketDataAuth.ts";
import { registerMetaRoutes } from "./meta.ts";
import { registerOrderbookRoutes } from "./orderbooks.ts";
import { registerQuoteRoutes } from "./quotes.ts";
import { registerSnapshotRoutes } from "./snapshots.ts";
import { registerTradeRoutes } from "./trades.ts";

/** OpenAPI tags of the data host. */
export const marketDataTags = [
  { name: "Stock", description: "US equities of the market: bars, trades, quotes, latest values, snapshots." },
  {
    name: "Crypto",
    description: "Crypto pairs of the market (location `us`): bars, trades, quotes, order books, snapshots.",
  },
];

export interface MarketDataApiParameters extends MarketDataAuthParameters {
  marketData: MarketDataService;
}

/** Registers the market data routes on `app`, every one behind the data authentication hook. */
export async function registerMarketDataApi(
  app: HttpServer,
  { marketData, ...auth }: MarketDataApiParameters,
): Promise<void> {
  const marketDataAuth = createMarketDataAuth(auth);
  await app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    api.decorateRequest("marketData", null);
    api.addHook("onRequest", marketDataAuth);
    api.addHook("onRoute", (route) => {
      const schema = route.schema as { response?: Record<string, unknown> } | undefined;
      if (schema?.response && !schema.response[429]) schema.response[429] = tradingErrorResponses[429];
    });
    api.addHook("onRoute", closeQuerystring);
    const routes = api as unknown as HttpServer;
    registerBarRoutes(routes, { marketData });
    registerTradeRoutes(routes, { marketData });
    registerQuoteRoutes(routes, { marketData });
    registerLatestRoutes(routes, { marketData });
    registerSnapshotRoutes(routes, { marketData });
    registerOrderbookRoutes(routes, { marketData });
    registerMetaRoutes(routes);
  });
}
