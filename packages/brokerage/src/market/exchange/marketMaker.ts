/**
 * The exchange's built-in market maker: it keeps a ladder of limit orders on both sides of a reference price
 * (the price process's, given as ticks by the caller), so that an order of any size meets real liquidity and
 * large ones fill partially across several levels.
 *
 * - Depth: `levels` bids and asks, the first `halfSpreadTicks` from the mid, then every `levelSpacingTicks`;
 *   sizes grow by `sizeGrowth` per level away from the mid.
 * - Inventory: the maker's position moves its mid against itself (long → quotes lower, to sell more) by up
 *   to `maxSkewTicks`, and shrinks the side that would grow the position, to nothing at `maxInventory`.
 * - Requote by cancel/replace: orders already at a wanted price with about the wanted size (half to twice)
 *   stay, keeping their place; orders at prices the ladder left are replaced to the new prices, so a one-tick
 *   move touches one order per side; a level taken below half its size is refilled.
 *   The side moving away from the other is requoted first, so the maker never meets its own orders.
 *
 * It goes through the book's public commands only, and returns their events for the caller to persist.
 */
import type { OrderBook } from "./orderBook.ts";
import type { BookEvent, RestingOrder, Side } from "./types.ts";

export interface MarketMakerOptions {
  /** The maker's account (its orders are ordinary orders of this account). */
  accountId: string;
  /** Price levels per side. */
  levels: number;
  /** Ticks from the (skewed) mid to the best bid and to the best ask, ≥ 1. */
  halfSpreadTicks: number;
  /** Ticks between two levels, ≥ 1. */
  levelSpacingTicks: number;
  /** Size of the levels nearest the mid, units of 1e-9. */
  baseQty: bigint;
  /** Each level away from the mid is this many times the previous one's size (e.g. 1.6). */
  sizeGrowth: number;
  /** Position (long or short, units) at which the maker stops quoting the side that would grow it. */
  maxInventory: bigint;
  /** How far the mid moves against the position when it reaches `maxInventory`, in ticks. */
  maxSkewTicks: number;
  /** Position at start, units (after a restart: from the database). */
  inventory?: bigint;
  /** Id of each new quote; default `<accountId>:<n>`, continuing after adopted ones (persisted makers pass database ids). */
  newOrderId?: () => string;
}

/** One wanted order of the ladder. */
export interface Quote {
  price: number;
  qty: bigint;
}

/** A market maker quoting one book. Adopts the account's orders already resting there (a rebuilt book). */
export class MarketMaker {
  private position: bigint;
  private readonly own: Record<Side, string[]> = { buy: [], sell: [] };
  private lastMid: number | undefined;
  private readonly newOrderId: () => string;

  constructor(
    private readonly book: OrderBook,
    private readonly options: MarketMakerOptions,
  ) {
    if (
      options.levels < 1 ||
      options.halfSpreadTicks < 1 ||
      options.levelSpacingTicks < 1 ||
      options.maxInventory <= 0n
    )
      throw new RangeError("market maker: levels, spread, spacing and maxInventory must be positive");
    this.position = options.inventory ?? 0n;
    for (const o of book.restingOrders())
      if (o.accountId === options.accountId && o.type === "limit") this.own[o.side].push(o.id);
    // The default ids continue after the adopted ones.
    const prefix = `${options.accountId}:`;
    let n = Math.max(
      0,
      ...[...this.own.buy, ...this.own.sell].map((id) =>
        id.startsWith(prefix) ? Number(id.slice(prefix.length)) || 0 : 0,
      ),
    );
    this.newOrderId = options.newOrderId ?? (() => `${prefix}${++n}`);
    // An adopted ladder's mid, so that the first requote moves the right side first.
    const bestOwn = (side: Side) => this.own[side].map((id) => book.order(id)?.limitPrice as number);
    if (this.own.buy.length && this.own.sell.length)
      this.lastMid = (Math.max(...bestOwn("buy")) + Math.min(...bestOwn("sell"))) / 2;
  }

  /** The maker's position in units (positive long). */
  get inventory(): bigint {
    return this.position;
  }

