import { describe, expect, it } from "vitest";
import { InvalidBookStateError, OrderBook } from "./orderBook.ts";
import type { BookEvent, CanceledEvent, FillEvent, OrderRequest, Side, TimeInForce } from "./types.ts";

const AT = 1_700_000_000_000;

function limit(id: string, side: Side, price: number, qty: number, accountId = `acct-${id}`, tif: TimeInForce = "gtc") {
  return { id, accountId, side, type: "limit", qty: BigInt(qty), limitPrice: price, timeInForce: tif } as OrderRequest;
}
function market(id: string, side: Side, qty: number, accountId = `acct-${id}`, tif: TimeInForce = "day") {
  return { id, accountId, side, type: "market", qty: BigInt(qty), timeInForce: tif } as OrderRequest;
}
const fills = (events: BookEvent[]) => events.filter((e): e is FillEvent => e.type === "fill");
const cancels = (events: BookEvent[]) => events.filter((e): e is CanceledEvent => e.type === "canceled");
/** Fills as [maker id, price, qty] for compact assertions. */
const trades = (events: BookEvent[]) => fills(events).map((f) => [f.maker.orderId, f.price, Number(f.qty)]);

function bookWith(...orders: OrderRequest[]): OrderBook {
  const book = new OrderBook("AAPL");
  for (const o of orders) book.submit(o, AT);
  return book;
}

describe("price-time priority", () => {
  it("fills the best price first, then the oldest order at a price, at the maker's price", () => {
    const book = bookWith(limit("s1", "sell", 101, 1), limit("s2", "sell", 100, 1), limit("s3", "sell", 100, 1));
    const events = book.submit(limit("b", "buy", 105, 3), AT);
    expect(trades(events)).toEqual([
      ["s2", 100, 1],
      ["s3", 100, 1],
      ["s1", 101, 1],
    ]);
    expect(events[0]).toMatchObject({ type: "accepted", orderId: "b" });
    expect(book.openOrderCount).toBe(0);
  });

  it("does not trade through the taker's limit and rests the rest as the new best bid", () => {
    const book = bookWith(limit("s1", "sell", 100, 2), limit("s2", "sell", 102, 5));
    const events = book.submit(limit("b", "buy", 101, 5), AT);
    expect(trades(events)).toEqual([["s1", 100, 2]]);
    expect(book.bestBid()).toEqual({ price: 101, qty: 3n, orders: 1 });
    expect(book.bestAsk()).toEqual({ price: 102, qty: 5n, orders: 1 });
    expect(book.lastTradePrice).toBe(100);
  });

  it("numbers events and derives execution ids from them", () => {
    const book = bookWith(limit("s1", "sell", 100, 1));
    const events = book.submit(market("b", "buy", 1), AT + 5);
    expect(events.map((e) => e.sequence)).toEqual([2, 3]);
    expect(fills(events)[0]).toMatchObject({ executionId: "AAPL:3", at: AT + 5, symbol: "AAPL" });
    expect(book.sequence).toBe(3);
  });
});

describe("partial fills", () => {
  it("walks several makers, each side told fill or partial_fill with its quantities", () => {
    const book = bookWith(limit("m1", "sell", 100, 5), limit("m2", "sell", 100, 5), limit("m3", "sell", 101, 10));
    const events = book.submit(limit("t", "buy", 101, 12), AT);
    const f = fills(events);
    expect(trades(events)).toEqual([
      ["m1", 100, 5],
      ["m2", 100, 5],
      ["m3", 101, 2],
    ]);
    expect(f.map((x) => x.maker.event)).toEqual(["fill", "fill", "partial_fill"]);
    expect(f.map((x) => x.taker.event)).toEqual(["partial_fill", "partial_fill", "fill"]);
    expect(f[2]?.maker).toMatchObject({ filledQty: 2n, leavesQty: 8n, side: "sell" });
    expect(f[2]?.taker).toMatchObject({ filledQty: 12n, leavesQty: 0n, side: "buy" });
    expect(book.depth("sell", 5)).toEqual([{ price: 101, qty: 8n, orders: 1 }]);
    expect(book.order("m3")).toMatchObject({ leavesQty: 8n, filledQty: 2n });
  });
});

