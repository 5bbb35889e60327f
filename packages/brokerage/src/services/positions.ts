/**
 * Open positions of an account, valued at the market's current price (the anchor's position object), and
 * closing them: a close is a market order for the position's quantity (or part of it), placed through the
 * orders service like any other, so it is checked and executed the same way.
 */
import type { AccountValuation } from "../domain/accountObject.ts";
import { positionNotFound } from "../domain/orderErrors.ts";
import { heldBuyingPower, heldQuantity } from "../domain/orderHolds.ts";
import type { AlpacaOrder } from "../domain/orderObject.ts";
import { fromNanos, mulNanos, numberToNanos, toNanos, valuePortfolio } from "../domain/portfolioValue.ts";
import type { OpenOrderHold, OrdersRepository } from "../store/ordersRepository.ts";
import type { PositionRow, PositionsRepository } from "../store/positionsRepository.ts";
import type { MarketService } from "./market.ts";
import type { OrdersService } from "./orders.ts";

export interface AlpacaPosition {
  asset_id: string;
  symbol: string;
  exchange: string;
  asset_class: string;
  asset_marginable: boolean;
  avg_entry_price: string;
  qty: string;
  qty_available: string;
  side: "long" | "short";
  market_value: string;
  cost_basis: string;
  unrealized_pl: string;
  unrealized_plpc: string;
  unrealized_intraday_pl: string;
  unrealized_intraday_plpc: string;
  current_price: string;
  lastday_price: string;
  change_today: string;
}

const ONE = 1_000_000_000n;
/** The signed position's quantity not held by open orders (same sign as the position, never past zero). */
function available(qty: bigint, held: bigint): bigint {
  const left = (qty < 0n ? -qty : qty) - held;
  const clamped = left > 0n ? left : 0n;
  return qty < 0n ? -clamped : clamped;
}

const DAY_MS = 86_400_000;

