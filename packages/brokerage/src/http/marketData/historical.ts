/**
 * The three historical operations of one kind (bars, trades or quotes): stocks multi-symbol
 * (`/v2/stocks/{kind}`), stocks single-symbol (`/v2/stocks/{symbol}/{kind}`) and crypto
 * (`/v1beta3/crypto/{loc}/{kind}`), with the anchor's shapes: `{"<kind>":{"AAPL":[…]},"next_page_token":…}`,
 * and for one symbol `{"<kind>":[…],"symbol":"AAPL","next_page_token":…}`.
 */
import type { HttpServer } from "@platform/kernel";
import type { FastifyRequest } from "fastify";
import { type TSchema, Type } from "typebox";
import { InvalidSymbolError, UnsupportedParameterError } from "../../domain/marketDataErrors.ts";
import type { HistoricalPage, HistoricalQuery, MarketDataService } from "../../services/marketData.ts";
import { dataPrincipalOf } from "./marketDataAuth.ts";
import {
  answer,
  BySymbol,
  dataErrorResponses,
  historicalQuery,
  LocParams,
  NextPageToken,
  SymbolParam,
} from "./schemas.ts";

export interface HistoricalKind {
  /** `bars`, `trades` or `quotes`: the path segment and the response field. */
  name: "bars" | "trades" | "quotes";
  /** The operationIds of the client's StockApi/CryptoApi: multi, single, crypto. */
  operationIds: [string, string, string];
  /** Singular noun for summaries. */
  noun: string;
  stockItem: TSchema;
  cryptoItem: TSchema;
  stockExample: unknown;
  cryptoExample: unknown;
  read(service: MarketDataService, query: HistoricalQuery & { timeframe?: string }): Promise<HistoricalPage<unknown>>;
}

/** The parameters of a request as the service takes them (USD only; `loc` us only). */
export function checkCommon(query: { currency?: string }, loc?: string): void {
  if (query.currency !== undefined && query.currency.toUpperCase() !== "USD") {
    throw new UnsupportedParameterError(`invalid currency: ${query.currency}`);
  }
  if (loc !== undefined && loc !== "us") throw new UnsupportedParameterError(`invalid location: ${loc}`);
}

/** The `currency` field of an answer: present when the request named one (always USD). */
export const currencyOf = (query: { currency?: string }): { currency?: string } =>
  query.currency === undefined ? {} : { currency: "USD" };

/** One symbol of a path (`/v2/stocks/{symbol}/…`): a list there is not a symbol. */
export function singleSymbol(symbol: string): string {
  if (symbol.includes(",")) throw new InvalidSymbolError(symbol);
  return symbol;
}

type Query = {
  symbols?: string;
  timeframe?: string;
  start?: string;
  end?: string;
  limit: number;
  page_token?: string;
  sort: "asc" | "desc";
  feed?: string;
  currency?: string;
};

function historical(
  service: MarketDataService,
  request: FastifyRequest,
  market: "stock" | "crypto",
  symbols: string,
  q: Query,
): HistoricalQuery & { timeframe?: string } {
  return {
    market,
    symbols,
    timeframe: q.timeframe,
    start: q.start,
    end: q.end,
    limit: q.limit,
    pageToken: q.page_token,
    sort: q.sort,
    feed: q.feed,
    requester: service.requester(dataPrincipalOf(request).userId),
  };
}

export function registerHistoricalRoutes(
  api: HttpServer,
  { service, kind }: { service: MarketDataService; kind: HistoricalKind },
): void {
  const bars = kind.name === "bars";
  const [multiId, singleId, cryptoId] = kind.operationIds;
  const description = bars
    ? "Bars aggregated from the market's trades: 1Min, 1Hour and 1Day are stored rollups, other timeframes merge them. The current bar is returned as it stands. `adjustment` changes nothing: the market has no corporate actions."
    : `Every ${kind.noun} the market recorded in [start, end], in time order (or reversed with sort=desc).`;

  api.get(
    `/v2/stocks/${kind.name}`,
    {
      schema: {
        operationId: multiId,
        tags: ["Stock"],
        summary: `Historical ${kind.noun}s (multiple symbols)`,
        description: `${description} Paged by \`page_token\`; the limit counts across symbols.`,
        querystring: historicalQuery({ symbols: "AAPL,MSFT", bars, stock: true }),
        response: {
          200: Type.Object({
            [kind.name]: BySymbol(Type.Array(kind.stockItem), "AAPL", [kind.stockExample]),
            next_page_token: NextPageToken,
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
        const page = await kind.read(service, historical(service, request, "stock", q.symbols, q));
        return { [kind.name]: page.items, next_page_token: page.next_page_token, ...currencyOf(q) };
      }),
  );

  api.get(
    `/v2/stocks/:symbol/${kind.name}`,
    {
      schema: {
        operationId: singleId,
        tags: ["Stock"],
        summary: `Historical ${kind.noun}s (single symbol)`,
        description: `${description} Paged by \`page_token\`.`,
        params: Type.Object({ symbol: SymbolParam }),
        querystring: historicalQuery({ bars, stock: true }),
        response: {
          200: Type.Object({
            [kind.name]: Type.Array(kind.stockItem, { examples: [[kind.stockExample]] }),
            symbol: Type.String(),
            next_page_token: NextPageToken,
            currency: Type.Optional(Type.String()),
          }),
          ...dataErrorResponses,
        },
      },
    },
    async (request) =>
      answer(async () => {
        const q = request.query as Query;
        checkCommon(q);
        const symbol = singleSymbol((request.params as { symbol: string }).symbol);
        const page = await kind.read(service, historical(service, request, "stock", symbol, q));
        const canonical = symbol.trim().toUpperCase();
        return {
          [kind.name]: page.items[canonical] ?? [],
          symbol: canonical,
          next_page_token: page.next_page_token,
          ...currencyOf(q),
        };
      }),
  );

  api.get(
    `/v1beta3/crypto/:loc/${kind.name}`,
    {
      schema: {
        operationId: cryptoId,
        tags: ["Crypto"],
        summary: `Historical crypto ${kind.noun}s`,
        description: `${description} Symbols are pairs with a slash (\`BTC/USD\`); the location is \`us\`.`,
        params: LocParams,
        querystring: historicalQuery({ symbols: "BTC/USD,ETH/USD", bars, stock: false }),
        response: {
          200: Type.Object({
            [kind.name]: BySymbol(Type.Array(kind.cryptoItem), "BTC/USD", [kind.cryptoExample]),
            next_page_token: NextPageToken,
          }),
          ...dataErrorResponses,
        },
      },
    },
    async (request) =>
      answer(async () => {
        const q = request.query as Query & { symbols: string };
        checkCommon(q, (request.params as { loc: string }).loc);
        const page = await kind.read(service, historical(service, request, "crypto", q.symbols, q));
        return { [kind.name]: page.items, next_page_token: page.next_page_token };
      }),
  );
}
