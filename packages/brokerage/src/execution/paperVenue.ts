/**
 * The paper venue: orders of paper accounts are simulated against the market's quotes and tape, as the
 * anchor's paper environment does, without touching the live books:
 * - a marketable order (market, or a limit at or through the quote) fills at the quote: buys at the ask,
 *   sells at the bid. Market orders fill whole; a marketable limit fills up to the quote's size, the rest
 *   rests (so large limit orders fill partially, as they would against a real top of book);
 * - a resting limit order fills at its limit price when the tape trades through it (a print below a buy
 *   limit, above a sell limit), or at the quote when the quote crosses it;
 * - `fok` fills whole at the quote or is canceled; `ioc` fills what the quote shows and cancels the rest.
 * Execution ids are `paper:<order id>:<quantity filled before>`: unique per fill and the same after a restart.
 */
import { numberToNanos, toNanos } from "../domain/portfolioValue.ts";
import type { MarketService } from "../services/market.ts";
import type { Venue, VenueEvent, WorkingOrder } from "./venue.ts";

const ONE = 1_000_000_000n;

export function createPaperVenue({
  market,
  restored = [],
}: {
  market: Pick<MarketService, "quoteOf" | "tradesBetween">;
  /** Resting limit orders after a restart: they rest again as they were (the next tick may fill them). */
  restored?: WorkingOrder[];
}): Venue {
  const resting = new Map<string, WorkingOrder & { filled: bigint }>(
    restored.map((o) => [o.row.id, { ...o, filled: toNanos(o.row.filled_qty) }]),
  );
  let lastTick: number | undefined;

  function fill(order: WorkingOrder & { filled: bigint }, qty: bigint, price: bigint, events: VenueEvent[]) {
    const executionId = `paper:${order.row.id}:${order.filled}`;
    order.filled += qty;
    order.leaves -= qty;
    events.push({ type: "fill", orderId: order.row.id, qty, price, executionId, leaves: order.leaves });
  }

  /** Fills against the current quote what it can. */
  function takeQuote(order: WorkingOrder & { filled: bigint }, at: number, events: VenueEvent[]): void {
    const quote = market.quoteOf(order.row.symbol, at);
    const buy = order.row.side === "buy";
    const price = numberToNanos(buy ? quote.askPrice : quote.bidPrice);
    const size = numberToNanos(buy ? quote.askSize : quote.bidSize);
    if (order.notionalLeft !== undefined) {
      order.leaves = (order.notionalLeft * ONE) / price;
      order.notionalLeft = undefined;
      if (order.leaves === 0n) return;
    }
    const marketable =
      order.executeAs === "market" ||
      (buy ? price <= (order.limitPrice as bigint) : price >= (order.limitPrice as bigint));
    if (!marketable) return;
    if (order.timeInForce === "fok" && size < order.leaves) return;
    const qty = order.executeAs === "market" || size >= order.leaves ? order.leaves : size;
    if (qty > 0n) fill(order, qty, price, events);
  }

  return {
    execute(order, at) {
      const events: VenueEvent[] = [];
      const working = { ...order, filled: toNanos(order.row.filled_qty) };
      takeQuote(working, at, events);
      if (working.leaves > 0n) {
        if (working.timeInForce === "gtc" && working.executeAs === "limit") resting.set(order.row.id, working);
        else {
          const reason = working.timeInForce === "fok" ? "fok" : working.timeInForce === "ioc" ? "ioc" : "no_liquidity";
          events.push({ type: "canceled", orderId: order.row.id, reason });
        }
      }
      return events;
    },

    remove(orderId, _at, reason) {
      if (!resting.delete(orderId)) return [];
      return [{ type: "canceled", orderId, reason }];
    },

    tick(at) {
      const events: VenueEvent[] = [];
      const from = lastTick ?? at;
      lastTick = at;
      const prints = new Map<string, number[]>();
      for (const order of resting.values()) {
        const before = events.length;
        takeQuote(order, at, events);
        if (events.length === before && from < at) {
          const symbol = order.row.symbol;
          if (!prints.has(symbol))
            prints.set(
              symbol,
              market.tradesBetween(symbol, from, at).map((t) => t.price),
            );
          const limit = order.limitPrice as bigint;
          const through = (prints.get(symbol) ?? []).some((p) =>
            order.row.side === "buy" ? numberToNanos(p) < limit : numberToNanos(p) > limit,
          );
          if (through) fill(order, order.leaves, limit, events);
        }
        if (order.leaves === 0n) resting.delete(order.row.id);
      }
      return events;
    },

    priorityOf: (orderId) => (resting.has(orderId) ? 0 : undefined),
    bookStates: () => [],
  };
}
