/**
 * The trading API v2 of one host (live or paper): its routes behind the authentication hook. The host's
 * server is created with `formatError` (errorFormat.ts) and `tradingSecuritySchemes`/`tradingSecurity` (index.ts).
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { HttpServer } from "@platform/kernel";
import type { MarketService } from "../../services/market.ts";
import type { OrdersService } from "../../services/orders.ts";
import { registerAccountRoutes } from "./account.ts";
import { registerAssetRoutes } from "./assets.ts";
import { registerClockRoutes } from "./clock.ts";
import { registerOrderRoutes } from "./orders.ts";
import { createTradingAuth, type TradingAuthParameters } from "./tradingAuth.ts";

/** OpenAPI tags of the trading hosts, in the order the docs show them. */
export const tradingTags = [
  { name: "Accounts", description: "The brokerage account the credentials open on this host." },
  { name: "Orders", description: "Orders of the account." },
  { name: "Assets", description: "The market's assets: US equities and crypto pairs." },
  { name: "Calendar", description: "The market clock and the NYSE calendar." },
];

export interface TradingApiParameters extends TradingAuthParameters {
  orders: OrdersService;
  market: MarketService;
}

/** Registers `/v2/…` of the `env` host on `app`, every route behind the trading authentication hook. */
export async function registerTradingApi(
  app: HttpServer,
  { orders, market, ...auth }: TradingApiParameters,
): Promise<void> {
  const tradingAuth = createTradingAuth(auth);
  await app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // Declared up front so every request object has the same shape (Fastify's advice for request fields).
    api.decorateRequest("brokerage", null);
    api.addHook("onRequest", tradingAuth);
    registerAccountRoutes(api);
    registerOrderRoutes(api, { orders });
    registerAssetRoutes(api, { market });
    registerClockRoutes(api, { market });
  });
}
