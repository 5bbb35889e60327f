/**
 * The Alpaca account object (`GET /v2/account`) of one of our accounts. Anchor: Alpaca's
 * `entities/account-v2.yaml` and the official client's `models/Account.ts` (reference §2.3). Numbers are
 * decimal strings, timestamps RFC 3339. Without a valuation (an account read before any position), equity =
 * portfolio value = cash; with one, the amounts follow portfolioValue.ts (the anchor's multiplier rules).
 */
import { fromNanos, type PortfolioValue, toNanos } from "./portfolioValue.ts";

/** The stored fields an account object is made from (a row of `brokerage.accounts`). */
export interface AccountRecord {
  id: string;
  account_number: string;
  status: string;
  currency: string;
  /** Decimal string, e.g. "100000.00". */
  cash: string;
  created_at: Date;
}

export interface AlpacaAccount {
  id: string;
  account_number: string;
  status: string;
  crypto_status: string;
  currency: string;
  buying_power: string;
  regt_buying_power: string;
  daytrading_buying_power: string;
  effective_buying_power: string;
  non_marginable_buying_power: string;
  options_buying_power: string;
  bod_dtbp: string;
  cash: string;
  accrued_fees: string;
  pending_transfer_in: string;
  pending_transfer_out: string;
  portfolio_value: string;
  pattern_day_trader: boolean;
  trading_blocked: boolean;
  transfers_blocked: boolean;
  account_blocked: boolean;
  created_at: string;
  trade_suspended_by_user: boolean;
  multiplier: string;
  shorting_enabled: boolean;
  equity: string;
  last_equity: string;
  long_market_value: string;
  short_market_value: string;
  position_market_value: string;
  initial_margin: string;
  maintenance_margin: string;
  last_maintenance_margin: string;
  sma: string;
  daytrade_count: number;
  balance_asof: string;
  options_approved_level: number;
  options_trading_level: number;
  intraday_adjustments: string;
  pending_reg_taf_fees: string;
}

/** `"100000.00"` → `"100000"`, `"2500.50"` → `"2500.5"`: the anchor prints amounts without trailing zeros. */
export function formatAmount(decimal: string): string {
  if (!decimal.includes(".")) return decimal;
  return decimal.replace(/0+$/, "").replace(/\.$/, "");
}

/** What the positions add to the account object (portfolioValue.ts), when it has any. */
export interface AccountValuation {
  value: PortfolioValue;
  lastEquity?: string | null;
  shortingEnabled: boolean;
  tradeSuspended: boolean;
}

/** `row` as the anchor's account object; `now` dates `balance_asof` (the UTC day the balance is of). */
export function toAlpacaAccount(
  row: AccountRecord,
  now: Date = new Date(),
  valuation?: AccountValuation,
): AlpacaAccount {
  const base = cashOnlyAccount(row, now);
  if (!valuation) return base;
  const v = valuation.value;
  const equity = fromNanos(v.equity);
  return {
    ...base,
    buying_power: fromNanos(v.buyingPower),
    regt_buying_power: fromNanos(v.multiplier === 1 ? v.buyingPower : (v.buyingPower * 2n) / BigInt(v.multiplier)),
    daytrading_buying_power: v.multiplier === 4 ? fromNanos(v.buyingPower) : "0",
    effective_buying_power: fromNanos(v.buyingPower),
    non_marginable_buying_power: fromNanos(v.cash > 0n ? v.cash : 0n),
    options_buying_power: fromNanos(v.cash > 0n ? v.cash : 0n),
    cash: fromNanos(v.cash),
    portfolio_value: equity,
    equity,
    last_equity: valuation.lastEquity ? fromNanos(toNanos(valuation.lastEquity)) : equity,
    long_market_value: fromNanos(v.longMarketValue),
    short_market_value: fromNanos(v.shortMarketValue),
    position_market_value: fromNanos(v.longMarketValue - v.shortMarketValue),
    initial_margin: fromNanos(v.initialMargin),
    maintenance_margin: fromNanos(v.maintenanceMargin),
    last_maintenance_margin: fromNanos(v.maintenanceMargin),
    multiplier: String(v.multiplier),
    shorting_enabled: valuation.shortingEnabled,
    trade_suspended_by_user: valuation.tradeSuspended,
  };
}

function cashOnlyAccount(row: AccountRecord, now: Date): AlpacaAccount {
  const cash = formatAmount(row.cash);
  const active = row.status === "ACTIVE";
  return {
    id: row.id,
    account_number: row.account_number,
    status: row.status,
    crypto_status: row.status,
    currency: row.currency,
    buying_power: cash,
    regt_buying_power: cash,
    daytrading_buying_power: "0",
    effective_buying_power: cash,
    non_marginable_buying_power: cash,
    options_buying_power: cash,
    bod_dtbp: "0",
    cash,
    accrued_fees: "0",
    pending_transfer_in: "0",
    pending_transfer_out: "0",
    portfolio_value: cash,
    pattern_day_trader: false,
    trading_blocked: !active,
    transfers_blocked: !active,
    account_blocked: !active,
    created_at: row.created_at.toISOString(),
    trade_suspended_by_user: false,
    multiplier: "1",
    // A multiplier-1 (cash) account cannot sell short.
    shorting_enabled: false,
    equity: cash,
    last_equity: cash,
    long_market_value: "0",
    short_market_value: "0",
    position_market_value: "0",
    initial_margin: "0",
    maintenance_margin: "0",
    last_maintenance_margin: "0",
    sma: "0",
    daytrade_count: 0,
    balance_asof: now.toISOString().slice(0, 10),
    options_approved_level: 0,
    options_trading_level: 0,
    intraday_adjustments: "0",
    pending_reg_taf_fees: "0",
  };
}
