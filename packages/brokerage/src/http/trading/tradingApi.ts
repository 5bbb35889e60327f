/**
 * The trading API v2 of one host (live or paper): its routes behind the authentication hook. The host's
 * server is created with `formatError` (errorFormat.ts) and `tradingSecuritySchemes`/`tradingSecurity` (index.ts).
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { HttpServer } from "@platform/kernel";
import type { AccountConfigurationsService } from "../../services/accountConfigurations.ts";
import type { ActivitiesService } from "../../services/activities.ts";
import type { MarketService } from "../../services/market.ts";
import type { OrdersService } from "../../services/orders.ts";
import type { PortfolioHistoryService } from "../../services/portfolioHistory.ts";
import type { PositionsService } from "../../services/positions.ts";
import type { WatchlistsService } from "../../services/watchlists.ts";
import { registerAccountRoutes } from "./account.ts";
import { registerAccountConfigurationRoutes } from "./accountConfigurations.ts";
import { registerActivityRoutes } from "./activities.ts";
import { registerAssetRoutes } from "./assets.ts";
import { registerClockRoutes } from "./clock.ts";
import { registerMarketClockRoutes } from "./marketClocks.ts";
import { registerOrderRoutes } from "./orders.ts";
import { registerPortfolioHistoryRoutes } from "./portfolioHistory.ts";
import { registerPositionRoutes } from "./positions.ts";
import { tradingErrorResponses } from "./schemas.ts";
import { createTradingAuth, type TradingAuthParameters } from "./tradingAuth.ts";
import { registerWatchlistRoutes } from "./watchlists.ts";

/** OpenAPI tags of the trading hosts, in the order the docs show them. */
export const tradingTags = [
  { name: "Accounts", description: "The brokerage account the credentials open on this host." },
  { name: "Orders", description: "Orders of the account." },
  { name: "Positions", description: "Open positions of the account." },
  { name: "Watchlists", description: "Named, ordered lists of the market's assets, per account." },
  { name: "Assets", description: "The market's assets: US equities and crypto pairs." },
  { name: "Calendar", description: "The market clock and the NYSE calendar." },
];

export interface TradingApiParameters extends TradingAuthParameters {
  orders: OrdersService;
  positions: PositionsService;
  market: MarketService;
  accountConfigurations: AccountConfigurationsService;
  watchlists: WatchlistsService;
  activities: ActivitiesService;
  portfolioHistory: PortfolioHistoryService;
}

/** Registers `/v2/…` of the `env` host on `app`, every route behind the trading authentication hook. */
export async function registerTradingApi(
  app: HttpServer,
  {
    orders,
    positions,
    market,
    accountConfigurations,
    watchlists,
    activities,
    portfolioHistory,
    ...auth
  }: TradingApiParameters,
): Promise<void> {
  const tradingAuth = createTradingAuth(auth);
  await app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // Declared up front so every request object has the same shape (Fastify's advice for request fields).
    api.decorateRequest("brokerage", null);
    api.addHook("onRequest", tradingAuth);
    // Every trading operation is rate limited: each documents the 429 once, here, not route by route.
    api.addHook("onRoute", (route) => {
      const schema = route.schema as { response?: Record<string, unknown> } | undefined;
      if (schema?.response && !schema.response[429]) schema.response[429] = tradingErrorResponses[429];
    });
    // Undeclared query parameters are ignored here, as Alpaca's trading API does: `@master-chief/alpaca` sends a
    // method's every argument as a query parameter (`GET /v2/positions/AAPL?symbol=AAPL`) and works against
    // Alpaca. Only the data host refuses them (strictQuery.ts).
    registerAccountRoutes(api, { positions });
    registerAccountConfigurationRoutes(api, { accountConfigurations });
    registerWatchlistRoutes(api, { watchlists });
    registerActivityRoutes(api, { activities });
    registerPortfolioHistoryRoutes(api, { portfolioHistory });
    registerOrderRoutes(api, { orders });
    registerPositionRoutes(api, { positions });
    registerAssetRoutes(api, { market });
    registerClockRoutes(api, { market });
    registerMarketClockRoutes(api, { market });
  });
}
