/**
 * Historical bars: `GET /v2/stocks/bars`, `GET /v2/stocks/{symbol}/bars`, `GET /v1beta3/crypto/{loc}/bars`
 * (the client's `stockBars`, `stockBarSingle`, `cryptoBars`). `timeframe` is required.
 */
import type { HttpServer } from "@platform/kernel";
import type { MarketDataService } from "../../services/marketData.ts";
import { registerHistoricalRoutes } from "./historical.ts";
import { Bar, exampleOf } from "./schemas.ts";

export function registerBarRoutes(api: HttpServer, { marketData }: { marketData: MarketDataService }): void {
  const example = exampleOf(Bar);
  registerHistoricalRoutes(api, {
    service: marketData,
    kind: {
      name: "bars",
      operationIds: ["stockBars", "stockBarSingle", "cryptoBars"],
      noun: "bar",
      stockItem: Bar,
      cryptoItem: Bar,
      stockExample: example,
      cryptoExample: example,
      read: (service, query) => service.bars({ ...query, timeframe: query.timeframe ?? "" }),
    },
  });
}
