/**
 * A random flow of trading requests through the orders service, for the exchange writer's kill test: live
 * and paper accounts place market orders, limit orders (marketable, at the touch, far away), stops and
 * notional buys, small and large (large ones fill partially, over several levels of a live book or beyond
 * the paper quote's size), some as large as the account's cash allows; they sell what they hold (margin
 * accounts also short) and cancel and replace their open orders. Refusals (buying power, quantity, not
 * cancelable) are part of the flow. Give it a seeded `random` for a replayable flow.
 */
import type { Queryable } from "@platform/kernel";
import { OrderRejectedError } from "../domain/orderErrors.ts";
import type { OrderBody, TimeInForce } from "../domain/orderRequest.ts";
import type { MarketService } from "../services/market.ts";
import type { OrdersService } from "../services/orders.ts";
import { OPEN_STATUS_LIST } from "../store/ordersRepository.ts";

export interface FlowAccount {
  id: string;
  env: "live" | "paper";
  /** Margin accounts may sell short. */
  margin: boolean;
}

export interface OrderFlowParameters {
  orders: OrdersService;
  db: Queryable;
  market: MarketService;
  accounts: readonly FlowAccount[];
  /** Uniform in [0, 1). */
  random: () => number;
  /** Requests to make. */
  actions: number;
}

const SYMBOLS = ["AAPL", "KO", "INTC", "INTC", "ETH/USD"] as const;
/** Traded by the sweeps only (AT&T, about $27: a sweep of 1,500–2,500 shares stays within a margin account's power). */
const SWEEP_SYMBOL = "T";

/**
 * Makes `actions` requests; answers the ids of the orders accepted (placements and replacements). The first
 * is always a sweep: a margin account's large limit order through the touch, which fills over several
 * executions (partial fills) and rests what is left.
 */
export async function runOrderFlow(p: OrderFlowParameters): Promise<string[]> {
  const { random } = p;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const accepted: string[] = [];
  const sweeper = pick(p.accounts.filter((a) => a.margin));
  for (let i = 0; i < p.actions; i++) {
    const account = pick(p.accounts);
    const r = random();
    try {
      if (i === 0 && sweeper) accepted.push((await p.orders.place(sweeper.id, await sweep(p))).id);
      else if (r < 0.6) accepted.push((await p.orders.place(account.id, await orderBody(p, account, pick))).id);
      else if (r < 0.8) {
        const [order] = await openOrders(p.db, account.id, pick, "");
        if (order) await p.orders.cancel(account.id, order.id);
      } else {
        const [order] = await openOrders(p.db, account.id, pick, "AND type = 'limit'");
        if (order) accepted.push((await p.orders.replace(account.id, order.id, replacement(order, random))).id);
      }
    } catch (error) {
      if (!(error instanceof OrderRejectedError)) throw error;
    }
  }
  return accepted;
}

interface OpenOrder {
  id: string;
  symbol: string;
  qty: string;
  filled_qty: string;
  limit_price: string;
}

/** One of the account's open orders (none when it has none), drawn with `pick`. */
async function openOrders(db: Queryable, accountId: string, pick: <T>(items: readonly T[]) => T, filter: string) {
  const rows = await db.query<OpenOrder>(
    `SELECT id, symbol, qty, filled_qty, limit_price FROM brokerage.orders
     WHERE account_id = $1 AND status IN (${OPEN_STATUS_LIST}) ${filter} ORDER BY created_at, id`,
    [accountId],
  );
  return rows.length > 0 ? [pick(rows)] : [];
}

/** A new quantity or a limit price some ticks away (possibly marketable now). */
function replacement(order: OpenOrder, random: () => number) {
  const tick = tickOf(order.symbol);
  if (random() < 0.5) {
    const qty = order.symbol === "ETH/USD" ? (1 + Math.floor(random() * 2000)) / 1000 : 1 + Math.floor(random() * 50);
    return { qty: String(qty) };
  }
  const ticks = Math.round(Number(order.limit_price) / tick.size) + Math.floor(random() * 11) - 5;
  return { limit_price: price(Math.max(1, ticks), tick) };
}

/**
 * 1,500–2,500 INTC through the touch by 3 ticks: more than the quote's (or the book's first level's) size.
 * It sells all the account's INTC when it holds some, else buys, so its position stays within its buying power.
 */
