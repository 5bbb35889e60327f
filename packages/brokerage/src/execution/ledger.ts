/**
 * Writes what the exchange did, in the caller's transaction: order statuses and fills, positions, cash, FILL
 * activities and the trade-update events the stream sends, the books' sequences, and the live books'
 * executions as trades of the market (its market data, recording/exchangePrints.ts), all or nothing. The
 * accounts concerned are locked first (in id order, as placements lock them), so a fill and a placement on
 * one account never interleave and never deadlock. A fill is applied exactly once: its command or tick is
 * retried only when this transaction did not commit.
 */
import type { Queryable } from "@platform/kernel";
import { activityId } from "../domain/activityIds.ts";
import { type MarketTrade, tradeOfExecution } from "../domain/marketRecords.ts";
import { isOpenStatus, type OrderRow, toAlpacaOrder } from "../domain/orderObject.ts";
import { fromNanos, toNanos } from "../domain/portfolioValue.ts";
import type { ListedAsset } from "../market/assets.ts";
import { recordExchangeTrades } from "../recording/exchangePrints.ts";
import {
  addCash,
  insertCommands,
  type PositionWrite,
  readPositions,
  updateOrders,
  upsertBooks,
  writePositions,
} from "./ledgerStatements.ts";
import type { VenueEvent } from "./venue.ts";

const ONE = 1_000_000_000n;

/** What the writer itself decides about an order, besides what venues answer. */
export type WriterEvent =
  | VenueEvent
  /** Accepted by the venue (status `new`), e.g. after waiting for the session. */
  | { type: "new"; orderId: string }
  /** A trailing stop's water mark moved (and its stop price with it). */
  | { type: "trail"; orderId: string; hwm: bigint; stopPrice: bigint }
  /** The order rests in a venue (live books: with its queue priority). */
  | { type: "resting"; orderId: string; priority: number };

export interface LedgerWrite {
  events: readonly WriterEvent[];
  at: number;
  listingOf(symbol: string): ListedAsset | undefined;
  /** The live books' states of these symbols (those of the orders written), persisted with the events. */
  bookStates?: (
    symbols: Iterable<string>,
  ) => readonly { symbol: string; sequence: number; lastTradePrice?: bigint | undefined }[];
}

export interface LedgerResult {
  /** Orders as they are after the write, by id. */
  orders: Map<string, OrderRow>;
  /** Legs to submit now (their parent filled) and siblings to cancel (one leg filled). */
  followUps: { orderId: string; command: "submit" | "cancel" }[];
  /** Largest trade-event id written (0 when none). */
  lastEventId: number;
}

interface PositionState {
  qty: bigint;
  avg: bigint;
  changed: boolean;
}

const positionKey = (p: { account_id: string; symbol: string }): string => `${p.account_id}|${p.symbol}`;

const mul = (a: bigint, b: bigint) => (a * b) / ONE;
/** An order that ended (filled, canceled, expired, rejected, replaced): nothing changes it any more. */
const ended = (row: OrderRow): boolean => !isOpenStatus(row.status);

