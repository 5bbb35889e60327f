/**
 * The equity snapshot job: every `intervalMs`, each account's equity (cash + Σ qty × the market's price, the
 * one rule of domain/portfolioValue.ts) is recorded in `brokerage.equity_snapshots`, the source of portfolio
 * history and of `accounts.last_equity`.
 *
 * - Idempotent: a snapshot's time is the run's time floored to the interval ("bucket") and prices are taken
 *   at that instant, so every run of a bucket (a restart, a second instance at the same time) computes the
 *   same rows and the primary key `(account_id, at)` keeps one (`ON CONFLICT DO NOTHING`).
 * - Cheap at 100k accounts: accounts are read and written {@link DEFAULT_BATCH_SIZE} per statement (keyset
 *   by id), and a snapshot is written only when equity or cash changed since the account's previous one
 *   (history reads the last snapshot at or before a time, so an idle account needs no new row).
 * - `last_equity` rule: the equity at the regular-session close (16:00 New York, 13:00 on early closes) of the
 *   last NYSE trading day before the New York date of the run, i.e. the last snapshot at or before that
 *   close. It is refreshed for every account on the first run after that close changes (each midnight New
 *   York, and on start); an account opened later keeps `last_equity` NULL until the next day.
 */
import type { Logger, Queryable } from "@platform/kernel";
import { fromNanos, toNanos, valuePortfolio } from "../domain/portfolioValue.ts";
import { newYorkWallTime } from "../market/newYorkTime.ts";
import { nyseTradingDay } from "../market/nyseCalendar.ts";
import {
  type AccountHoldings,
  createEquitySnapshotsRepository,
  type NewSnapshot,
} from "../store/equitySnapshotsRepository.ts";

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
}

export function createEquitySnapshotRecorder({
  db,
  market,
  intervalMs,
  logger,
  batchSize = DEFAULT_BATCH_SIZE,
}: EquitySnapshotRecorderParameters) {
  if (!Number.isInteger(intervalMs) || intervalMs < 1_000) {
    throw new RangeError(`intervalMs must be a whole number of milliseconds ≥ 1000, got ${intervalMs}`);
  }
  const snapshots = createEquitySnapshotsRepository(db);
  /** The close whose equity every account's `last_equity` holds (undefined: not refreshed by this instance yet). */
  let lastEquityClose: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
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

  /**
   * Records the bucket of `at` for every account (those whose equity or cash changed since their previous
   * snapshot), and refreshes `last_equity` when the previous close changed. Returns how many rows were written.
   */
  async function recordOnce(at: Date): Promise<number> {
    const bucket = Math.floor(at.getTime() / intervalMs) * intervalMs;
    const close = previousSessionClose(at.getTime());
    const refreshLastEquity = close !== lastEquityClose;
    let written = 0;
    let afterId: string | undefined;
    for (;;) {
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
    }
    if (refreshLastEquity) lastEquityClose = close;
    return written;
  }

  function schedule(): void {
    const now = Date.now();
    timer = setTimeout(tick, (Math.floor(now / intervalMs) + 1) * intervalMs - now);
    timer.unref();
  }

  function tick(): void {
    const at = new Date();
    running = recordOnce(at)
      .then((written) => {
        Object.assign(status, { lastBucket: at.toISOString(), lastWritten: written, lastError: null });
      })
      .catch((error: unknown) => {
        status.lastError = error instanceof Error ? error.message : String(error);
        logger.error({ err: error }, "equity snapshot failed; retried at the next interval");
      })
      .finally(() => {
        running = undefined;
        if (!stopped) schedule();
      });
  }

  return {
    recordOnce,
    /** Records the current bucket now, then at the start of every interval, until `stop()`. */
    start(): void {
      if (!stopped) return;
      stopped = false;
      tick();
    },
    /** Stops the loop and waits for a run in progress. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    /** What the job did last (for `platform status`). */
    status: () => ({ intervalMs, ...status }),
  };
}

export type EquitySnapshotRecorder = ReturnType<typeof createEquitySnapshotRecorder>;
