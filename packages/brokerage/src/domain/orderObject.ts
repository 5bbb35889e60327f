/**
 * The anchor's order object (`entities/order-v2.yaml`, reference §2.4) of a stored order: field for field,
 * amounts as decimal strings without trailing zeros, timestamps RFC 3339 or null, `qty` null when the order
 * was placed by `notional`, `legs` null unless asked for nested and the order has legs.
 */
import { fromNanos, toNanos } from "./portfolioValue.ts";

/** A row of `brokerage.orders` (numerics read as decimal strings). */
export interface OrderRow {
  id: string;
  account_id: string;
  client_order_id: string;
  symbol: string;
  asset_id: string;
  asset_class: string;
  side: "buy" | "sell";
  type: string;
  time_in_force: string;
  order_class: string;
  qty: string | null;
  notional: string | null;
  filled_qty: string;
  filled_value: string;
  limit_price: string | null;
  stop_price: string | null;
  trail_price: string | null;
  trail_percent: string | null;
  hwm: string | null;
  extended_hours: boolean;
  opens_short: boolean;
  hold_price: string;
  status: string;
  parent_id: string | null;
  replaces: string | null;
  replaced_by: string | null;
  book_priority: string | null;
  created_at: Date;
  updated_at: Date;
  submitted_at: Date;
  filled_at: Date | null;
  expired_at: Date | null;
  canceled_at: Date | null;
  failed_at: Date | null;
  replaced_at: Date | null;
  cancel_requested_at: Date | null;
  expires_at: Date | null;
}

export interface AlpacaOrder {
  id: string;
  client_order_id: string;
  created_at: string;
  updated_at: string;
  submitted_at: string;
  filled_at: string | null;
  expired_at: string | null;
  canceled_at: string | null;
  failed_at: string | null;
  replaced_at: string | null;
  replaced_by: string | null;
  replaces: string | null;
  asset_id: string;
  symbol: string;
  asset_class: string;
  notional: string | null;
  qty: string | null;
  filled_qty: string;
  filled_avg_price: string | null;
  order_class: string;
  order_type: string;
  type: string;
  side: string;
  position_intent: string;
  time_in_force: string;
  limit_price: string | null;
  stop_price: string | null;
  status: string;
  extended_hours: boolean;
  legs: AlpacaOrder[] | null;
  trail_percent: string | null;
  trail_price: string | null;
  hwm: string | null;
  expires_at: string | null;
}

/** Statuses in which an order may still execute or be canceled. */
export const OPEN_STATUSES = [
  "accepted",
  "pending_new",
  "new",
  "partially_filled",
  "held",
  "pending_cancel",
  "pending_replace",
  "accepted_for_bidding",
] as const;
export const isOpenStatus = (status: string): boolean => (OPEN_STATUSES as readonly string[]).includes(status);

const amount = (value: string | null): string | null => (value === null ? null : fromNanos(toNanos(value)));
const time = (value: Date | null): string | null => (value ? value.toISOString() : null);

/** Average fill price: filled value / filled quantity, to nine decimals; null before any fill. */
export function filledAvgPrice(row: Pick<OrderRow, "filled_qty" | "filled_value">): string | null {
  const qty = toNanos(row.filled_qty);
  if (qty === 0n) return null;
  // filled_value has 18 decimals (price × qty exactly); nine are enough for an average price.
  return fromNanos((toNanos(row.filled_value) * 1_000_000_000n) / qty);
}

/** Sales say whether they close a long or open a short; buys are reported as opening (we do not tell covers apart). */
const positionIntent = (row: OrderRow): string =>
  row.side === "buy" ? "buy_to_open" : row.opens_short ? "sell_to_open" : "sell_to_close";

export function toAlpacaOrder(row: OrderRow, legs: OrderRow[] | null = null): AlpacaOrder {
  return {
    id: row.id,
    client_order_id: row.client_order_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    submitted_at: row.submitted_at.toISOString(),
    filled_at: time(row.filled_at),
    expired_at: time(row.expired_at),
    canceled_at: time(row.canceled_at),
    failed_at: time(row.failed_at),
    replaced_at: time(row.replaced_at),
    replaced_by: row.replaced_by,
    replaces: row.replaces,
    asset_id: row.asset_id,
    symbol: row.symbol,
    asset_class: row.asset_class,
    notional: amount(row.notional),
    qty: amount(row.qty),
    filled_qty: amount(row.filled_qty) as string,
    filled_avg_price: filledAvgPrice(row),
    order_class: row.order_class,
    order_type: row.type,
    type: row.type,
    side: row.side,
    position_intent: positionIntent(row),
    time_in_force: row.time_in_force,
    limit_price: amount(row.limit_price),
    stop_price: amount(row.stop_price),
    status: row.status,
    extended_hours: row.extended_hours,
    legs: legs && legs.length > 0 ? legs.map((leg) => toAlpacaOrder(leg)) : null,
    trail_percent: amount(row.trail_percent),
    trail_price: amount(row.trail_price),
    hwm: amount(row.hwm),
    expires_at: time(row.expires_at),
  };
}
