/**
 * The read side of the trade-update events, one per process: it follows `brokerage.trade_events` and hands
 * each new row, in id order, to the listeners of its account (the `/stream` connections of every host).
 *
 * The exchange writer stores events and, in the same transaction, runs `pg_notify(TRADE_EVENTS_CHANNEL,
 * '<largest id written>')`; there is one writer at a time, so ids are committed in increasing order and
 * "rows after the largest id read" (the cursor) never skips one. The hub reads after the cursor:
 * - on a notification (every instance on the database hears it),
 * - on `wake()` (the writer of this process calls it after its commit),
 * - and every `pollIntervalMs`, in case a notification was lost (PostgreSQL's listening connection was down).
 *
 * Reads are serialized: never two at once, and a wake during a read makes exactly one more read after it.
 * While nobody listens, rows are not read at all: the cursor only moves to the largest id (a notification's
 * payload, or `max(id)`), so a subscriber gets the events after the cursor at the moment it subscribes.
 */
import type { Database, Logger } from "@platform/kernel";
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

const DECIMAL_ID = /^\d{1,19}$/;

export function createTradeUpdatesHub({
  db,
  logger,
  pollIntervalMs = 1_000,
  batchSize = 1_000,
}: CreateTradeUpdatesHubParameters): TradeUpdatesHub {
  const feed = createTradeEventFeedRepository(db);
  const listeners = new Map<string, Set<TradeEventListener>>();
  let subscribers = 0;
  let cursor = 0n;
  let started = false;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let closed = false;
  let stopListening: (() => Promise<void>) | undefined;
  let listenAttempt: Promise<void> | undefined;

  const advance = (id: bigint) => {
    if (id > cursor) cursor = id;
  };

  function deliver(row: TradeEventRow): void {
    const id = BigInt(row.id);
    // A row at or below the cursor was already handed out (or passed over while nobody listened).
    if (id <= cursor) return;
    cursor = id;
    for (const listener of listeners.get(row.account_id) ?? []) {
      try {
        listener(row);
      } catch (error) {
        logger.error({ err: error, eventId: row.id }, "trade update listener failed");
      }
    }
  }

  async function readOnce(): Promise<void> {
    if (!started) {
      cursor = await feed.latestId();
      started = true;
      return;
    }
    if (subscribers === 0) {
      const latest = await feed.latestId();
      // Someone who subscribed during the query is owed the rows after the old cursor: read them instead.
      if (subscribers === 0) advance(latest);
      else readAgain = true;
      return;
    }
    for (;;) {
      const rows = await feed.after(cursor, batchSize);
      for (const row of rows) deliver(row);
      if (rows.length < batchSize || closed) return;
    }
  }

  async function drain(): Promise<void> {
    for (;;) {
      readAgain = false;
      try {
        await readOnce();
      } catch (error) {
        // The next wake or poll tries again.
        logger.warn({ err: error }, "reading trade events failed");
      }
      // Cleared in the same turn as the check, so a wake after it always starts a new drain.
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
    // Nobody listening: the payload (the largest id written) is the new cursor, no query needed.
    if (subscribers === 0 && started && DECIMAL_ID.test(payload)) {
      advance(BigInt(payload));
      return;
    }
    wake();
  }

  function ensureListening(): void {
    if (stopListening || listenAttempt || closed) return;
    listenAttempt = db
      .listen(TRADE_EVENTS_CHANNEL, onNotification)
      .then(
        async (stop) => {
          if (closed) await stop();
          else stopListening = stop;
        },
        (error) => logger.warn({ err: error }, "listening for trade events failed; polling until it works"),
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
    wake,
    async latestId() {
      while (!started && !closed) {
        wake();
        await reading;
        // A failed first read was logged; wait a little rather than spin on a database that is down.
        if (!started) await new Promise((resolve) => setTimeout(resolve, Math.min(pollIntervalMs, 100)));
      }
      return cursor;
    },
    async close() {
      closed = true;
      clearInterval(poll);
      await listenAttempt;
      await stopListening?.().catch((error) => logger.warn({ err: error }, "unlisten failed"));
      stopListening = undefined;
      await reading;
      listeners.clear();
      subscribers = 0;
    },
  };
}