export function createPositionsService({
  positions,
  orderHolds,
  market,
  orders,
}: {
  positions: PositionsRepository;
  /** Open orders' holds: what they keep of a position, and of buying power. */
  orderHolds: Pick<OrdersRepository, "openHolds" | "valuationInputs">;
  market: MarketService;
  /** Closing a position places an order. */
  orders: OrdersService;
}) {
  const heldOf = (accountId: string) => orderHolds.openHolds(undefined, accountId);
  /** `held`: what open orders that reduce the position hold of it (not available to a new order). */
  function toAlpacaPosition(row: PositionRow, held: readonly OpenOrderHold[] = []): AlpacaPosition {
    const now = market.now().getTime();
    const qty = toNanos(row.qty);
    const price = numberToNanos(market.priceOf(row.symbol, now));
    const lastday = numberToNanos(market.priceOf(row.symbol, now - DAY_MS));
    const avg = toNanos(row.avg_entry_price);
    const marketValue = mulNanos(qty, price);
    const costBasis = mulNanos(qty, avg);
    const pl = marketValue - costBasis;
    const intraday = marketValue - mulNanos(qty, lastday);
    const ratio = (a: bigint, b: bigint) => (b === 0n ? "0" : fromNanos((a * ONE) / (b < 0n ? -b : b)));
    return {
      asset_id: row.asset_id,
      symbol: row.symbol,
      exchange: row.exchange,
      asset_class: row.asset_class,
      asset_marginable: row.asset_class === "us_equity",
      avg_entry_price: fromNanos(avg),
      qty: fromNanos(qty),
      qty_available: fromNanos(available(qty, heldQuantity(held, row.symbol, qty >= 0n ? "sell" : "buy"))),
      side: qty >= 0n ? "long" : "short",
      market_value: fromNanos(marketValue),
      cost_basis: fromNanos(costBasis),
      unrealized_pl: fromNanos(pl),
      unrealized_plpc: ratio(pl, costBasis),
      unrealized_intraday_pl: fromNanos(intraday),
      unrealized_intraday_plpc: ratio(intraday, mulNanos(qty, lastday)),
      current_price: fromNanos(price),
      lastday_price: fromNanos(lastday),
      change_today: ratio(price - lastday, lastday),
    };
  }

  async function find(accountId: string, symbolOrId: string): Promise<PositionRow> {
    const listing = market.findListing(symbolOrId);
    const row = listing ? await positions.get(accountId, listing.asset.symbol) : undefined;
    if (!row) throw positionNotFound();
    return row;
  }

  return {
    /** The account's value at the market's current prices (for `GET /v2/account`). */
    async valuationOf(accountId: string): Promise<AccountValuation | undefined> {
      const account = await orderHolds.valuationInputs(accountId);
      if (!account) return undefined;
      const now = market.now().getTime();
      const { holds: held, positions: open } = account;
      const value = valuePortfolio({
        cash: account.cash,
        positions: open.map((p) => ({ qty: p.qty, price: market.priceOf(p.symbol, now).toFixed(9) })),
        held: heldBuyingPower(held),
        maxMarginMultiplier: account.max_margin_multiplier,
      });
      return {
        value,
        lastEquity: account.last_equity,
        shortingEnabled: value.multiplier > 1 && !account.no_shorting,
        tradeSuspended: account.suspend_trade,
      };
    },

    async list(accountId: string): Promise<AlpacaPosition[]> {
      const [rows, held] = await Promise.all([positions.list(accountId), heldOf(accountId)]);
      return rows.map((row) => toAlpacaPosition(row, held));
    },

    async get(accountId: string, symbolOrId: string): Promise<AlpacaPosition> {
      const [row, held] = await Promise.all([find(accountId, symbolOrId), heldOf(accountId)]);
      return toAlpacaPosition(row, held);
    },

    /**
     * Closes the position (or `qty` of it, or `percentage` of it) with a market order; the order is the answer.
     * @throws {OrderRejectedError} 404 without a position; 403/422 as a placement would.
     */
    async close(
      accountId: string,
      symbolOrId: string,
      part: { qty?: string; percentage?: string } = {},
    ): Promise<AlpacaOrder> {
      const row = await find(accountId, symbolOrId);
      const held = toNanos(row.qty);
      const whole = held < 0n ? -held : held;
      let qty = whole;
      if (part.qty !== undefined) qty = toNanos(part.qty);
      else if (part.percentage !== undefined) {
        qty = (whole * toNanos(part.percentage)) / (100n * ONE);
        // Whole shares of a non-fractionable asset, as the anchor rounds a percentage close down.
        if (!market.findListing(row.symbol)?.asset.fractionable) qty -= qty % ONE;
      }
      const crypto = row.asset_class === "crypto";
      return orders.place(accountId, {
        symbol: row.symbol,
        qty: fromNanos(qty),
        side: held > 0n ? "sell" : "buy",
        type: "market",
        time_in_force: crypto ? "gtc" : "day",
      });
    },

    /** Closes every position (canceling open orders first when asked): the anchor's 207 body. */
    async closeAll(
      accountId: string,
      cancelOrders: boolean,
    ): Promise<{ symbol: string; status: number; body: unknown }[]> {
      if (cancelOrders) {
        // The closing orders sell what the canceled ones held: only once those are ended is it available.
        const canceled = await orders.cancelAll(accountId);
        await orders.awaitEnded(
          accountId,
          canceled.filter((c) => c.status === 200).map((c) => c.id),
        );
      }
      const results: { symbol: string; status: number; body: unknown }[] = [];
      for (const row of await positions.list(accountId)) {
        try {
          results.push({ symbol: row.symbol, status: 200, body: await this.close(accountId, row.symbol) });
        } catch (error) {
          const e = error as { status?: number; code?: number; message: string };
          if (e.status === undefined) throw error;
          results.push({ symbol: row.symbol, status: e.status, body: { code: e.code, message: e.message } });
        }
      }
      return results;
    },
  };
}

export type PositionsService = ReturnType<typeof createPositionsService>;