describe("time in force", () => {
  it("ioc fills what it can and cancels the rest", () => {
    const book = bookWith(limit("s", "sell", 100, 3));
    const events = book.submit(limit("b", "buy", 100, 5, "x", "ioc"), AT);
    expect(trades(events)).toEqual([["s", 100, 3]]);
    expect(cancels(events)).toMatchObject([{ orderId: "b", qty: 2n, reason: "ioc" }]);
    expect(book.bestBid()).toBeUndefined();
  });

  it("fok that cannot fill entirely is canceled before touching the book", () => {
    const book = bookWith(limit("s1", "sell", 100, 3), limit("s2", "sell", 102, 10));
    const events = book.submit(limit("b", "buy", 101, 5, "x", "fok"), AT);
    expect(events.map((e) => e.type)).toEqual(["accepted", "canceled"]);
    expect(cancels(events)[0]).toMatchObject({ qty: 5n, reason: "fok" });
    expect(book.depth("sell", 5)).toEqual([
      { price: 100, qty: 3n, orders: 1 },
      { price: 102, qty: 10n, orders: 1 },
    ]);
  });

  it("fok that can fill entirely fills across levels", () => {
    const book = bookWith(limit("s1", "sell", 100, 3), limit("s2", "sell", 101, 10));
    const events = book.submit(limit("b", "buy", 101, 5, "x", "fok"), AT);
    expect(trades(events)).toEqual([
      ["s1", 100, 3],
      ["s2", 101, 2],
    ]);
    expect(cancels(events)).toEqual([]);
  });

  it("day orders expire at the session's end, gtc ones stay", () => {
    const book = bookWith(limit("d", "buy", 99, 1, "x", "day"), limit("g", "buy", 98, 1, "x", "gtc"));
    const events = book.expireDayOrders(AT + 1);
    expect(cancels(events)).toMatchObject([{ orderId: "d", reason: "expired", qty: 1n }]);
    expect(book.restingOrders().map((o) => o.id)).toEqual(["g"]);
  });
});

describe("market orders", () => {
  it("walk a thin book and cancel what is left when it is empty", () => {
    const book = bookWith(limit("s1", "sell", 100, 3), limit("s2", "sell", 105, 4));
    const events = book.submit(market("b", "buy", 10), AT);
    expect(trades(events)).toEqual([
      ["s1", 100, 3],
      ["s2", 105, 4],
    ]);
    expect(cancels(events)).toMatchObject([{ orderId: "b", qty: 3n, reason: "no_liquidity" }]);
    expect(fills(events)[1]?.taker).toMatchObject({ event: "partial_fill", leavesQty: 3n });
  });

  it("against an empty book are accepted and canceled whole", () => {
    const events = new OrderBook("AAPL").submit(market("b", "sell", 4), AT);
    expect(events.map((e) => e.type)).toEqual(["accepted", "canceled"]);
    expect(cancels(events)[0]).toMatchObject({ qty: 4n, reason: "no_liquidity" });
  });
});

describe("rejections", () => {
  it.each([
    ["zero quantity", { ...limit("x", "buy", 100, 0) }, "invalid_quantity"],
    ["limit without a price", { ...limit("x", "buy", 100, 1), limitPrice: undefined }, "invalid_price"],
    ["fractional ticks", { ...limit("x", "buy", 100, 1), limitPrice: 100.5 }, "invalid_price"],
    ["market with a price", { ...market("x", "buy", 1), limitPrice: 100 }, "invalid_price"],
    ["stop without a stop price", { ...market("x", "buy", 1), type: "stop" }, "invalid_price"],
  ] as const)("%s", (_, request, reason) => {
    const events = new OrderBook("AAPL").submit(request as OrderRequest, AT);
    expect(events).toMatchObject([{ type: "rejected", orderId: "x", reason }]);
  });

  it("an id already open in the book", () => {
    const book = bookWith(limit("x", "buy", 100, 1));
    expect(book.submit(limit("x", "buy", 99, 1), AT)).toMatchObject([
      { type: "rejected", reason: "duplicate_order_id" },
    ]);
    expect(book.order("x")?.limitPrice).toBe(100);
  });
});

