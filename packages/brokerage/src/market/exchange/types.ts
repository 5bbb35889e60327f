/**
 * The exchange's vocabulary: the commands an order book takes and the events it answers with.
 *
 * Units (decided once for the whole exchange):
 * - prices are integer **ticks** (`number`, a safe integer ≥ 1): the caller divides by the asset's tick size
 *   ($0.01, $0.0001 under $1, a crypto pair's `price_increment`), so the engine never compares floats;
 * - quantities are integer **units** of 1e-9 of a share or coin (`bigint`), the finest fraction Alpaca accepts.
 *   `bigint` rather than `number` because 2^53 nano-shares is only 9 million shares: a large order or the sum
 *   of a deep book would silently lose precision. `units.ts` converts decimal strings both ways.
 *
 * Time is explicit (`at`, epoch milliseconds, given with every command) and only stamped on events; priority
 * between orders is their arrival order (`priority`), never a clock, so the same commands give the same events.
 */

export type Side = "buy" | "sell";
/** Order types the book executes; `trailing_stop`, `opg`/`cls` auctions and order classes live above it. */
export type OrderType = "market" | "limit" | "stop" | "stop_limit";
/**
 * `gtc` and `day` rest; `day` orders are canceled by `expireDayOrders` at the session's end.
 * `ioc` fills what it can and cancels the rest; `fok` fills entirely or not at all (checked before any fill).
 */
export type TimeInForce = "day" | "gtc" | "ioc" | "fok";

/** A new order. Ids are chosen by the caller (the database's order ids), unique among the book's open orders. */
export interface OrderRequest {
  id: string;
  accountId: string;
  side: Side;
  type: OrderType;
  /** Units of 1e-9 share, > 0. */
  qty: bigint;
  /** Ticks; required for `limit` and `stop_limit`, absent otherwise. */
  limitPrice?: number;
  /** Ticks; required for `stop` and `stop_limit`, absent otherwise. */
  stopPrice?: number;
  timeInForce: TimeInForce;
}

/**
 * Cancel/replace: the open order `orderId` is replaced by a new order `newOrderId` (as Alpaca's PATCH gives the
 * replacement a new id). Omitted fields keep their value; `qty` is the replacement's whole quantity, which starts
 * unfilled (the caller turns Alpaca's total quantity into what is still to execute).
 */
export interface ReplaceRequest {
  orderId: string;
  newOrderId: string;
  qty?: bigint;
  limitPrice?: number;
  stopPrice?: number;
  timeInForce?: TimeInForce;
}

/** An open order as the book holds it: what a database row must keep for `OrderBook.fromResting` to rebuild it. */
export interface RestingOrder {
  id: string;
  accountId: string;
  side: Side;
  /** `limit` rests in the book; `stop`/`stop_limit` wait for their trigger. */
  type: "limit" | "stop" | "stop_limit";
  limitPrice?: number;
  stopPrice?: number;
  timeInForce: TimeInForce;
  /** Still to execute. */
  leavesQty: bigint;
  /** Executed so far by this order id. */
  filledQty: bigint;
  /**
   * Arrival rank, smaller is older (time priority): the sequence of the order's `accepted` event (of its
   * `triggered` event once a stop-limit rests; of the order it replaced when it kept that order's place).
   */
  priority: number;
}

/** Why an order stopped before filling. The caller maps `expired` to Alpaca's `expired`, the rest to `canceled`. */
export type CancelReason =
  /** The account asked (DELETE /v2/orders/{id}). */
  | "requested"
  /** The unfilled rest of an `ioc` order. */
  | "ioc"
  /** A `fok` order the book could not fill entirely. */
  | "fok"
  /** A market order (or a triggered stop) that emptied the other side of the book. */
  | "no_liquidity"
  /** The order would have traded with an order of its own account: its remainder is canceled. */
  | "self_trade"
  /** A `day` order at the end of the session. */
  | "expired";

export type RejectReason =
  | "invalid_quantity"
  | "invalid_price"
  /** An open order of this book has the id already. */
  | "duplicate_order_id"
  /** Cancel or replace of an id that is not open here (filled, canceled, or never seen). */
  | "order_not_found";

interface EventBase {
  /** Position of the event in this book's history, +1 per event: the order in which to persist and stream. */
  sequence: number;
  at: number;
  symbol: string;
}

export interface AcceptedEvent extends EventBase {
  type: "accepted";
  orderId: string;
  accountId: string;
  /** The quantity the order entered with (a replacement's whole quantity). */
  qty: bigint;
}

/** One side of an execution. `event` is the trade-update its account receives for it. */
export interface FillSide {
  orderId: string;
  accountId: string;
  side: Side;
  /** Executed so far by this order, this fill included. */
  filledQty: bigint;
  /** Still open after this fill (0 when the order is done, or before its remainder is canceled). */
  leavesQty: bigint;
  event: "fill" | "partial_fill";
}

/** One execution between a resting order (maker) and an incoming one (taker), at the maker's price. */
export interface FillEvent extends EventBase {
  type: "fill";
  /** `<symbol>:<sequence>`: unique and the same when the book is rebuilt and the commands replayed. */
  executionId: string;
  price: number;
  qty: bigint;
  maker: FillSide;
  taker: FillSide;
}

export interface CanceledEvent extends EventBase {
  type: "canceled";
  orderId: string;
  accountId: string;
  /** The quantity that will never execute. */
  qty: bigint;
  reason: CancelReason;
}

export interface RejectedEvent extends EventBase {
  type: "rejected";
  orderId: string;
  accountId?: string;
  reason: RejectReason;
}

/** A stop order's stop price was reached by the last trade: it now executes as a market or limit order. */
export interface TriggeredEvent extends EventBase {
  type: "triggered";
  orderId: string;
  accountId: string;
  stopPrice: number;
  lastPrice: number;
  becomes: "market" | "limit";
}

/**
 * `orderId` was replaced by `newOrderId` (followed by the new order's `accepted`). `qty` is what the old order
 * still had open; `keptPriority` when the new order took the old one's place in its queue.
 */
export interface ReplacedEvent extends EventBase {
  type: "replaced";
  orderId: string;
  newOrderId: string;
  accountId: string;
  qty: bigint;
  keptPriority: boolean;
}

export type BookEvent = AcceptedEvent | FillEvent | CanceledEvent | RejectedEvent | TriggeredEvent | ReplacedEvent;

/** A price level's total open quantity. */
export interface DepthLevel {
  price: number;
  qty: bigint;
  orders: number;
}
