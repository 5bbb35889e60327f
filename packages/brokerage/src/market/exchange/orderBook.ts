/**
 * One symbol's order book: a pure, deterministic matching engine with price-time priority. Every command takes
 * its time explicitly and returns the list of events it caused, in order, each numbered by the book's
 * `sequence`; nothing else leaves the book (no I/O, no clock, no randomness), so the caller can write the
 * events in the same transaction as the fills, and a book rebuilt with `fromResting` from the open orders
 * answers the next commands exactly as the original would.
 *
 * Rules (documented once here):
 * - Fills are at the resting (maker) order's price. A taker walks the best levels while they cross its limit.
 * - `market` takes what the book has; the rest is canceled (`no_liquidity`). `ioc` cancels its rest (`ioc`).
 *   `fok` is checked against the book before any fill and canceled whole (`fok`) when it cannot fill entirely.
 * - Stops trigger on this book's last trade (buy: last ≥ stop, sell: last ≤ stop), including at submission
 *   when the last trade is already through the stop; a triggered `stop` becomes a market order, a `stop_limit`
 *   a limit order, keeping its id and arrival rank. Stops triggered together run oldest first; trades they
 *   make can trigger more (cascade).
 * - Self-trade prevention, "cancel newest": when the next resting order to trade with belongs to the taker's
 *   account, the taker's remainder is canceled (`self_trade`); the resting order stays. (Skipping it instead
 *   would let the taker rest through its own order and cross the book.) `fok` counts only the liquidity ahead
 *   of the account's own first order.
 * - Replace gives a new order id. The replacement keeps the old order's place only when it changes nothing
 *   but lowering the quantity (and the time in force between `day`/`gtc`); any other change (price, stop,
 *   more quantity) cancels the old order and enters the replacement at the back of its new queue, where it
 *   may trade at once.
 */
import { BookOrder, BookSide } from "./priceLevels.ts";
import { StopOrders } from "./stopOrders.ts";
import type {
  BookEvent,
  CancelReason,
  DepthLevel,
  FillSide,
  OrderRequest,
  RejectReason,
  ReplaceRequest,
  RestingOrder,
  Side,
} from "./types.ts";

/** The state `fromResting` rebuilds a book from (what the database keeps). */
export interface BookState {
  symbol: string;
  /** Sequence of the last event the book emitted (0 for a new book). */
  sequence?: number;
  /** Price of the last trade, which later stops compare with. */
  lastTradePrice?: number;
  /** Open orders, in any order (their `priority` says which came first). */
  orders?: RestingOrder[];
}

/** The rebuilt state is impossible (a crossed book, a repeated id, a bad quantity): the data is corrupt. */
export class InvalidBookStateError extends Error {
  override name = "InvalidBookStateError" as const;
  constructor(
    readonly symbol: string,
    readonly orderId: string,
    readonly problem: string,
  ) {
    super(`Cannot rebuild the ${symbol} book: order ${orderId} ${problem}`);
  }
}
export type InvalidBookStateErrorType = InvalidBookStateError & { name: "InvalidBookStateError" };

const isTicks = (price: number | undefined): boolean => Number.isSafeInteger(price) && (price as number) >= 1;

function invalidReason(r: OrderRequest): RejectReason | undefined {
  if (typeof r.qty !== "bigint" || r.qty <= 0n) return "invalid_quantity";
  const needsLimit = r.type === "limit" || r.type === "stop_limit";
  const needsStop = r.type === "stop" || r.type === "stop_limit";
  if (needsLimit ? !isTicks(r.limitPrice) : r.limitPrice !== undefined) return "invalid_price";
  if (needsStop ? !isTicks(r.stopPrice) : r.stopPrice !== undefined) return "invalid_price";
  return undefined;
}

const isStop = (o: BookOrder) => o.type === "stop" || o.type === "stop_limit";
const stopReached = (o: BookOrder, last: number) => (o.side === "buy" ? last >= o.stopPrice : last <= o.stopPrice);

/** One symbol's order book and matching engine. */
export class OrderBook {
  readonly symbol: string;
  private readonly bids = new BookSide("buy");
  private readonly asks = new BookSide("sell");
  private readonly stops = new StopOrders();
  private readonly open = new Map<string, BookOrder>();
  private seq: number;
  private last: number | undefined;
  private events: BookEvent[] = [];
  private at = 0;

