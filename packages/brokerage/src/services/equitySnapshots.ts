/**
 * The equity snapshot job: a recurring job of the kernel's job layer (queue and schedule
 * {@link EQUITY_SNAPSHOTS_QUEUE}, every `intervalMs`), so that with several workers exactly one records each
 * period's snapshot (one occurrence per period, never two at once). Each run records each account's equity (cash + Σ qty × the market's price, the
 * one rule of domain/portfolioValue.ts) is recorded in `brokerage.equity_snapshots`, the source of portfolio
 * history and of `accounts.last_equity`.
 *
 * - Idempotent: a snapshot's time is the run's time floored to the interval ("bucket") and prices are taken
 *   at that instant, so every run of a bucket (a retried or redone occurrence, a tool's `recordOnce`) computes
 *   the same rows and the primary key `(account_id, at)` keeps one (`ON CONFLICT DO NOTHING`).
 * - Cheap at 100k accounts: accounts are read and written {@link DEFAULT_BATCH_SIZE} per statement (keyset
 *   by id), and a snapshot is written only when equity or cash changed since the account's previous one
 *   (history reads the last snapshot at or before a time, so an idle account needs no new row).
 * - `last_equity` rule: the equity at the regular-session close (16:00 New York, 13:00 on early closes) of the
 *   last NYSE trading day before the New York date of the run, i.e. the last snapshot at or before that
 *   close. It is refreshed for every account on the first run after that close changes (each midnight New
 *   York, and on a worker's first run); an account opened later keeps `last_equity` NULL until the next day.
 *
 * @example
 * const snapshots = createEquitySnapshotRecorder({ db, market, intervalMs: 60_000, logger });
 * const worker = createJobWorker({ db, logger, queues: { [EQUITY_SNAPSHOTS_QUEUE]: snapshots.queue },
 *   schedules: [snapshots.schedule] });
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { JobStatus, Logger, Queryable, QueueDefinition, ScheduleDefinition } from "@platform/kernel";
import { toJobStatus } from "@platform/kernel";
import { fromNanos, toNanos, valuePortfolio } from "../domain/portfolioValue.ts";
import { newYorkWallTime } from "../market/newYorkTime.ts";
import { nyseTradingDay } from "../market/nyseCalendar.ts";
import {
  type AccountHoldings,
  createEquitySnapshotsRepository,
  type NewSnapshot,
} from "../store/equitySnapshotsRepository.ts";

/** The queue (and recurring schedule) of the snapshots in `platform.jobs`. */
export const EQUITY_SNAPSHOTS_QUEUE = "brokerage.equity-snapshots";

/** Accounts read and written per statement. */
export const DEFAULT_BATCH_SIZE = 500;

/** The close of the last NYSE trading day before the New York date of `at` (epoch ms). */
export function previousSessionClose(at: number): number {
  for (let day = newYorkWallTime(at).day - 1; ; day--) {
    const tradingDay = nyseTradingDay(day);
    if (tradingDay) return tradingDay.close;
  }
}

export interface EquitySnapshotRecorderParameters {
  db: Queryable;
  /** The market's price of a symbol at an instant (the market service's `priceOf`). */
  market: { priceOf(symbol: string, at: number): number };
  /** Length of a bucket: at most one snapshot per account per interval (at least a second). */
  intervalMs: number;
  logger: Logger;
  /** Accounts per statement (default {@link DEFAULT_BATCH_SIZE}). */
  batchSize?: number;
  /** A run longer than this is stopped between batches (the next period records again); default 5 minutes. */
  timeoutMs?: number;
  /** Epoch ms of now (the run's bucket); injectable for tests. */
  now?: () => number;
}

