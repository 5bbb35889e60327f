/**
 * Snapshots: `GET /v2/stocks/snapshots` (`{"AAPL":{…}}`, a map at the top level as the anchor answers),
 * `GET /v2/stocks/{symbol}/snapshot` (`{"symbol":"AAPL",…}`) and `GET /v1beta3/crypto/{loc}/snapshots`
 * (`{"snapshots":{…}}`): the latest trade and quote, the current minute bar, today's daily bar and the
 * previous one (each absent while there is none).
 */
import type { HttpServer } from "@platform/kernel";
import { type TSchema, Type } from "typebox";
import type { MarketDataService } from "../../services/marketData.ts";
import { checkCommon, singleSymbol } from "./historical.ts";
import { dataPrincipalOf } from "./marketDataAuth.ts";
import {
  answer,
  Bar,
  BySymbol,
  CryptoQuote,
  CryptoTrade,
  dataErrorResponses,
  exampleOf,
  LocParams,
  latestQuery,
  noDataResponse,
  StockQuote,
  StockTrade,
  SymbolParam,
} from "./schemas.ts";

const snapshotFields = (trade: TSchema, quote: TSchema) => ({
  latestTrade: Type.Optional(trade),
  latestQuote: Type.Optional(quote),
  minuteBar: Type.Optional(Bar),
  dailyBar: Type.Optional(Bar),
  prevDailyBar: Type.Optional(Bar),
});

const snapshotExample = (trade: TSchema, quote: TSchema) => ({
  latestTrade: exampleOf(trade),
  latestQuote: exampleOf(quote),
  minuteBar: exampleOf(Bar),
  dailyBar: exampleOf(Bar),
  prevDailyBar: exampleOf(Bar),
});

const StockSnapshot = Type.Object(snapshotFields(StockTrade, StockQuote), {
  examples: [snapshotExample(StockTrade, StockQuote)],
});
const CryptoSnapshot = Type.Object(snapshotFields(CryptoTrade, CryptoQuote), {
  examples: [snapshotExample(CryptoTrade, CryptoQuote)],
});

type Query = { symbols?: string; feed?: string; currency?: string };

export function registerSnapshotRoutes(api: HttpServer, { marketData }: { marketData: MarketDataService }): void {
  api.get(
    "/v2/stocks/snapshots",
    {
      schema: {
        operationId: "stockSnapshots",
        tags: ["Stock"],
        summary: "Snapshots (multiple symbols)",
        description: "Latest trade, latest quote, minute bar, daily bar and previous daily bar of each symbol.",
        querystring: latestQuery({ symbols: "AAPL,MSFT", stock: true }),
        response: {
          200: BySymbol(StockSnapshot, "AAPL", exampleOf(StockSnapshot)),
          ...dataErrorResponses,
        },
      },
    },
    async (request) =>
      answer(async () => {
        const q = request.query as Query & { symbols: string };
        checkCommon(q);
        const requester = marketData.requester(dataPrincipalOf(request).userId);
        return marketData.snapshots({ market: "stock", symbols: q.symbols, feed: q.feed, requester });
      }),
  );

  api.get(
    "/v2/stocks/:symbol/snapshot",
    {
      schema: {
        operationId: "stockSnapshotSingle",
        tags: ["Stock"],
        summary: "Snapshot (single symbol)",
        description: "Latest trade, latest quote, minute bar, daily bar and previous daily bar of the symbol.",
        params: Type.Object({ symbol: SymbolParam }),
        querystring: latestQuery({ stock: true }),
        response: {
          200: Type.Object(
            {
              symbol: Type.String(),
              ...snapshotFields(StockTrade, StockQuote),
              currency: Type.Optional(Type.String()),
            },
            { examples: [{ symbol: "AAPL", ...snapshotExample(StockTrade, StockQuote) }] },
          ),
          ...dataErrorResponses,
          404: noDataResponse,
        },
      },
    },
    async (request) =>
      answer(async () => {
        const q = request.query as Query;
        checkCommon(q);
        const symbol = singleSymbol((request.params as { symbol: string }).symbol);
        const requester = marketData.requester(dataPrincipalOf(request).userId);
        const values = await marketData.snapshots({ market: "stock", symbols: symbol, feed: q.feed, requester });
        const { symbol: canonical, value } = marketData.single("snapshot", symbol, values);
        return { symbol: canonical, ...value };
      }),
  );

  api.get(
    "/v1beta3/crypto/:loc/snapshots",
    {
      schema: {
        operationId: "cryptoSnapshots",
        tags: ["Crypto"],
        summary: "Crypto snapshots",
        description: "Latest trade, latest quote, minute bar, daily bar and previous daily bar of each pair.",
        params: LocParams,
        querystring: latestQuery({ symbols: "BTC/USD,ETH/USD", stock: false }),
        response: {
          200: Type.Object({ snapshots: BySymbol(CryptoSnapshot, "BTC/USD", exampleOf(CryptoSnapshot)) }),
          ...dataErrorResponses,
        },
      },
    },
    async (request) =>
      answer(async () => {
        const q = request.query as Query & { symbols: string };
        checkCommon(q, (request.params as { loc: string }).loc);
        const requester = marketData.requester(dataPrincipalOf(request).userId);
        return { snapshots: await marketData.snapshots({ market: "crypto", symbols: q.symbols, requester }) };
      }),
  );
}
