/**
 * Schemas of the data host (validation, serialisation and OpenAPI from one definition): the anchor's short
 * field names (its client's StockBar, StockTrade, StockQuote, CryptoTrade, CryptoQuote models), its query
 * parameters, and the error answers every operation documents. Also the one mapping of the market data
 * failures (domain/marketDataErrors.ts) to the error body.
 */
import { HttpError } from "@platform/kernel";
import { type TSchema, Type } from "typebox";
import { isMarketDataError } from "../../domain/marketDataErrors.ts";
import { alpacaCode } from "../trading/errorFormat.ts";
import { errorResponse, tradingErrorResponses } from "../trading/schemas.ts";

/** The first example of a schema (for the examples of the schemas built from it). */
export const exampleOf = (schema: TSchema): unknown => (schema as { examples?: unknown[] }).examples?.[0];

const T_EXAMPLE = "2026-11-25T15:04:00.000Z";
const Time = Type.String({ format: "date-time", description: "RFC 3339, UTC." });

export const Bar = Type.Object(
  {
    t: Type.String({ format: "date-time", description: "Start of the bar (RFC 3339, UTC)." }),
    o: Type.Number({ description: "Open: the first trade's price." }),
    h: Type.Number({ description: "High." }),
    l: Type.Number({ description: "Low." }),
    c: Type.Number({ description: "Close: the last trade's price." }),
    v: Type.Number({ description: "Volume." }),
    n: Type.Integer({ description: "Number of trades." }),
    vw: Type.Number({ description: "Volume-weighted average price." }),
  },
  { examples: [{ t: T_EXAMPLE, o: 151.2, h: 151.5, l: 151.1, c: 151.42, v: 1200, n: 12, vw: 151.33 }] },
);

const Conditions = Type.Array(Type.String(), { description: "Condition codes (see /v2/stocks/meta/conditions)." });
const Tape = Type.String({ description: "Tape: A (NYSE listed), B (other exchange-listed), C (Nasdaq listed)." });

export const StockTrade = Type.Object(
  {
    t: Time,
    x: Type.String({ description: "Exchange code (V: our exchange, the IEX code)." }),
    p: Type.Number({ description: "Price." }),
    s: Type.Number({ description: "Size." }),
    c: Conditions,
    i: Type.Integer({ description: "Trade id, unique per symbol." }),
    z: Tape,
  },
  { examples: [{ t: T_EXAMPLE, x: "V", p: 151.23, s: 100, c: ["@"], i: 1790000000, z: "C" }] },
);

export const CryptoTrade = Type.Object(
  {
    t: Time,
    p: Type.Number({ description: "Price." }),
    s: Type.Number({ description: "Size." }),
    i: Type.Integer({ description: "Trade id." }),
    tks: Type.String({ description: "Taker side: B buyer, S seller." }),
  },
  { examples: [{ t: T_EXAMPLE, p: 67012.5, s: 0.012, i: 1790000000, tks: "B" }] },
);

export const StockQuote = Type.Object(
  {
    t: Time,
    ax: Type.String({ description: "Ask exchange." }),
    ap: Type.Number({ description: "Ask price." }),
    as: Type.Number({ description: "Ask size." }),
    bx: Type.String({ description: "Bid exchange." }),
    bp: Type.Number({ description: "Bid price." }),
    bs: Type.Number({ description: "Bid size." }),
    c: Conditions,
    z: Tape,
  },
  { examples: [{ t: T_EXAMPLE, ax: "V", ap: 151.25, as: 300, bx: "V", bp: 151.21, bs: 200, c: ["R"], z: "C" }] },
);

export const CryptoQuote = Type.Object(
  {
    t: Time,
    bp: Type.Number({ description: "Bid price." }),
    bs: Type.Number({ description: "Bid size." }),
    ap: Type.Number({ description: "Ask price." }),
    as: Type.Number({ description: "Ask size." }),
  },
  { examples: [{ t: T_EXAMPLE, bp: 67010, bs: 0.5, ap: 67015, as: 0.4 }] },
);

export const NextPageToken = Type.Union([Type.String(), Type.Null()], {
  description: "The `page_token` of the next page; null on the last one.",
});

/** `{ <symbol>: item }` with an example keyed by `symbol`. */
export const BySymbol = <S extends TSchema>(item: S, symbol: string, example: unknown) =>
  Type.Record(Type.String(), item, { examples: [{ [symbol]: example }] });

const SYMBOLS_PATTERN = "^[A-Za-z0-9./:-]+(,[A-Za-z0-9./:-]+)*$";
export const Symbols = (example: string) =>
  Type.String({
    pattern: SYMBOLS_PATTERN,
    maxLength: 4096,
    description: `Comma-separated symbols, e.g. \`${example}\`.`,
  });
