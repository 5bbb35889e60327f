/**
 * Account configurations (`GET`/`PATCH /v2/account/configurations`): the anchor's object (reference §2.4,
 * the official client's `AccountConfigurations`). Seven settings are stored on the account row
 * (migration 0002); the three the anchor added for products this brokerage does not offer (options, PTP
 * exceptions, overnight trading) are fixed at the anchor's defaults: they are always answered, and a PATCH
 * may send them only with that value, so a client that reads the object and sends it back works.
 */
import { UnacceptableConfigurationError } from "./accountConfigurationErrors.ts";

/** Day-trading buying power and pattern-day-trader checks: on entering, exiting, or both. */
export const CHECK_MOMENTS = ["both", "entry", "exit"] as const;
export const TRADE_CONFIRM_EMAILS = ["all", "none"] as const;
/** The anchor's margin multipliers, as strings ("Can be "1", "2", or "4""). */
export const MARGIN_MULTIPLIERS = ["1", "2", "4"] as const;

/** The settings stored on `brokerage.accounts`, under their column (and JSON field) names. */
export interface StoredAccountConfigurations {
  dtbp_check: (typeof CHECK_MOMENTS)[number];
  trade_confirm_email: (typeof TRADE_CONFIRM_EMAILS)[number];
  suspend_trade: boolean;
  no_shorting: boolean;
  fractional_trading: boolean;
  max_margin_multiplier: (typeof MARGIN_MULTIPLIERS)[number];
  pdt_check: (typeof CHECK_MOMENTS)[number];
}

/** The stored columns, in the anchor's order (the repository selects and updates exactly these). */
export const STORED_CONFIGURATION_FIELDS = [
  "dtbp_check",
  "trade_confirm_email",
  "suspend_trade",
  "no_shorting",
  "fractional_trading",
  "max_margin_multiplier",
  "pdt_check",
] as const satisfies readonly (keyof StoredAccountConfigurations)[];

/** The settings of products not offered here, at the anchor's defaults (options disabled, no exceptions). */
export const FIXED_CONFIGURATIONS = {
  max_options_trading_level: 0,
  ptp_no_exception_entry: false,
  disable_overnight_trading: false,
} as const;

/** The anchor's configuration object as answered. */
export type AccountConfigurations = StoredAccountConfigurations & typeof FIXED_CONFIGURATIONS;

/** A PATCH body: any subset of the fields, each with an accepted value. */
export type AccountConfigurationsPatch = Partial<StoredAccountConfigurations> & Partial<typeof FIXED_CONFIGURATIONS>;

/** The settings of a new account (the migration's column defaults, the anchor's defaults). */
export const DEFAULT_ACCOUNT_CONFIGURATIONS: AccountConfigurations = {
  dtbp_check: "entry",
  trade_confirm_email: "all",
  suspend_trade: false,
  no_shorting: false,
  fractional_trading: true,
  max_margin_multiplier: "4",
  pdt_check: "entry",
  ...FIXED_CONFIGURATIONS,
};

/** The object answered for the stored settings. */
export const toAccountConfigurations = (stored: StoredAccountConfigurations): AccountConfigurations => ({
  dtbp_check: stored.dtbp_check,
  trade_confirm_email: stored.trade_confirm_email,
  suspend_trade: stored.suspend_trade,
  no_shorting: stored.no_shorting,
  fractional_trading: stored.fractional_trading,
  max_margin_multiplier: stored.max_margin_multiplier,
  pdt_check: stored.pdt_check,
  ...FIXED_CONFIGURATIONS,
});

/**
 * The stored settings a PATCH changes: its stored fields that are present (the fixed ones have only their
 * one value, so they change nothing).
 * @throws {UnacceptableConfigurationError} for a fixed field sent with another value, or a stored field
 * outside its accepted values (callers that validated the body never see it).
 */
export function storedChanges(patch: AccountConfigurationsPatch): Partial<StoredAccountConfigurations> {
  for (const [field, value] of Object.entries(FIXED_CONFIGURATIONS)) {
    const sent = (patch as Record<string, unknown>)[field];
    if (sent !== undefined && sent !== value) throw new UnacceptableConfigurationError(field);
  }
  const accepted: Record<keyof StoredAccountConfigurations, readonly unknown[]> = {
    dtbp_check: CHECK_MOMENTS,
    trade_confirm_email: TRADE_CONFIRM_EMAILS,
    suspend_trade: [true, false],
    no_shorting: [true, false],
    fractional_trading: [true, false],
    max_margin_multiplier: MARGIN_MULTIPLIERS,
    pdt_check: CHECK_MOMENTS,
  };
  const changes: Record<string, unknown> = {};
  for (const field of STORED_CONFIGURATION_FIELDS) {
    const value = patch[field];
    if (value === undefined) continue;
    if (!accepted[field].includes(value)) throw new UnacceptableConfigurationError(field);
    changes[field] = value;
  }
  return changes as Partial<StoredAccountConfigurations>;
}
