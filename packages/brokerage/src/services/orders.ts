/**
 * Orders of an account: placement, cancel, replace and reads. Concurrent requests of one account are checked
 * one after the other against the same cash, positions and open orders, so buying power and available
 * quantity can never be spent twice:
 * - a placement reads the account (balance, configuration, holds, positions and its version) in one
 *   statement, checks in JS, then writes the order, its legs and its command in one statement that first
 *   compares-and-swaps the account's version: any write of the account in between (another order, a fill, a
 *   cancel, a replace: each bumps the version) makes it write nothing, and the placement is checked again;
 * - cancels, replaces, and a placement that lost its compare-and-swap `OPTIMISTIC_ATTEMPTS` times, are one
 *   transaction that first locks the account row (bumping its version too).
 * Each queues a command for the exchange writer (execution/exchangeWriter.ts), which executes it on the live
 * books or the paper simulation and writes the fills; the answer is the order as accepted.
 */
import { randomUUID } from "node:crypto";
import { constraintViolation, type Database, type Queryable } from "@platform/kernel";
import {
  clientOrderIdTaken,
  forbiddenOrder,
  invalidOrder,
  OrderRejectedError,
  orderNotChanged,
  orderNotFound,
} from "../domain/orderErrors.ts";
import { heldBuyingPower, heldQuantity, withMarketCollar } from "../domain/orderHolds.ts";
import { type AlpacaOrder, isOpenStatus, type OrderRow, toAlpacaOrder } from "../domain/orderObject.ts";
import {
  type OrderBody,
  type OrderIntent,
  sameOrderTerms,
  type TimeInForce,
  toOrderIntent,
} from "../domain/orderRequest.ts";
import { fromNanos, mulNanos, numberToNanos, toNanos, valuePortfolio } from "../domain/portfolioValue.ts";
import { expiryOfDayOrder, expiryOfGtcOrder } from "../execution/sessions.ts";
import { auctionOrderAccepted } from "../market/nyseCalendar.ts";
import { isUuid } from "../store/accountsRepository.ts";
import type {
  NewOrderRow,
  OrderListQuery,
  OrdersRepository,
  PlacedOrders,
  PlacementState,
} from "../store/ordersRepository.ts";
import type { MarketService } from "./market.ts";

export type { OrderListQuery } from "../store/ordersRepository.ts";

export interface OrderReplacement {
  qty?: string | number | undefined;
  time_in_force?: TimeInForce | undefined;
  limit_price?: string | number | undefined;
  stop_price?: string | number | undefined;
  trail?: string | number | undefined;
  client_order_id?: string | undefined;
}

/** The order that replaces `old`: its open terms, each changed where `patch` gives a value. */
function replacementBody(old: OrderRow, patch: OrderReplacement): OrderBody {
  const remainingQty = toNanos(old.qty as string) - toNanos(old.filled_qty);
  return {
    symbol: old.symbol,
    side: old.side,
    type: old.type as OrderBody["type"],
    time_in_force: patch.time_in_force ?? (old.time_in_force as TimeInForce),
    qty: patch.qty ?? fromNanos(remainingQty),
    limit_price: patch.limit_price ?? old.limit_price ?? undefined,
    stop_price: patch.stop_price ?? old.stop_price ?? undefined,
    trail_price:
      old.type === "trailing_stop" && old.trail_price !== null ? (patch.trail ?? old.trail_price) : undefined,
    trail_percent:
      old.type === "trailing_stop" && old.trail_percent !== null ? (patch.trail ?? old.trail_percent) : undefined,
    extended_hours: old.extended_hours,
    client_order_id: patch.client_order_id,
  };
}

export interface CreateOrdersServiceParameters {
  db: Database;
  orders: OrdersRepository;
  market: MarketService;
  /** Wakes the exchange writer of this process after a commit (it also listens for other instances). */
  wakeExchange?: () => void;
}

/** How long closing every position with `cancel_orders` waits for the writer to end the canceled orders. */
const CANCEL_WAIT_MS = 5_000;
const CANCEL_POLL_MS = 20;
/**
 * Compare-and-swap placements before one takes the account lock: accounts placed on from many requests at
 * once then queue on the lock instead of re-reading in turns (each round lets one through); one account
 * placed on now and then never waits for a lock.
 */
const OPTIMISTIC_ATTEMPTS = 3;

/** What an order holds, as the placement state's read gives it. */
const holdOf = (o: OrderRow): PlacementState["holds"][number] => ({
  id: o.id,
  symbol: o.symbol,
  side: o.side,
  opens_short: o.opens_short,
  qty: o.qty,
  notional: o.notional,
  filled_qty: o.filled_qty,
  filled_value: o.filled_value,
  hold_price: o.hold_price,
  parent_id: o.parent_id,
  status: o.status,
});

