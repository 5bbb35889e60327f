/**
 * The read side of the trade-update events, one per process: it follows `brokerage.trade_events` (kernel's
 * outbox reader: on NOTIFY, on `wake()`, on a safety poll) and hands each new row, in id order, to the
 * listeners of its account (the `/stream` connections of every host).
 *
 * The exchange writer stores events and, in the same transaction, runs `pg_notify(TRADE_EVENTS_CHANNEL,
 * '<largest id written>')`; there is one writer at a time, so ids are committed in increasing order and
 * "rows after the largest id read" (the cursor) never skips one. While nobody listens, rows are not read: a
 * subscriber gets the events after the cursor at the moment it subscribes.
 */
import { createOutboxReader, type Database, type Logger } from "@platform/kernel";
import { createTradeEventFeedRepository, type TradeEventRow } from "../store/tradeEventFeedRepository.ts";

/** The NOTIFY channel the writer signals on, with the largest id it committed as the payload. */
export const TRADE_EVENTS_CHANNEL = "brokerage_trade_events";

export type TradeEventListener = (event: TradeEventRow) => void;

export interface TradeUpdatesHub {
  /**
   * Calls `listener` with every event of `accountId` whose id is above the hub's cursor now, in id order,
   * until the returned function is called.
   */
  subscribe(accountId: string, listener: TradeEventListener): () => void;
  /** Reads what was committed since the last read (the in-process writer calls it after its commit). */
  wake(): void;
  /** The largest event id read (the cursor): a subscriber that joins now gets the events after it. */
  latestId(): Promise<bigint>;
  /** Stops listening and polling; waits for a read in progress. */
  close(): Promise<void>;
}

export interface CreateTradeUpdatesHubParameters {
  db: Database;
  logger: Logger;
  /** The safety poll's period (default 1 s). */
  pollIntervalMs?: number;
  /** Rows per read (default 1,000); a full batch is followed by the next one at once. */
  batchSize?: number;
}

export function createTradeUpdatesHub({
  db,
  logger,
  pollIntervalMs = 1_000,
  batchSize = 1_000,
}: CreateTradeUpdatesHubParameters): TradeUpdatesHub {
  const feed = createTradeEventFeedRepository(db);
  const listeners = new Map<string, Set<TradeEventListener>>();
  let subscribers = 0;

  const reader = createOutboxReader<TradeEventRow>({
    db,
    logger,
    channel: TRADE_EVENTS_CHANNEL,
    label: "trade events",
    latestId: () => feed.latestId(),
    after: (afterId, limit) => feed.after(afterId, limit),
    idOf: (row) => BigInt(row.id),
    idle: () => subscribers === 0,
    deliver(rows) {
      for (const row of rows) {
        for (const listener of listeners.get(row.account_id) ?? []) {
          try {
            listener(row);
          } catch (error) {
            logger.error({ err: error, eventId: row.id }, "trade update listener failed");
          }
        }
      }
    },
    pollIntervalMs,
    batchSize,
  });

  return {
    subscribe(accountId, listener) {
      // A wrapper of its own, so the same function subscribed twice is two subscriptions.
      const subscription: TradeEventListener = (event) => listener(event);
      const set = listeners.get(accountId) ?? new Set();
      set.add(subscription);
      listeners.set(accountId, set);
      subscribers++;
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        subscribers--;
        set.delete(subscription);
        if (set.size === 0 && listeners.get(accountId) === set) listeners.delete(accountId);
      };
    },
    wake: reader.wake,
    latestId: () => reader.cursor(),
    async close() {
      await reader.close();
      listeners.clear();
      subscribers = 0;
    },
  };
}