  constructor(symbol: string, options: { sequence?: number; lastTradePrice?: number } = {}) {
    this.symbol = symbol;
    this.seq = options.sequence ?? 0;
    this.last = options.lastTradePrice;
  }

  /** Rebuilds a book from its open orders (no events): queues in `priority` order, stops waiting again. */
  static fromResting(state: BookState): OrderBook {
    const book = new OrderBook(state.symbol, state);
    const orders = [...(state.orders ?? [])].sort((a, b) => a.priority - b.priority);
    for (const r of orders) {
      const fail = (problem: string) => new InvalidBookStateError(state.symbol, r.id, problem);
      if (book.open.has(r.id)) throw fail("is listed twice");
      if (r.leavesQty <= 0n) throw fail("has nothing left to execute");
      const order = new BookOrder(
        r.id,
        r.accountId,
        r.side,
        r.type,
        r.limitPrice ?? 0,
        r.stopPrice ?? 0,
        r.timeInForce,
        r.leavesQty,
        r.filledQty,
        r.priority,
      );
      if (r.type === "limit") {
        const best = (r.side === "buy" ? book.asks : book.bids).best();
        if (!isTicks(r.limitPrice)) throw fail("has no valid limit price");
        if (best && (r.side === "buy" ? r.limitPrice! >= best.price : r.limitPrice! <= best.price))
          throw fail("crosses the other side of the book");
        (r.side === "buy" ? book.bids : book.asks).add(order);
      } else {
        if (!isTicks(r.stopPrice)) throw fail("has no valid stop price");
        if (r.type === "stop_limit" && !isTicks(r.limitPrice)) throw fail("has no valid limit price");
        book.stops.add(order);
      }
      book.open.set(r.id, order);
    }
    return book;
  }

  /** Sequence of the last event emitted. */
  get sequence(): number {
    return this.seq;
  }

  get lastTradePrice(): number | undefined {
    return this.last;
  }

  /** Enters a new order: accepted (or rejected), then its fills, and its cancel or rest. */
  submit(request: OrderRequest, at: number): BookEvent[] {
    this.begin(at);
    const reason = invalidReason(request) ?? (this.open.has(request.id) ? "duplicate_order_id" : undefined);
    if (reason) {
      this.reject(request.id, request.accountId, reason);
      return this.end();
    }
    return this.enterNew(request);
  }

  /** Cancels an open order (resting or waiting stop). */
  cancel(orderId: string, at: number, reason: CancelReason = "requested"): BookEvent[] {
    this.begin(at);
    const order = this.open.get(orderId);
    if (!order) this.reject(orderId, undefined, "order_not_found");
    else this.cancelOpen(order, reason);
    return this.end();
  }

  /** Cancel/replace (see the rules above): `replaced`, then the replacement's `accepted` and what it does. */
  replace(request: ReplaceRequest, at: number): BookEvent[] {
    this.begin(at);
    const old = this.open.get(request.orderId);
    if (!old) {
      this.reject(request.orderId, undefined, "order_not_found");
      return this.end();
    }
    const next: OrderRequest = {
      id: request.newOrderId,
      accountId: old.accountId,
      side: old.side,
      type: old.type,
      qty: request.qty ?? old.leavesQty,
      limitPrice: request.limitPrice ?? (old.limitPrice || undefined),
      stopPrice: request.stopPrice ?? (old.stopPrice || undefined),
      timeInForce: request.timeInForce ?? old.timeInForce,
    };
    const reason = invalidReason(next) ?? (this.open.has(next.id) ? "duplicate_order_id" : undefined);
    if (reason) {
      this.reject(next.id, old.accountId, reason);
      return this.end();
    }
    const keepsPriority =
      next.qty <= old.leavesQty &&
      (next.limitPrice ?? 0) === old.limitPrice &&
      (next.stopPrice ?? 0) === old.stopPrice &&
      (isStop(old) || next.timeInForce === "gtc" || next.timeInForce === "day");
    this.emitReplaced(old, next.id, keepsPriority);
    if (keepsPriority) {
      this.open.delete(old.id);
      if (old.level) (old.side === "buy" ? this.bids : this.asks).reduce(old, old.leavesQty - next.qty);
      else old.leavesQty = next.qty;
      old.id = next.id;
      old.filledQty = 0n;
      old.timeInForce = next.timeInForce;
      this.open.set(old.id, old);
      this.accept(old);
      return this.end();
    }
    this.detach(old);
    return this.enterNew(next);
  }