/** Accounts whose last placement state this process remembers, at most (the oldest is forgotten first). */
const PLACEMENT_STATES_KEPT = 10_000;

export function createOrdersService({ db, orders, market, wakeExchange }: CreateOrdersServiceParameters) {
  /** By account: the state its last placement in this process was checked against, with that placement's orders. */
  const placementStates = new Map<string, PlacementState>();
  /** Locks the account row (every locked write of an account starts here) and refuses one that cannot trade. */
  async function lockAccount(tx: Queryable, accountId: string): Promise<PlacementState["account"]> {
    return tradingAccount(await orders.lockAccount(tx, accountId));
  }

  /** Locks the account, then reads what the checks need (its open orders' holds and its positions). */
  async function lockForPlacement(tx: Queryable, accountId: string): Promise<PlacementState> {
    const account = await lockAccount(tx, accountId);
    return { account, ...(await orders.holdsAndPositions(tx, accountId)) };
  }

  /** Checks buying power and quantity for `intent` under the account lock; the order's hold price and side. */
  function checkAgainstAccount(
    { account, holds: open, positions: heldPositions }: PlacementState,
    intent: OrderIntent,
    now: number,
    replacing?: string,
  ) {
    const symbol = intent.listing.asset.symbol;
    // A replacement takes the place of the order it replaces: that order's holds are not counted against it.
    const held = replacing ? open.filter((o) => o.id !== replacing) : open;
    const value = valuePortfolio({
      cash: account.cash,
      positions: heldPositions.map((p) => ({ qty: p.qty, price: market.priceOf(p.symbol, now).toFixed(9) })),
      held: heldBuyingPower(held),
      maxMarginMultiplier: account.max_margin_multiplier,
    });
    const position = toNanos(heldPositions.find((p) => p.symbol === symbol)?.qty ?? "0");
    const quote = market.quoteOf(symbol, now);
    const ask = numberToNanos(quote.askPrice);
    const bid = numberToNanos(quote.bidPrice);
    const qty = intent.qty ?? ((intent.notional as bigint) * 1_000_000_000n) / (intent.side === "buy" ? ask : bid);

    // Reducing a position (sell a long, buy back a short) must stay within what is not already being sold.
    const reducing = intent.side === "sell" ? position > 0n : position < 0n;
    let opensShort = false;
    if (reducing) {
      const owned = position > 0n ? position : -position;
      const available = owned - heldQuantity(held, symbol, intent.side);
      if (qty > available) {
        throw forbiddenOrder(
          `insufficient qty available for order (requested: ${fromNanos(qty)}, available: ${fromNanos(available > 0n ? available : 0n)})`,
          {
            symbol,
            existing_qty: fromNanos(owned),
            held_for_orders: fromNanos(owned - (available > 0n ? available : 0n)),
            available: fromNanos(available > 0n ? available : 0n),
          },
        );
      }
    } else if (intent.side === "sell") {
      opensShort = true;
      const { asset } = intent.listing;
      if (value.multiplier === 1 || account.no_shorting) throw forbiddenOrder("account is not allowed to short");
      if (!asset.shortable) throw forbiddenOrder(`asset "${symbol}" cannot be sold short`);
      if (!asset.easy_to_borrow) throw forbiddenOrder(`asset "${symbol}" is not available to borrow`);
      if (intent.notional !== undefined || qty % 1_000_000_000n !== 0n) {
        throw forbiddenOrder("fractional orders cannot sell short");
      }
    }

    // Buys and short sales use buying power; so does a crypto buy, but only from cash (not marginable).
    let holdPrice = 0n;
    if (intent.side === "buy" || opensShort) {
      const reference = intent.side === "buy" ? ask : bid;
      const collared = intent.side === "buy" ? withMarketCollar(reference) : reference;
      holdPrice = intent.limitPrice ?? (intent.stopPrice !== undefined ? withMarketCollar(intent.stopPrice) : collared);
      if (intent.type === "trailing_stop") {
        const trail =
          intent.trailPrice ?? (reference * BigInt(Math.round((intent.trailPercent ?? 0) * 1e6))) / 100_000_000n;
        holdPrice = withMarketCollar(reference + trail);
      }
      if (opensShort && holdPrice < bid) holdPrice = bid;
      const cost = intent.notional ?? mulNanos(qty, holdPrice);
      const available =
        intent.listing.asset.class === "crypto"
          ? minBig(value.availableBuyingPower, value.cash - heldBuyingPower(held))
          : value.availableBuyingPower;
      if (cost > available) {
        throw forbiddenOrder("insufficient buying power", {
          buying_power: fromNanos(value.buyingPower),
          cost_basis: fromNanos(cost),
        });
      }
    }
    // A notional sale becomes a quantity at placement: the shares it holds back are then exactly the ones it
    // may sell (a notional executed later at a lower price would sell more than were held).
    const sellQty = intent.side === "sell" && intent.notional !== undefined ? qty : undefined;
    return { holdPrice, opensShort, sellQty };
  }

  /** Runs an insert of orders, turning a client_order_id already used by the account into the anchor's 422. */
  async function inserting<T>(insert: () => Promise<T>): Promise<T> {
    try {
      return await insert();
    } catch (error) {
      if (constraintViolation(error)?.constraint === "orders_client_order_id_key") throw clientOrderIdTaken();
      throw error;
    }
  }

  const insertOrder = (tx: Queryable, row: NewOrderRow, command?: "submit" | "replace"): Promise<OrderRow> =>
    inserting(() => orders.insert(tx, row, command));

  /** Refuses an account that is missing or cannot trade. */
  function tradingAccount<A extends PlacementState["account"]>(account: A | undefined): A {
    if (!account) throw forbiddenOrder("account not found");
    if (account.status !== "ACTIVE" || account.suspend_trade) {
      throw forbiddenOrder("trading is suspended for this account");
    }
    return account;
  }

  /** The rows a placement inserts (the order, then its legs), checked against `state`. */
  function placementRows(state: PlacementState, intent: OrderIntent, at: Date): NewOrderRow[] {
    tradingAccount(state.account);
    const { holdPrice, opensShort, sellQty } = checkAgainstAccount(state, intent, at.getTime());
    if (sellQty === 0n) throw invalidOrder("notional is less than the price of the smallest quantity");
    const row = newRow(
      state.account.id,
      sellQty === undefined ? intent : { ...intent, qty: sellQty, notional: undefined },
      at,
      { hold_price: fromNanos(holdPrice), opens_short: opensShort },
    );
    return [row, ...(intent.orderClass === "simple" ? [] : legRows(row, intent, at))];
  }

  /** The placement's answer: the order with its legs (if any). */
  const placedOrder = ([stored, ...legs]: OrderRow[]): AlpacaOrder =>
    toAlpacaOrder(stored as OrderRow, legs.length > 0 ? legs : null);

  /**
   * Places without a lock: reads the account, checks, then writes if nothing changed the account since (the
   * compare-and-swap); undefined when it lost the race `OPTIMISTIC_ATTEMPTS` times.
   */
  async function placeOptimistically(
    accountId: string,
    intent: OrderIntent,
    at: Date,
  ): Promise<AlpacaOrder | undefined> {
    for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      const cached = attempt === 0 ? placementStates.get(accountId) : undefined;
      const state = cached ?? (await orders.placementState(accountId));
      if (!state) throw forbiddenOrder("account not found");
      let rows: NewOrderRow[];
      try {
        rows = placementRows(state, intent, at);
      } catch (error) {
        // A remembered state may hold back what the writer has released since (a cancel or an expiry does not
        // bump the version): a refusal is only given against what the database says now.
        if (!cached) throw error;
        placementStates.delete(accountId);
        attempt -= 1;
        continue;
      }
      const placed = await inserting(() => orders.place(accountId, state.account.version, rows, "submit"));
      if (placed) {
        remember(accountId, state, placed);
        wakeExchange?.();
        return placedOrder(placed.orders);
      }
      placementStates.delete(accountId);
    }
    return undefined;
  }

  /**
   * The state a placement was checked against, with the orders it placed and the version they left: the next
   * placement of the account checks against it without reading it again. The compare-and-swap proves it
   * current (every write of the account bumps the version); a stale one costs one lost swap and a read.
   */
  function remember(accountId: string, state: PlacementState, placed: PlacedOrders): void {
    const known = placementStates.get(accountId);
    if (known && BigInt(known.account.version) >= BigInt(placed.version)) return;
    placementStates.delete(accountId);
    if (placementStates.size >= PLACEMENT_STATES_KEPT) {
      const oldest = placementStates.keys().next().value;
      if (oldest !== undefined) placementStates.delete(oldest);
    }
    placementStates.set(accountId, {
      account: { ...state.account, version: placed.version },
      holds: [...state.holds, ...placed.orders.map(holdOf)],
      positions: state.positions,
    });
  }

  function newRow(accountId: string, intent: OrderIntent, at: Date, extra: Partial<NewOrderRow>): NewOrderRow {
    const { asset } = intent.listing;
    const id = randomUUID();
    const timeInForce = intent.timeInForce;
    return {
      id,
      account_id: accountId,
      client_order_id: intent.clientOrderId ?? id,
      symbol: asset.symbol,
      asset_id: asset.id,
      asset_class: asset.class,
      side: intent.side,
      type: intent.type,
      time_in_force: timeInForce,
      order_class: intent.orderClass,
      qty: intent.qty === undefined ? null : fromNanos(intent.qty),
      notional: intent.notional === undefined ? null : fromNanos(intent.notional),
      limit_price: intent.limitPrice === undefined ? null : fromNanos(intent.limitPrice),
      stop_price: intent.stopPrice === undefined ? null : fromNanos(intent.stopPrice),
      trail_price: intent.trailPrice === undefined ? null : fromNanos(intent.trailPrice),
      trail_percent: intent.trailPercent === undefined ? null : String(intent.trailPercent),
      extended_hours: intent.extendedHours,
      opens_short: false,
      hold_price: "0",
      status: "accepted",
      parent_id: null,
      replaces: null,
      at,
      expires_at:
        timeInForce === "gtc"
          ? expiryOfGtcOrder(at.getTime(), asset.class)
          : timeInForce === "day" && asset.class === "us_equity"
            ? expiryOfDayOrder(at.getTime(), market.sessionMode, intent.extendedHours)
            : null,
      ...extra,
    };
  }

  /** The exit legs of a bracket, oco or oto order: they sell what the entry buys (or buy back a short). */
  function legRows(parent: NewOrderRow, intent: OrderIntent, at: Date): NewOrderRow[] {
    const exitSide = intent.orderClass === "oco" ? intent.side : intent.side === "buy" ? "sell" : "buy";
    const base = { ...intent, side: exitSide, clientOrderId: undefined, notional: undefined } as OrderIntent;
    const status = intent.orderClass === "oco" ? "new" : "held";
    const legs: NewOrderRow[] = [];
    if (intent.takeProfit && intent.orderClass !== "oco") {
      legs.push(
        newRow(
          parent.account_id,
          { ...base, type: "limit", limitPrice: intent.takeProfit.limitPrice, stopPrice: undefined },
          at,
          {
            parent_id: parent.id,
            status,
          },
        ),
      );
    }
    if (intent.stopLoss) {
      const type = intent.stopLoss.limitPrice !== undefined ? "stop_limit" : "stop";
      legs.push(
        newRow(
          parent.account_id,
          { ...base, type, stopPrice: intent.stopLoss.stopPrice, limitPrice: intent.stopLoss.limitPrice },
          at,
          { parent_id: parent.id, status },
        ),
      );
    }
    return legs;
  }

  async function committed<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const result = await db.transaction(work);
    wakeExchange?.();
    return result;
  }

  return {
    /**
     * Places an order for `accountId`.
     * @throws {OrderRejectedError} with the anchor's status, code and message.
     */
    async place(accountId: string, body: OrderBody): Promise<AlpacaOrder> {
      const intent = toOrderIntent(body, market.findListing(body.symbol));
      const at = market.now();
      const tif = intent.timeInForce;
      if ((tif === "opg" || tif === "cls") && !auctionOrderAccepted(tif, at.getTime(), market.sessionMode)) {
        throw invalidOrder(`${tif} orders are not accepted at this time`);
      }
      const placed = await placeOptimistically(accountId, intent, at);
      if (placed) return placed;
      // Contended: under the account lock the compare-and-swap cannot fail (the lock's UPDATE read the version).
      return committed(async (tx) => {
        const state = await lockForPlacement(tx, accountId);
        const rows = placementRows(state, intent, at);
        const placed = await inserting(() => orders.place(accountId, state.account.version, rows, "submit", tx));
        if (!placed) throw new Error("the account changed under its lock");
        return placedOrder(placed.orders);
      });
    },

    /** Requests the cancel of an open order; the exchange writer cancels it (or it fills first). */
    async cancel(accountId: string, orderId: string): Promise<void> {
      if (!isUuid(orderId)) throw orderNotFound();
      await committed(async (tx) => {
        await lockAccount(tx, accountId);
        const order = await orders.lock(tx, accountId, orderId);
        if (!order) throw orderNotFound();
        if (!isOpenStatus(order.status) || order.status === "pending_cancel") {
          throw new OrderRejectedError(422, 42210000, "order is not cancelable");
        }
        await tx.query(
          "UPDATE brokerage.orders SET status = 'pending_cancel', cancel_requested_at = $2, updated_at = $2 WHERE id = $1",
          [orderId, market.now()],
        );
        await orders.enqueueCommand(tx, orderId, "cancel");
      });
    },

    /**
     * Cancels every open order of the account, the legs of bracket and oco orders included (a filled
     * entry's legs are open orders of their own, as at the anchor): the anchor's 207 body, one entry per order.
     */
    async cancelAll(accountId: string): Promise<{ id: string; status: number; body?: unknown }[]> {
      const ids = await orders.openIds(db, accountId);
      const results: { id: string; status: number; body?: unknown }[] = [];
      for (const id of ids) {
        try {
          await this.cancel(accountId, id);
          results.push({ id, status: 200 });
        } catch (error) {
          if (!(error instanceof OrderRejectedError)) throw error;
          results.push({ id, status: error.status, body: { code: error.code, message: error.message } });
        }
      }
      return results;
    },

    /**
     * Waits until the exchange writer has ended the orders `ids` (canceled, or filled first), at most
     * `timeoutMs`; answers those still open. What they held is free once they are ended, not when their
     * cancel is requested: an order may still fill until the writer takes it out of its venue.
     */
    async awaitEnded(accountId: string, ids: readonly string[], timeoutMs = CANCEL_WAIT_MS): Promise<string[]> {
      const deadline = Date.now() + timeoutMs;
      let open = await orders.stillOpen(accountId, ids);
      while (open.length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, CANCEL_POLL_MS));
        open = await orders.stillOpen(accountId, open);
      }
      return open;
    },

    /**
     * Replaces an open order by a new one (a new id, `replaces` the old): the old one becomes `replaced`
     * once the exchange writer swapped them. Checked again against buying power.
     */
    async replace(accountId: string, orderId: string, patch: OrderReplacement): Promise<AlpacaOrder> {
      if (!isUuid(orderId)) throw orderNotFound();
      const at = market.now();
      return committed(async (tx) => {
        const state = await lockForPlacement(tx, accountId);
        const old = await orders.lock(tx, accountId, orderId);
        if (!old) throw orderNotFound();
        if (!["new", "partially_filled", "accepted"].includes(old.status)) {
          throw new OrderRejectedError(422, 42210000, "order is not replaceable");
        }
        if (old.type === "market" || old.notional !== null)
          throw invalidOrder("market and notional orders cannot be replaced");
        const listing = market.findListing(old.symbol);
        const intent = toOrderIntent(replacementBody(old, patch), listing);
        // The anchor refuses a replacement that changes none of the order's terms (a new client_order_id alone).
        if (sameOrderTerms(intent, toOrderIntent(replacementBody(old, {}), listing))) throw orderNotChanged();
        const { holdPrice } = checkAgainstAccount(state, intent, at.getTime(), old.id);
        await tx.query("UPDATE brokerage.orders SET status = 'pending_replace', updated_at = $2 WHERE id = $1", [
          orderId,
          at,
        ]);
        const row = newRow(accountId, intent, at, {
          hold_price: fromNanos(holdPrice),
          opens_short: old.opens_short,
          replaces: old.id,
          status: "pending_new",
          order_class: old.order_class,
          parent_id: old.parent_id,
        });
        return toAlpacaOrder(await insertOrder(tx, row, "replace"));
      });
    },

    async get(accountId: string, orderId: string, nested = false): Promise<AlpacaOrder> {
      const row = isUuid(orderId) ? await orders.get(accountId, orderId) : undefined;
      if (!row) throw orderNotFound();
      return toAlpacaOrder(row, nested ? await orders.legsOf([row.id]) : null);
    },

    async byClientOrderId(accountId: string, clientOrderId: string): Promise<AlpacaOrder> {
      const row = await orders.byClientOrderId(accountId, clientOrderId);
      if (!row) throw orderNotFound();
      return toAlpacaOrder(row);
    },

    /** The account's orders matching `query`; with `nested`, legs under their parent. */
    async list(accountId: string, query: OrderListQuery): Promise<AlpacaOrder[]> {
      const rows = await orders.list(accountId, query);
      if (!query.nested) return rows.map((r) => toAlpacaOrder(r));
      const legs = await orders.legsOf(rows.filter((r) => r.order_class !== "simple").map((r) => r.id));
      return rows.map((r) =>
        toAlpacaOrder(
          r,
          legs.filter((l) => l.parent_id === r.id),
        ),
      );
    },
  };
}

const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);

export type OrdersService = ReturnType<typeof createOrdersService>;
