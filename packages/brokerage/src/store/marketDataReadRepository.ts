/**
 * The read side of the market data tables (`brokerage.market_trades`, `market_quotes`, `market_bars`), for
 * the REST API. Every page is one range scan of a primary key or the trades' (symbol, at, id) index, in key
 * order, bounded by the page's limit, continuing after a key (keyset pagination, never OFFSET). Prices and
 * sizes are JSON numbers, as the anchor answers them.
 *
 * A page comes back as ONE value, the page's rows as a JSON array of arrays built by `json_agg`: parsing ten
 * thousand rows of eight numeric columns field by field costs the driver (PGlite most) about fifteen times
 * more than the scan itself; one JSON text is parsed by `JSON.parse` at native speed.
 */
import type { Queryable } from "@platform/kernel";
import type { BarValues, SourceTimeframe } from "../domain/barTimeframe.ts";
import type { QuoteRecord, TradeRecord } from "../domain/marketDataObjects.ts";

export interface TradeRow extends TradeRecord {
  symbol: string;
}

export interface QuoteRow extends QuoteRecord {
  symbol: string;
}

export interface BarRow extends BarValues {
  symbol: string;
}

/** One page's range: `from`..`to` inclusive, strictly after `after` in the scan's direction. */
export interface RangeQuery {
  symbol: string;
  from: Date;
  to: Date;
  desc: boolean;
  limit: number;
}

const TRADE_COLUMNS =
  "symbol, id::text AS id, at, price::float8 AS price, size::float8 AS size, taker_side, exchange, conditions";
const QUOTE_COLUMNS = `symbol, at, bid_price::float8 AS bid_price, bid_size::float8 AS bid_size,
  ask_price::float8 AS ask_price, ask_size::float8 AS ask_size, exchange, conditions`;
const BAR_COLUMNS = `symbol, (extract(epoch FROM t) * 1000)::float8 AS t, open::float8 AS o, high::float8 AS h,
  low::float8 AS l, close::float8 AS c, volume::float8 AS v, trade_count AS n, notional::float8 AS notional`;

/** The rows of `page` (a bounded, ordered SELECT) as one JSON array of `row` arrays, in `order`. */
async function pageOf<Row>(db: Queryable, row: string, order: string, page: string, params: unknown[]): Promise<Row[]> {
  const [result] = await db.query<{ page: string }>(
    `SELECT coalesce(json_agg(${row} ORDER BY ${order}), '[]')::text AS page FROM (${page}) AS p`,
    params,
  );
  return JSON.parse(result?.page ?? "[]") as Row[];
}