describe("cancel and replace", () => {
  it("cancel takes the order out; a second cancel is rejected", () => {
    const book = bookWith(limit("b", "buy", 100, 2));
    expect(book.cancel("b", AT)).toMatchObject([{ type: "canceled", orderId: "b", qty: 2n, reason: "requested" }]);
    expect(book.bestBid()).toBeUndefined();
    expect(book.cancel("b", AT)).toMatchObject([{ type: "rejected", orderId: "b", reason: "order_not_found" }]);
  });

  it("lowering only the quantity keeps the order's place in its queue", () => {
    const book = bookWith(limit("b1", "buy", 100, 5), limit("b2", "buy", 100, 5));
    const events = book.replace({ orderId: "b1", newOrderId: "b1v2", qty: 3n }, AT);
    expect(events).toMatchObject([
      { type: "replaced", orderId: "b1", newOrderId: "b1v2", qty: 5n, keptPriority: true },
      { type: "accepted", orderId: "b1v2" },
    ]);
    expect(book.bestBid()).toEqual({ price: 100, qty: 8n, orders: 2 });
    expect(trades(book.submit(market("s", "sell", 4), AT))).toEqual([
      ["b1v2", 100, 3],
      ["b2", 100, 1],
    ]);
  });

  it("raising the quantity sends the replacement to the back of the queue", () => {
    const book = bookWith(limit("b1", "buy", 100, 5), limit("b2", "buy", 100, 5));
    expect(book.replace({ orderId: "b1", newOrderId: "b1v2", qty: 6n }, AT)[0]).toMatchObject({ keptPriority: false });
    expect(trades(book.submit(market("s", "sell", 6), AT))).toEqual([
      ["b2", 100, 5],
      ["b1v2", 100, 1],
    ]);
  });

  it("a new price loses priority and may trade at once", () => {
    const book = bookWith(limit("s1", "sell", 102, 2), limit("b1", "buy", 100, 5));
    const events = book.replace({ orderId: "b1", newOrderId: "b1v2", limitPrice: 102 }, AT);
    expect(events.map((e) => e.type)).toEqual(["replaced", "accepted", "fill"]);
    expect(trades(events)).toEqual([["s1", 102, 2]]);
    expect(book.order("b1")).toBeUndefined();
    expect(book.order("b1v2")).toMatchObject({ limitPrice: 102, leavesQty: 3n, filledQty: 2n });
  });

  it("rejects an unknown order, a replacement id in use and a bad price, leaving the order as it was", () => {
    const book = bookWith(limit("b1", "buy", 100, 5), limit("b2", "buy", 99, 5));
    expect(book.replace({ orderId: "nope", newOrderId: "n" }, AT)).toMatchObject([{ reason: "order_not_found" }]);
    expect(book.replace({ orderId: "b1", newOrderId: "b2" }, AT)).toMatchObject([{ reason: "duplicate_order_id" }]);
    expect(book.replace({ orderId: "b1", newOrderId: "n", limitPrice: 0 }, AT)).toMatchObject([
      { reason: "invalid_price" },
    ]);
    expect(book.order("b1")).toMatchObject({ limitPrice: 100, leavesQty: 5n });
  });
});

