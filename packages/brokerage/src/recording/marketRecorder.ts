/**
 * The market data recorder: writes the market's tape (trade prints) and quotes, second by second, into the
 * market data tables, rolls the trades up into bars, and puts what the data streams send in their outbox.
 *
 * - **One recorder per deployment, exactly once across kills.** The recorder runs on the instance that holds
 *   the kernel lease {@link MARKET_RECORDER_LEASE} (`runWhileLeased`); another worker takes over at most the
 *   lease's TTL after it died. A pass is one transaction that asserts the lease with its fencing token (a
 *   stalled recorder whose lease was taken over commits nothing more), locks the checkpoint row
 *   (`brokerage.market_recorder`: the position reached, which the exchange writer's prints read too), records
 *   `[recorded_to, to)`, and moves the checkpoint. Killed at any instant, the pass rolls back and the next one
 *   redoes it. The price process is a pure function of (seed, symbol, time), so a redone range gives the same
 *   records.
 * - **A little behind the present** (`lagMs`, default 1 s): a second is recorded once it is over, so its quote
 *   and prints are final.
 * - **History.** From its first start on, every trade and quote is recorded (pruned after `retentionDays`; bars
 *   are kept). The `backfillDays` before the first start are recorded as bars only, five minutes per pass and
 *   a pause as long as the pass after each, whenever the tape is up to date (so the streams are live from the
 *   first second): trades and quotes of whole days are millions of rows that nobody saw live, while bars are
 *   what charts ask for. A gap older than {@link TICK_CATCH_UP_MS} in the tape (a long stop) is caught up the
 *   same way, an hour per pass.
 * - **Streams.** Passes within {@link LIVE_WINDOW_MS} of the present append their trades and quotes to the
 *   outbox, and for each minute that ended the minute bar (`bars`) and the day's bar so far (`dailyBars`).
 *   Executions of the live exchange are recorded by the exchange writer's ledger (recordExchangeTrades).
 */
import { setTimeout as delay, setImmediate as yieldToEventLoop } from "node:timers/promises";
import {
  createLeases,
  type Database,
  type Lease,
  type LeasedRunner,
  LeaseLostError,
  type Logger,
  runWhileLeased,
} from "@platform/kernel";
import {
  barsOfTrades,
  bucketStart,
  type MarketQuote,
  type MarketTrade,
  type PartialBar,
  quoteOfProcess,
  streamBarMessage,
  streamQuoteMessage,
  streamTradeMessage,
  tradeOfPrint,
} from "../domain/marketRecords.ts";
import { AssetUniverse, type ListedAsset } from "../market/assets.ts";
import { PRICE_STEP_MS, PriceProcess } from "../market/priceProcess.ts";
import {
  createMarketDataRepository,
  type FeedMessage,
  type RecorderCheckpoint,
} from "../store/marketDataRepository.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Older gaps are recorded as bars only (see the module comment). */
export const TICK_CATCH_UP_MS = 3_600_000;
/** Passes this close to the present feed the streams. */
export const LIVE_WINDOW_MS = 30_000;
/** Range of one catching-up pass: with trades and quotes, and bars only. */
const TICK_CHUNK_MS = MINUTE;
const BAR_CHUNK_MS = 3_600_000;
/**
 * Range of one history pass: short, since the tape waits for it, and so does every other query of an embedded
 * database (one connection) while the pass's transaction computes its trades: a quarter of an hour of every
 * listing took 5 to 7 s on a busy machine, and every service's requests waited as long.
 */
const HISTORY_CHUNK_MS = 5 * MINUTE;
/** A history pass computes its bars this long at most before it lets the event loop run (requests answer). */
const HISTORY_SLICE_MS = 10;
/** Outbox rows older than this are deleted (streams read them within seconds). */
const FEED_KEEP_MS = 10 * MINUTE;
const PRUNE_EVERY_MS = MINUTE;
/** The kernel lease (`platform.leases`) of the one market data recorder of a deployment. */
export const MARKET_RECORDER_LEASE = "brokerage.market-recorder";

export interface CreateMarketRecorderParameters {
  db: Database;
  /** Seed of the price process (`BROKERAGE_MARKET_SEED`): the recorder sees the market's prices. */
  seed: string;
  /** What to record: the universe's active listings and the test feed's. */
  listings: readonly ListedAsset[];
  logger: Logger;
  /** Days before the first start to record (as bars). */
  backfillDays: number;
  /** Days of trades and quotes kept. */
  retentionDays: number;
  /** How far behind the present the recorder stays (default 1 s). */
  lagMs?: number;
  /** Called after a pass put messages in the streams' outbox (wakes this process's feed hub). */
  onRecorded?: () => void;
  now?: () => number;
  /** The lease's TTL (default 30 s): another worker takes over at most this long after this one died. */
  leaseTtlMs?: number;
  /** Names this recorder in `platform.leases.holder` (default host:pid:random). */
  holder?: string;
}

