/**
 * `POST /v2/orders`'s body as an order the exchange can take: every rule of the anchor that depends only on
 * the request and the asset (reference §2.4), checked before anything is locked or written. What depends on
 * the account (buying power, available quantity, shorting) is checked in the placement transaction.
 *
 * Amounts become 1e-9 units (`bigint`, see portfolioValue.ts), so "0.1" share and "$187.25" are exact.
 */
import type { ListedAsset } from "../market/assets.ts";
import { tickFor } from "../market/priceTicks.ts";
import { invalidOrder } from "./orderErrors.ts";
import { fromNanos, toNanos } from "./portfolioValue.ts";

export type OrderSide = "buy" | "sell";
export type OrderType = "market" | "limit" | "stop" | "stop_limit" | "trailing_stop";
export type TimeInForce = "day" | "gtc" | "opg" | "cls" | "ioc" | "fok";
export type OrderClass = "simple" | "bracket" | "oco" | "oto";

/** The body as it arrives (numbers may be JSON numbers or decimal strings, as the anchor accepts both). */
export interface OrderBody {
  symbol: string;
  qty?: string | number | undefined;
  notional?: string | number | undefined;
  side: OrderSide;
  type: OrderType;
  time_in_force: TimeInForce;
  limit_price?: string | number | undefined;
  stop_price?: string | number | undefined;
  trail_price?: string | number | undefined;
  trail_percent?: string | number | undefined;
  extended_hours?: boolean | undefined;
  client_order_id?: string | undefined;
  order_class?: OrderClass | "" | undefined;
  take_profit?: { limit_price: string | number } | undefined;
  stop_loss?: { stop_price: string | number; limit_price?: string | number | undefined } | undefined;
}

/** A validated order; amounts in 1e-9 units. */
export interface OrderIntent {
  listing: ListedAsset;
  side: OrderSide;
  type: OrderType;
  timeInForce: TimeInForce;
  qty?: bigint | undefined;
  notional?: bigint | undefined;
  limitPrice?: bigint | undefined;
  stopPrice?: bigint | undefined;
  trailPrice?: bigint | undefined;
  /** Percent, e.g. 1.5 for 1.5 %. */
  trailPercent?: number | undefined;
  extendedHours: boolean;
  clientOrderId?: string | undefined;
  orderClass: OrderClass;
  takeProfit?: { limitPrice: bigint } | undefined;
  stopLoss?: { stopPrice: bigint; limitPrice?: bigint | undefined } | undefined;
}

const ONE = 1_000_000_000n;
export const MAX_CLIENT_ORDER_ID_LENGTH = 48;
/** Largest quantity or notional taken: far above any real order, far below numeric overflow. */
const MAX_AMOUNT = 10n ** 12n * ONE;

function decimal(name: string, value: string | number | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : value.trim();
  if (!/^\d{1,13}(\.\d{1,9})?$/.test(text)) {
    // 1e-7 and similar: a JSON number printed in exponent form.
    if (typeof value === "number" && value > 0 && value < 1e13) return decimal(name, value.toFixed(9));
    throw invalidOrder(`invalid ${name}: ${String(value)}`);
  }
  const nanos = toNanos(text);
  if (nanos <= 0n) throw invalidOrder(`${name} must be > 0`);
  if (nanos > MAX_AMOUNT) throw invalidOrder(`${name} is too large`);
  return nanos;
}

/** The tick of an asset at a price, in nanos: whole cents at $1 and above, $0.0001 below; crypto's increment. */
export function tickNanos(listing: ListedAsset, price: bigint): bigint {
  // The rule itself is priceTicks.ts's `tickFor` (Reg NMS 612 and crypto increments); here in exact units.
  const tick = tickFor(listing.asset, Number(price) / 1e9);
  return toNanos(tick.size.toFixed(tick.decimals));
}

function onTick(name: string, listing: ListedAsset, price: bigint | undefined): void {
  if (price === undefined) return;
  if (price % tickNanos(listing, price) !== 0n) {
    throw invalidOrder(
      `invalid ${name} ${fromNanos(price)}. sub-penny increment does not fulfill minimum pricing criteria`,
    );
  }
}

