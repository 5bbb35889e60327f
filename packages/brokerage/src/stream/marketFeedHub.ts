/**
 * The read side of the market data feed, one per process: it follows `brokerage.market_feed` and hands each new
 * message to the data stream connections subscribed to its channel and symbol (or `*` on the channel), one
 * frame per connection per read, every message encoded once per format whatever the number of connections.
 *
 * As `tradeUpdatesHub.ts`: writers append messages and, in the same transaction, `pg_notify(MARKET_FEED_CHANNEL,
 * '<largest seq written>')`. The hub reads after its cursor on a notification (every instance hears it), on
 * `wake()` (an in-process writer calls it after its commit) and every `pollIntervalMs` (a lost notification).
 * Reads are serialized; while nobody is subscribed nothing is read, the cursor only moves to the largest seq.
 *
 * The feed has more than one writer (the recorder, the exchange's executions), so seqs may commit out of
 * order: a hole after the cursor is waited for (`gapWaitMs`) before it is passed over, since the row may still
 * commit (or never will: a rolled-back transaction leaves a hole for good).
 */
import type { Database, Logger } from "@platform/kernel";
import { createMarketFeedRepository, type MarketFeedRow } from "../store/marketFeedRepository.ts";
import { type FeedReceiver, type FeedTape, feedFrames, tapeOf } from "./feedFrames.ts";

export { type FeedReceiver, type FeedTape, tapeOf } from "./feedFrames.ts";

/** The NOTIFY channel writers signal on, with the largest seq they committed as the payload. */
export const MARKET_FEED_CHANNEL = "brokerage_market_feed";

export interface MarketFeedHub {
  /** From the next read on, `receiver` gets the messages of `channel` for `symbols` (`*` = every symbol). */
  subscribe(receiver: FeedReceiver, channel: string, symbols: Iterable<string>): void;
  unsubscribe(receiver: FeedReceiver, channel: string, symbols: Iterable<string>): void;
  /** Drops every subscription of `receiver` (its connection closed). */
  remove(receiver: FeedReceiver): void;
  /** Reads what was committed since the last read (an in-process writer calls it after its commit). */
  wake(): void;
  /** The largest seq read (the cursor), once listening is set up and the first read is done. */
  latestSeq(): Promise<bigint>;
  /** Stops listening and polling; waits for a read in progress. */
  close(): Promise<void>;
}

export interface CreateMarketFeedHubParameters {
  db: Database;
  logger: Logger;
  /** The safety poll's period (default 1 s). */
  pollIntervalMs?: number;
  /** Rows per read (default 1,000); a full batch is followed by the next one at once. */
  batchSize?: number;
  /** How long a hole in the seqs is waited for before it is passed over (default 2 s). */
  gapWaitMs?: number;
}

const DECIMAL_SEQ = /^\d{1,19}$/;