export function createMarketDataReadRepository(db: Queryable) {
  return {
    /** Stored bars of one rollup in `t` order, after the bucket start `after` (epoch ms) when given. */
    async bars(query: RangeQuery & { timeframe: SourceTimeframe; after?: number }): Promise<BarRow[]> {
      const { symbol, timeframe, from, to, desc, limit, after } = query;
      const direction = desc ? "DESC" : "ASC";
      const cursor = after === undefined ? "" : `AND t ${desc ? "<" : ">"} $6`;
      const params: unknown[] = [symbol, timeframe, from, to, limit];
      if (after !== undefined) params.push(new Date(after));
      const rows = await pageOf<[number, number, number, number, number, number, number, number]>(
        db,
        `json_build_array(extract(epoch FROM t) * 1000, open, high, low, close, volume, trade_count, notional)`,
        `t ${direction}`,
        `SELECT * FROM brokerage.market_bars
         WHERE symbol = $1 AND timeframe = $2 AND t >= $3 AND t <= $4 ${cursor}
         ORDER BY t ${direction} LIMIT $5`,
        params,
      );
      return rows.map(([t, o, h, l, c, v, n, notional]) => ({ symbol, t, o, h, l, c, v, n, notional }));
    },

    /** Trades in (at, id) order, after the trade (`after.t`, `after.id`) when given. */
    async trades(query: RangeQuery & { after?: { t: number; id: string } }): Promise<TradeRow[]> {
      const { symbol, from, to, desc, limit, after } = query;
      const direction = desc ? "DESC" : "ASC";
      const cursor = after === undefined ? "" : `AND (at, id) ${desc ? "<" : ">"} ($5, $6::bigint)`;
      const params: unknown[] = [symbol, from, to, limit];
      if (after) params.push(new Date(after.t), after.id);
      const rows = await pageOf<[number, string, number, number, "B" | "S", string, string[]]>(
        db,
        `json_build_array(extract(epoch FROM at) * 1000, id::text, price, size, taker_side, exchange, conditions)`,
        `at ${direction}, id ${direction}`,
        `SELECT * FROM brokerage.market_trades
         WHERE symbol = $1 AND at >= $2 AND at <= $3 ${cursor}
         ORDER BY at ${direction}, id ${direction} LIMIT $4`,
        params,
      );
      return rows.map(([at, id, price, size, taker_side, exchange, conditions]) => ({
        symbol,
        id,
        at: new Date(at),
        price,
        size,
        taker_side,
        exchange,
        conditions,
      }));
    },

    /** Quotes in time order, after the quote at `after` (epoch ms) when given. */
    async quotes(query: RangeQuery & { after?: number }): Promise<QuoteRow[]> {
      const { symbol, from, to, desc, limit, after } = query;
      const direction = desc ? "DESC" : "ASC";
      const cursor = after === undefined ? "" : `AND at ${desc ? "<" : ">"} $5`;
      const params: unknown[] = [symbol, from, to, limit];
      if (after !== undefined) params.push(new Date(after));
      const rows = await pageOf<[number, number, number, number, number, string, string[]]>(
        db,
        `json_build_array(extract(epoch FROM at) * 1000, bid_price, bid_size, ask_price, ask_size, exchange, conditions)`,
        `at ${direction}`,
        `SELECT * FROM brokerage.market_quotes
         WHERE symbol = $1 AND at >= $2 AND at <= $3 ${cursor}
         ORDER BY at ${direction} LIMIT $4`,
        params,
      );
      return rows.map(([at, bid_price, bid_size, ask_price, ask_size, exchange, conditions]) => ({
        symbol,
        at: new Date(at),
        bid_price,
        bid_size,
        ask_price,
        ask_size,
        exchange,
        conditions,
      }));
    },

    /** The last trade of each symbol at or before `asOf` (symbols without one are absent). */
    latestTrades: (symbols: string[], asOf: Date): Promise<TradeRow[]> =>
      db.query<TradeRow>(
        `SELECT ${TRADE_COLUMNS.replace(/\bsymbol\b/, "s.symbol")} FROM unnest($1::text[]) AS s(symbol)
         CROSS JOIN LATERAL (SELECT * FROM brokerage.market_trades m
           WHERE m.symbol = s.symbol AND m.at <= $2 ORDER BY m.at DESC, m.id DESC LIMIT 1) latest`,
        [symbols, asOf],
      ),

    /** The last quote of each symbol at or before `asOf`. */
    latestQuotes: (symbols: string[], asOf: Date): Promise<QuoteRow[]> =>
      db.query<QuoteRow>(
        `SELECT ${QUOTE_COLUMNS.replace(/\bsymbol\b/, "s.symbol")} FROM unnest($1::text[]) AS s(symbol)
         CROSS JOIN LATERAL (SELECT * FROM brokerage.market_quotes m
           WHERE m.symbol = s.symbol AND m.at <= $2 ORDER BY m.at DESC LIMIT 1) latest`,
        [symbols, asOf],
      ),

    /**
     * The last `count` bars of `timeframe` of each symbol starting at or before `asOf`, newest first per
     * symbol (a snapshot's daily and previous daily bar: `count` 2).
     */
    latestBars: (symbols: string[], timeframe: SourceTimeframe, asOf: Date, count = 1): Promise<BarRow[]> =>
      db.query<BarRow>(
        `SELECT ${BAR_COLUMNS.replace(/\bsymbol\b/, "s.symbol")} FROM unnest($1::text[]) AS s(symbol)
         CROSS JOIN LATERAL (SELECT * FROM brokerage.market_bars m
           WHERE m.symbol = s.symbol AND m.timeframe = $2 AND m.t <= $3 ORDER BY m.t DESC LIMIT $4) latest
         ORDER BY s.symbol, latest.t DESC`,
        [symbols, timeframe, asOf, count],
      ),

    /** The user's market data plan ('basic' when the user is unknown: the least it could be). */
    async dataPlanOf(userId: string): Promise<"basic" | "plus"> {
      const [row] = await db.query<{ data_plan: "basic" | "plus" }>(
        "SELECT data_plan FROM brokerage.users WHERE id = $1",
        [userId],
      );
      return row?.data_plan ?? "basic";
    },
  };
}

export type MarketDataReadRepository = ReturnType<typeof createMarketDataReadRepository>;
