/**
 * The latest trade, quote and minute bar: `GET /v2/stocks/{trades|quotes|bars}/latest` (`{"trades":{"AAPL":…}}`),
 * `GET /v2/stocks/{symbol}/{trades|quotes|bars}/latest` (`{"symbol":"AAPL","trade":…}`) and
 * `GET /v1beta3/crypto/{loc}/latest/{trades|quotes|bars}`, with the client's operationIds. A symbol without
 * data is absent from a multi-symbol answer and a 404 for a single one. The latest bar is the current
 * minute's as it stands (partial) when that minute has trades.
 */
import type { HttpServer } from "@platform/kernel";
import type { FastifyRequest } from "fastify";
import { type TSchema, Type } from "typebox";
import type { LatestQuery, MarketDataService } from "../../services/marketData.ts";
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

interface LatestKind {
  plural: "trades" | "quotes" | "bars";
  singular: "trade" | "quote" | "bar";
  ids: [string, string, string];
  stockItem: TSchema;
  cryptoItem: TSchema;
  read(service: MarketDataService, query: LatestQuery): Promise<Record<string, unknown>>;
}

const KINDS: LatestKind[] = [
  {
    plural: "trades",
    singular: "trade",
    ids: ["stockLatestTrades", "stockLatestTradeSingle", "cryptoLatestTrades"],
    stockItem: StockTrade,
    cryptoItem: CryptoTrade,
    read: (service, query) => service.latestTrades(query),
  },
  {
    plural: "quotes",
    singular: "quote",
    ids: ["stockLatestQuotes", "stockLatestQuoteSingle", "cryptoLatestQuotes"],
    stockItem: StockQuote,
    cryptoItem: CryptoQuote,
    read: (service, query) => service.latestQuotes(query),
  },
  {
    plural: "bars",
    singular: "bar",
    ids: ["stockLatestBars", "stockLatestBarSingle", "cryptoLatestBars"],
    stockItem: Bar,
    cryptoItem: Bar,
    read: (service, query) => service.latestBars(query),
  },
];

type Query = { symbols?: string; feed?: string; currency?: string };

function latest(
  service: MarketDataService,
  request: FastifyRequest,
  market: "stock" | "crypto",
  symbols: string,
): LatestQuery {
  const q = request.query as Query;
  return { market, symbols, feed: q.feed, requester: service.requester(dataPrincipalOf(request).userId) };
}

export function registerLatestRoutes(api: HttpServer, { marketData }: { marketData: MarketDataService }): void {
  for (const kind of KINDS) {
    const [multiId, singleId, cryptoId] = kind.ids;
    api.get(
      `/v2/stocks/${kind.plural}/latest`,
      {
        schema: {
          operationId: multiId,
          tags: ["Stock"],
          summary: `Latest ${kind.plural} (multiple symbols)`,
          description: `The latest ${kind.singular} of each symbol; symbols without one are absent.`,
          querystring: latestQuery({ symbols: "AAPL,MSFT", stock: true }),
          response: {
            200: Type.Object({
              [kind.plural]: BySymbol(kind.stockItem, "AAPL", exampleOf(kind.stockItem)),
              currency: Type.Optional(Type.String()),
            }),
            ...dataErrorResponses,
          },
        },
      },
      async (request) =>
        answer(async () => {
          const q = request.query as Query & { symbols: string };
          checkCommon(q);
          return { [kind.plural]: await kind.read(marketData, latest(marketData, request, "stock", q.symbols)) };
        }),
    );

    api.get(
      `/v2/stocks/:symbol/${kind.plural}/latest`,
      {
        schema: {
          operationId: singleId,
          tags: ["Stock"],
          summary: `Latest ${kind.singular} (single symbol)`,
          description: `The latest ${kind.singular} of the symbol; 404 when it has none yet.`,
          params: Type.Object({ symbol: SymbolParam }),
          querystring: latestQuery({ stock: true }),
          response: {
            200: Type.Object({
              symbol: Type.String(),
              [kind.singular]: kind.stockItem,
              currency: Type.Optional(Type.String()),
            }),
            ...dataErrorResponses,
            404: noDataResponse,
          },
        },
      },
      async (request) =>
        answer(async () => {
          checkCommon(request.query as Query);
          const symbol = singleSymbol((request.params as { symbol: string }).symbol);
          const values = await kind.read(marketData, latest(marketData, request, "stock", symbol));
          const { symbol: canonical, value } = marketData.single(kind.singular, symbol, values);
          return { symbol: canonical, [kind.singular]: value };
        }),
    );

    api.get(
      `/v1beta3/crypto/:loc/latest/${kind.plural}`,
      {
        schema: {
          operationId: cryptoId,
          tags: ["Crypto"],
          summary: `Latest crypto ${kind.plural}`,
          description: `The latest ${kind.singular} of each pair (\`BTC/USD\`); pairs without one are absent.`,
          params: LocParams,
          querystring: latestQuery({ symbols: "BTC/USD,ETH/USD", stock: false }),
          response: {
            200: Type.Object({ [kind.plural]: BySymbol(kind.cryptoItem, "BTC/USD", exampleOf(kind.cryptoItem)) }),
            ...dataErrorResponses,
          },
        },
      },
      async (request) =>
        answer(async () => {
          const q = request.query as Query & { symbols: string };
          checkCommon(q, (request.params as { loc: string }).loc);
          return { [kind.plural]: await kind.read(marketData, latest(marketData, request, "crypto", q.symbols)) };
        }),
    );
  }
}
