import { describe, expect, it } from "vitest";
import { formatAmount, toAlpacaAccount } from "./accountObject.ts";

const row = {
  id: "e6fe16f3-64a4-4921-8928-cadf02f92f98",
  account_number: "PA3PV4WUCNCC",
  status: "ACTIVE",
  currency: "USD",
  cash: "100000.00",
  created_at: new Date("2026-01-05T14:03:11.421Z"),
};

describe("formatAmount", () => {
  it.each([
    ["100000.00", "100000"],
    ["2500.50", "2500.5"],
    ["0.00", "0"],
    ["0.05", "0.05"],
    ["10", "10"],
    ["100.10", "100.1"],
  ])("%s → %s", (input, expected) => {
    expect(formatAmount(input)).toBe(expected);
  });
});

describe("toAlpacaAccount", () => {
  it("is the anchor's account object of a cash account without positions", () => {
    const account = toAlpacaAccount(row, new Date("2026-01-06T03:00:00Z"));
    expect(account).toEqual({
      id: row.id,
      account_number: "PA3PV4WUCNCC",
      status: "ACTIVE",
      crypto_status: "ACTIVE",
      currency: "USD",
      buying_power: "100000",
      regt_buying_power: "100000",
      daytrading_buying_power: "0",
      effective_buying_power: "100000",
      non_marginable_buying_power: "100000",
      options_buying_power: "100000",
      bod_dtbp: "0",
      cash: "100000",
      accrued_fees: "0",
      pending_transfer_in: "0",
      pending_transfer_out: "0",
      portfolio_value: "100000",
      pattern_day_trader: false,
      trading_blocked: false,
      transfers_blocked: false,
      account_blocked: false,
      created_at: "2026-01-05T14:03:11.421Z",
      trade_suspended_by_user: false,
      multiplier: "1",
      shorting_enabled: false,
      equity: "100000",
      last_equity: "100000",
      long_market_value: "0",
      short_market_value: "0",
      position_market_value: "0",
      initial_margin: "0",
      maintenance_margin: "0",
      last_maintenance_margin: "0",
      sma: "0",
      daytrade_count: 0,
      balance_asof: "2026-01-06",
      options_approved_level: 0,
      options_trading_level: 0,
      intraday_adjustments: "0",
      pending_reg_taf_fees: "0",
    });
  });

  it("keeps every amount a decimal string (the anchor's rule) and equity = cash = buying power", () => {
    const account = toAlpacaAccount({ ...row, cash: "2500.50" });
    for (const [field, value] of Object.entries(account)) {
      if (typeof value === "number")
        expect(["daytrade_count", "options_approved_level", "options_trading_level"]).toContain(field);
    }
    expect([account.cash, account.equity, account.buying_power, account.portfolio_value]).toEqual([
      "2500.5",
      "2500.5",
      "2500.5",
      "2500.5",
    ]);
  });

  it("blocks trading and transfers of an account that is not active", () => {
    const account = toAlpacaAccount({ ...row, status: "ACCOUNT_CLOSED" });
    expect(account).toMatchObject({
      status: "ACCOUNT_CLOSED",
      trading_blocked: true,
      transfers_blocked: true,
      account_blocked: true,
    });
  });
});