  /** Cancels every open `day` order (reason `expired`), oldest first: call it at the session's end. */
  expireDayOrders(at: number): BookEvent[] {
    this.begin(at);
    const day = [...this.open.values()].filter((o) => o.timeInForce === "day").sort((a, b) => a.priority - b.priority);
    for (const order of day) this.cancelOpen(order, "expired");
    return this.end();
  }

  /** An open order as the database keeps it, or undefined once it is filled, canceled or replaced. */
  order(id: string): RestingOrder | undefined {
    const o = this.open.get(id);
    return o && toResting(o);
  }

  /** Every open order, oldest first: with `sequence` and `lastTradePrice`, what `fromResting` needs. */
  restingOrders(): RestingOrder[] {
    return [...this.open.values()].sort((a, b) => a.priority - b.priority).map(toResting);
  }

  get openOrderCount(): number {
    return this.open.size;
  }

  bestBid(): DepthLevel | undefined {
    return this.bids.depth(1)[0];
  }

  bestAsk(): DepthLevel | undefined {
    return this.asks.depth(1)[0];
  }

  /** The best `levels` price levels of one side, best first. */
  depth(side: Side, levels: number): DepthLevel[] {
    return (side === "buy" ? this.bids : this.asks).depth(levels);
  }

  // ---- the engine ----

  /** Accepts a valid new order (a submit, or a replacement that lost its place), enters it, runs the stops. */
  private enterNew(request: OrderRequest): BookEvent[] {
    const order = new BookOrder(
      request.id,
      request.accountId,
      request.side,
      request.type,
      request.limitPrice ?? 0,
      request.stopPrice ?? 0,
      request.timeInForce,
      request.qty,
      0n,
      0, // set by accept()
    );
    this.accept(order);
    this.enter(order);
    this.runTriggeredStops();
    return this.end();
  }

  private enter(order: BookOrder): void {
    if (!isStop(order)) this.execute(order);
    else if (this.last !== undefined && stopReached(order, this.last)) this.trigger(order, this.last);
    else {
      this.stops.add(order);
      this.open.set(order.id, order);
    }
  }

  /** A market or limit order arriving: matches, then rests or is canceled. */
  private execute(order: BookOrder): void {
    const opposite = order.side === "buy" ? this.asks : this.bids;
    if (order.timeInForce === "fok" && !this.canFillEntirely(order, opposite)) {
      this.cancelIncoming(order, "fok");
      return;
    }
    const selfTrade = this.match(order, opposite);
    if (order.leavesQty === 0n) return;
    const cancelReason: CancelReason | undefined = selfTrade
      ? "self_trade"
      : order.type === "market"
        ? "no_liquidity"
        : order.timeInForce === "ioc" || order.timeInForce === "fok"
          ? order.timeInForce
          : undefined;
    if (cancelReason) this.cancelIncoming(order, cancelReason);
    else {
      (order.side === "buy" ? this.bids : this.asks).add(order);
      this.open.set(order.id, order);
    }
  }

  /** Trades the taker against the best levels; true when it stopped at an order of its own account. */
  private match(taker: BookOrder, opposite: BookSide): boolean {
    const limit = taker.type === "limit" ? taker.limitPrice : 0;
    const buy = taker.side === "buy";
    while (taker.leavesQty > 0n) {
      const level = opposite.best();
      if (!level) return false;
      if (limit !== 0 && (buy ? level.price > limit : level.price < limit)) return false;
      const maker = level.head as BookOrder;
      if (maker.accountId === taker.accountId) return true;
      const qty = maker.leavesQty < taker.leavesQty ? maker.leavesQty : taker.leavesQty;
      opposite.reduce(maker, qty);
      maker.filledQty += qty;
      taker.leavesQty -= qty;
      taker.filledQty += qty;
      this.last = level.price;
      this.emitFill(level.price, qty, maker, taker);
      if (maker.leavesQty === 0n) {
        opposite.remove(maker);
        this.open.delete(maker.id);
      }
    }
    return false;
  }