export interface MarketRecorderStatus {
  /** The tape: recorded up to this instant, so many ms behind the present. */
  recordedTo: string | null;
  behindMs: number | null;
  /** The days before the first start (bars only): recorded up to `recordedTo`, done at `endsAt`. */
  history: { recordedTo: string; endsAt: string } | null;
  lastError: string | null;
  /** True while this instance holds the lease and records. */
  holding?: boolean;
}

/** The fenced passes' lease: its name and fencing token. */
type Fence = Pick<Lease, "name" | "token">;

const floorTo = (at: number, unit: number) => Math.floor(at / unit) * unit;

export function createMarketRecorder({
  db,
  seed,
  listings,
  logger,
  backfillDays,
  retentionDays,
  lagMs = 1_000,
  onRecorded,
  now = Date.now,
  leaseTtlMs = 30_000,
  holder,
}: CreateMarketRecorderParameters) {
  const process = new PriceProcess({ seed, universe: new AssetUniverse(listings) });
  const repository = createMarketDataRepository();
  const crypto = new Set(listings.filter((l) => l.asset.class === "crypto").map((l) => l.asset.symbol));
  const status: MarketRecorderStatus = { recordedTo: null, behindMs: null, history: null, lastError: null };
  const leases = createLeases({ db });
  let lastPrune = 0;
  let runner: LeasedRunner | undefined;
  /** What the last pass recorded: history passes are paced (see `whileLeased`). */
  let lastPass: "tape" | "history" = "tape";

  function feedOf(trades: readonly MarketTrade[], quotes: readonly MarketQuote[]): FeedMessage[] {
    const timed: { at: number; message: FeedMessage }[] = [];
    for (const t of trades) {
      const message = streamTradeMessage(t, crypto.has(t.symbol));
      timed.push({ at: t.at, message: { symbol: t.symbol, channel: "trades", message } });
    }
    for (const q of quotes) {
      const message = streamQuoteMessage(q, crypto.has(q.symbol));
      timed.push({ at: q.at, message: { symbol: q.symbol, channel: "quotes", message } });
    }
    return timed.sort((a, b) => a.at - b.at).map((t) => t.message);
  }

  /**
   * Records the next range of the history (bars only); resolves true when more is due. Its bars are computed
   * before its transaction, a time slice at a time with the event loop yielded in between: computing them
   * inside it held the thread and an embedded database's only connection for seconds, and every request
   * waited. The transaction writes them only if the history still starts where they do.
   */
  async function recordHistory(lease: Fence | undefined): Promise<boolean> {
    const history = await repository.lockHistory(db);
    if (!history || history.recordedTo >= history.endsAt) return false;
    const from = history.recordedTo;
    const to = Math.min(history.endsAt, from + HISTORY_CHUNK_MS);
    const bars: PartialBar[] = [];
    let sliceStart = performance.now();
    for (const listing of listings) {
      // Bars are per symbol: those of each listing's trades are those of all of them.
      const trades = process.tradesBetween(listing.asset.symbol, from, to).map((p) => tradeOfPrint(p, listing));
      for (const bar of barsOfTrades(trades)) bars.push(bar);
      if (performance.now() - sliceStart >= HISTORY_SLICE_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
    }
    return db.transaction(async (tx) => {
      if (lease) await leases.assertHeld(tx, lease);
      const locked = await repository.lockHistory(tx);
      // Moved meanwhile (a recorder that held the lease before this one): the next pass computes afresh.
      if (!locked || locked.recordedTo !== from) return locked !== undefined && locked.recordedTo < locked.endsAt;
      await repository.mergeBars(tx, bars);
      await repository.saveHistory(tx, to);
      status.history = { recordedTo: new Date(to).toISOString(), endsAt: new Date(locked.endsAt).toISOString() };
      return to < locked.endsAt;
    });
  }

  /**
   * One pass: the tape's next range, or, when the tape is up to date, the next range of the history (so that
   * the streams stay live while history is recorded). Resolves true when more is due at once. With `lease`,
   * each transaction asserts it (`LeaseLostError` once another holder took it over).
   */
  async function recordNext(lease?: Fence): Promise<boolean> {
    if (await recordTape(lease)) {
      lastPass = "tape";
      return true;
    }
    lastPass = "history";
    return recordHistory(lease);
  }

  /** Records the tape's next range; resolves true when more is due at once (catching up). */
  async function recordTape(lease: Fence | undefined): Promise<boolean> {
    const present = now();
    const horizon = floorTo(present - lagMs, PRICE_STEP_MS);
    let fed = false;
    const more = await db.transaction(async (tx) => {
      if (lease) await leases.assertHeld(tx, lease);
      let checkpoint = await repository.lockFeed(tx, "update");
      if (!checkpoint) {
        const tapeFrom = floorTo(present, MINUTE);
        await repository.createCheckpoints(tx, { tapeFrom, historyFrom: tapeFrom - backfillDays * DAY });
        checkpoint = (await repository.lockFeed(tx, "update")) as RecorderCheckpoint;
      }
      const from = checkpoint.recordedTo;
      if (from >= horizon) return false;
      const ticksFrom = floorTo(present - Math.min(TICK_CATCH_UP_MS, retentionDays * DAY), MINUTE);
      const withTicks = from >= ticksFrom;
      const live = horizon - from <= LIVE_WINDOW_MS;
      const to = live
        ? horizon
        : withTicks
          ? Math.min(horizon, from + TICK_CHUNK_MS)
          : Math.min(horizon, from + BAR_CHUNK_MS, ticksFrom);

      const trades: MarketTrade[] = [];
      const quotes: MarketQuote[] = [];
      for (const listing of listings) {
        const symbol = listing.asset.symbol;
        for (const print of process.tradesBetween(symbol, from, to)) trades.push(tradeOfPrint(print, listing));
        if (!withTicks) continue;
        for (let at = from; at < to; at += PRICE_STEP_MS)
          quotes.push(quoteOfProcess(process.quoteAt(symbol, at), listing));
      }
      const recorded = withTicks ? await repository.insertTrades(tx, trades) : trades;
      await repository.mergeBars(tx, barsOfTrades(recorded));
      await repository.insertQuotes(tx, quotes);

      const closedTo = floorTo(to, MINUTE);
      if (live) {
        const feed = feedOf(recorded, quotes);
        for (let minute = checkpoint.closedTo; minute < closedTo; minute += MINUTE) {
          const bars = await repository.barsAt(tx, "1Min", minute);
          for (const bar of bars)
            feed.push({ symbol: bar.symbol, channel: "bars", message: streamBarMessage(bar, "b") });
          if (bars.length === 0) continue;
          const day = bucketStart("1Day", minute);
          const symbols = bars.map((b) => b.symbol);
          for (const bar of await repository.barsAt(tx, "1Day", day, symbols)) {
            feed.push({ symbol: bar.symbol, channel: "dailyBars", message: streamBarMessage(bar, "d") });
          }
        }
        await repository.appendFeed(tx, feed);
        fed = feed.length > 0;
      }
      await repository.saveCheckpoint(tx, { recordedTo: to, closedTo });
      if (present - lastPrune >= PRUNE_EVERY_MS) {
        await repository.prune(tx, {
          symbols: listings.map((l) => l.asset.symbol),
          feedBefore: present - FEED_KEEP_MS,
          ticksBefore: present - retentionDays * DAY,
        });
        lastPrune = present;
      }
      status.recordedTo = new Date(to).toISOString();
      status.behindMs = present - to;
      return to < horizon;
    });
    if (fed) onRecorded?.();
    return more;
  }

  /** One tenure of the lease: catching up first, then a pass every second, until the lease is lost or stop(). */
  async function whileLeased({ lease, signal }: { lease: Lease; signal: AbortSignal }): Promise<void> {
    while (!signal.aborted) {
      const started = performance.now();
      let waitMs: number;
      try {
        const more = await recordNext(lease);
        status.lastError = null;
        // Nobody waits for history: after each of its passes the services have the database and the event
        // loop for as long as the pass held them, instead of passes back to back for minutes.
        if (!more) waitMs = PRICE_STEP_MS - (now() % PRICE_STEP_MS) + lagMs / 2;
        else waitMs = lastPass === "history" ? performance.now() - started : 0;
      } catch (error) {
        if (error instanceof LeaseLostError) {
          logger.warn({ token: lease.token }, "market data recorder's lease lost; its pass refused, standing by");
          return;
        }
        status.lastError = error instanceof Error ? error.message : String(error);
        logger.warn({ err: error }, "market data recorder pass failed; retrying");
        waitMs = PRICE_STEP_MS;
      }
      await delay(waitMs, undefined, { signal }).catch(() => undefined);
    }
  }

  return {
    /** Competes for the lease; the holder records until `stop()`: catching up first, then every second. */
    start(): void {
      runner ??= runWhileLeased(
        { db, logger, name: MARKET_RECORDER_LEASE, ttlMs: leaseTtlMs, ...(holder ? { holder } : {}) },
        whileLeased,
      );
    },
    /** Stops after the pass under way (its transaction commits or rolls back whole) and releases the lease. */
    async stop(): Promise<void> {
      const r = runner;
      runner = undefined;
      await r?.stop();
    },
    /**
     * One pass, for tests and tools (unfenced without `lease`: never beside a running recorder): resolves true
     * when more is due.
     */
    recordNext,
    /** True while this instance holds the lease and records. */
    holding: (): boolean => runner?.holding() ?? false,
    /** Where the recorder stands (for `platform status`). */
    status: (): MarketRecorderStatus => ({ ...status, holding: runner?.holding() ?? false }),
  };
}

export type MarketRecorder = ReturnType<typeof createMarketRecorder>;
