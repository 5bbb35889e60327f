/**
 * Follows an append-only table (a transactional outbox): writers insert rows with increasing ids and, in the
 * same transaction, `pg_notify(channel, '<largest id written>')`; one reader per process hands the rows after
 * its cursor, in id order, to `deliver`. It reads:
 * - on a notification (every instance on the database hears it),
 * - on `wake()` (a writer in this process calls it after its commit),
 * - and every `pollIntervalMs`, in case a notification was lost (the listening connection was down).
 *
 * Reads are serialized: never two at once, and a wake during a read makes exactly one more read after it.
 * While `idle()` (nobody to deliver to), rows are not read at all: the cursor only moves to the largest id (a
 * notification's payload, or the table's), so whoever subscribes gets the rows after the cursor at that moment.
 * Used by the brokerage's trade-update and market data hubs.
 *
 * @example
 * const reader = createOutboxReader({ db, logger, channel: "events", label: "events",
 *   latestId: () => repo.latestId(), after: (id, n) => repo.after(id, n), idOf: (r) => BigInt(r.id),
 *   idle: () => listeners.size === 0, deliver: (rows) => rows.forEach(send) });
 */
import type { Logger } from "../log/logger.ts";
import type { Database } from "./database.ts";

export interface CreateOutboxReaderParameters<Row> {
  db: Pick<Database, "listen">;
  logger: Pick<Logger, "warn">;
  /** The NOTIFY channel writers signal on, with the largest id they committed as the payload. */
  channel: string;
  /** What the table holds, for log lines ("trade events"). */
  label: string;
  /** The largest id in the table, 0 when empty. */
  latestId(): Promise<bigint>;
  /** Up to `limit` rows with an id above `afterId`, in id order. */
  after(afterId: bigint, limit: number): Promise<Row[]>;
  idOf(row: Row): bigint;
  /** True while nobody wants rows: then none are read. */
  idle(): boolean;
  /** Hands over rows read after the cursor, in id order (the cursor is already past them). */
  deliver(rows: Row[]): void;
  /**
   * The prefix of `rows` that may be delivered now (default: all). A reader whose writers may commit ids out
   * of order holds back at a hole; what it holds back is read again on the next wake.
   */
  ready?(rows: Row[], cursor: bigint): Row[];
  /** The safety poll's period (default 1 s). */
  pollIntervalMs?: number;
  /** Rows per read (default 1,000); a full batch is followed by the next one at once. */
  batchSize?: number;
}

export interface OutboxReader {
  /** Reads what was committed since the last read. */
  wake(): void;
  /** The cursor (largest id handed over or passed), once listening is set up and the first read is done. */
  cursor(): Promise<bigint>;
  /** Stops listening and polling; waits for a read in progress. */
  close(): Promise<void>;
}

const DECIMAL_ID = /^\d{1,19}$/;

export function createOutboxReader<Row>({
  db,
  logger,
  channel,
  label,
  latestId,
  after,
  idOf,
  idle,
  deliver,
  ready = (rows) => rows,
  pollIntervalMs = 1_000,
  batchSize = 1_000,
}: CreateOutboxReaderParameters<Row>): OutboxReader {
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

  async function readOnce(): Promise<void> {
    if (!started) {
      cursor = await latestId();
      started = true;
      return;
    }
    if (idle()) {
      const latest = await latestId();
      // Someone who subscribed during the query is owed the rows after the old cursor: read them instead.
      if (idle()) advance(latest);
      else readAgain = true;
      return;
    }
    for (;;) {
      const rows = await after(cursor, batchSize);
      const taken = ready(rows, cursor);
      const last = taken[taken.length - 1];
      if (last !== undefined) {
        advance(idOf(last));
        deliver(taken);
      }
      if (taken.length < batchSize || closed) return;
    }
  }

  async function drain(): Promise<void> {
    for (;;) {
      readAgain = false;
      try {
        await readOnce();
      } catch (error) {
        // The next wake or poll tries again.
        logger.warn({ err: error }, `reading ${label} failed`);
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
    // Nobody to deliver to: the payload (the largest id written) is the new cursor, no query needed.
    if (idle() && started && DECIMAL_ID.test(payload)) {
      advance(BigInt(payload));
      return;
    }
    wake();
  }

  function ensureListening(): void {
    if (stopListening || listenAttempt || closed) return;
    listenAttempt = db
      .listen(channel, onNotification)
      .then(
        async (stop) => {
          if (closed) await stop();
          else stopListening = stop;
        },
        (error) => logger.warn({ err: error }, `listening for ${label} failed; polling until it works`),
      )
      .finally(() => {
        listenAttempt = undefined;
      });
  }

  // The first read (which sets the cursor) comes after LISTEN is set up, so that no row committed between the
  // two is missed: what committed before the read is behind the cursor, what commits after it is notified.
  ensureListening();
  void (listenAttempt ?? Promise.resolve()).finally(() => wake());
  const poll = setInterval(() => {
    ensureListening();
    wake();
  }, pollIntervalMs);
  poll.unref();

  return {
    wake,
    async cursor() {
      await listenAttempt;
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
    },
  };
}