describe("stops", () => {
  const stop = (id: string, side: Side, stopPrice: number, qty: number, limitPrice?: number): OrderRequest => ({
    id,
    accountId: `acct-${id}`,
    side,
    type: limitPrice === undefined ? "stop" : "stop_limit",
    qty: BigInt(qty),
    stopPrice,
    limitPrice,
    timeInForce: "gtc",
  });

  it("a sell stop waits, then becomes a market order when the last trade reaches it", () => {
    const book = bookWith(limit("b1", "buy", 100, 1), limit("b2", "buy", 95, 1), limit("b3", "buy", 90, 5));
    expect(book.submit(stop("st", "sell", 95, 3), AT).map((e) => e.type)).toEqual(["accepted"]);
    expect(book.submit(market("m1", "sell", 1), AT).map((e) => e.type)).toEqual(["accepted", "fill"]);
    const events = book.submit(market("m2", "sell", 1), AT);
    expect(events.map((e) => e.type)).toEqual(["accepted", "fill", "triggered", "fill"]);
    expect(events[2]).toMatchObject({ orderId: "st", stopPrice: 95, lastPrice: 95, becomes: "market" });
    expect(trades(events)).toEqual([
      ["b2", 95, 1],
      ["b3", 90, 3],
    ]);
  });

  it("a stop-limit becomes a limit order that rests when it cannot fill", () => {
    const book = bookWith(limit("s1", "sell", 105, 1), limit("s2", "sell", 110, 5));
    book.submit(stop("st", "buy", 105, 2, 106), AT);
    const events = book.submit(market("m", "buy", 1), AT);
    expect(events.map((e) => e.type)).toEqual(["accepted", "fill", "triggered"]);
    expect(book.bestBid()).toEqual({ price: 106, qty: 2n, orders: 1 });
    expect(book.order("st")).toMatchObject({ type: "limit", limitPrice: 106 });
  });

  it("triggers at once when the last trade is already through the stop, and cascades", () => {
    const book = bookWith(limit("b1", "buy", 100, 1), limit("b2", "buy", 98, 1), limit("b3", "buy", 96, 1));
    book.submit(market("m", "sell", 1), AT); // last trade 100
    book.submit(stop("st2", "sell", 98, 1), AT);
    const events = book.submit(stop("st1", "sell", 101, 1), AT);
    expect(events.map((e) => (e.type === "triggered" ? `triggered ${e.orderId}` : e.type))).toEqual([
      "accepted",
      "triggered st1",
      "fill",
      "triggered st2",
      "fill",
    ]);
    expect(book.lastTradePrice).toBe(96);
  });

  it("cascades: a triggered stop's trade triggers the next stop in the same command", () => {
    const book = bookWith(limit("b1", "buy", 100, 1), limit("b2", "buy", 98, 1), limit("b3", "buy", 96, 1));
    book.submit(stop("stA", "sell", 99, 1), AT);
    book.submit(stop("stB", "sell", 97, 1), AT);
    book.submit(market("m1", "sell", 1), AT); // 100: nothing triggers
    const events = book.submit(market("m2", "sell", 1), AT); // 98 triggers stA, whose trade at 96 triggers stB
    expect(events.map((e) => (e.type === "triggered" ? `triggered ${e.orderId}` : e.type))).toEqual([
      "accepted",
      "fill",
      "triggered stA",
      "fill",
      "triggered stB",
      "canceled",
    ]);
    expect(cancels(events)).toMatchObject([{ orderId: "stB", reason: "no_liquidity" }]);
  });

  it("a triggered stop-limit joins its queue when it triggers, and a rebuilt book keeps that place", () => {
    const book = bookWith(limit("s1", "sell", 105, 1), limit("s2", "sell", 110, 5));
    book.submit(stop("st", "buy", 105, 2, 104), AT); // older than b1, but rests only once triggered
    book.submit(limit("b1", "buy", 104, 1), AT);
    book.submit(market("m", "buy", 1), AT); // trades at 105: st triggers and rests at 104 behind b1
    const rebuilt = OrderBook.fromResting({ symbol: "AAPL", sequence: book.sequence, orders: book.restingOrders() });
    for (const b of [book, rebuilt])
      expect(trades(b.submit(market("sell", "sell", 2), AT))).toEqual([
        ["b1", 104, 1],
        ["st", 104, 1],
      ]);
  });

  it("waiting stops can be canceled and replaced", () => {
    const book = bookWith(stop("st", "sell", 95, 3));
    expect(book.replace({ orderId: "st", newOrderId: "st2", stopPrice: 94 }, AT)[0]).toMatchObject({
      keptPriority: false,
    });
    expect(book.order("st2")).toMatchObject({ type: "stop", stopPrice: 94, leavesQty: 3n });
    expect(book.cancel("st2", AT)).toMatchObject([{ type: "canceled", qty: 3n }]);
    expect(book.openOrderCount).toBe(0);
  });
});

describe("self-trade prevention", () => {
  it("cancels the taker's remainder at its own resting order and leaves that order", () => {
    const book = bookWith(limit("other", "sell", 100, 2), limit("mine", "sell", 101, 5, "acct-a"));
    const events = book.submit(limit("t", "buy", 101, 4, "acct-a"), AT);
    expect(trades(events)).toEqual([["other", 100, 2]]);
    expect(cancels(events)).toMatchObject([{ orderId: "t", qty: 2n, reason: "self_trade" }]);
    expect(book.order("mine")).toMatchObject({ leavesQty: 5n });
    expect(book.bestBid()).toBeUndefined();
  });

  it("fok counts only the liquidity ahead of the account's own order", () => {
    const book = bookWith(limit("mine", "sell", 100, 5, "acct-a"), limit("other", "sell", 100, 5));
    const events = book.submit(limit("t", "buy", 100, 3, "acct-a", "fok"), AT);
    expect(cancels(events)).toMatchObject([{ reason: "fok" }]);
    expect(fills(events)).toEqual([]);
  });
});

describe("rebuild", () => {
  it("fromResting refuses impossible states", () => {
    const base = { accountId: "a", timeInForce: "gtc", filledQty: 0n, leavesQty: 1n } as const;
    const crossed = [
      { ...base, id: "b", side: "buy", type: "limit", limitPrice: 101, priority: 1 },
      { ...base, id: "s", side: "sell", type: "limit", limitPrice: 100, priority: 2 },
    ] as const;
    expect(() => OrderBook.fromResting({ symbol: "AAPL", orders: [...crossed] })).toThrow(InvalidBookStateError);
    const twice = [crossed[0], { ...crossed[0], priority: 3 }];
    expect(() => OrderBook.fromResting({ symbol: "AAPL", orders: twice })).toThrow(/listed twice/);
  });
});