/**
 * Checks `body` against the anchor's order rules for `listing` (undefined: the symbol is unknown).
 * @throws {OrderRejectedError} 422 with the anchor's message for the first rule broken.
 */
export function toOrderIntent(body: OrderBody, listing: ListedAsset | undefined): OrderIntent {
  if (!listing) throw invalidOrder(`asset "${body.symbol}" not found`);
  const { asset } = listing;
  if (asset.status !== "active" || !asset.tradable) throw invalidOrder(`asset "${asset.symbol}" is not tradable`);
  const crypto = asset.class === "crypto";
  const orderClass: OrderClass = body.order_class ? body.order_class : "simple";
  const { side, type, time_in_force: timeInForce } = body;

  const qty = decimal("qty", body.qty);
  const notional = decimal("notional", body.notional);
  if (qty !== undefined && notional !== undefined) throw invalidOrder("only one of qty or notional is accepted");
  if (qty === undefined && notional === undefined) throw invalidOrder("qty or notional is required");

  const limitPrice = decimal("limit_price", body.limit_price);
  const stopPrice = decimal("stop_price", body.stop_price);
  const trailPrice = decimal("trail_price", body.trail_price);
  const trailPercentNanos = decimal("trail_percent", body.trail_percent);
  const needsLimit = type === "limit" || type === "stop_limit";
  const needsStop = type === "stop" || type === "stop_limit";
  if (needsLimit && limitPrice === undefined && !(orderClass === "oco" && body.take_profit)) {
    throw invalidOrder("limit_price is required");
  }
  if (!needsLimit && limitPrice !== undefined) throw invalidOrder(`limit_price is not allowed for ${type} orders`);
  if (needsStop && stopPrice === undefined) throw invalidOrder("stop_price is required");
  if (!needsStop && stopPrice !== undefined) throw invalidOrder(`stop_price is not allowed for ${type} orders`);
  if (type === "trailing_stop") {
    if ((trailPrice === undefined) === (trailPercentNanos === undefined)) {
      throw invalidOrder("trailing_stop orders need exactly one of trail_price or trail_percent");
    }
    if (timeInForce !== "day" && timeInForce !== "gtc") throw invalidOrder("trailing_stop orders must be day or gtc");
    if (trailPercentNanos !== undefined && trailPercentNanos >= 100n * ONE) {
      throw invalidOrder("trail_percent must be below 100");
    }
  } else if (trailPrice !== undefined || trailPercentNanos !== undefined) {
    throw invalidOrder("trail_price and trail_percent are only for trailing_stop orders");
  }
  onTick("limit_price", listing, limitPrice);
  onTick("stop_price", listing, stopPrice);

  if (crypto) {
    if (timeInForce !== "gtc" && timeInForce !== "ioc") throw invalidOrder("invalid crypto time_in_force");
    if (type === "trailing_stop") throw invalidOrder("trailing_stop orders are not supported for crypto");
    if (orderClass !== "simple") throw invalidOrder("crypto orders must be simple orders");
    const min = asset.min_order_size ? toNanos(asset.min_order_size) : 0n;
    if (qty !== undefined && qty < min) throw invalidOrder(`qty must be >= ${asset.min_order_size}`);
    if (notional !== undefined && notional < ONE) throw invalidOrder("notional must be >= 1");
  } else {
    const fractional = qty !== undefined && qty % ONE !== 0n;
    if ((fractional || notional !== undefined) && !asset.fractionable) {
      throw invalidOrder(`asset ${asset.symbol} is not fractionable`);
    }
    if (fractional || notional !== undefined) {
      if (timeInForce !== "day") throw invalidOrder("fractional orders must be day orders");
      if (type === "trailing_stop") throw invalidOrder("fractional orders cannot be trailing_stop orders");
      if (orderClass !== "simple") throw invalidOrder("fractional orders must be simple orders");
    }
    if (notional !== undefined && notional < ONE) throw invalidOrder("notional must be >= 1");
  }
  if (notional !== undefined && type !== "market") throw invalidOrder("notional orders must be market orders");
  if (body.extended_hours && (type !== "limit" || timeInForce !== "day")) {
    throw invalidOrder("extended hours order must be DAY limit orders");
  }
  if (body.client_order_id !== undefined && body.client_order_id.length > MAX_CLIENT_ORDER_ID_LENGTH) {
    throw invalidOrder(`client_order_id must be at most ${MAX_CLIENT_ORDER_ID_LENGTH} characters`);
  }

  const takeProfit = body.take_profit
    ? { limitPrice: decimal("take_profit.limit_price", body.take_profit.limit_price) as bigint }
    : undefined;
  const stopLoss = body.stop_loss
    ? {
        stopPrice: decimal("stop_loss.stop_price", body.stop_loss.stop_price) as bigint,
        limitPrice: decimal("stop_loss.limit_price", body.stop_loss.limit_price),
      }
    : undefined;
  onTick("take_profit.limit_price", listing, takeProfit?.limitPrice);
  onTick("stop_loss.stop_price", listing, stopLoss?.stopPrice);
  onTick("stop_loss.limit_price", listing, stopLoss?.limitPrice);
  checkOrderClass(orderClass, { type, timeInForce, side, limitPrice, takeProfit, stopLoss });

  return {
    listing,
    side,
    type,
    timeInForce,
    qty,
    notional,
    limitPrice: orderClass === "oco" ? (takeProfit?.limitPrice ?? limitPrice) : limitPrice,
    stopPrice,
    trailPrice,
    trailPercent: trailPercentNanos === undefined ? undefined : Number(fromNanos(trailPercentNanos)),
    extendedHours: body.extended_hours ?? false,
    clientOrderId: body.client_order_id,
    orderClass,
    takeProfit,
    stopLoss,
  };
}

