/**
 * The read side of the market data feed, one per process: it follows `brokerage.market_feed` and hands each new
 * message to the data stream connections subscribed to its channel and symbol (or `*` on the channel), one
 * frame per connection per read, every message encoded once per format whatever the number of connections.
 *
 * As `tradeUpdatesHub.ts`, on kernel's outbox reader: writers append messages and, in the same transaction,
 * `pg_notify(MARKET_FEED_CHANNEL, '<largest seq written>')`; the hub reads after its cursor on a notification
 * (every instance hears it), on `wake()` (an in-process writer calls it after its commit) and every
 * `pollIntervalMs` (a lost notification). While nobody is subscribed nothing is read.
 *
 * The feed's writers (the recorder, the exchange's executions) take its lock (store/marketDataRepository.ts),
 * so seqs commit in order; a hole after the cursor is a rolled-back transaction's, or a writer that did not
 * take the lock: it is waited for (`gapWaitMs`) before it is passed over.
 */
import { createOutboxReader, type Database, type Logger } from "@platform/kernel";
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
  /** The seq after the cursor that is missing, and since when (ms). */
  let hole: { seq: bigint; since: number } | undefined;
  let holeTimer: NodeJS.Timeout | undefined;

  const indexKey = (tape: FeedTape, channel: string) => `${tape}:${channel}`;

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

  /** The rows that follow the cursor without a hole (or past a hole waited for long enough). */
  function contiguous(rows: MarketFeedRow[], cursor: bigint): MarketFeedRow[] {
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
              reader.wake();
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

  const reader = createOutboxReader<MarketFeedRow>({
    db,
    logger,
    channel: MARKET_FEED_CHANNEL,
    label: "the market feed",
    latestId: () => feed.latestSeq(),
    after: (afterSeq, limit) => feed.after(afterSeq, limit),
    idOf: (row) => BigInt(row.seq),
    idle: () => entries.size === 0,
    ready: contiguous,
    /** Sends each receiver one frame of its messages among `rows`. */
    deliver(rows) {
      for (const [receiver, frame] of feedFrames(rows, receiversOf)) {
        try {
          receiver.deliver(frame);
        } catch (error) {
          logger.error({ err: error }, "market feed receiver failed");
        }
      }
    },
    pollIntervalMs,
    batchSize,
  });

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
    wake: reader.wake,
    latestSeq: () => reader.cursor(),
    async close() {
      clearTimeout(holeTimer);
      await reader.close();
      clearTimeout(holeTimer);
      index.clear();
      entries.clear();
    },
  };
}
