/**
 * The brokerage through clients generated from its served documents: a paper account with a key pair (its
 * account, an order, the orders, positions, watchlists) and the market data host (bars, trades, quotes,
 * snapshots).
 */
import createClient from "openapi-fetch";
import { expect } from "vitest";
import type { BrokerageFlowContext } from "./flowContext.ts";
import type { paths as dataPaths } from "./generated/brokerage-data.ts";
import type { paths as tradingPaths } from "./generated/brokerage-paper.ts";

export async function run(ctx: BrokerageFlowContext): Promise<void> {
  const headers = { "APCA-API-KEY-ID": ctx.keyId, "APCA-API-SECRET-KEY": ctx.secretKey };
  const trading = createClient<tradingPaths>({ baseUrl: ctx.paperOrigin, headers });
  trading.use(ctx.checkAnswers("paper"));

  const account = await trading.GET("/v2/account");
  expect(account.data?.status).toBe("ACTIVE");
  const placed = await trading.POST("/v2/orders", {
    body: { symbol: "AAPL", qty: "1", side: "buy", type: "market", time_in_force: "day", client_order_id: "gen-1" },
  });
  expect(placed.data?.symbol).toBe("AAPL");
  const byClientId = await trading.GET("/v2/orders:by_client_order_id", {
    params: { query: { client_order_id: "gen-1" } },
  });
  expect(byClientId.data?.id).toBe(placed.data?.id);
  // Only some of the parameters: status, limit, direction and nested have defaults.
  const orders = await trading.GET("/v2/orders", { params: { query: { status: "all" } } });
  expect(orders.data?.map((o) => o.id)).toContain(placed.data?.id);
  const positions = await trading.GET("/v2/positions");
  expect(Array.isArray(positions.data)).toBe(true);
  const watchlist = await trading.POST("/v2/watchlists", { body: { name: "Generated", symbols: ["AAPL", "SPY"] } });
  expect(watchlist.data?.name).toBe("Generated");
  const watchlists = await trading.GET("/v2/watchlists");
  expect(watchlists.data?.map((w) => w.name)).toContain("Generated");

  const data = createClient<dataPaths>({ baseUrl: ctx.dataOrigin, headers });
  data.use(ctx.checkAnswers("data"));
  const symbol = { path: { symbol: "AAPL" } };
  const bars = await data.GET("/v2/stocks/{symbol}/bars", { params: { ...symbol, query: { timeframe: "1Min" } } });
  expect(bars.data?.symbol).toBe("AAPL");
  const trades = await data.GET("/v2/stocks/{symbol}/trades", { params: { ...symbol, query: { limit: 5 } } });
  expect(trades.data?.symbol).toBe("AAPL");
  const quotes = await data.GET("/v2/stocks/{symbol}/quotes", { params: symbol });
  expect(quotes.data?.symbol).toBe("AAPL");
  const snapshots = await data.GET("/v2/stocks/snapshots", { params: { query: { symbols: "AAPL,SPY" } } });
  expect(Object.keys(snapshots.data ?? {}).sort()).toEqual(["AAPL", "SPY"]);
}