export interface EquitySnapshotRecorder {
  /** The handler of {@link EQUITY_SNAPSHOTS_QUEUE} for a job worker: records the bucket of the run's time. */
  readonly queue: QueueDefinition;
  /** The recurring schedule (every `intervalMs`, one occurrence per period across every worker). */
  readonly schedule: ScheduleDefinition;
  /**
   * Records the bucket of `at` for every account (those whose equity or cash changed since their previous
   * snapshot), and refreshes `last_equity` when the previous close changed. Returns how many rows were
   * written; stops between batches once `signal` is aborted (what was written stays: it is idempotent).
   */
  recordOnce(at: Date, signal?: AbortSignal): Promise<number>;
  /** What the job did last (for `platform status`). */
  status(): JobStatus;
}

export function createEquitySnapshotRecorder({
  db,
  market,
  intervalMs,
  logger,
  batchSize = DEFAULT_BATCH_SIZE,
  timeoutMs = 300_000,
  now = Date.now,
}: EquitySnapshotRecorderParameters): EquitySnapshotRecorder {
  if (!Number.isInteger(intervalMs) || intervalMs < 1_000) {
    throw new RangeError(`intervalMs must be a whole number of milliseconds ≥ 1000, got ${intervalMs}`);
  }
  const snapshots = createEquitySnapshotsRepository(db);
  /** The close whose equity every account's `last_equity` holds (undefined: not refreshed by this instance yet). */
  let lastEquityClose: number | undefined;
  const status = { lastBucket: null as string | null, lastWritten: 0, lastError: null as string | null };

  /** A position's price at the bucket; a symbol the market does not price keeps its entry price. */
  function priceOf(position: AccountHoldings["positions"][number], at: number): string {
    try {
      const price = market.priceOf(position.symbol, at);
      if (Number.isFinite(price) && price > 0) return price.toFixed(9);
    } catch (error) {
      logger.warn({ err: error, symbol: position.symbol }, "equity snapshot: no market price, entry price used");
    }
    return position.avg_entry_price;
  }

  function snapshotOf(account: AccountHoldings, at: number): NewSnapshot {
    const { equity } = valuePortfolio({
      cash: account.cash,
      positions: account.positions.map((p) => ({ qty: p.qty, price: priceOf(p, at) })),
      maxMarginMultiplier: "1", // equity does not depend on it
    });
    return { accountId: account.id, equity: fromNanos(equity), cash: fromNanos(toNanos(account.cash)) };
  }

  async function recordOnce(at: Date, signal?: AbortSignal): Promise<number> {
    const bucket = Math.floor(at.getTime() / intervalMs) * intervalMs;
    const close = previousSessionClose(at.getTime());
    const refreshLastEquity = close !== lastEquityClose;
    let written = 0;
    let afterId: string | undefined;
    for (;;) {
      signal?.throwIfAborted();
      const batch = await snapshots.holdingsBatch(afterId, batchSize);
      if (batch.length === 0) break;
      written += await snapshots.insertChanged(
        new Date(bucket),
        batch.map((account) => snapshotOf(account, bucket)),
      );
      if (refreshLastEquity)
        await snapshots.setLastEquity(
          batch.map((a) => a.id),
          new Date(close),
        );
      afterId = batch[batch.length - 1]?.id;
      if (batch.length < batchSize) break;
      // Requests go between batches (on an embedded database they share this thread and its one connection).
      await yieldToEventLoop();
    }
    if (refreshLastEquity) lastEquityClose = close;
    return written;
  }

  return {
    recordOnce,
    queue: {
      timeoutMs,
      handler: async (job) => {
        const at = new Date(now());
        try {
          const written = await recordOnce(at, job.signal);
          Object.assign(status, { lastBucket: at.toISOString(), lastWritten: written, lastError: null });
        } catch (error) {
          status.lastError = error instanceof Error ? error.message : String(error);
          logger.error({ err: error }, "equity snapshot failed; recorded again at the next interval");
          throw error;
        }
      },
    },
    schedule: { name: EQUITY_SNAPSHOTS_QUEUE, queue: EQUITY_SNAPSHOTS_QUEUE, everyMs: intervalMs },
    status: () => toJobStatus({ intervalMs, ...status }),
  };
}