function checkOrderClass(
  orderClass: OrderClass,
  o: {
    type: OrderType;
    timeInForce: TimeInForce;
    side: OrderSide;
    limitPrice?: bigint | undefined;
    takeProfit?: { limitPrice: bigint } | undefined;
    stopLoss?: { stopPrice: bigint; limitPrice?: bigint | undefined } | undefined;
  },
): void {
  if (orderClass === "simple") {
    if (o.takeProfit || o.stopLoss)
      throw invalidOrder("take_profit and stop_loss need order_class bracket, oco or oto");
    return;
  }
  if (o.timeInForce !== "day" && o.timeInForce !== "gtc") {
    throw invalidOrder(`${orderClass} orders must be day or gtc`);
  }
  if (orderClass === "bracket" && (!o.takeProfit || !o.stopLoss)) {
    throw invalidOrder("bracket orders need take_profit and stop_loss");
  }
  if (orderClass === "oto" && !o.takeProfit === !o.stopLoss) {
    throw invalidOrder("oto orders need exactly one of take_profit or stop_loss");
  }
  if (orderClass === "oco") {
    if (o.type !== "limit") throw invalidOrder("oco orders must be limit orders");
    if (!o.takeProfit || !o.stopLoss) throw invalidOrder("oco orders need take_profit and stop_loss");
  } else if (o.type !== "market" && o.type !== "limit") {
    throw invalidOrder(`${orderClass} entry orders must be market or limit orders`);
  }
  // The exit legs must sit on the profitable and the protective side of each other.
  if (o.takeProfit && o.stopLoss) {
    const exitIsSell = orderClass === "oco" ? o.side === "sell" : o.side === "buy";
    const ordered = exitIsSell
      ? o.takeProfit.limitPrice > o.stopLoss.stopPrice
      : o.takeProfit.limitPrice < o.stopLoss.stopPrice;
    if (!ordered) {
      throw invalidOrder(
        exitIsSell
          ? "take_profit.limit_price must be above stop_loss.stop_price"
          : "take_profit.limit_price must be below stop_loss.stop_price",
      );
    }
  }
}

/** Whether two orders trade on the same terms: quantity, time in force, limit and stop prices, trail. */
export function sameOrderTerms(a: OrderIntent, b: OrderIntent): boolean {
  return (
    a.qty === b.qty &&
    a.timeInForce === b.timeInForce &&
    a.limitPrice === b.limitPrice &&
    a.stopPrice === b.stopPrice &&
    a.trailPrice === b.trailPrice &&
    a.trailPercent === b.trailPercent
  );
}
