/**
 * Property tests: a seeded random order flow (every order type and time in force, cancels, replaces, stops,
 * day expiries, few accounts so self-trade prevention happens) checked after every command, and a book rebuilt
 * from its resting orders answering the next commands exactly as the original. A failure prints its seed;
 * `EXCHANGE_TEST_SEED=<seed>` replays it.
 */
import { describe, expect, it, onTestFailed } from "vitest";
import { applyFlowCommand, type FlowCommand, randomOrderFlow, seededRandom } from "../../testing/randomOrderFlow.ts";
import { OrderBook } from "./orderBook.ts";
import type { BookEvent, OrderRequest } from "./types.ts";

function seeded(): () => number {
  const given = process.env.EXCHANGE_TEST_SEED;
  const seed = given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
  onTestFailed(() => {
    console.error(`This order flow replays with EXCHANGE_TEST_SEED=${seed}`);
  });
  return seededRandom(seed);
}

/** What the test knows of each order from the commands and events (not from the book's internals). */
interface Ledger {
  entered: bigint;
  filled: bigint;
  canceled: bigint;
  replacedAway: bigint;
  limitPrice?: number;
}

const fills = (events: BookEvent[], orderId: string) =>
  events.reduce((sum, e) => (e.type === "fill" && e.taker.orderId === orderId ? sum + e.qty : sum), 0n);

function checkInvariants(book: OrderBook, command: FlowCommand, events: BookEvent[], ledgers: Map<string, Ledger>) {
  const touched = new Set<string>();
  const requestOf = (id: string): Partial<OrderRequest> | undefined =>
    command.kind === "submit" && command.request.id === id ? command.request : undefined;
  const walked = new Map<string, number>();
  for (const e of events) {
    switch (e.type) {
      case "accepted": {
        const replaced = command.kind === "replace" && command.request.newOrderId === e.orderId;
        const before = replaced ? ledgers.get(command.request.orderId) : undefined;
        const limitPrice = replaced
          ? (command.request.limitPrice ?? before?.limitPrice)
          : requestOf(e.orderId)?.limitPrice;
        ledgers.set(e.orderId, { entered: e.qty, filled: 0n, canceled: 0n, replacedAway: 0n, limitPrice });
        touched.add(e.orderId);
        break;
      }
      case "fill": {
        const maker = ledgers.get(e.maker.orderId) as Ledger;
        const taker = ledgers.get(e.taker.orderId) as Ledger;
        // Fills at the maker's own limit price, never beyond the taker's limit, and getting worse as it walks.
        expect(e.price).toBe(maker.limitPrice);
        if (taker.limitPrice !== undefined)
          expect(e.taker.side === "buy" ? e.price <= taker.limitPrice : e.price >= taker.limitPrice).toBe(true);
        const previous = walked.get(e.taker.orderId);
        if (previous !== undefined)
          expect(e.taker.side === "buy" ? e.price >= previous : e.price <= previous).toBe(true);
        walked.set(e.taker.orderId, e.price);
        expect(e.maker.accountId).not.toBe(e.taker.accountId);
        expect(e.qty > 0n).toBe(true);
        maker.filled += e.qty;
        taker.filled += e.qty;
        expect(e.maker.filledQty).toBe(maker.filled);
        expect(e.taker.filledQty).toBe(taker.filled);
        touched.add(e.maker.orderId).add(e.taker.orderId);
        break;
      }
      case "canceled":
        (ledgers.get(e.orderId) as Ledger).canceled += e.qty;
        touched.add(e.orderId);
        break;
      case "replaced":
        (ledgers.get(e.orderId) as Ledger).replacedAway += e.qty;
        touched.add(e.orderId);
        break;
      case "triggered": {
        const ledger = ledgers.get(e.orderId) as Ledger;
        if (e.becomes === "market") ledger.limitPrice = undefined;
        break;
      }
      case "rejected":
        break;
    }
  }
  // Immediate orders never rest; fok fills entirely or not at all.
  if (command.kind === "submit" && (command.request.type === "market" || command.request.type === "limit")) {
    const { id, timeInForce, type, qty } = command.request;
    if (type === "market" || timeInForce === "ioc" || timeInForce === "fok") expect(book.order(id)).toBeUndefined();
    if (timeInForce === "fok" && events[0]?.type === "accepted") {
      const filled = fills(events, id);
      expect(filled === qty || filled === 0n, `fok ${id} filled ${filled} of ${qty}`).toBe(true);
    }
  }
  // Quantity conservation: what entered is filled, still resting, canceled, or moved to a replacement.
  for (const id of touched) {
    const l = ledgers.get(id) as Ledger;
    const resting = book.order(id)?.leavesQty ?? 0n;
    expect(l.filled + resting + l.canceled + l.replacedAway, `order ${id}`).toBe(l.entered);
    if (resting === 0n) ledgers.delete(id);
  }
  // Never crossed.
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (bid && ask) expect(bid.price).toBeLessThan(ask.price);
}

