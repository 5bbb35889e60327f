/**
 * The exchange writer: the one process (chosen by the kernel lease `brokerage.exchange-writer`, see
 * `runWhileLeased`) that executes orders. It takes the commands placements queue (`brokerage.order_commands`:
 * submit, cancel, replace) in order, and on every market tick (1 s) requotes the live books, simulates paper
 * fills, triggers stops and trailing stops, releases orders waiting for the session and expires `day` orders.
 * Each command or tick is one transaction (ledger.ts) that also marks the command done and asserts the lease
 * with its fencing token (`leases.assertHeld`): killed at any instant, the writer redoes exactly what did not
 * commit, and a writer that stalled while another took the lease over commits nothing more (`LeaseLostError`).
 * On taking the lease (or after a failed write) it rebuilds its state from the database: open orders, the
 * books' resting orders and sequences.
 *
 * Placements wake it: in-process by `wake()`, and from any instance by the `pg_notify('brokerage_order_commands')`
 * of their transaction (every writer LISTENs; only the lease holder runs a pass).
 */
import { setTimeout as delay, setImmediate as yieldToEventLoop } from "node:timers/promises";
import {
  createLeases,
  type Database,
  type JobStatus,
  type Lease,
  type LeasedRunner,
  LeaseLostError,
  type Logger,
  runWhileLeased,
  toJobStatus,
} from "@platform/kernel";
import { isOpenStatus, type OrderRow } from "../domain/orderObject.ts";
import { fromNanos, numberToNanos, toNanos } from "../domain/portfolioValue.ts";
import type { RestingOrder } from "../market/exchange/types.ts";
import type { MarketService } from "../services/market.ts";
import { OPEN_STATUS_LIST } from "../store/ordersRepository.ts";
import { type WriterEvent, writeLedger } from "./ledger.ts";
import { bookTickOf, createLiveVenue } from "./liveVenue.ts";
import { createPaperVenue } from "./paperVenue.ts";
import { mayExecute } from "./sessions.ts";
import type { Venue, WorkingOrder } from "./venue.ts";

const ONE = 1_000_000_000n;
export const EXCHANGE_TICK_MS = 1_000;
/** The kernel lease (`platform.leases`) of the one exchange writer of a deployment. */
export const EXCHANGE_WRITER_LEASE = "brokerage.exchange-writer";
/** The NOTIFY channel of queued order commands (store/ordersRepository.ts sends it at the placement's commit). */
export const ORDER_COMMANDS_CHANNEL = "brokerage_order_commands";
const LEASE_TTL_MS = 10_000;
/**
 * Commands read and committed together, at most: one transaction's statements are shared by all (group
 * commit), and a batch's bounded size bounds how long it holds the thread (PGlite runs in this process).
 */
const COMMAND_BATCH = 1_000;
/** Execution of a batch (the books, in memory) that held the thread this long is committed, then the API runs. */
const SLICE_MS = 25;

/**
 * Passes start at most this often: an idle writer starts one at once (a lone order is not delayed), a busy one
 * lets the orders that arrive meanwhile gather, so they share one transaction (group commit). Without it a
 * writer that keeps up runs one transaction per order, whatever the load.
 */
export const GROUP_COMMIT_WINDOW_MS = 5;

type Env = "live" | "paper";
/** A queued command with its order, the account's env, and the status of the order a replace replaces. */
type Command = OrderRow & { seq: string; command: string; env: Env; replaces_status: string | null };
interface Tracked {
  row: OrderRow;
  env: Env;
  /** waiting for the session; waiting for its stop; working in a venue. */
  phase: "parked" | "trigger" | "venue";
}