  /** The ladder it wants around `referenceTicks` with its current inventory, best first on each side. */
  ladder(referenceTicks: number): { mid: number; bids: Quote[]; asks: Quote[] } {
    const o = this.options;
    const ratio = Math.max(-1, Math.min(1, Number(this.position) / Number(o.maxInventory)));
    const mid = Math.round(referenceTicks - ratio * o.maxSkewTicks);
    const bidScale = permille(ratio > 0 ? 1 - ratio : 1);
    const askScale = permille(ratio < 0 ? 1 + ratio : 1);
    const bids: Quote[] = [];
    const asks: Quote[] = [];
    for (let i = 0; i < o.levels; i++) {
      const size = (o.baseQty * permille(o.sizeGrowth ** i)) / 1000n;
      const distance = o.halfSpreadTicks + i * o.levelSpacingTicks;
      const bidQty = (size * bidScale) / 1000n;
      const askQty = (size * askScale) / 1000n;
      if (mid - distance >= 1 && bidQty > 0n) bids.push({ price: mid - distance, qty: bidQty });
      if (askQty > 0n) asks.push({ price: mid + distance, qty: askQty });
    }
    return { mid, bids, asks };
  }

  /**
   * Moves the quotes to the ladder around `referenceTicks`; returns every event the book emitted (the maker has
   * counted its own fills among them already: do not pass them to `observe`).
   */
  quote(referenceTicks: number, at: number): BookEvent[] {
    const { mid, bids, asks } = this.ladder(referenceTicks);
    const events: BookEvent[] = [];
    const asksFirst = this.lastMid === undefined || mid >= this.lastMid;
    for (const side of asksFirst ? (["sell", "buy"] as const) : (["buy", "sell"] as const)) {
      const wanted = side === "buy" ? bids : asks;
      for (const e of this.requoteSide(side, wanted, at)) events.push(e);
    }
    this.lastMid = mid;
    this.observe(events);
    return events;
  }

  /** Follows the maker's fills in events of other commands (orders that traded with its quotes). */
  observe(events: readonly BookEvent[]): void {
    const account = this.options.accountId;
    for (const e of events) {
      if (e.type !== "fill") continue;
      if (e.maker.accountId === account) this.position += e.maker.side === "buy" ? e.qty : -e.qty;
      if (e.taker.accountId === account) this.position += e.taker.side === "buy" ? e.qty : -e.qty;
    }
  }

  private requoteSide(side: Side, wanted: Quote[], at: number): BookEvent[] {
    const events: BookEvent[] = [];
    const current = this.own[side].map((id) => this.book.order(id)).filter((o): o is RestingOrder => o !== undefined);
    const byPrice = new Map(current.map((o) => [o.limitPrice as number, o]));
    const wantedPrices = new Set(wanted.map((q) => q.price));
    // Orders at prices the ladder no longer has: replaced to the new prices, or canceled if there are too many.
    const free = current.filter((o) => !wantedPrices.has(o.limitPrice as number));
    const next: string[] = [];
    const run = (produced: BookEvent[], id: string) => {
      for (const e of produced) events.push(e);
      if (this.book.order(id)) next.push(id);
    };
    for (const q of wanted) {
      const existing = byPrice.get(q.price);
      if (existing && closeEnough(existing.leavesQty, q.qty)) {
        next.push(existing.id);
        continue;
      }
      const target = existing ?? free.shift();
      const id = this.newOrderId();
      if (target)
        run(this.book.replace({ orderId: target.id, newOrderId: id, qty: q.qty, limitPrice: q.price }, at), id);
      else
        run(
          this.book.submit(
            {
              id,
              accountId: this.options.accountId,
              side,
              type: "limit",
              qty: q.qty,
              limitPrice: q.price,
              timeInForce: "gtc",
            },
            at,
          ),
          id,
        );
    }
    for (const o of free) for (const e of this.book.cancel(o.id, at)) events.push(e);
    this.own[side] = next;
    return events;
  }
}

/**
 * A quote within half to twice its wanted size stays as it is: a one-tick move (sizes shift by a level) or a
 * small fill does not rewrite the whole ladder, which would cost events and the quotes' places in the queues.
 */
function closeEnough(have: bigint, want: bigint): boolean {
  return have * 2n >= want && have <= want * 2n;
}

function permille(x: number): bigint {
  return BigInt(Math.max(0, Math.round(x * 1000)));
}