export async function writeLedger(tx: Queryable, write: LedgerWrite): Promise<LedgerResult> {
  const at = new Date(write.at);
  const ids = [...new Set(write.events.map((e) => e.orderId))];
  const result: LedgerResult = { orders: new Map(), followUps: [], lastEventId: 0 };
  if (ids.length > 0) {
    await tx.query(
      `SELECT a.id FROM brokerage.accounts a
       WHERE a.id IN (SELECT account_id FROM brokerage.orders WHERE id = ANY($1::uuid[]))
       ORDER BY a.id FOR UPDATE`,
      [ids],
    );
    for (const row of await tx.query<OrderRow>("SELECT * FROM brokerage.orders WHERE id = ANY($1::uuid[])", [ids])) {
      result.orders.set(row.id, row);
    }
  }
  const changed = new Set<string>();
  const positions = new Map<string, PositionState>();
  const cash = new Map<string, bigint>();
  const tradeEvents: unknown[][] = [];
  const activities: unknown[][] = [];
  const prints = new Map<string, MarketTrade>();

  // Every position the batch's fills move, read at once.
  const filledKeys = new Map<string, { account_id: string; symbol: string }>();
  for (const e of write.events) {
    const row = e.type === "fill" ? result.orders.get(e.orderId) : undefined;
    if (row) filledKeys.set(positionKey(row), { account_id: row.account_id, symbol: row.symbol });
  }
  for (const p of await readPositions(tx, [...filledKeys.values()])) {
    positions.set(positionKey(p), { qty: toNanos(p.qty), avg: toNanos(p.avg_entry_price), changed: false });
  }
  const positionOf = (row: OrderRow): PositionState => {
    const key = positionKey(row);
    let state = positions.get(key);
    if (!state) {
      state = { qty: 0n, avg: 0n, changed: false };
      positions.set(key, state);
    }
    return state;
  };

  const emit = (
    row: OrderRow,
    event: string,
    fill?: { executionId: string; price: bigint; qty: bigint; position: bigint },
  ) =>
    tradeEvents.push([
      row.account_id,
      event,
      at,
      row.id,
      JSON.stringify(toAlpacaOrder(row)),
      fill?.executionId ?? null,
      fill ? fromNanos(fill.price) : null,
      fill ? fromNanos(fill.qty) : null,
      fill ? fromNanos(fill.position) : null,
    ]);

  for (const event of write.events) {
    const row = result.orders.get(event.orderId);
    if (!row) continue;
    const touch = () => {
      row.updated_at = at;
      changed.add(row.id);
    };
    switch (event.type) {
      case "new":
        // A cancel requested while the writer was starting the order keeps its pending_cancel status, but the
        // order did reach the venue: the stream still says `new` before any fill.
        if (row.status === "pending_cancel") {
          emit(row, "new");
          break;
        }
        if (row.status !== "accepted" && row.status !== "pending_new" && row.status !== "held") break;
        row.status = "new";
        touch();
        emit(row, "new");
        break;
      case "resting":
        row.book_priority = String(event.priority);
        changed.add(row.id);
        break;
      case "trail":
        row.hwm = fromNanos(event.hwm);
        row.stop_price = fromNanos(event.stopPrice);
        touch();
        break;
      case "fill": {
        if (ended(row)) break;
        const position = positionOf(row);
        const signed = row.side === "buy" ? event.qty : -event.qty;
        const next = position.qty + signed;
        // Adding to a position averages its entry price; reducing it keeps the price of what remains.
        if (position.qty === 0n || position.qty > 0n === signed > 0n) {
          const absBefore = position.qty < 0n ? -position.qty : position.qty;
          position.avg = (absBefore * position.avg + event.qty * event.price) / (absBefore + event.qty);
        } else if (position.qty > 0n !== next > 0n && next !== 0n) {
          position.avg = event.price;
        }
        position.qty = next;
        position.changed = true;
        const value = mul(event.qty, event.price);
        cash.set(row.account_id, (cash.get(row.account_id) ?? 0n) + (row.side === "buy" ? -value : value));
        const filled = toNanos(row.filled_qty) + event.qty;
        row.filled_qty = fromNanos(filled);
        row.filled_value = sum18(row.filled_value, event.qty * event.price);
        const done = event.leaves === 0n;
        row.status = done ? "filled" : "partially_filled";
        if (done) row.filled_at = at;
        touch();
        const type = done ? "fill" : "partial_fill";
        emit(row, type, { executionId: event.executionId, price: event.price, qty: event.qty, position: next });
        const listing = event.print && write.listingOf(row.symbol);
        if (event.print && listing) {
          // Both sides of a match between two customers report it; the market printed it once.
          const { sequence, takerSide } = event.print;
          const price = Number(fromNanos(event.price));
          const size = Number(fromNanos(event.qty));
          const print = tradeOfExecution({ sequence, at: write.at, price, size, takerSide }, listing);
          if (print) prints.set(event.executionId, print);
        }
        activities.push([
          activityId(at),
          row.account_id,
          at,
          row.id,
          event.executionId,
          row.symbol,
          row.side,
          type,
          fromNanos(event.qty),
          fromNanos(event.price),
          fromNanos(filled),
          fromNanos(event.leaves),
          row.status,
        ]);
        break;
      }
      case "canceled": {
        if (ended(row)) break;
        if (event.reason === "expired") {
          row.status = "expired";
          row.expired_at = at;
        } else {
          row.status = "canceled";
          row.canceled_at = at;
        }
        touch();
        emit(row, row.status);
        break;
      }
      case "rejected":
        if (ended(row)) break;
        row.status = "rejected";
        row.failed_at = at;
        touch();
        emit(row, "rejected");
        break;
      case "replaced": {
        if (ended(row)) break;
        row.status = "replaced";
        row.replaced_at = at;
        row.replaced_by = event.newOrderId;
        touch();
        emit(row, "replaced");
        break;
      }
    }
  }

  // Legs and siblings of the orders written: loaded so `followLegs` sees them (one query, usually empty).
  await resolveFollowUps(tx, result, write.events);

  await updateOrders(
    tx,
    [...changed].map((id) => result.orders.get(id) as OrderRow),
  );
  const open: PositionWrite[] = [];
  const closed: { account_id: string; symbol: string }[] = [];
  for (const [key, p] of positions) {
    if (!p.changed) continue;
    const [account_id, symbol] = key.split("|") as [string, string];
    if (p.qty === 0n) {
      closed.push({ account_id, symbol });
      continue;
    }
    const asset = write.listingOf(symbol)?.asset;
    open.push({
      account_id,
      symbol,
      asset_id: asset?.id,
      asset_class: asset?.class,
      exchange: asset?.exchange,
      qty: fromNanos(p.qty),
      avg_entry_price: fromNanos(p.avg),
    });
  }
  await writePositions(tx, open, closed, at);
  await addCash(
    tx,
    [...cash].map(([id, delta]) => ({ id, delta: fromNanos(delta) })),
  );
  if (activities.length > 0) {
    await tx.query(
      `INSERT INTO brokerage.activities (id, account_id, activity_type, transaction_time, order_id, execution_id, symbol,
         side, type, qty, price, cum_qty, leaves_qty, order_status)
       SELECT a[1], a[2]::uuid, 'FILL', a[3]::timestamptz, a[4]::uuid, a[5], a[6], a[7], a[8], a[9]::numeric,
         a[10]::numeric, a[11]::numeric, a[12]::numeric, a[13]
       FROM jsonb_array_elements($1::jsonb) AS j(v), LATERAL (SELECT ARRAY(SELECT jsonb_array_elements_text(j.v)) AS a) x`,
      [JSON.stringify(activities.map((a) => a.map((v) => (v instanceof Date ? v.toISOString() : v))))],
    );
  }
  if (tradeEvents.length > 0) {
    // The stream hubs are told the last id in the same statement (one statement fewer per commit).
    const [last] = await tx.query<{ id: string }>(
      `WITH inserted AS (
         INSERT INTO brokerage.trade_events (account_id, event, at, order_id, "order", execution_id, price, qty,
           position_qty)
         SELECT (v->>0)::uuid, v->>1, (v->>2)::timestamptz, (v->>3)::uuid, (v->>4)::jsonb, v->>5, (v->>6)::numeric,
           (v->>7)::numeric, (v->>8)::numeric
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS j(v, n) ORDER BY n
         RETURNING id
       ), last AS (SELECT max(id) AS id FROM inserted)
       SELECT last.id, pg_notify('brokerage_trade_events', last.id::text) FROM last`,
      [JSON.stringify(tradeEvents.map((e) => e.map((v) => (v instanceof Date ? v.toISOString() : v))))],
    );
    result.lastEventId = Number(last?.id);
  }
  await recordExchangeTrades(tx, [...prints.values()], (symbol) => write.listingOf(symbol)?.asset.class === "crypto");
  const touched = new Set(ids.map((id) => result.orders.get(id)?.symbol).filter((s) => s !== undefined));
  await upsertBooks(
    tx,
    (write.bookStates?.(touched) ?? []).map((b) => ({
      symbol: b.symbol,
      sequence: b.sequence,
      last_trade_price: b.lastTradePrice === undefined ? null : fromNanos(b.lastTradePrice),
    })),
  );
  await insertCommands(tx, result.followUps);
  return result;
}

