/**
 * The write side of the market data tables (0003_market_data.sql), always in the caller's transaction: the
 * recorder's and the exchange ledger's trades, quotes, the bars they roll up into, and the streams' outbox.
 *
 * Writers serialize on the recorder's row (`lockFeed`): the recorder holds it FOR UPDATE for its pass, the
 * ledger FOR SHARE for its commit (one exchange writer at a time). So outbox sequence numbers are taken in the
 * order the transactions commit, and a stream reading "after the last seq it saw" never skips a row, and the
 * recorder never closes a minute while a trade in it is still uncommitted.
 */
import type { Queryable } from "@platform/kernel";
import type { MarketQuote, MarketTrade, PartialBar, StoredTimeframe, SymbolBar } from "../domain/marketRecords.ts";
import { fromNanos, numberToNanos } from "../domain/portfolioValue.ts";

/** The recorder's row: its checkpoint, and the lock every outbox writer takes. */
export const RECORDER_NAME = "tape";
/** The history's row: bars of the days before the first start. */
export const HISTORY_NAME = "history";

export interface RecorderCheckpoint {
  /** Everything before this instant (epoch ms) is recorded. */
  recordedTo: number;
  /** Minutes before this instant have had their final bar sent. */
  closedTo: number;
}

/** One outbox message: what the streams send, for the subscribers of `channel` and `symbol`. */
export interface FeedMessage {
  symbol: string;
  channel: "trades" | "quotes" | "bars" | "updatedBars" | "dailyBars" | "statuses";
  message: Record<string, unknown>;
}

const decimal = (value: number): string => fromNanos(numberToNanos(value));
const ATTO = 10n ** 18n;
function fromAtto(value: bigint): string {
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  return `${sign}${abs / ATTO}.${(abs % ATTO).toString().padStart(18, "0")}`;
}

interface BarRow {
  symbol: string;
  t: Date;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  trade_count: number;
  notional: string;
}

const symbolBar = (row: BarRow): SymbolBar => ({
  symbol: row.symbol,
  t: row.t.getTime(),
  o: Number(row.open),
  h: Number(row.high),
  l: Number(row.low),
  c: Number(row.close),
  v: Number(row.volume),
  n: Number(row.trade_count),
  notional: Number(row.notional),
});

const BAR_COLUMNS = "symbol, t, open, high, low, close, volume, trade_count, notional";

