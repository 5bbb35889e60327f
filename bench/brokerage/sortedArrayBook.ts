/**
 * The matching benchmark's baseline: the plainest book that matches the same flow of limit orders, market
 * orders and cancels with price-time priority: one sorted array of orders per side (best last, the oldest of a
 * price after the newer ones), binary search to insert, splice to cancel, a Map from id to order, and no
 * events (fills are only counted), no self-trade prevention, no stops.
 */
import type { FlowCommand } from "../../packages/brokerage/src/testing/randomOrderFlow.ts";

interface PlainOrder {
  id: string;
  price: number;
  qty: bigint;
  buy: boolean;
}

export class SortedArrayBook {
  private readonly bids: PlainOrder[] = []; // ascending price; best (highest, oldest) last
  private readonly asks: PlainOrder[] = []; // descending price; best (lowest, oldest) last
  private readonly byId = new Map<string, PlainOrder>();
  fills = 0;

  get openOrderCount(): number {
    return this.byId.size;
  }

  apply(command: FlowCommand): void {
    if (command.kind === "cancel") {
      const order = this.byId.get(command.orderId);
      if (order) this.remove(order);
      return;
    }
    if (command.kind !== "submit") throw new Error(`the baseline runs limit, market and cancel only (${command.kind})`);
    const r = command.request;
    const buy = r.side === "buy";
    const price = r.type === "limit" ? (r.limitPrice as number) : buy ? Number.MAX_SAFE_INTEGER : 0;
    const crosses = (p: number) => (buy ? p <= price : p >= price);
    const opposite = buy ? this.asks : this.bids;
    let qty = r.qty;
    if (r.timeInForce === "fok") {
      let available = 0n;
      for (let i = opposite.length - 1; i >= 0 && available < qty && crosses((opposite[i] as PlainOrder).price); i--)
        available += (opposite[i] as PlainOrder).qty;
      if (available < qty) return;
    }
    while (qty > 0n && opposite.length && crosses((opposite[opposite.length - 1] as PlainOrder).price)) {
      const maker = opposite[opposite.length - 1] as PlainOrder;
      const traded = maker.qty < qty ? maker.qty : qty;
      maker.qty -= traded;
      qty -= traded;
      this.fills++;
      if (maker.qty === 0n) {
        opposite.pop();
        this.byId.delete(maker.id);
      }
    }
    if (qty === 0n || r.type === "market" || r.timeInForce === "ioc" || r.timeInForce === "fok") return;
    const order = { id: r.id, price, qty, buy };
    const side = buy ? this.bids : this.asks;
    side.splice(this.firstAtOrBeyond(side, price, buy), 0, order);
    this.byId.set(order.id, order);
  }

  /** First index whose price is at or better than `price` (where a new order goes: before older ones). */
  private firstAtOrBeyond(side: PlainOrder[], price: number, buy: boolean): number {
    let lo = 0;
    let hi = side.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const p = (side[mid] as PlainOrder).price;
      if (buy ? p < price : p > price) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private remove(order: PlainOrder): void {
    const side = order.buy ? this.bids : this.asks;
    let i = this.firstAtOrBeyond(side, order.price, order.buy);
    while (side[i] !== order) i++;
    side.splice(i, 1);
    this.byId.delete(order.id);
  }
}