export function createMarketFeedHub({
  db,
  logger,
  pollIntervalMs = 1_000,
  batchSize = 1_000,
  gapWaitMs = 2_000,
}: CreateMarketFeedHubParameters): MarketFeedHub {
  const feed = createMarketFeedRepository(db);
  /** tape + channel → symbol (or `*`) → receivers. */
  const index = new Map<string, Map<string, Set<FeedReceiver>>>();
  /** receiver → its (channel, symbol) entries, to count subscribers and remove a receiver at once. */
  const entries = new Map<FeedReceiver, number>();
  let cursor = 0n;
  let started = false;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let closed = false;
  let stopListening: (() => Promise<void>) | undefined;
  let listenAttempt: Promise<void> | undefined;
  /** The seq after the cursor that is missing, and since when (ms). */
  let hole: { seq: bigint; since: number } | undefined;
  let holeTimer: NodeJS.Timeout | undefined;

  const indexKey = (tape: FeedTape, channel: string) => `${tape}:${channel}`;
  const advance = (seq: bigint) => {
    if (seq > cursor) cursor = seq;
  };

  /** The receivers of `row`, once each (`AAPL` and `*` on one channel is one delivery). */
  function receiversOf(row: MarketFeedRow): Set<FeedReceiver> | FeedReceiver[] {
    const bySymbol = index.get(indexKey(tapeOf(row.symbol), row.channel));
    if (!bySymbol) return [];
    const exact = bySymbol.get(row.symbol);
    const all = bySymbol.get("*");
    if (!exact) return all ?? [];
    if (!all) return exact;
    return new Set([...exact, ...all]);
  }

  /** Sends each receiver one frame of its messages among `rows`. */
  function fanOut(rows: MarketFeedRow[]): void {
    for (const [receiver, frame] of feedFrames(rows, receiversOf)) {
      try {
        receiver.deliver(frame);
      } catch (error) {
        logger.error({ err: error }, "market feed receiver failed");
      }
    }
  }

  /** The rows that follow the cursor without a hole (or past a hole waited for long enough). */
  function contiguous(rows: MarketFeedRow[]): MarketFeedRow[] {
    const ready: MarketFeedRow[] = [];
    let expected = cursor + 1n;
    for (const row of rows) {
      const seq = BigInt(row.seq);
      if (seq !== expected) {
        const now = Date.now();
        if (hole?.seq !== expected) hole = { seq: expected, since: now };
        if (now - hole.since < gapWaitMs) {
          if (!holeTimer) {
            holeTimer = setTimeout(() => {
              holeTimer = undefined;
              wake();
            }, gapWaitMs);
            holeTimer.unref();
          }
          break;
        }
      }
      ready.push(row);
      expected = seq + 1n;
    }
    return ready;
  }

  async function readOnce(): Promise<void> {
    if (!started) {
      cursor = await feed.latestSeq();
      started = true;
      return;
    }
    if (entries.size === 0) {
      const latest = await feed.latestSeq();
      // Someone who subscribed during the query is owed the rows after the old cursor: read them instead.
      if (entries.size === 0) advance(latest);
      else readAgain = true;
      return;
    }
    for (;;) {
      const rows = await feed.after(cursor, batchSize);
      const ready = contiguous(rows);
      if (ready.length > 0) {
        advance(BigInt((ready[ready.length - 1] as MarketFeedRow).seq));
        fanOut(ready);
      }
      if (ready.length < batchSize || closed) return;
    }
  }

  async function drain(): Promise<void> {
    for (;;) {
      readAgain = false;
      try {
        await readOnce();
      } catch (error) {
        logger.warn({ err: error }, "reading the market feed failed");
      }
      if (!readAgain || closed) {
        reading = undefined;
        return;
      }
    }
  }

  function wake(): void {
    if (closed) return;
    if (reading) {
      readAgain = true;
      return;
    }
    reading = drain();
  }

  function onNotification(payload: string): void {
    if (entries.size === 0 && started && DECIMAL_SEQ.test(payload)) {
      advance(BigInt(payload));
      return;
    }
    wake();
  }

  function ensureListening(): void {
    if (stopListening || listenAttempt || closed) return;
    listenAttempt = db
      .listen(MARKET_FEED_CHANNEL, onNotification)
      .then(
        async (stop) => {
          if (closed) await stop();
          else stopListening = stop;
        },
        (error) => logger.warn({ err: error }, "listening for the market feed failed; polling until it works"),
      )
      .finally(() => {
        listenAttempt = undefined;
      });
  }

  ensureListening();
  wake();
  const poll = setInterval(() => {
    ensureListening();
    wake();
  }, pollIntervalMs);
  poll.unref();

  function unsubscribeFrom(receiver: FeedReceiver, key: string, symbols: Iterable<string>): void {
    const bySymbol = index.get(key);
    if (!bySymbol) return;
    for (const symbol of symbols) {
      const set = bySymbol.get(symbol);
      if (!set?.delete(receiver)) continue;
      if (set.size === 0) bySymbol.delete(symbol);
      const left = (entries.get(receiver) ?? 1) - 1;
      if (left === 0) entries.delete(receiver);
      else entries.set(receiver, left);
    }
    if (bySymbol.size === 0) index.delete(key);
  }

  return {
    subscribe(receiver, channel, symbols) {
      const key = indexKey(receiver.tape, channel);
      let bySymbol = index.get(key);
      if (!bySymbol) {
        bySymbol = new Map();
        index.set(key, bySymbol);
      }
      for (const symbol of symbols) {
        let set = bySymbol.get(symbol);
        if (!set) {
          set = new Set();
          bySymbol.set(symbol, set);
        }
        if (set.has(receiver)) continue;
        set.add(receiver);
        entries.set(receiver, (entries.get(receiver) ?? 0) + 1);
      }
    },
    unsubscribe: (receiver, channel, symbols) => unsubscribeFrom(receiver, indexKey(receiver.tape, channel), symbols),
    remove(receiver) {
      if (!entries.has(receiver)) return;
      for (const [key, bySymbol] of [...index]) {
        const held = [...bySymbol].filter(([, set]) => set.has(receiver)).map(([symbol]) => symbol);
        unsubscribeFrom(receiver, key, held);
      }
      entries.delete(receiver);
    },
    wake,
    async latestSeq() {
      // Started = listening (when the database lets it) and the first read done.
      await listenAttempt;
      while (!started && !closed) {
        wake();
        await reading;
        if (!started) await new Promise((resolve) => setTimeout(resolve, Math.min(pollIntervalMs, 100)));
      }
      return cursor;
    },
    async close() {
      closed = true;
      clearInterval(poll);
      clearTimeout(holeTimer);
      await listenAttempt;
      await stopListening?.().catch((error) => logger.warn({ err: error }, "unlisten failed"));
      stopListening = undefined;
      await reading;
      index.clear();
      entries.clear();
    },
  };
}