export function createMarketDataRepository() {
  return {
    /**
     * Locks the recorder's row, FOR UPDATE (the recorder) or FOR SHARE (the ledger); undefined when the
     * recorder has never run.
     */
    async lockFeed(tx: Queryable, mode: "update" | "share"): Promise<RecorderCheckpoint | undefined> {
      const [row] = await tx.query<{ recorded_to: Date; closed_to: Date }>(
        `SELECT recorded_to, closed_to FROM brokerage.market_recorder WHERE name = $1 FOR ${mode === "update" ? "UPDATE" : "SHARE"}`,
        [RECORDER_NAME],
      );
      return row && { recordedTo: row.recorded_to.getTime(), closedTo: row.closed_to.getTime() };
    },

    /**
     * First start: the tape's checkpoint at `tapeFrom`, and the history's, which records bars from
     * `historyFrom` up to `tapeFrom`. Leaves existing rows.
     */
    async createCheckpoints(tx: Queryable, { tapeFrom, historyFrom }: { tapeFrom: number; historyFrom: number }) {
      await tx.query(
        `INSERT INTO brokerage.market_recorder (name, recorded_to, closed_to, ends_at)
         VALUES ($1, $2, $2, NULL), ($3, $4, $4, $2)
         ON CONFLICT (name) DO NOTHING`,
        [RECORDER_NAME, new Date(tapeFrom), HISTORY_NAME, new Date(historyFrom)],
      );
    },

    /** Locks the history's checkpoint: where it is and where it ends (undefined before the first start). */
    async lockHistory(tx: Queryable): Promise<{ recordedTo: number; endsAt: number } | undefined> {
      const [row] = await tx.query<{ recorded_to: Date; ends_at: Date }>(
        "SELECT recorded_to, ends_at FROM brokerage.market_recorder WHERE name = $1 FOR UPDATE",
        [HISTORY_NAME],
      );
      return row && { recordedTo: row.recorded_to.getTime(), endsAt: row.ends_at.getTime() };
    },

    async saveHistory(tx: Queryable, recordedTo: number): Promise<void> {
      await tx.query("UPDATE brokerage.market_recorder SET recorded_to = $2 WHERE name = $1", [
        HISTORY_NAME,
        new Date(recordedTo),
      ]);
    },

    async saveCheckpoint(tx: Queryable, checkpoint: RecorderCheckpoint): Promise<void> {
      await tx.query("UPDATE brokerage.market_recorder SET recorded_to = $2, closed_to = $3 WHERE name = $1", [
        RECORDER_NAME,
        new Date(checkpoint.recordedTo),
        new Date(checkpoint.closedTo),
      ]);
    },

    /** Inserts the trades not recorded yet; answers those (a replayed batch inserts nothing). */
    async insertTrades(tx: Queryable, trades: readonly MarketTrade[]): Promise<MarketTrade[]> {
      if (trades.length === 0) return [];
      const rows = await tx.query<{ symbol: string; id: string }>(
        `INSERT INTO brokerage.market_trades (symbol, id, at, price, size, taker_side, exchange, conditions)
         SELECT s, i, a, p, z, k, x, string_to_array(c, ' ')
         FROM unnest($1::text[], $2::bigint[], $3::timestamptz[], $4::numeric[], $5::numeric[], $6::text[],
           $7::text[], $8::text[]) AS u(s, i, a, p, z, k, x, c)
         ON CONFLICT (symbol, id) DO NOTHING
         RETURNING symbol, id`,
        [
          trades.map((t) => t.symbol),
          trades.map((t) => String(t.id)),
          trades.map((t) => new Date(t.at).toISOString()),
          trades.map((t) => decimal(t.price)),
          trades.map((t) => decimal(t.size)),
          trades.map((t) => t.takerSide),
          trades.map((t) => t.exchange),
          trades.map((t) => t.conditions.join(" ")),
        ],
      );
      if (rows.length === trades.length) return [...trades];
      const inserted = new Set(rows.map((r) => `${r.symbol}|${r.id}`));
      return trades.filter((t) => inserted.has(`${t.symbol}|${t.id}`));
    },

    async insertQuotes(tx: Queryable, quotes: readonly MarketQuote[]): Promise<void> {
      if (quotes.length === 0) return;
      await tx.query(
        `INSERT INTO brokerage.market_quotes (symbol, at, bid_price, bid_size, ask_price, ask_size, exchange, conditions)
         SELECT s, a, bp, bs, ap, az, x, string_to_array(c, ' ')
         FROM unnest($1::text[], $2::timestamptz[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[],
           $7::text[], $8::text[]) AS u(s, a, bp, bs, ap, az, x, c)
         ON CONFLICT (symbol, at) DO NOTHING`,
        [
          quotes.map((q) => q.symbol),
          quotes.map((q) => new Date(q.at).toISOString()),
          quotes.map((q) => decimal(q.bidPrice)),
          quotes.map((q) => decimal(q.bidSize)),
          quotes.map((q) => decimal(q.askPrice)),
          quotes.map((q) => decimal(q.askSize)),
          quotes.map((q) => q.exchange),
          quotes.map((q) => q.conditions.join(" ")),
        ],
      );
    },

    /**
     * Merges partial bars into the stored ones (at most one per symbol, timeframe and bucket in a call). The
     * first and last trade of a bar decide its open and close, so merges commute.
     */
    async mergeBars(tx: Queryable, bars: readonly PartialBar[]): Promise<void> {
      if (bars.length === 0) return;
      // One order for every writer (the recorder's tape and history passes, the ledger), so that two
      // transactions merging into the same day's bars lock them in the same order and never deadlock.
      const sorted = [...bars].sort(
        (a, b) =>
          (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0) ||
          (a.timeframe < b.timeframe ? -1 : a.timeframe > b.timeframe ? 1 : 0) ||
          a.t - b.t,
      );
      await tx.query(
        `INSERT INTO brokerage.market_bars AS b (symbol, timeframe, t, open, high, low, close, volume, trade_count,
           notional, open_at, open_id, close_at, close_id)
         SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::numeric[], $5::numeric[],
           $6::numeric[], $7::numeric[], $8::numeric[], $9::int[], $10::numeric[], $11::timestamptz[], $12::bigint[],
           $13::timestamptz[], $14::bigint[])
         ON CONFLICT (symbol, timeframe, t) DO UPDATE SET
           open = CASE WHEN (EXCLUDED.open_at, EXCLUDED.open_id) < (b.open_at, b.open_id) THEN EXCLUDED.open ELSE b.open END,
           open_id = CASE WHEN (EXCLUDED.open_at, EXCLUDED.open_id) < (b.open_at, b.open_id) THEN EXCLUDED.open_id ELSE b.open_id END,
           open_at = LEAST(b.open_at, EXCLUDED.open_at),
           close = CASE WHEN (EXCLUDED.close_at, EXCLUDED.close_id) > (b.close_at, b.close_id) THEN EXCLUDED.close ELSE b.close END,
           close_id = CASE WHEN (EXCLUDED.close_at, EXCLUDED.close_id) > (b.close_at, b.close_id) THEN EXCLUDED.close_id ELSE b.close_id END,
           close_at = GREATEST(b.close_at, EXCLUDED.close_at),
           high = GREATEST(b.high, EXCLUDED.high),
           low = LEAST(b.low, EXCLUDED.low),
           volume = b.volume + EXCLUDED.volume,
           trade_count = b.trade_count + EXCLUDED.trade_count,
           notional = b.notional + EXCLUDED.notional`,
        [
          sorted.map((b) => b.symbol),
          sorted.map((b) => b.timeframe),
          sorted.map((b) => new Date(b.t).toISOString()),
          sorted.map((b) => decimal(b.open)),
          sorted.map((b) => decimal(b.high)),
          sorted.map((b) => decimal(b.low)),
          sorted.map((b) => decimal(b.close)),
          sorted.map((b) => fromNanos(b.volumeNanos)),
          sorted.map((b) => b.tradeCount),
          sorted.map((b) => fromAtto(b.notionalAtto)),
          sorted.map((b) => new Date(b.openAt).toISOString()),
          sorted.map((b) => String(b.openId)),
          sorted.map((b) => new Date(b.closeAt).toISOString()),
          sorted.map((b) => String(b.closeId)),
        ],
      );
    },

    /** The stored bars of `timeframe` starting at `t` (of `symbols`, or every symbol). */
    async barsAt(
      tx: Queryable,
      timeframe: StoredTimeframe,
      t: number,
      symbols?: readonly string[],
    ): Promise<SymbolBar[]> {
      const rows = await tx.query<BarRow>(
        `SELECT ${BAR_COLUMNS} FROM brokerage.market_bars
         WHERE timeframe = $1 AND t = $2 AND ($3::text[] IS NULL OR symbol = ANY($3::text[])) ORDER BY symbol`,
        [timeframe, new Date(t), symbols ? [...symbols] : null],
      );
      return rows.map(symbolBar);
    },

    /** Appends messages to the streams' outbox, in order, and notifies the API instances. */
    async appendFeed(tx: Queryable, messages: readonly FeedMessage[]): Promise<void> {
      if (messages.length === 0) return;
      const [row] = await tx.query<{ seq: string | null }>(
        `WITH added AS (
           INSERT INTO brokerage.market_feed (symbol, channel, message)
           SELECT v->>'s', v->>'c', v->'m' FROM json_array_elements($1::json) WITH ORDINALITY AS j(v, n) ORDER BY n
           RETURNING seq)
         SELECT max(seq)::text AS seq FROM added`,
        [JSON.stringify(messages.map((m) => ({ s: m.symbol, c: m.channel, m: m.message })))],
      );
      await tx.query("SELECT pg_notify('brokerage_market_feed', $1)", [row?.seq ?? "0"]);
    },

    /** Deletes outbox rows written before `feedBefore`, and the trades and quotes of `symbols` before `ticksBefore`. */
    async prune(
      tx: Queryable,
      { symbols, feedBefore, ticksBefore }: { symbols: readonly string[]; feedBefore: number; ticksBefore: number },
    ): Promise<void> {
      await tx.query("DELETE FROM brokerage.market_feed WHERE written_at < $1", [new Date(feedBefore)]);
      // By symbol, so that the (symbol, at) indexes serve the range instead of a scan of every row.
      for (const table of ["market_trades", "market_quotes"]) {
        await tx.query(`DELETE FROM brokerage.${table} WHERE symbol = ANY($1::text[]) AND at < $2`, [
          [...symbols],
          new Date(ticksBefore),
        ]);
      }
    },
  };
}

export type MarketDataRepository = ReturnType<typeof createMarketDataRepository>;
