/**
 * The live venue: one order book per symbol (market/exchange/orderBook.ts) with the built-in market maker
 * quoting the price process around the current price, so live orders meet real depth and large ones fill
 * partially across levels. Customer limit orders rest in the books; the maker's quotes are not stored (on a
 * restart the books are rebuilt from the customers' open orders and the maker quotes afresh).
 *
 * Books use one tick per asset class: $0.0001 for equities (any valid equity price is a whole number of
 * them) and the pair's price increment for crypto. Market buys enter as limits at the best ask plus the
 * anchor's collar (4 %), immediate-or-cancel, so a fill never costs more than the buying power held for it.
 */
import { withMarketCollar } from "../domain/orderHolds.ts";
import { tickNanos } from "../domain/orderRequest.ts";
import { numberToNanos, toNanos } from "../domain/portfolioValue.ts";
import type { ListedAsset } from "../market/assets.ts";
import { MarketMaker } from "../market/exchange/marketMaker.ts";
import { OrderBook } from "../market/exchange/orderBook.ts";
import type { BookEvent, OrderRequest, RestingOrder } from "../market/exchange/types.ts";
import type { MarketService } from "../services/market.ts";
import type { Venue, VenueEvent } from "./venue.ts";

/** The maker's account id in the books (not a database account: its side of a fill is not stored). */
export const MARKET_MAKER_ACCOUNT = "market-maker";
const ONE = 1_000_000_000n;
const EQUITY_BOOK_TICK = 100_000n;
/** Dollars quoted at the levels nearest the mid. */
const LEVEL_NOTIONAL = 25_000;

export interface BookSnapshot {
  symbol: string;
  sequence: number;
  lastTradePrice?: bigint | undefined;
  orders: RestingOrder[];
}

interface Market {
  book: OrderBook;
  maker: MarketMaker;
  tick: bigint;
}

export function bookTickOf(listing: ListedAsset): bigint {
  return listing.asset.class === "crypto" && listing.asset.price_increment
    ? toNanos(listing.asset.price_increment)
    : EQUITY_BOOK_TICK;
}

