/**
 * The anchor's account activity objects (`GET /v2/account/activities`; reference §2.4, the official client's
 * `TradingActivities` and `NonTradeActivities` models) from rows of `brokerage.activities`. Pure.
 *
 * - a FILL (one per execution): `{activity_type: "FILL", id, transaction_time, type, price, qty, side, symbol,
 *   leaves_qty, order_id, cum_qty, order_status}`;
 * - a non-trade activity (a cash deposit `CSD`, a dividend, a fee, …): `{activity_type, id, date, net_amount,
 *   description, status: "executed"}`, with `symbol`, `qty` and `per_share_amount` when the activity has them.
 *   `date` is the New York date of the activity.
 *
 * Quantities, prices and amounts are decimal strings without trailing zeros ("100", "187.25").
 */
import { newYorkWallTime } from "../market/newYorkTime.ts";
import { fromNanos, toNanos } from "./portfolioValue.ts";

/** Every activity type of the anchor (the official client's `ActivityType`). */
export const ACTIVITY_TYPES = [
  "FILL",
  "TRANS",
  "MISC",
  "ACATC",
  "ACATS",
  "CFEE",
  "CGD",
  "CSD",
  "CSW",
  "DIV",
  "DIVCGL",
  "DIVCGS",
  "DIVFEE",
  "DIVFT",
  "DIVNRA",
  "DIVROC",
  "DIVTW",
  "DIVTXEX",
  "FEE",
  "INT",
  "INTNRA",
  "INTTW",
  "JNL",
  "JNLC",
  "JNLS",
  "MA",
  "NC",
  "OPASN",
  "OPCA",
  "OPCSH",
  "OPEXC",
  "OPEXP",
  "OPTRD",
  "PTC",
  "PTR",
  "REORG",
  "SPIN",
  "SPLIT",
  "FOPT",
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

const KNOWN_TYPES: ReadonlySet<string> = new Set(ACTIVITY_TYPES);

/** Whether `type` is one of the anchor's activity types (exact spelling, upper case). */
export const isActivityType = (type: string): type is ActivityType => KNOWN_TYPES.has(type);

/** The anchor's `category=trade_activity` is the fills; `non_trade_activity` is every other type. */
export const TRADE_ACTIVITY_TYPES: readonly ActivityType[] = ["FILL"];

/** A row of `brokerage.activities` (numeric columns as decimal strings). */
export interface ActivityRecord {
  id: string;
  activity_type: string;
  transaction_time: Date;
  order_id: string | null;
  symbol: string | null;
  side: string | null;
  type: string | null;
  qty: string | null;
  price: string | null;
  cum_qty: string | null;
  leaves_qty: string | null;
  order_status: string | null;
  net_amount: string | null;
  per_share_amount: string | null;
  description: string | null;
}

export interface FillActivity {
  activity_type: "FILL";
  id: string;
  transaction_time: string;
  type: string;
  price: string;
  qty: string;
  side: string;
  symbol: string;
  leaves_qty: string;
  order_id: string;
  cum_qty: string;
  order_status: string;
}

export interface NonTradeActivity {
  activity_type: string;
  id: string;
  date: string;
  net_amount: string;
  description: string;
  status: "executed";
  symbol?: string;
  qty?: string;
  per_share_amount?: string;
}

export type ActivityObject = FillActivity | NonTradeActivity;

/** A stored decimal ("100.000000000", "-3.250000000") as the anchor prints it ("100", "-3.25"). */
export const formatDecimal = (value: string): string => fromNanos(toNanos(value));

const decimalOrZero = (value: string | null): string => (value === null ? "0" : formatDecimal(value));

/** The anchor's object of one activity row. */
export function toActivityObject(row: ActivityRecord): ActivityObject {
  if (row.activity_type === "FILL") {
    return {
      activity_type: "FILL",
      id: row.id,
      transaction_time: row.transaction_time.toISOString(),
      type: row.type ?? "fill",
      price: decimalOrZero(row.price),
      qty: decimalOrZero(row.qty),
      side: row.side ?? "",
      symbol: row.symbol ?? "",
      leaves_qty: decimalOrZero(row.leaves_qty),
      order_id: row.order_id ?? "",
      cum_qty: decimalOrZero(row.cum_qty),
      order_status: row.order_status ?? "",
    };
  }
  return {
    activity_type: row.activity_type,
    id: row.id,
    date: newYorkWallTime(row.transaction_time.getTime()).date,
    net_amount: decimalOrZero(row.net_amount),
    description: row.description ?? "",
    status: "executed",
    ...(row.symbol !== null ? { symbol: row.symbol } : {}),
    ...(row.qty !== null ? { qty: formatDecimal(row.qty) } : {}),
    ...(row.per_share_amount !== null ? { per_share_amount: formatDecimal(row.per_share_amount) } : {}),
  };
}
