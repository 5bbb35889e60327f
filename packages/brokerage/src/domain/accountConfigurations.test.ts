import { describe, expect, it } from "vitest";
import { UnacceptableConfigurationError } from "./accountConfigurationErrors.ts";
import {
  type AccountConfigurationsPatch,
  DEFAULT_ACCOUNT_CONFIGURATIONS,
  STORED_CONFIGURATION_FIELDS,
  storedChanges,
  toAccountConfigurations,
} from "./accountConfigurations.ts";

describe("storedChanges", () => {
  it("keeps the stored fields present, drops absent ones and the fixed fields at their value", () => {
    expect(
      storedChanges({
        no_shorting: true,
        max_margin_multiplier: "1",
        max_options_trading_level: 0,
        ptp_no_exception_entry: false,
      }),
    ).toEqual({ no_shorting: true, max_margin_multiplier: "1" });
    expect(storedChanges({})).toEqual({});
    expect(storedChanges(DEFAULT_ACCOUNT_CONFIGURATIONS)).toEqual(
      Object.fromEntries(STORED_CONFIGURATION_FIELDS.map((f) => [f, DEFAULT_ACCOUNT_CONFIGURATIONS[f]])),
    );
  });

  it.each([
    ["max_options_trading_level", { max_options_trading_level: 2 }],
    ["disable_overnight_trading", { disable_overnight_trading: true }],
    ["dtbp_check", { dtbp_check: "never" }],
    ["max_margin_multiplier", { max_margin_multiplier: 4 }],
    ["suspend_trade", { suspend_trade: "false" }],
  ])("refuses a value of %s it does not accept, naming the field", (field, patch) => {
    const refuse = () => storedChanges(patch as unknown as AccountConfigurationsPatch);
    expect(refuse).toThrow(UnacceptableConfigurationError);
    expect(refuse).toThrow(expect.objectContaining({ field }));
  });
});

describe("toAccountConfigurations", () => {
  it("adds the fixed fields to the stored ones, in the anchor's order", () => {
    const {
      max_options_trading_level: _o,
      ptp_no_exception_entry: _p,
      disable_overnight_trading: _d,
      ...stored
    } = DEFAULT_ACCOUNT_CONFIGURATIONS;
    const object = toAccountConfigurations({ ...stored, suspend_trade: true });
    expect(object).toEqual({ ...DEFAULT_ACCOUNT_CONFIGURATIONS, suspend_trade: true });
    expect(Object.keys(object)).toEqual([
      ...STORED_CONFIGURATION_FIELDS,
      "max_options_trading_level",
      "ptp_no_exception_entry",
      "disable_overnight_trading",
    ]);
  });
});