export function createLiveVenue({
  market,
  restored = [],
}: {
  market: Pick<MarketService, "findListing" | "priceOf">;
  restored?: BookSnapshot[];
}): Venue {
  const markets = new Map<string, Market>();
  const restoredBySymbol = new Map(restored.map((s) => [s.symbol, s]));

  function open(symbol: string, at: number): { state: Market; events: BookEvent[] } {
    const existing = markets.get(symbol);
    if (existing) return { state: existing, events: [] };
    const listing = market.findListing(symbol) as ListedAsset;
    const tick = bookTickOf(listing);
    const snapshot = restoredBySymbol.get(symbol);
    const book = OrderBook.fromResting({
      symbol,
      sequence: snapshot?.sequence ?? 0,
      lastTradePrice: snapshot?.lastTradePrice === undefined ? undefined : Number(snapshot.lastTradePrice / tick),
      orders: snapshot?.orders ?? [],
    });
    const price = market.priceOf(symbol, at);
    const priceTick = tickNanos(listing, numberToNanos(price));
    const perPriceTick = Number(priceTick / tick);
    const halfSpread = Math.max(1, Math.ceil((price * listing.spreadBps) / 20_000 / (Number(priceTick) / 1e9)));
    const baseQty = (BigInt(Math.round((LEVEL_NOTIONAL / price) * 1e6)) * ONE) / 1_000_000n;
    const maker = new MarketMaker(book, {
      accountId: MARKET_MAKER_ACCOUNT,
      levels: 10,
      halfSpreadTicks: halfSpread * perPriceTick,
      levelSpacingTicks: perPriceTick,
      baseQty: baseQty > 0n ? baseQty : 1n,
      sizeGrowth: 1.5,
      maxInventory: baseQty * 400n,
      maxSkewTicks: 5 * perPriceTick,
    });
    const state = { book, maker, tick };
    markets.set(symbol, state);
    return { state, events: maker.quote(referenceTicks(symbol, state, at), at) };
  }

  const referenceTicks = (symbol: string, state: Market, at: number): number =>
    Number(numberToNanos(market.priceOf(symbol, at)) / state.tick);

  function customerEvents(events: readonly BookEvent[], tick: bigint): VenueEvent[] {
    const out: VenueEvent[] = [];
    for (const e of events) {
      if (e.type === "fill") {
        for (const side of [e.maker, e.taker]) {
          if (side.accountId === MARKET_MAKER_ACCOUNT) continue;
          out.push({
            type: "fill",
            orderId: side.orderId,
            qty: e.qty,
            price: BigInt(e.price) * tick,
            executionId: e.executionId,
            leaves: side.leavesQty,
            print: { sequence: e.sequence, takerSide: e.taker.side },
          });
        }
      } else if (e.type === "canceled" && e.accountId !== MARKET_MAKER_ACCOUNT) {
        out.push({ type: "canceled", orderId: e.orderId, reason: e.reason });
      } else if (e.type === "rejected" && e.accountId !== MARKET_MAKER_ACCOUNT) {
        out.push({ type: "rejected", orderId: e.orderId, reason: e.reason });
      }
    }
    return out;
  }

  // Where each resting customer order is (restored ones included, their books open on first use).
  const symbolOf = new Map<string, string>();
  for (const snapshot of restored) for (const o of snapshot.orders) symbolOf.set(o.id, snapshot.symbol);

  return {
    execute(order, at) {
      const symbol = order.row.symbol;
      const { state, events: opening } = open(symbol, at);
      const { book, maker, tick } = state;
      const buy = order.row.side === "buy";
      const bestAsk = book.bestAsk()?.price;
      let qty = order.leaves;
      // How the order enters the book; undefined when the side it takes is empty.
      let entry: Pick<OrderRequest, "type" | "limitPrice" | "timeInForce"> | undefined;
      if (order.notionalLeft !== undefined) {
        // Notional: as many units as the dollars buy at the best price, taken there and no further.
        const best = buy ? bestAsk : book.bestBid()?.price;
        if (best !== undefined) {
          qty = (order.notionalLeft * ONE) / (BigInt(best) * tick);
          entry = { type: "limit", limitPrice: best, timeInForce: "ioc" };
        }
      } else if (order.executeAs === "market" && buy) {
        if (bestAsk !== undefined) {
          entry = { type: "limit", limitPrice: Number(withMarketCollar(BigInt(bestAsk))), timeInForce: "ioc" };
        }
      } else if (order.executeAs === "market") {
        entry = { type: "market", timeInForce: "ioc" };
      } else {
        entry = {
          type: "limit",
          limitPrice: Number((order.limitPrice as bigint) / tick),
          timeInForce: order.timeInForce,
        };
      }
      if (!entry || qty <= 0n) {
        return [...customerEvents(opening, tick), { type: "canceled", orderId: order.row.id, reason: "no_liquidity" }];
      }
      const request: OrderRequest = {
        id: order.row.id,
        accountId: order.row.account_id,
        side: order.row.side,
        qty,
        ...entry,
      };
      const events = book.submit(request, at);
      maker.observe(events);
      if (book.order(order.row.id)) symbolOf.set(order.row.id, symbol);
      return customerEvents([...opening, ...events], tick);
    },

    remove(orderId, at, reason) {
      const symbol = symbolOf.get(orderId);
      if (!symbol) return [];
      const { state, events: opening } = open(symbol, at);
      symbolOf.delete(orderId);
      if (!state.book.order(orderId)) return customerEvents(opening, state.tick);
      return customerEvents([...opening, ...state.book.cancel(orderId, at, reason)], state.tick);
    },

    tick(at) {
      const out: VenueEvent[] = [];
      // A book restored with resting orders opens at the first tick, not at the first command on its symbol:
      // the market may have reached its orders while the writer was down.
      for (const snapshot of restored) {
        if (markets.has(snapshot.symbol) || !snapshot.orders.some((o) => symbolOf.has(o.id))) continue;
        const { state, events } = open(snapshot.symbol, at);
        out.push(...customerEvents(events, state.tick));
      }
      for (const [symbol, state] of markets) {
        const events = state.maker.quote(referenceTicks(symbol, state, at), at);
        for (const e of customerEvents(events, state.tick)) out.push(e);
      }
      for (const e of out) if (e.type === "fill" && e.leaves === 0n) symbolOf.delete(e.orderId);
      return out;
    },

    priorityOf(orderId) {
      const symbol = symbolOf.get(orderId);
      return symbol ? markets.get(symbol)?.book.order(orderId)?.priority : undefined;
    },

    bookStates(symbols) {
      const states = [];
      for (const symbol of symbols) {
        const state = markets.get(symbol);
        if (!state) continue;
        const last = state.book.lastTradePrice;
        states.push({
          symbol,
          sequence: state.book.sequence,
          lastTradePrice: last === undefined ? undefined : BigInt(last) * state.tick,
        });
      }
      return states;
    },
  };
}
