/**
 * What an account is worth and how much it may still buy, from its cash, its positions at the market's
 * current prices and its open orders. One rule for the account object, order placement and the equity
 * snapshots (reference §2.3, the anchor's multiplier rules):
 *
 * - equity = cash + long market value − |short market value|;
 * - multiplier: 1 below $2,000 of equity (a cash account: no shorting), else the configured
 *   `max_margin_multiplier` (1, 2 or 4), 4 only from $25,000 of equity (pattern day trader minimum), else 2;
 * - buying power = max(multiplier × equity − gross exposure, 0). With multiplier 1 and no shorts that is the
 *   cash; with 2 it is the anchor's 2 × (equity − initial margin) at a 50 % initial margin; with 4 it is
 *   4 × (equity − maintenance margin) at 25 %;
 * - what an order may still use is the buying power less what open orders hold (`held`).
 *
 * Amounts are computed in 1e-9 units as bigint, so no float ever rounds money.
 */
import { scaledToDecimal } from "../market/exchange/units.ts";

const SCALE = 9;
const ONE = 10n ** BigInt(SCALE);

/** A decimal string (`"-12.5"`, `"100000.000000000"`) as 1e-9 units; throws on anything else. */
export function toNanos(decimal: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal.trim());
  if (!m) throw new TypeError(`not a decimal: ${decimal}`);
  const fraction = (m[3] ?? "").slice(0, SCALE).padEnd(SCALE, "0");
  const value = BigInt(m[2] as string) * ONE + BigInt(fraction);
  return m[1] === "-" ? -value : value;
}

/**
 * A price or size the market computes as a `number` (on its tick) in 1e-9 units. Through `toFixed(9)`, not
 * `String()`: a small number prints in exponent form ("1e-7"), which is not a decimal.
 */
export const numberToNanos = (value: number): bigint => toNanos(value.toFixed(9));

/** 1e-9 units as the anchor prints decimals: no trailing zeros (`"100000"`, `"2500.5"`, `"-3.25"`). */
export function fromNanos(value: bigint): string {
  const negative = value < 0n;
  const text = scaledToDecimal(negative ? -value : value, SCALE);
  const trimmed = text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
  return negative && trimmed !== "0" ? `-${trimmed}` : trimmed;
}

/** `a × b` of two 1e-9 amounts, rounded toward zero. */
export const mulNanos = (a: bigint, b: bigint): bigint => (a * b) / ONE;

export interface PositionValueInput {
  /** Signed quantity (negative for a short), decimal string. */
  qty: string;
  /** The market's current price of the symbol, decimal string. */
  price: string;
}

export interface PortfolioValueInput {
  cash: string;
  positions: readonly PositionValueInput[];
  /** Buying power held by open orders (sum of what each still may spend), 1e-9 USD (orderHolds.ts). */
  held?: bigint;
  /** The account configuration's `max_margin_multiplier`. */
  maxMarginMultiplier: "1" | "2" | "4";
}

export interface PortfolioValue {
  cash: bigint;
  longMarketValue: bigint;
  /** Negative or zero, as the anchor prints it. */
  shortMarketValue: bigint;
  equity: bigint;
  multiplier: 1 | 2 | 4;
  /** 50 % of the gross exposure on margin, 100 % for a cash account. */
  initialMargin: bigint;
  /** 25 % of the gross exposure (30 % for shorts). */
  maintenanceMargin: bigint;
  buyingPower: bigint;
  /** Buying power left for a new order: buying power less what open orders hold. */
  availableBuyingPower: bigint;
}

const MARGIN_ACCOUNT_MINIMUM = 2_000n * ONE;
const DAY_TRADER_MINIMUM = 25_000n * ONE;

export function valuePortfolio(input: PortfolioValueInput): PortfolioValue {
  const cash = toNanos(input.cash);
  let longMarketValue = 0n;
  let shortMarketValue = 0n;
  for (const p of input.positions) {
    const value = mulNanos(toNanos(p.qty), toNanos(p.price));
    if (value >= 0n) longMarketValue += value;
    else shortMarketValue += value;
  }
  const equity = cash + longMarketValue + shortMarketValue;
  const configured = Number(input.maxMarginMultiplier) as 1 | 2 | 4;
  const multiplier: 1 | 2 | 4 =
    equity < MARGIN_ACCOUNT_MINIMUM || configured === 1 ? 1 : configured === 4 && equity >= DAY_TRADER_MINIMUM ? 4 : 2;
  const gross = longMarketValue - shortMarketValue;
  const initialMargin = multiplier === 1 ? gross : gross / 2n;
  const maintenanceMargin = longMarketValue / 4n + (-shortMarketValue * 3n) / 10n;
  const power = BigInt(multiplier) * equity - gross;
  const buyingPower = power > 0n ? power : 0n;
  const held = input.held ?? 0n;
  const available = buyingPower - held;
  return {
    cash,
    longMarketValue,
    shortMarketValue,
    equity,
    multiplier,
    initialMargin,
    maintenanceMargin,
    buyingPower,
    availableBuyingPower: available > 0n ? available : 0n,
  };
}
