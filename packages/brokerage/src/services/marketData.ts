/**
 * Market data as the anchor's REST API serves it (stocks v2, crypto v1beta3): historical bars, trades and
 * quotes paged by an opaque token, the latest values, and snapshots, read from the recorded tables.
 *
 * Decisions where the anchor is silent or cannot apply:
 * - Symbols must be the market's (equities for stock endpoints, `BASE/QUOTE` pairs for crypto), else
 *   `InvalidSymbolError`; a listed symbol without data is absent from multi-symbol answers and a 404 for the
 *   single-symbol latest/snapshot endpoints. Multi-symbol pages go by symbol (alphabetical), then time.
 * - `start` defaults to New York midnight of today, `end` to now (15 minutes ago for the `basic` plan on
 *   `sip`, as the anchor's "no real-time access"). A date-only `start` is UTC midnight of that day, a date-only
 *   `end` the last millisecond of that UTC day.
 * - `feed` `iex` and `sip` serve the same data (one venue); `sip` newer than 15 minutes needs the `plus`
 *   plan (`RecentSipDataError`). `adjustment` is accepted and changes nothing: the market has no corporate
 *   actions, so every adjustment gives the raw bars. `asof` changes nothing (no symbol renames).
 * - Bars of the current, unfinished bucket are returned as they stand (partial), as the anchor does.
 */
import { type BarTimeframe, type BarValues, mergeBars, parseBarTimeframe } from "../domain/barTimeframe.ts";
import {
  InvalidPageTokenError,
  InvalidSymbolError,
  InvalidTimeRangeError,
  NoMarketDataError,
  RecentSipDataError,
} from "../domain/marketDataErrors.ts";
import {
  type BarObject,
  barObject,
  type MarketClass,
  type QuoteObject,
  quoteShape,
  type TradeObject,
  topOfBook,
  tradeShape,
} from "../domain/marketDataObjects.ts";
import { decodePageToken, encodePageToken, type PageKey, type PageKind } from "../domain/marketDataPageToken.ts";
import type { ListedAsset } from "../market/assets.ts";
import { newYorkInstant, newYorkWallTime } from "../market/newYorkTime.ts";
import type { BarRow, MarketDataReadRepository, QuoteRow, TradeRow } from "../store/marketDataReadRepository.ts";

export type { BarObject, MarketClass, QuoteObject, TradeObject };
export type DataPlan = "basic" | "plus";

/** Who asks, and through which feed: what the plan rules need. */
export interface Requester {
  plan: () => Promise<DataPlan>;
}

export interface HistoricalQuery {
  market: MarketClass;
  /** Comma-separated symbols as the client sent them. */
  symbols: string;
  start?: string;
  end?: string;
  limit: number;
  pageToken?: string;
  sort: "asc" | "desc";
  feed?: string;
  requester: Requester;
}

export interface HistoricalPage<Item> {
  items: Record<string, Item[]>;
  next_page_token: string | null;
}

export interface LatestQuery {
  market: MarketClass;
  symbols: string;
  feed?: string;
  requester: Requester;
}

export interface Snapshot {
  latestTrade?: TradeObject;
  latestQuote?: QuoteObject;
  minuteBar?: BarObject;
  dailyBar?: BarObject;
  prevDailyBar?: BarObject;
}

export interface MarketDataServiceParameters {
  reads: MarketDataReadRepository;
  /** The market's listing of a symbol (market service's `findListing`). */
  findListing(symbol: string): ListedAsset | undefined;
  now?: () => Date;
}

const RECENT_MS = 15 * 60_000;
/** Source bars read per query while merging (bounded memory for any timeframe). */
const MERGE_CHUNK = 10_000;
const END_OF_TIME = new Date("9999-12-31T23:59:59.999Z");
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

function parseTime(value: string, param: "start" | "end"): number {
  if (DATE_ONLY.test(value)) {
    const t = Date.parse(`${value}T00:00:00Z`);
    if (!Number.isNaN(t) && new Date(t).toISOString().startsWith(value)) {
      return param === "end" ? t + 86_399_999 : t;
    }
  } else if (RFC3339.test(value)) {
    const t = Date.parse(value);
    if (!Number.isNaN(t)) return t;
  }
  throw new InvalidTimeRangeError(`invalid ${param}: ${value}`);
}