/** Loads the legs and parents of filled or canceled orders, then re-derives follow-ups with them in view. */
async function resolveFollowUps(tx: Queryable, result: LedgerResult, events: readonly WriterEvent[]): Promise<void> {
  const groupRoots = new Set<string>();
  for (const e of events) {
    const row = result.orders.get(e.orderId);
    const ends = e.type === "fill" || e.type === "canceled" || e.type === "rejected";
    if (ends && row && (row.parent_id !== null || row.order_class !== "simple"))
      groupRoots.add(row.parent_id ?? row.id);
  }
  if (groupRoots.size === 0) return;
  const group = await tx.query<OrderRow>(
    "SELECT * FROM brokerage.orders WHERE id = ANY($1::uuid[]) OR parent_id = ANY($1::uuid[])",
    [[...groupRoots]],
  );
  for (const g of group) if (!result.orders.has(g.id)) result.orders.set(g.id, g);
  result.followUps = [];
  for (const e of events) {
    const row = result.orders.get(e.orderId);
    if (!row) continue;
    const legs = group.filter((g) => g.parent_id === row.id).map((g) => result.orders.get(g.id) as OrderRow);
    if (e.type === "fill" && row.status === "filled") {
      if (row.parent_id === null && row.order_class !== "oco") {
        // The entry of a bracket/oto filled: its legs start working.
        for (const leg of legs)
          if (leg.status === "held") result.followUps.push({ orderId: leg.id, command: "submit" });
      } else {
        // A leg (or an oco's limit) filled: the rest of its group is canceled.
        const root = row.parent_id ?? row.id;
        for (const g of group) {
          const other = result.orders.get(g.id) as OrderRow;
          if (other.id !== row.id && (other.id === root || other.parent_id === root) && !ended(other)) {
            result.followUps.push({ orderId: other.id, command: "cancel" });
          }
        }
      }
    } else if ((e.type === "canceled" || e.type === "rejected") && row.parent_id === null) {
      // An entry that ends unfilled takes its waiting legs with it.
      for (const leg of legs) if (leg.status === "held") result.followUps.push({ orderId: leg.id, command: "cancel" });
    }
  }
}

/** `a` (a numeric with up to 18 decimals, as a string) + `b` (1e-18 units), as a string with 18 decimals. */
function sum18(a: string, b: bigint): string {
  const [whole = "0", fraction = ""] = a.split(".");
  const negative = whole.startsWith("-");
  const units = BigInt(whole.replace("-", "")) * 10n ** 18n + BigInt(fraction.padEnd(18, "0").slice(0, 18) || "0");
  const total = (negative ? -units : units) + b;
  const abs = total < 0n ? -total : total;
  return `${total < 0n ? "-" : ""}${abs / 10n ** 18n}.${(abs % 10n ** 18n).toString().padStart(18, "0")}`;
}