function checkLevelsMatchOrders(book: OrderBook) {
  const sum = new Map<string, bigint>();
  for (const o of book.restingOrders())
    if (o.type === "limit")
      sum.set(`${o.side}${o.limitPrice}`, (sum.get(`${o.side}${o.limitPrice}`) ?? 0n) + o.leavesQty);
  const levels = [
    ...book.depth("buy", 1e9).map((l) => ["buy", l] as const),
    ...book.depth("sell", 1e9).map((l) => ["sell", l] as const),
  ];
  expect(levels.length).toBe(sum.size);
  for (const [side, level] of levels) expect(level.qty).toBe(sum.get(`${side}${level.price}`));
}

describe("order book properties", () => {
  it("keeps its invariants after every command of a random flow", () => {
    const random = seeded();
    const next = randomOrderFlow({ random, accounts: 6, priceRangeTicks: 8, maxQty: 50 });
    const book = new OrderBook("TEST");
    const ledgers = new Map<string, Ledger>();
    let sequence = 0;
    const counts: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) {
      const command = next();
      const events = applyFlowCommand(book, command, 1_000 + i);
      for (const e of events) {
        expect(e.sequence).toBe(++sequence);
        const key = e.type === "canceled" ? `canceled:${e.reason}` : e.type;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      checkInvariants(book, command, events, ledgers);
      if (i % 1_000 === 0) checkLevelsMatchOrders(book);
    }
    checkLevelsMatchOrders(book);
    // The flow really exercised every path.
    for (const kind of [
      "fill",
      "triggered",
      "replaced",
      "rejected",
      "canceled:self_trade",
      "canceled:fok",
      "canceled:ioc",
    ])
      expect(counts[kind] ?? 0, kind).toBeGreaterThan(0);
  });

  it("a book rebuilt from its resting orders gives the same next events", () => {
    const random = seeded();
    // Fewer market orders and no expiries than by default, so the book has depth when it is rebuilt.
    const next = randomOrderFlow({ random, accounts: 8, priceRangeTicks: 20, mix: { market: 5, expire: 0 } });
    const original = new OrderBook("TEST");
    const rebuildFrom = (book: OrderBook) =>
      OrderBook.fromResting({
        symbol: "TEST",
        sequence: book.sequence,
        lastTradePrice: book.lastTradePrice,
        orders: book.restingOrders(),
      });
    let rebuilt: OrderBook | undefined;
    let fills = 0;
    let depth = 0;
    for (let i = 0; i < 10_000; i++) {
      // Rebuilt every 1,000 commands from the original's open orders, as a restart rebuilds it from the database.
      if (i % 1_000 === 500) {
        rebuilt = rebuildFrom(original);
        expect(rebuilt.restingOrders()).toEqual(original.restingOrders());
        depth = Math.max(depth, original.openOrderCount);
      }
      const command = next();
      const expected = applyFlowCommand(original, command, i);
      if (rebuilt) expect(applyFlowCommand(rebuilt, command, i)).toEqual(expected);
      if (rebuilt) fills += expected.filter((e) => e.type === "fill").length;
    }
    expect(depth).toBeGreaterThan(30);
    expect(fills).toBeGreaterThan(1_000);
    expect(rebuilt?.restingOrders()).toEqual(original.restingOrders());
  });
});
