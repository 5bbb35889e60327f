/**
 * Historical trades: `GET /v2/stocks/trades`, `GET /v2/stocks/{symbol}/trades`,
 * `GET /v1beta3/crypto/{loc}/trades` (the client's `stockTrades`, `stockTradeSingle`, `cryptoTrades`).
 */
import type { HttpServer } from "@platform/kernel";
import type { MarketDataService } from "../../services/marketData.ts";
import { registerHistoricalRoutes } from "./historical.ts";
import { CryptoTrade, exampleOf, StockTrade } from "./schemas.ts";

export function registerTradeRoutes(api: HttpServer, { marketData }: { marketData: MarketDataService }): void {
  registerHistoricalRoutes(api, {
    service: marketData,
    kind: {
      name: "trades",
      operationIds: ["stockTrades", "stockTradeSingle", "cryptoTrades"],
      noun: "trade",
      stockItem: StockTrade,
      cryptoItem: CryptoTrade,
      stockExample: exampleOf(StockTrade),
      cryptoExample: exampleOf(CryptoTrade),
      read: (service, query) => service.trades(query),
    },
  });
}