  private canFillEntirely(taker: BookOrder, opposite: BookSide): boolean {
    const limit = taker.type === "limit" ? taker.limitPrice : 0;
    const buy = taker.side === "buy";
    let need = taker.leavesQty;
    for (let i = opposite.levels.length - 1; i >= 0; i--) {
      const level = opposite.levels[i]!;
      if (limit !== 0 && (buy ? level.price > limit : level.price < limit)) return false;
      for (let o = level.head; o; o = o.next) {
        if (o.accountId === taker.accountId) return false;
        need -= o.leavesQty;
        if (need <= 0n) return true;
      }
    }
    return false;
  }

  private runTriggeredStops(): void {
    while (this.last !== undefined && this.stops.size > 0) {
      const last = this.last;
      const triggered = this.stops.takeTriggered(last);
      if (triggered.length === 0) return;
      for (const order of triggered) {
        this.open.delete(order.id);
        this.trigger(order, last);
      }
    }
  }

  private trigger(order: BookOrder, lastPrice: number): void {
    const becomes = order.type === "stop" ? "market" : "limit";
    const stamp = this.stamp();
    this.push({
      type: "triggered",
      orderId: order.id,
      accountId: order.accountId,
      stopPrice: order.stopPrice,
      lastPrice,
      becomes,
      ...stamp,
    });
    // From here it is a plain market or limit order (the caller keeps the stop price on its order row), which
    // enters the queues now: its time priority is the trigger's.
    order.type = becomes;
    order.priority = stamp.sequence;
    order.stopPrice = 0;
    this.execute(order);
  }

  private detach(order: BookOrder): void {
    if (order.level) (order.side === "buy" ? this.bids : this.asks).remove(order);
    else this.stops.remove(order);
    this.open.delete(order.id);
  }

  private cancelOpen(order: BookOrder, reason: CancelReason): void {
    this.detach(order);
    this.cancelIncoming(order, reason);
  }

  private cancelIncoming(order: BookOrder, reason: CancelReason): void {
    const qty = order.leavesQty;
    order.leavesQty = 0n;
    this.push({ type: "canceled", orderId: order.id, accountId: order.accountId, qty, reason, ...this.stamp() });
  }

  // ---- events ----

  private begin(at: number): void {
    this.at = at;
    this.events = [];
  }

  private end(): BookEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private stamp() {
    return { sequence: ++this.seq, at: this.at, symbol: this.symbol };
  }

  private push(event: BookEvent): void {
    this.events.push(event);
  }

  /** The order's arrival rank is its `accepted` event's sequence (a replacement keeping its place keeps its rank). */
  private accept(order: BookOrder): void {
    const stamp = this.stamp();
    if (order.priority === 0) order.priority = stamp.sequence;
    this.push({ type: "accepted", orderId: order.id, accountId: order.accountId, qty: order.leavesQty, ...stamp });
  }

  private reject(orderId: string, accountId: string | undefined, reason: RejectReason): void {
    this.push({ type: "rejected", orderId, accountId, reason, ...this.stamp() });
  }

  private emitReplaced(old: BookOrder, newOrderId: string, keptPriority: boolean): void {
    this.push({
      type: "replaced",
      orderId: old.id,
      newOrderId,
      accountId: old.accountId,
      qty: old.leavesQty,
      keptPriority,
      ...this.stamp(),
    });
  }

  private emitFill(price: number, qty: bigint, maker: BookOrder, taker: BookOrder): void {
    const sequence = ++this.seq;
    this.events.push({
      type: "fill",
      sequence,
      at: this.at,
      symbol: this.symbol,
      executionId: `${this.symbol}:${sequence}`,
      price,
      qty,
      maker: fillSide(maker),
      taker: fillSide(taker),
    });
  }
}

function fillSide(o: BookOrder): FillSide {
  return {
    orderId: o.id,
    accountId: o.accountId,
    side: o.side,
    filledQty: o.filledQty,
    leavesQty: o.leavesQty,
    event: o.leavesQty === 0n ? "fill" : "partial_fill",
  };
}

function toResting(o: BookOrder): RestingOrder {
  const r: RestingOrder = {
    id: o.id,
    accountId: o.accountId,
    side: o.side,
    type: o.type as RestingOrder["type"],
    timeInForce: o.timeInForce,
    leavesQty: o.leavesQty,
    filledQty: o.filledQty,
    priority: o.priority,
  };
  if (o.limitPrice) r.limitPrice = o.limitPrice;
  if (o.stopPrice) r.stopPrice = o.stopPrice;
  return r;
}
