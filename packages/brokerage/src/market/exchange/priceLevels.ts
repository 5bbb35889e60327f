/**
 * One side of an order book: price levels kept sorted in an array with the best level LAST (taking liquidity
 * and adding near the touch, which is where almost all the flow is, are a pop or a splice near the end), a Map
 * from price to level for O(1) lookup, and a FIFO of orders per level as a doubly linked list (O(1) append,
 * cancel anywhere, and consume from the head). Measured against a binary max-heap of levels with lazy
 * deletion on the benchmark's flow (`bench/brokerage/matching.ts`): without `fok` orders the two are even
 * (heap ~1.55M, sorted array ~1.50M orders/s), but `fok` checks, depth quotes and the market maker walk the
 * levels in price order, which a heap can only give by sorting: with them the heap fell to ~130k orders/s.
 */
import type { Side, TimeInForce } from "./types.ts";

/** An open order inside the book. Mutable: the engine updates its quantities in place. Internal to the exchange. */
export class BookOrder {
  prev: BookOrder | null = null;
  next: BookOrder | null = null;
  level: PriceLevel | null = null;

  constructor(
    public id: string,
    readonly accountId: string,
    readonly side: Side,
    public type: "market" | "limit" | "stop" | "stop_limit",
    /** Ticks, 0 for none (prices are ≥ 1 tick). */
    public limitPrice: number,
    /** Ticks, 0 for none. */
    public stopPrice: number,
    public timeInForce: TimeInForce,
    public leavesQty: bigint,
    public filledQty: bigint,
    public priority: number,
  ) {}
}

/** The orders at one price, oldest first. */
export class PriceLevel {
  head: BookOrder | null = null;
  tail: BookOrder | null = null;
  totalQty = 0n;
  count = 0;

  constructor(
    readonly price: number,
    /** Sort key: the price for bids, minus the price for asks, so that the best level has the largest key. */
    readonly key: number,
  ) {}

  push(order: BookOrder): void {
    order.level = this;
    order.prev = this.tail;
    order.next = null;
    if (this.tail) this.tail.next = order;
    else this.head = order;
    this.tail = order;
    this.totalQty += order.leavesQty;
    this.count++;
  }

  unlink(order: BookOrder): void {
    if (order.prev) order.prev.next = order.next;
    else this.head = order.next;
    if (order.next) order.next.prev = order.prev;
    else this.tail = order.prev;
    this.totalQty -= order.leavesQty;
    this.count--;
    order.prev = order.next = order.level = null;
  }
}

/** The bids or the asks of one book. */
export class BookSide {
  /** Levels from worst to best (ascending `key`). */
  readonly levels: PriceLevel[] = [];
  private readonly byPrice = new Map<number, PriceLevel>();
  private readonly sign: number;

  constructor(readonly side: Side) {
    this.sign = side === "buy" ? 1 : -1;
  }

  best(): PriceLevel | undefined {
    return this.levels[this.levels.length - 1];
  }

  level(price: number): PriceLevel | undefined {
    return this.byPrice.get(price);
  }

  /** Appends the order to the queue of its limit price (the back: time priority). */
  add(order: BookOrder): void {
    let level = this.byPrice.get(order.limitPrice);
    if (!level) {
      level = new PriceLevel(order.limitPrice, this.sign * order.limitPrice);
      this.insertLevel(level);
    }
    level.push(order);
  }

  /** Takes the order out of its queue, and drops the level when it empties. */
  remove(order: BookOrder): void {
    const level = order.level;
    if (!level) return;
    level.unlink(order);
    if (level.count === 0) this.dropLevel(level);
  }

  /** Lowers an order's open quantity in place (it keeps its place in the queue). */
  reduce(order: BookOrder, by: bigint): void {
    order.leavesQty -= by;
    if (order.level) order.level.totalQty -= by;
  }

  /** The best `n` levels, best first. */
  depth(n: number): { price: number; qty: bigint; orders: number }[] {
    const out = [];
    for (let i = this.levels.length - 1; i >= 0 && out.length < n; i--) {
      const level = this.levels[i] as PriceLevel;
      out.push({ price: level.price, qty: level.totalQty, orders: level.count });
    }
    return out;
  }

  private insertLevel(level: PriceLevel): void {
    this.byPrice.set(level.price, level);
    const levels = this.levels;
    // First index whose key is larger: new levels land near the end (the touch), so search from there.
    let lo = 0;
    let hi = levels.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((levels[mid] as PriceLevel).key > level.key) hi = mid;
      else lo = mid + 1;
    }
    if (lo === levels.length) levels.push(level);
    else levels.splice(lo, 0, level);
  }

  private dropLevel(level: PriceLevel): void {
    this.byPrice.delete(level.price);
    const levels = this.levels;
    if (levels[levels.length - 1] === level) {
      levels.pop();
      return;
    }
    let lo = 0;
    let hi = levels.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((levels[mid] as PriceLevel).key < level.key) lo = mid + 1;
      else hi = mid;
    }
    levels.splice(lo, 1);
  }
}