export const SymbolParam = Type.String({ minLength: 1, maxLength: 32, description: "The symbol, e.g. `AAPL`." });

const TIME_PATTERN = "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?([Zz]|[+-]\\d{2}:\\d{2}))?$";
const ADJUSTMENT = "(raw|split|dividend|spin-off|all)";

/** The query parameters of the historical endpoints (the crypto ones have no feed, adjustment, asof, currency). */
export function historicalQuery(options: { symbols?: string; bars: boolean; stock: boolean }) {
  return Type.Object({
    ...(options.symbols ? { symbols: Symbols(options.symbols) } : {}),
    ...(options.bars
      ? {
          timeframe: Type.String({
            maxLength: 16,
            description:
              "`[1-59]Min` (or `T`), `[1-23]Hour` (or `H`), `1Day` (`D`), `1Week` (`W`), `[1,2,3,4,6,12]Month` (`M`).",
          }),
        }
      : {}),
    start: Type.Optional(
      Type.String({
        pattern: TIME_PATTERN,
        description: "Inclusive start: RFC 3339, or YYYY-MM-DD (UTC midnight). Default: New York midnight today.",
      }),
    ),
    end: Type.Optional(
      Type.String({
        pattern: TIME_PATTERN,
        description: "Inclusive end: RFC 3339, or YYYY-MM-DD (the end of that UTC day). Default: now.",
      }),
    ),
    limit: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 1000,
      description: "Items per page, counted across all symbols.",
    }),
    page_token: Type.Optional(Type.String({ maxLength: 256, description: "`next_page_token` of the previous page." })),
    sort: Type.Union([Type.Literal("asc"), Type.Literal("desc")], {
      default: "asc",
      description: "Time order within each symbol (symbols go alphabetically).",
    }),
    ...(options.stock
      ? {
          feed: Type.Optional(
            Type.Union([Type.Literal("iex"), Type.Literal("sip")], {
              description: "`iex` or `sip` (the same data here; `sip` of the last 15 minutes needs the plus plan).",
            }),
          ),
          currency: Type.Optional(Type.String({ maxLength: 8, description: "USD only." })),
          asof: Type.Optional(Type.String({ maxLength: 10, description: "Accepted; the market has no renames." })),
          ...(options.bars
            ? {
                adjustment: Type.Optional(
                  Type.String({
                    pattern: `^${ADJUSTMENT}(,${ADJUSTMENT})*$`,
                    description: "Accepted; the market has no corporate actions, so every value gives raw bars.",
                  }),
                ),
              }
            : {}),
        }
      : {}),
  });
}

/** The query parameters of the latest and snapshot endpoints. */
export function latestQuery(options: { symbols?: string; stock: boolean }) {
  return Type.Object({
    ...(options.symbols ? { symbols: Symbols(options.symbols) } : {}),
    ...(options.stock
      ? {
          feed: Type.Optional(
            Type.Union([Type.Literal("iex"), Type.Literal("sip"), Type.Literal("delayed_sip")], {
              description: "`iex`, `sip` (plus plan), or `delayed_sip` (as of 15 minutes ago).",
            }),
          ),
          currency: Type.Optional(Type.String({ maxLength: 8, description: "USD only." })),
        }
      : {}),
  });
}

export const LocParams = Type.Object({
  loc: Type.String({ maxLength: 16, description: "The crypto location: `us`." }),
});

/** The error answers of every data operation (429 is added to each by the API's onRoute hook). */
export const dataErrorResponses = {
  400: errorResponse("A symbol that is not the market's, or a page_token this API did not write.", {
    code: 40010000,
    message: "invalid symbol: ZZZZ",
  }),
  401: tradingErrorResponses[401],
  403: errorResponse("The basic plan asked the sip feed for data of the last 15 minutes.", {
    code: 40310000,
    message: "subscription does not permit querying recent SIP data",
  }),
  422: errorResponse("A parameter is missing, malformed or out of range.", {
    code: 42210000,
    message: "invalid timeframe",
  }),
  429: tradingErrorResponses[429],
};
export const noDataResponse = errorResponse("The symbol has no data yet.", {
  code: 40410000,
  message: "no trade found for AAPL",
});

/** A market data failure as the data host's error; anything else is rethrown (a 500, a bug). */
export function asHttpError(error: unknown): unknown {
  if (isMarketDataError(error)) return new HttpError(error.status, error.message, String(alpacaCode(error.status)));
  return error;
}

/** Runs a route's work, answering market data failures with their status. */
export async function answer<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asHttpError(error);
  }
}
