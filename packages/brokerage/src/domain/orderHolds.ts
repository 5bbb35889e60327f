/**
 * What an account's open orders hold back from new ones: buying power (buys and short sales hold their
 * remaining quantity × hold price, notional buys what is left of their notional) and shares (sales that
 * close a long hold their remaining quantity, so two concurrent sales can never sell one share twice).
 * The exit legs of one bracket or oco order cover the same shares: they hold them once.
 */
import { mulNanos, toNanos } from "./portfolioValue.ts";

/**
 * The anchor turns market buys into marketable limits 2.5–4 % through the ask; we use 4 %: the live venue
 * enters a market buy at the best ask plus this collar, so placement holds exactly that much per share.
 */
export const MARKET_COLLAR_BPS = 400n;
/** `price` plus the market collar (any unit: nanos or ticks). */
export const withMarketCollar = (price: bigint): bigint => price + (price * MARKET_COLLAR_BPS) / 10_000n;

export interface OrderHoldInput {
  symbol: string;
  side: "buy" | "sell";
  opens_short: boolean;
  qty: string | null;
  notional: string | null;
  filled_qty: string;
  filled_value: string;
  hold_price: string;
  parent_id: string | null;
  status: string;
}

const remaining = (o: OrderHoldInput): bigint => (o.qty === null ? 0n : toNanos(o.qty) - toNanos(o.filled_qty));

/** Buying power held by open orders, in 1e-9 USD. Legs waiting for their parent (`held`) hold nothing yet. */
export function heldBuyingPower(orders: readonly OrderHoldInput[]): bigint {
  let held = 0n;
  for (const o of orders) {
    if (o.status === "held") continue;
    if (o.notional !== null) {
      if (o.side === "buy") held += toNanos(o.notional) - toNanos(o.filled_value);
    } else held += mulNanos(remaining(o), toNanos(o.hold_price));
  }
  return held > 0n ? held : 0n;
}

/**
 * Quantity of `symbol` held by open orders of `side` that reduce a position (sales of a long, buys of a
 * short), in 1e-9 units: legs of one parent count once (their largest).
 */
export function heldQuantity(
  orders: readonly (OrderHoldInput & { id: string })[],
  symbol: string,
  side: "buy" | "sell",
): bigint {
  // An order and its legs form one group (an oco's limit and stop sell the same shares): the largest counts.
  const groups = new Map<string, bigint>();
  for (const o of orders) {
    if (o.symbol !== symbol || o.side !== side || o.opens_short || o.status === "held") continue;
    const qty = o.qty === null ? 0n : remaining(o);
    const group = o.parent_id ?? o.id;
    const previous = groups.get(group) ?? 0n;
    groups.set(group, qty > previous ? qty : previous);
  }
  let held = 0n;
  for (const qty of groups.values()) held += qty;
  return held;
}
