/**
 * A random but reproducible flow of order-book commands (limit, market and stop orders of every time in force,
 * cancels, replaces) around a drifting mid price: the exchange's property tests and its benchmark
 * (`bench/brokerage/matching.ts`) drive books with it. Give it a seeded `random` for a replayable flow.
 */
import { randomKey, randomUniform } from "../market/counterRandom.ts";
import type { OrderBook } from "../market/exchange/orderBook.ts";
import type { BookEvent, OrderRequest, ReplaceRequest, Side, TimeInForce } from "../market/exchange/types.ts";

/** A sequence of uniform numbers in [0, 1) that the same seed repeats (the market's counter-based randomness). */
export function seededRandom(seed: number): () => number {
  const key = randomKey(seed, "order-flow");
  let counter = 0;
  return () => randomUniform(key, counter++, 0);
}

export type FlowCommand =
  | { kind: "submit"; request: OrderRequest }
  | { kind: "cancel"; orderId: string }
  | { kind: "replace"; request: ReplaceRequest }
  | { kind: "expire" };

/** Relative weights of the commands. */
export interface FlowMix {
  limit: number;
  market: number;
  stop: number;
  cancel: number;
  replace: number;
  expire: number;
}

export interface OrderFlowOptions {
  /** Uniform in [0, 1): seeded for a replayable flow. */
  random: () => number;
  /** Starting mid price, ticks; it drifts by a tick now and then. */
  mid?: number;
  /** Limit prices fall within this many ticks of the mid (so about half the limit orders cross). */
  priceRangeTicks?: number;
  /** Orders come from this many accounts (few accounts exercise self-trade prevention). */
  accounts?: number;
  /** Quantities are 1..maxQty units. */
  maxQty?: number;
  mix?: Partial<FlowMix>;
}

const DEFAULT_MIX: FlowMix = { limit: 60, market: 15, stop: 5, cancel: 12, replace: 7, expire: 1 };
const TIFS: TimeInForce[] = ["gtc", "gtc", "gtc", "day", "ioc", "fok"];

/** Returns the next command each call. Cancels and replaces aim at recent orders (some already gone). */
export function randomOrderFlow(options: OrderFlowOptions): () => FlowCommand {
  const { random } = options;
  const range = options.priceRangeTicks ?? 10;
  const accounts = options.accounts ?? 20;
  const maxQty = options.maxQty ?? 100;
  const mix = { ...DEFAULT_MIX, ...options.mix };
  const weights = [mix.limit, mix.market, mix.stop, mix.cancel, mix.replace, mix.expire];
  const total = weights.reduce((a, b) => a + b, 0);
  let mid = options.mid ?? 10_000;
  let n = 0;
  const recent: string[] = [];
  const RECENT = 64;

  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const qty = () => BigInt(1 + Math.floor(random() * maxQty));
  const price = () => Math.max(1, mid + Math.round((random() * 2 - 1) * range));
  const side = (): Side => (random() < 0.5 ? "buy" : "sell");
  const newId = () => {
    const id = `o${++n}`;
    if (recent.length < RECENT) recent.push(id);
    else recent[n % RECENT] = id;
    return id;
  };

  return () => {
    if (random() < 0.05) mid = Math.max(range + 1, mid + (random() < 0.5 ? -1 : 1));
    let r = random() * total;
    let kind = 0;
    while (kind < weights.length - 1 && r >= (weights[kind] as number)) r -= weights[kind++] as number;
    const accountId = `acct-${Math.floor(random() * accounts)}`;
    switch (kind) {
      case 0:
        return {
          kind: "submit",
          request: {
            id: newId(),
            accountId,
            side: side(),
            type: "limit",
            qty: qty(),
            limitPrice: price(),
            timeInForce: pick(TIFS),
          },
        };
      case 1:
        return {
          kind: "submit",
          request: { id: newId(), accountId, side: side(), type: "market", qty: qty(), timeInForce: pick(TIFS) },
        };
      case 2: {
        const s = side();
        // Stops a little away from the mid on the side they protect, so that some trigger soon.
        const stopPrice = Math.max(1, mid + (s === "buy" ? 1 : -1) * Math.floor(random() * range));
        const withLimit = random() < 0.5;
        return {
          kind: "submit",
          request: {
            id: newId(),
            accountId,
            side: s,
            type: withLimit ? "stop_limit" : "stop",
            qty: qty(),
            stopPrice,
            limitPrice: withLimit ? Math.max(1, stopPrice + (s === "buy" ? 2 : -2)) : undefined,
            timeInForce: pick(["gtc", "day", "ioc"] as const),
          },
        };
      }
      case 3:
        return { kind: "cancel", orderId: recent.length ? pick(recent) : "none" };
      case 4: {
        const change = random();
        const request: ReplaceRequest = { orderId: recent.length ? pick(recent) : "none", newOrderId: newId() };
        if (change < 0.4) request.qty = qty();
        else if (change < 0.8) request.limitPrice = price();
        else request.timeInForce = pick(TIFS);
        return { kind: "replace", request };
      }
      default:
        return { kind: "expire" };
    }
  };
}

/** Runs one flow command on a book. */
export function applyFlowCommand(book: OrderBook, command: FlowCommand, at: number): BookEvent[] {
  switch (command.kind) {
    case "submit":
      return book.submit(command.request, at);
    case "cancel":
      return book.cancel(command.orderId, at);
    case "replace":
      return book.replace(command.request, at);
    case "expire":
      return book.expireDayOrders(at);
  }
}
