/**
 * Stop and stop-limit orders waiting for their trigger. A buy stop triggers when the last trade is at or above
 * its stop price, a sell stop when it is at or below. Each side is an array sorted so that the next stop to
 * trigger is last (a pop); cancels search linearly, which is fine for the few stops a book holds.
 */
import type { BookOrder } from "./priceLevels.ts";

export class StopOrders {
  /** Buy stops, highest stop price first: the lowest (first to trigger on a rise) is last. */
  private readonly buys: BookOrder[] = [];
  /** Sell stops, lowest stop price first: the highest (first to trigger on a fall) is last. */
  private readonly sells: BookOrder[] = [];

  get size(): number {
    return this.buys.length + this.sells.length;
  }

  add(order: BookOrder): void {
    const list = order.side === "buy" ? this.buys : this.sells;
    // Position after every stop that triggers later (buys: higher stop; sells: lower stop).
    const later =
      order.side === "buy"
        ? (o: BookOrder) => o.stopPrice > order.stopPrice
        : (o: BookOrder) => o.stopPrice < order.stopPrice;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (later(list[mid] as BookOrder)) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, order);
  }

  remove(order: BookOrder): boolean {
    const list = order.side === "buy" ? this.buys : this.sells;
    const i = list.indexOf(order);
    if (i < 0) return false;
    list.splice(i, 1);
    return true;
  }

  /** Takes out every stop the last trade price triggers, oldest first (their order of execution). */
  takeTriggered(lastPrice: number): BookOrder[] {
    const triggered: BookOrder[] = [];
    const { buys, sells } = this;
    while (buys.length && (buys[buys.length - 1] as BookOrder).stopPrice <= lastPrice)
      triggered.push(buys.pop() as BookOrder);
    while (sells.length && (sells[sells.length - 1] as BookOrder).stopPrice >= lastPrice)
      triggered.push(sells.pop() as BookOrder);
    if (triggered.length > 1) triggered.sort((a, b) => a.priority - b.priority);
    return triggered;
  }

  /** Every waiting stop, buys then sells. */
  all(): BookOrder[] {
    return [...this.buys, ...this.sells];
  }
}
