/**
 * Historical quotes: `GET /v2/stocks/quotes`, `GET /v2/stocks/{symbol}/quotes`,
 * `GET /v1beta3/crypto/{loc}/quotes` (the client's `stockQuotes`, `stockQuoteSingle`, `cryptoQuotes`). The
 * market records its best bid and offer once a second per symbol.
 */
import type { HttpServer } from "@platform/kernel";
import type { MarketDataService } from "../../services/marketData.ts";
import { registerHistoricalRoutes } from "./historical.ts";
import { CryptoQuote, exampleOf, StockQuote } from "./schemas.ts";

export function registerQuoteRoutes(api: HttpServer, { marketData }: { marketData: MarketDataService }): void {
  registerHistoricalRoutes(api, {
    service: marketData,
    kind: {
      name: "quotes",
      operationIds: ["stockQuotes", "stockQuoteSingle", "cryptoQuotes"],
      noun: "quote",
      stockItem: StockQuote,
      cryptoItem: CryptoQuote,
      stockExample: exampleOf(StockQuote),
      cryptoExample: exampleOf(CryptoQuote),
      read: (service, query) => service.quotes(query),
    },
  });
}