export function createMarketDataService({ reads, findListing, now = () => new Date() }: MarketDataServiceParameters) {
  /** The canonical symbols of a request, sorted and deduplicated, each the market's of the class. */
  function symbolsOf(market: MarketClass, raw: string): { symbol: string; listing: ListedAsset }[] {
    const wanted = [...new Set(raw.split(",").map((s) => s.trim().toUpperCase()))].sort();
    return wanted.map((symbol) => {
      const listing = symbol ? findListing(symbol) : undefined;
      const assetClass = market === "stock" ? "us_equity" : "crypto";
      if (!listing || listing.asset.symbol !== symbol || listing.asset.class !== assetClass) {
        throw new InvalidSymbolError(symbol);
      }
      return { symbol, listing };
    });
  }

  /** Whether the request reads `sip` (the default for `plus`, as the anchor's "best feed of the plan"). */
  async function readsSip(market: MarketClass, feed: string | undefined, requester: Requester) {
    if (market === "crypto") return { sip: false, plan: "plus" as DataPlan };
    const plan = await requester.plan();
    return { sip: feed === "sip" || (feed === undefined && plan === "plus"), plan };
  }

  async function rangeOf(query: HistoricalQuery): Promise<{ from: Date; to: Date }> {
    const at = now().getTime();
    const { sip, plan } = await readsSip(query.market, query.feed, query.requester);
    const delayed = sip && plan === "basic";
    const to = query.end === undefined ? (delayed ? at - RECENT_MS : at) : parseTime(query.end, "end");
    // The default start is "the beginning of the current day, but at least 15 minutes ago" without real time.
    const from =
      query.start === undefined
        ? Math.min(newYorkInstant(newYorkWallTime(at).day, 0), to)
        : parseTime(query.start, "start");
    if (delayed && to > at - RECENT_MS) throw new RecentSipDataError();
    if (to < from) throw new InvalidTimeRangeError("end should not be before start");
    return { from: new Date(from), to: new Date(to) };
  }

  /**
   * One page over the symbols in order: `fetch(symbol, want, after)` returns up to `want` items of a symbol
   * after the key (when resuming on that symbol); an extra item beyond the limit means "more", and its key
   * makes the next token. The limit counts across symbols, as the anchor's.
   */
  async function page<Row, Item>(
    kind: PageKind,
    query: HistoricalQuery,
    fetch: (listing: ListedAsset, symbol: string, want: number, after?: PageKey) => Promise<Row[]>,
    keyOf: (symbol: string, row: Row) => PageKey,
    shape: (row: Row, listing: ListedAsset) => Item,
  ): Promise<HistoricalPage<Item>> {
    const symbols = symbolsOf(query.market, query.symbols);
    const resume = query.pageToken === undefined ? undefined : decodePageToken(kind, query.pageToken);
    let first = 0;
    if (resume) {
      first = symbols.findIndex((s) => s.symbol === resume.symbol);
      // A token of another query (its symbol is not one of these): not this query's continuation.
      if (first < 0) throw new InvalidPageTokenError();
    }
    const items: Record<string, Item[]> = {};
    let remaining = query.limit;
    let lastKey: PageKey | undefined = resume;
    for (let i = first; i < symbols.length; i++) {
      const { symbol, listing } = symbols[i] as { symbol: string; listing: ListedAsset };
      const rows = await fetch(listing, symbol, remaining + 1, i === first ? resume : undefined);
      const taken = rows.slice(0, remaining);
      if (taken.length > 0) {
        items[symbol] = taken.map((row) => shape(row, listing));
        lastKey = keyOf(symbol, taken[taken.length - 1] as Row);
        remaining -= taken.length;
      }
      if (rows.length > taken.length) {
        return { items, next_page_token: lastKey ? encodePageToken(kind, lastKey) : null };
      }
    }
    return { items, next_page_token: null };
  }

  /** Up to `want` bars of a symbol in the timeframe, merged from the stored rollup when it must be. */
  async function barsOf(
    timeframe: BarTimeframe,
    range: { from: Date; to: Date; desc: boolean },
    symbol: string,
    want: number,
    after?: number,
  ): Promise<BarValues[]> {
    const base = { symbol, timeframe: timeframe.source, ...range };
    if (!timeframe.merged) return reads.bars({ ...base, limit: want, after });
    const buckets: BarValues[] = [];
    let current: BarValues | undefined;
    let cursor = after;
    for (;;) {
      const rows = await reads.bars({ ...base, limit: MERGE_CHUNK, after: cursor });
      for (const row of rows) {
        const bucket = timeframe.bucketOf(row.t);
        // Resuming ascending after a bucket: the rest of that bucket was already returned in it.
        if (after !== undefined && bucket === after) continue;
        if (current && current.t === bucket) {
          // Rows come in the page's order: ascending, the bucket so far is the earlier part; descending, the later.
          current = range.desc ? mergeBars(row, current, bucket) : mergeBars(current, row, bucket);
          continue;
        }
        if (current) buckets.push(current);
        if (buckets.length >= want) return buckets;
        current = { ...row, t: bucket };
      }
      if (rows.length < MERGE_CHUNK) break;
      cursor = (rows[rows.length - 1] as BarRow).t;
    }
    if (current) buckets.push(current);
    return buckets;
  }

  async function latestAsOf(query: LatestQuery): Promise<Date> {
    const { sip, plan } = await readsSip(query.market, query.feed, query.requester);
    if (query.feed === "delayed_sip") return new Date(now().getTime() - RECENT_MS);
    if (sip && plan === "basic") throw new RecentSipDataError();
    return END_OF_TIME;
  }

  /** Latest rows keyed by symbol, shaped. */
  async function latest<Row extends { symbol: string }, Item>(
    query: LatestQuery,
    read: (symbols: string[], asOf: Date) => Promise<Row[]>,
    shape: (row: Row, listing: ListedAsset) => Item,
  ): Promise<Record<string, Item>> {
    const symbols = symbolsOf(query.market, query.symbols);
    const asOf = await latestAsOf(query);
    const listings = new Map(symbols.map((s) => [s.symbol, s.listing]));
    const rows = await read([...listings.keys()], asOf);
    return Object.fromEntries(rows.map((row) => [row.symbol, shape(row, listings.get(row.symbol) as ListedAsset)]));
  }

  return {
    /** The requester of a user: their plan is read once, when a rule needs it. */
    requester(userId: string): Requester {
      let plan: Promise<DataPlan> | undefined;
      return { plan: () => (plan ??= reads.dataPlanOf(userId)) };
    },

    /** A page of bars (`timeframe` parsed here: `InvalidTimeframeError` before anything is read). */
    async bars(query: HistoricalQuery & { timeframe: string }): Promise<HistoricalPage<BarObject>> {
      const timeframe = parseBarTimeframe(query.timeframe);
      const range = { ...(await rangeOf(query)), desc: query.sort === "desc" };
      return page<BarValues, BarObject>(
        "B",
        query,
        (_, symbol, want, after) => barsOf(timeframe, range, symbol, want, after?.t),
        (symbol, bar) => ({ symbol, t: bar.t }),
        barObject,
      );
    },

    async trades(query: HistoricalQuery): Promise<HistoricalPage<TradeObject>> {
      const range = { ...(await rangeOf(query)), desc: query.sort === "desc" };
      return page<TradeRow, TradeObject>(
        "T",
        query,
        (_, symbol, want, after) =>
          reads.trades({ symbol, ...range, limit: want, after: after && { t: after.t, id: after.id ?? "0" } }),
        (symbol, row) => ({ symbol, t: row.at.getTime(), id: row.id }),
        tradeShape(query.market),
      );
    },

    async quotes(query: HistoricalQuery): Promise<HistoricalPage<QuoteObject>> {
      const range = { ...(await rangeOf(query)), desc: query.sort === "desc" };
      return page<QuoteRow, QuoteObject>(
        "Q",
        query,
        (_, symbol, want, after) => reads.quotes({ symbol, ...range, limit: want, after: after?.t }),
        (symbol, row) => ({ symbol, t: row.at.getTime() }),
        quoteShape(query.market),
      );
    },

    latestTrades: (query: LatestQuery) => latest(query, reads.latestTrades, tradeShape(query.market)),
    latestQuotes: (query: LatestQuery) => latest(query, reads.latestQuotes, quoteShape(query.market)),
    /**
     * The latest order book of each crypto pair: its top level, from the latest recorded quote (the market
     * records the best bid and offer, not the book's depth).
     */
    latestOrderbooks: (query: LatestQuery) => latest(query, reads.latestQuotes, topOfBook),
    /** The latest minute bar of each symbol (the current minute's, partial, when it has trades). */
    latestBars: (query: LatestQuery) =>
      latest<BarRow, BarObject>(query, (symbols, asOf) => reads.latestBars(symbols, "1Min", asOf), barObject),

    /** Latest trade, quote, minute bar, daily bar and the daily bar before it, per symbol with any data. */
    async snapshots(query: LatestQuery): Promise<Record<string, Snapshot>> {
      const symbols = symbolsOf(query.market, query.symbols);
      const asOf = await latestAsOf(query);
      const listings = new Map(symbols.map((s) => [s.symbol, s.listing]));
      const names = [...listings.keys()];
      const [trades, quotes, minutes, days] = await Promise.all([
        reads.latestTrades(names, asOf),
        reads.latestQuotes(names, asOf),
        reads.latestBars(names, "1Min", asOf),
        reads.latestBars(names, "1Day", asOf, 2),
      ]);
      const result: Record<string, Snapshot> = {};
      const of = (symbol: string): Snapshot => {
        result[symbol] ??= {};
        return result[symbol];
      };
      const listing = (symbol: string) => listings.get(symbol) as ListedAsset;
      for (const row of trades) of(row.symbol).latestTrade = tradeShape(query.market)(row, listing(row.symbol));
      for (const row of quotes) of(row.symbol).latestQuote = quoteShape(query.market)(row, listing(row.symbol));
      for (const row of minutes) of(row.symbol).minuteBar = barObject(row);
      for (const row of days) {
        const snapshot = of(row.symbol);
        if (snapshot.dailyBar) snapshot.prevDailyBar = barObject(row);
        else snapshot.dailyBar = barObject(row);
      }
      return Object.fromEntries(names.filter((s) => result[s]).map((s) => [s, result[s] as Snapshot]));
    },

    /** One symbol's value of a latest read, or `NoMarketDataError`. */
    single<Item>(
      kind: "trade" | "quote" | "bar" | "snapshot",
      symbol: string,
      values: Record<string, Item>,
    ): { symbol: string; value: Item } {
      const canonical = symbol.trim().toUpperCase();
      const value = values[canonical];
      if (value === undefined) throw new NoMarketDataError(kind, canonical);
      return { symbol: canonical, value };
    },
  };
}

export type MarketDataService = ReturnType<typeof createMarketDataService>;
