import { describe, expect, it } from "vitest";
import { MarketMaker, type MarketMakerOptions } from "./marketMaker.ts";
import { OrderBook } from "./orderBook.ts";
import type { BookEvent, FillEvent, OrderRequest } from "./types.ts";

const AT = 1_700_000_000_000;
const OPTIONS: MarketMakerOptions = {
  accountId: "maker",
  levels: 4,
  halfSpreadTicks: 2,
  levelSpacingTicks: 1,
  baseQty: 100n,
  sizeGrowth: 1.5,
  maxInventory: 1_000n,
  maxSkewTicks: 4,
};
const market = (id: string, side: "buy" | "sell", qty: bigint): OrderRequest => ({
  id,
  accountId: "taker",
  side,
  type: "market",
  qty,
  timeInForce: "day",
});
const fills = (events: BookEvent[]) => events.filter((e): e is FillEvent => e.type === "fill");
const types = (events: BookEvent[]) => events.map((e) => e.type);

function quoted(options: Partial<MarketMakerOptions> = {}, reference = 10_000) {
  const book = new OrderBook("AAPL");
  const maker = new MarketMaker(book, { ...OPTIONS, ...options });
  maker.quote(reference, AT);
  return { book, maker };
}

describe("market maker", () => {
  it("quotes several levels on both sides, sizes growing away from the mid", () => {
    const { book } = quoted();
    const ladder = [100n, 150n, 225n, 337n];
    expect(book.depth("buy", 10)).toEqual(ladder.map((qty, i) => ({ price: 9_998 - i, qty, orders: 1 })));
    expect(book.depth("sell", 10)).toEqual(ladder.map((qty, i) => ({ price: 10_002 + i, qty, orders: 1 })));
  });

  it("gives an order of any size real liquidity: partial fills across levels, the rest canceled past the depth", () => {
    const { book, maker } = quoted();
    const mid = book.submit(market("m1", "buy", 300n), AT);
    maker.observe(mid);
    expect(fills(mid).map((f) => [f.price, f.qty, f.maker.event])).toEqual([
      [10_002, 100n, "fill"],
      [10_003, 150n, "fill"],
      [10_004, 50n, "partial_fill"],
    ]);
    const huge = book.submit(market("m2", "buy", 10_000n), AT);
    maker.observe(huge);
    expect(fills(huge).reduce((sum, f) => sum + f.qty, 0n)).toBe(175n + 337n);
    expect(huge.at(-1)).toMatchObject({ type: "canceled", reason: "no_liquidity", qty: 10_000n - 512n });
    expect(maker.inventory).toBe(-812n);
  });

  it("requotes by cancel/replace, moving only the orders whose prices left the ladder", () => {
    const { book, maker } = quoted();
    const before = book.restingOrders().map((o) => o.id);
    const events = maker.quote(10_001, AT + 1_000);
    // One tick up: the farthest bid moves to the new best bid, the best ask to the new farthest ask; the others
    // stay where they are (their sizes are within half to twice of their new level's).
    expect(types(events)).toEqual(["replaced", "accepted", "replaced", "accepted"]);
    expect(events[0]).toMatchObject({ orderId: "maker:1", keptPriority: false }); // the ask at 10_002
    expect(events[2]).toMatchObject({ orderId: "maker:8", keptPriority: false }); // the bid at 9_995
    expect(book.restingOrders().filter((o) => before.includes(o.id))).toHaveLength(6);
    expect(book.depth("buy", 10)).toEqual(
      [100n, 100n, 150n, 225n].map((qty, i) => ({ price: 9_999 - i, qty, orders: 1 })),
    );
    expect(book.depth("sell", 10)).toEqual(
      [150n, 225n, 337n, 337n].map((qty, i) => ({ price: 10_003 + i, qty, orders: 1 })),
    );
    expect(maker.quote(10_001, AT + 2_000)).toEqual([]);
  });

  it("refills a level taken below half its size, skewed by the inventory the fills left", () => {
    const { book, maker } = quoted();
    maker.observe(book.submit(market("m", "sell", 240n), AT));
    expect(book.bestBid()).toEqual({ price: 9_997, qty: 10n, orders: 1 });
    // Long 240 of 1000: the mid skews down by round(0.24 × 4) = 1 tick and bids shrink by 24 %.
    expect(maker.ladder(10_000).bids.map((q) => [q.price, q.qty])).toEqual([
      [9_997, 76n],
      [9_996, 114n],
      [9_995, 171n],
      [9_994, 256n],
    ]);
    const events = maker.quote(10_000, AT + 1);
    // Moving down, bids first: 9_997 refilled (10 < 76 / 2), 9_994 added; then the ask at 10_005 moves to 10_001.
    expect(types(events)).toEqual(["replaced", "accepted", "accepted", "replaced", "accepted"]);
    expect(book.depth("buy", 10).map((l) => [l.price, l.qty])).toEqual([
      [9_997, 76n],
      [9_996, 225n],
      [9_995, 337n],
      [9_994, 256n],
    ]);
    expect(book.depth("sell", 10).map((l) => [l.price, l.qty])).toEqual([
      [10_001, 100n],
      [10_002, 100n],
      [10_003, 150n],
      [10_004, 225n],
    ]);
  });

  it("skews against its inventory and stops quoting the side that would grow it", () => {
    const long = quoted({ inventory: 500n });
    expect(long.book.bestBid()).toEqual({ price: 9_996, qty: 50n, orders: 1 });
    expect(long.book.bestAsk()).toEqual({ price: 10_000, qty: 100n, orders: 1 });
    const maxShort = quoted({ inventory: -1_000n });
    expect(maxShort.book.bestAsk()).toBeUndefined();
    expect(maxShort.book.bestBid()).toEqual({ price: 10_002, qty: 100n, orders: 1 });
  });

  it("follows large moves without ever trading with itself or crossing the book", () => {
    const { book, maker } = quoted();
    for (const reference of [10_050, 9_900, 9_901, 10_200, 3]) {
      const events = maker.quote(reference, AT);
      expect(fills(events)).toEqual([]);
      expect(events.some((e) => e.type === "canceled" && e.reason === "self_trade")).toBe(false);
      const bid = book.bestBid();
      const ask = book.bestAsk();
      if (bid && ask) expect(bid.price).toBeLessThan(ask.price);
    }
    // Near zero it drops the bids it cannot price and keeps the asks.
    expect(book.depth("buy", 10).map((l) => l.price)).toEqual([1]);
    expect(book.depth("sell", 10)).toHaveLength(4);
  });

  it("trades with stale orders it crosses when it requotes, and counts them in its inventory", () => {
    const { book, maker } = quoted();
    book.submit({ ...market("s", "sell", 40n), type: "limit", limitPrice: 10_005, timeInForce: "gtc" }, AT);
    const events = maker.quote(10_010, AT + 1);
    expect(fills(events).map((f) => [f.price, f.qty, f.taker.accountId])).toEqual([[10_005, 40n, "maker"]]);
    expect(maker.inventory).toBe(40n);
  });

  it("adopts its resting orders in a rebuilt book", () => {
    const { book } = quoted();
    const rebuilt = OrderBook.fromResting({ symbol: "AAPL", sequence: book.sequence, orders: book.restingOrders() });
    const maker = new MarketMaker(rebuilt, OPTIONS);
    expect(maker.quote(10_000, AT)).toEqual([]);
    const events = maker.quote(10_001, AT);
    expect(types(events)).toEqual(["replaced", "accepted", "replaced", "accepted"]);
    expect(events[1]).toMatchObject({ orderId: "maker:9" });
  });
});