/**
 * The sweep buys a symbol no other request of the flow trades (so its account is never short there and a buy
 * is always allowed), for more than the quote shows: on the live book it takes several of the maker's levels,
 * in the paper simulation the quote's size first and the rest later. Either way it fills in several parts.
 */
async function sweep(p: OrderFlowParameters): Promise<OrderBody> {
  const quote = p.market.quoteOf(SWEEP_SYMBOL);
  const limit = Math.round(quote.askPrice * 100) + 3;
  const qty = Math.max(1_500 + Math.floor(p.random() * 1_000), Math.ceil(quote.askSize * 2));
  return {
    symbol: SWEEP_SYMBOL,
    side: "buy",
    type: "limit",
    time_in_force: "gtc",
    qty: String(qty),
    limit_price: price(limit, tickOf(SWEEP_SYMBOL)),
  };
}

const tickOf = (symbol: string) => (symbol === "ETH/USD" ? { size: 0.1, decimals: 1 } : { size: 0.01, decimals: 2 });
const price = (ticks: number, tick: { size: number; decimals: number }) => (ticks * tick.size).toFixed(tick.decimals);

async function orderBody(
  p: OrderFlowParameters,
  account: FlowAccount,
  pick: <T>(items: readonly T[]) => T,
): Promise<OrderBody> {
  const { random } = p;
  const symbol = pick(SYMBOLS);
  const crypto = symbol === "ETH/USD";
  const tick = tickOf(symbol);
  const quote = p.market.quoteOf(symbol);
  const bid = Math.round(quote.bidPrice / tick.size);
  const ask = Math.round(quote.askPrice / tick.size);
  const [held] = await p.db.query<{ qty: string }>(
    "SELECT qty FROM brokerage.positions WHERE account_id = $1 AND symbol = $2",
    [account.id, symbol],
  );
  const [{ cash } = { cash: "0" }] = await p.db.query<{ cash: string }>(
    "SELECT cash FROM brokerage.accounts WHERE id = $1",
    [account.id],
  );
  const position = Number(held?.qty ?? 0);
  const sell = (position > 0 && random() < 0.5) || (account.margin && !crypto && random() < 0.15);
  const side = sell ? "sell" : "buy";

  let qty: string;
  const size = random();
  if (sell && position > 0) qty = size < 0.3 ? (held?.qty ?? "1") : String(Math.max(1, Math.floor(position * size)));
  else if (crypto) qty = String((1 + Math.floor(size * 3000)) / 1000);
  else if (size < 0.6) qty = String(1 + Math.floor(random() * 10));
  else if (size < 0.85) qty = String(100 + Math.floor(random() * 600));
  else qty = String(Math.max(1, Math.floor((Number(cash) * 0.9) / quote.askPrice))); // all in

  const kind = random();
  if (kind < 0.07 && !crypto && !sell) {
    return { symbol, side, type: "market", time_in_force: "day", notional: String(50 + Math.floor(random() * 2000)) };
  }
  if (kind < 0.4) {
    const tif = crypto ? pick<TimeInForce>(["gtc", "ioc"]) : pick<TimeInForce>(["day", "gtc", "ioc"]);
    return { symbol, side, type: "market", time_in_force: tif, qty };
  }
  if (kind < 0.48 && !crypto) {
    const away = 1 + Math.floor(random() * 10);
    const stop = side === "buy" ? ask + away : Math.max(1, bid - away);
    return {
      symbol,
      side,
      type: "stop",
      time_in_force: pick<TimeInForce>(["day", "gtc"]),
      qty,
      stop_price: price(stop, tick),
    };
  }
  const where = random();
  const k = Math.floor(random() * 6);
  let limit: number;
  if (where < 0.4)
    limit = side === "buy" ? ask + k : bid - k; // marketable
  else if (where < 0.75)
    limit = side === "buy" ? Math.min(bid + 1, ask - 1) : Math.max(ask - 1, bid + 1); // at the touch
  else limit = side === "buy" ? bid - 5 - k * 10 : ask + 5 + k * 10; // far away
  const tif = crypto
    ? pick<TimeInForce>(["gtc", "gtc", "ioc"])
    : pick<TimeInForce>(["day", "gtc", "gtc", "ioc", "fok"]);
  return { symbol, side, type: "limit", time_in_force: tif, qty, limit_price: price(Math.max(1, limit), tick) };
}