export interface ExchangeWriterParameters {
  db: Database;
  market: MarketService;
  logger: Logger;
  /** Called after a commit that wrote trade events (the stream hub of this process reads them at once). */
  onEvents?: () => void;
  tickMs?: number;
  /** The lease's TTL (default 10 s): another writer takes over at most this long after this one stalled or died. */
  leaseTtlMs?: number;
  /** Names this writer in `platform.leases.holder` (default host:pid:random). */
  holder?: string;
  /** Least time between the starts of two passes (default {@link GROUP_COMMIT_WINDOW_MS}). */
  groupCommitWindowMs?: number;
}

export interface ExchangeWriter {
  /** Runs pending commands now, if this writer holds the lease (placements of this process call it after their commit). */
  wake(): void;
  /** Starts competing for the lease; the holder runs the writer. */
  start(): void;
  /** Stops the passes, waits for the one under way, and releases the lease. */
  stop(): Promise<void>;
  /** Resolves once this writer holds the lease, has rebuilt its state and nothing is pending (tests). */
  idle(): Promise<void>;
  /** True while this writer holds the lease. */
  holding(): boolean;
  status(): JobStatus;
}

export function createExchangeWriter({
  db,
  market,
  logger,
  onEvents,
  tickMs = EXCHANGE_TICK_MS,
  leaseTtlMs = LEASE_TTL_MS,
  holder,
  groupCommitWindowMs = GROUP_COMMIT_WINDOW_MS,
}: ExchangeWriterParameters): ExchangeWriter {
  const log = logger.child({ component: "exchange-writer" });
  const leases = createLeases({ db });
  let venues: Record<Env, Venue> | undefined;
  const tracked = new Map<string, Tracked>();
  let running = false;
  /** When the last pass started (performance.now()). */
  let lastPassAt = Number.NEGATIVE_INFINITY;
  let stopped = true;
  let again = false;
  /**
   * The largest command seq this tenure's passes read, and the largest a NOTIFY announced: a notification of
   * a command a pass already read (the placement's in-process wake ran it first) costs no empty pass.
   */
  let readSeq = 0n;
  let notifiedSeq = 0n;
  let current: Promise<void> = Promise.resolve();
  let lastTickAt = 0;
  let listening: Promise<(() => Promise<void>) | undefined> = Promise.resolve(undefined);
  let runner: LeasedRunner | undefined;
  /** The lease of the tenure under way (set by the leased loop), and its signal (aborted when it is lost). */
  let tenure: { lease: Lease; signal: AbortSignal; lost: boolean } | undefined;
  const counts = { commits: 0, refused: 0 };
  let lastError: unknown = null;

  /** Rebuilds books, paper orders and tracked orders from the database. */
  async function rebuild(): Promise<void> {
    tracked.clear();
    const open = await db.query<OrderRow & { env: Env; pending: boolean }>(
      `SELECT o.*, a.env, EXISTS (SELECT 1 FROM brokerage.order_commands c WHERE c.order_id = o.id AND c.done_at IS NULL) AS pending
       FROM brokerage.orders o JOIN brokerage.accounts a ON a.id = o.account_id
       WHERE o.status IN (${OPEN_STATUS_LIST}) ORDER BY o.created_at, o.id`,
    );
    const books = await db.query<{ symbol: string; sequence: string; last_trade_price: string | null }>(
      "SELECT symbol, sequence, last_trade_price FROM brokerage.exchange_books",
    );
    const resting = new Map<string, RestingOrder[]>();
    const paperResting: WorkingOrder[] = [];
    for (const row of open) {
      const { env, pending, ...order } = row;
      if (order.status === "held") continue;
      if (order.status === "accepted" || order.status === "pending_new") {
        if (!pending) tracked.set(order.id, { row: order, env, phase: "parked" });
        continue;
      }
      if (order.book_priority === null && isStopType(order)) {
        tracked.set(order.id, { row: order, env, phase: "trigger" });
        continue;
      }
      if (order.book_priority === null || order.limit_price === null) continue;
      tracked.set(order.id, { row: order, env, phase: "venue" });
      const leaves = toNanos(order.qty ?? "0") - toNanos(order.filled_qty);
      if (env === "live") {
        const listing = market.findListing(order.symbol);
        if (!listing) continue;
        const tick = bookTickOf(listing);
        const list = resting.get(order.symbol) ?? [];
        list.push({
          id: order.id,
          accountId: order.account_id,
          side: order.side,
          type: "limit",
          limitPrice: Number(toNanos(order.limit_price) / tick),
          timeInForce: "gtc",
          leavesQty: leaves,
          filledQty: toNanos(order.filled_qty),
          priority: Number(order.book_priority),
        });
        resting.set(order.symbol, list);
      } else paperResting.push(working(order, "limit"));
    }
    const paper = createPaperVenue({ market, restored: paperResting });
    venues = {
      live: createLiveVenue({
        market,
        restored: books.map((b) => ({
          symbol: b.symbol,
          sequence: Number(b.sequence),
          lastTradePrice: b.last_trade_price === null ? undefined : toNanos(b.last_trade_price),
          orders: resting.get(b.symbol) ?? [],
        })),
      }),
      paper,
    };
  }

  function working(row: OrderRow, executeAs: "market" | "limit"): WorkingOrder {
    const tif = row.time_in_force === "ioc" || row.time_in_force === "fok" ? row.time_in_force : "gtc";
    const limitPrice = row.limit_price === null ? undefined : toNanos(row.limit_price);
    return {
      row,
      leaves: row.qty === null ? 0n : toNanos(row.qty) - toNanos(row.filled_qty),
      notionalLeft: row.notional === null ? undefined : toNanos(row.notional),
      executeAs: executeAs === "limit" && limitPrice !== undefined ? "limit" : "market",
      limitPrice,
      // A market order never rests: whatever the market cannot fill now is canceled.
      timeInForce: executeAs === "market" ? "ioc" : tif,
    };
  }

  /** Starts an order that may execute now: a stop waits for its trigger, the rest goes to its venue. */
  function start(row: OrderRow, env: Env, at: number, out: WriterEvent[]): void {
    if (isStopType(row)) {
      if (row.type === "trailing_stop") initTrail(row, at, out);
      tracked.set(row.id, { row, env, phase: "trigger" });
      return;
    }
    toVenue(row, env, row.type === "market" ? "market" : "limit", at, out);
  }

  function toVenue(row: OrderRow, env: Env, executeAs: "market" | "limit", at: number, out: WriterEvent[]): void {
    const venue = (venues as Record<Env, Venue>)[env];
    const events = venue.execute(working(row, executeAs), at);
    out.push(...events);
    const priority = venue.priorityOf(row.id);
    if (priority !== undefined) {
      tracked.set(row.id, { row, env, phase: "venue" });
      out.push({ type: "resting", orderId: row.id, priority });
    } else tracked.delete(row.id);
  }

  function initTrail(row: OrderRow, at: number, out: WriterEvent[]): void {
    const price = numberToNanos(market.priceOf(row.symbol, at));
    out.push({ type: "trail", orderId: row.id, hwm: price, stopPrice: trailStop(row, price) });
    row.hwm = fromNanos(price);
  }

  async function commit(events: WriterEvent[], at: number, commandSeqs: readonly string[] = []): Promise<void> {
    // A quiet tick writes nothing.
    if (events.length === 0 && commandSeqs.length === 0) return;
    const lease = (tenure as { lease: Lease }).lease;
    const result = await db.transaction(async (tx) => {
      // The lease is asserted in every write, not only at the start of a pass: a writer that stalled past its
      // lease while another took over must not commit a single fill more (and a takeover waits for this commit).
      await leases.assertHeld(tx, lease);
      const written = await writeLedger(tx, {
        events,
        at,
        listingOf: (s) => market.findListing(s),
        // Every book these events touched: its sequence must never go back (execution ids are `<symbol>:<seq>`).
        bookStates: (symbols) => (venues as Record<Env, Venue>).live.bookStates(symbols),
      });
      if (commandSeqs.length > 0) {
        await tx.query("UPDATE brokerage.order_commands SET done_at = now() WHERE seq = ANY($1::bigint[])", [
          commandSeqs,
        ]);
      }
      return written;
    });
    for (const e of events) {
      const row = result.orders.get(e.orderId);
      const t = tracked.get(e.orderId);
      if (row && t) t.row = row;
      if (row && !isOpenStatus(row.status)) tracked.delete(e.orderId);
    }
    counts.commits += 1;
    if (result.lastEventId > 0) onEvents?.();
  }

  /** What one command does to the venues, as events for the batch's commit. */
  function runCommand(c: Command, replacesStatus: string | null, at: number): WriterEvent[] {
    const { seq: _seq, command, env, replaces_status: _replaces, ...row } = c;
    const out: WriterEvent[] = [];
    if (command === "submit") {
      if (row.status === "accepted" || row.status === "pending_new" || row.status === "held") {
        if (!mayExecute(row, at, market.sessionMode)) tracked.set(row.id, { row, env, phase: "parked" });
        else {
          out.push({ type: "new", orderId: row.id });
          start(row, env, at, out);
        }
      }
    } else if (command === "cancel") {
      const venue = (venues as Record<Env, Venue>)[env];
      const removed = venue.remove(row.id, at, "requested");
      out.push(...removed);
      if (!removed.some((e) => e.orderId === row.id && e.type === "canceled")) {
        out.push({ type: "canceled", orderId: row.id, reason: "requested" });
      }
      tracked.delete(row.id);
    } else if (command === "replace" && row.replaces) {
      const venue = (venues as Record<Env, Venue>)[env];
      // Only an original untouched since the replace was requested: one that executed meanwhile would add its
      // fills to a replacement sized (and checked against buying power) before them.
      if (replacesStatus === "pending_replace") {
        // The swap: the old order leaves its venue without a cancel event, the new one starts.
        venue.remove(row.replaces, at, "requested");
        tracked.delete(row.replaces);
        out.push({ type: "replaced", orderId: row.replaces, newOrderId: row.id });
        // A replacement canceled before the swap only takes the original's place (as the submit of a canceled
        // order does nothing): it never executes, its cancel command ends it.
        if (row.status === "pending_new") {
          out.push({ type: "new", orderId: row.id });
          start(row, env, at, out);
        }
      } else out.push({ type: "rejected", orderId: row.id, reason: "replaced order is no longer open" });
    }
    return out;
  }

  /**
   * Executes the commands (in their order) and commits them together: one transaction, multi-row statements
   * (group commit). The batch is cut when its execution has held the thread for a time slice, and before a
   * replace whose original this batch changed (its status, read with the command, would be stale).
   */
  async function runCommands(commands: readonly Command[]): Promise<void> {
    const events: WriterEvent[] = [];
    const seqs: string[] = [];
    /** Orders the events since the commands were read touch (committed or not). */
    const touched = new Set<string>();
    let sliceStart = performance.now();
    const flush = async () => {
      if (seqs.length > 0) await commit(events.splice(0), market.now().getTime(), seqs.splice(0));
      await yieldToEventLoop();
      sliceStart = performance.now();
    };
    for (const c of commands) {
      let replacesStatus: string | null | undefined = c.replaces_status;
      if (c.command === "replace" && c.replaces && touched.has(c.replaces)) {
        await flush();
        replacesStatus = (
          await db.query<{ status: string }>("SELECT status FROM brokerage.orders WHERE id = $1", [c.replaces])
        )[0]?.status;
      }
      const out = runCommand(c, replacesStatus ?? null, market.now().getTime());
      for (const e of out) {
        touched.add(e.orderId);
        events.push(e);
      }
      seqs.push(c.seq);
      if (performance.now() - sliceStart >= SLICE_MS) await flush();
    }
    if (seqs.length > 0) await commit(events, market.now().getTime(), seqs);
  }

  async function tick(at: number): Promise<void> {
    const out: WriterEvent[] = [];
    const live = (venues as Record<Env, Venue>).live;
    const paper = (venues as Record<Env, Venue>).paper;
    out.push(...live.tick(at), ...paper.tick(at));
    const from = lastTickAt || at - tickMs;
    for (const t of [...tracked.values()]) {
      const { row } = t;
      if (row.expires_at && row.expires_at.getTime() <= at) {
        const venue = (venues as Record<Env, Venue>)[t.env];
        const removed = venue.remove(row.id, at, "expired");
        out.push(
          ...(removed.length > 0
            ? removed
            : [{ type: "canceled" as const, orderId: row.id, reason: "expired" as const }]),
        );
        tracked.delete(row.id);
        continue;
      }
      if (t.phase === "parked" && mayExecute(row, at, market.sessionMode)) {
        tracked.delete(row.id);
        out.push({ type: "new", orderId: row.id });
        start(row, t.env, at, out);
      } else if (t.phase === "trigger" && mayExecute(row, at, market.sessionMode)) {
        const prices = [
          ...market.tradesBetween(row.symbol, from, at).map((p) => p.price),
          market.priceOf(row.symbol, at),
        ];
        for (const price of prices) {
          const p = numberToNanos(price);
          if (row.type === "trailing_stop") {
            const hwm = toNanos(row.hwm ?? String(p));
            const better = row.side === "sell" ? p > hwm : p < hwm;
            if (better) {
              row.hwm = fromNanos(p);
              out.push({ type: "trail", orderId: row.id, hwm: p, stopPrice: trailStop(row, p) });
            }
          }
          const stop =
            row.type === "trailing_stop" ? trailStop(row, toNanos(row.hwm ?? "0")) : toNanos(row.stop_price ?? "0");
          if (row.side === "buy" ? p >= stop : p <= stop) {
            tracked.delete(row.id);
            toVenue(row, t.env, row.type === "stop_limit" ? "limit" : "market", at, out);
            break;
          }
        }
      }
    }
    lastTickAt = at;
    await commit(out, at);
  }

  async function pass(): Promise<void> {
    if (stopped || !tenure || tenure.signal.aborted) return;
    const at = market.now().getTime();
    if (!venues) {
      await rebuild();
      // The rebuilt books open (and may execute what the market reached meanwhile) before a command takes an
      // order out of one: a replace's swap writes nothing of what the book's opening executes.
      await tick(at);
    }
    for (;;) {
      // A NOTIFY comes after its commit: what was announced before this read is read now, or was done or
      // deleted (a deleted account's commands go with it). Either way no further pass waits for it.
      const announced = notifiedSeq;
      const commands = await db.query<Command>(
        // The pending commands first (the partial index, a few rows), then their orders by key: a join ordered
        // and limited as a whole may scan every order.
        `SELECT c.seq, c.command, a.env, r.status AS replaces_status, o.*
         FROM (SELECT seq, order_id, command FROM brokerage.order_commands WHERE done_at IS NULL
           ORDER BY seq LIMIT ${COMMAND_BATCH}) c
         JOIN brokerage.orders o ON o.id = c.order_id JOIN brokerage.accounts a ON a.id = o.account_id
         LEFT JOIN brokerage.orders r ON r.id = o.replaces
         ORDER BY c.seq`,
      );
      const last = commands.at(-1);
      if (last && BigInt(last.seq) > readSeq) readSeq = BigInt(last.seq);
      await runCommands(commands);
      if (commands.length < COMMAND_BATCH) {
        if (announced > readSeq) readSeq = announced;
        break;
      }
      // More is queued: the API's requests (same thread, and on PGlite the same database) go first.
      await yieldToEventLoop();
    }
    const now = market.now().getTime();
    if (now - lastTickAt >= tickMs) await tick(now);
  }

  /** A NOTIFY of queued commands: its payload is the command's seq. */
  function notified(payload: string): void {
    if (!/^\d+$/.test(payload)) {
      schedule();
      return;
    }
    const seq = BigInt(payload);
    if (seq <= readSeq) return;
    if (seq > notifiedSeq) notifiedSeq = seq;
    if (!running) schedule();
  }

  function schedule(): void {
    // Only the lease holder runs passes (a NOTIFY reaches every writer).
    if (!tenure || tenure.signal.aborted || tenure.lost) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    const t = tenure;
    current = (async () => {
      do {
        const wait = lastPassAt + groupCommitWindowMs - performance.now();
        if (wait > 0) await delay(wait);
        again = false;
        lastPassAt = performance.now();
        try {
          await pass();
        } catch (error) {
          lastError = error;
          // State may be ahead of what committed: rebuild from the database on the next pass (and read again
          // the commands this one read).
          venues = undefined;
          readSeq = 0n;
          if (error instanceof LeaseLostError) {
            counts.refused += 1;
            t.lost = true;
            log.warn({ token: t.lease.token }, "exchange lease lost to another writer; its write refused, standing by");
            break;
          }
          log.error({ err: error }, "exchange writer pass failed; rebuilding from the database");
        }
      } while ((again || notifiedSeq > readSeq) && !stopped && !t.signal.aborted);
      running = false;
    })();
  }

  /** One tenure: rebuilt state, a pass per wake-up and per tick, until the lease is lost or the writer stops. */
  async function whileLeased({ lease, signal }: { lease: Lease; signal: AbortSignal }): Promise<void> {
    venues = undefined;
    readSeq = 0n;
    notifiedSeq = 0n;
    const t = { lease, signal, lost: false };
    tenure = t;
    try {
      while (!signal.aborted && !t.lost) {
        schedule();
        await delay(Math.min(tickMs, 250), undefined, { signal }).catch(() => undefined);
      }
    } finally {
      await current;
      if (tenure === t) tenure = undefined;
      venues = undefined;
    }
    // A refused write: the loop ends, runWhileLeased gives up what is left of this tenure and competes again.
  }

  return {
    wake: schedule,
    start() {
      if (!stopped) return;
      stopped = false;
      listening = db.listen(ORDER_COMMANDS_CHANNEL, notified).catch((error: unknown) => {
        log.warn({ err: error }, "cannot listen for order commands; ticking only");
        return undefined;
      });
      runner = runWhileLeased(
        { db, logger: log, name: EXCHANGE_WRITER_LEASE, ttlMs: leaseTtlMs, ...(holder ? { holder } : {}) },
        whileLeased,
      );
    },
    async stop() {
      stopped = true;
      await runner?.stop();
      await current;
      const unlisten = await listening;
      listening = Promise.resolve(undefined);
      await unlisten?.();
    },
    async idle() {
      for (;;) {
        await current;
        if (tenure && venues && !running && !again && notifiedSeq <= readSeq) return;
        await delay(5);
      }
    },
    holding: () => runner?.holding() ?? false,
    status: () =>
      toJobStatus({
        holding: runner?.holding() ?? false,
        token: tenure?.lease.token ?? null,
        ...counts,
        lease: runner?.status() ?? null,
        lastError,
      }),
  };
}

const isStopType = (row: OrderRow): boolean =>
  (row.type === "stop" || row.type === "stop_limit" || row.type === "trailing_stop") && row.book_priority === null;

/** A trailing stop's stop price from its water mark: below it for a sell, above it for a buy. */
function trailStop(row: OrderRow, hwm: bigint): bigint {
  const trail =
    row.trail_price !== null ? toNanos(row.trail_price) : (hwm * toNanos(row.trail_percent ?? "0")) / (100n * ONE);
  return row.side === "sell" ? hwm - trail : hwm + trail;
}
