/**
 * Response schemas of the trading hosts (validation, serialisation and OpenAPI from one definition), with
 * the anchor's field names and examples.
 */
import { Type } from "typebox";
import { toAlpacaAccount } from "../../domain/accountObject.ts";
import { createDefaultAssetUniverse } from "../../market/assetListings.ts";
import { NOT_AUTHORIZED, SCOPE_NOT_AUTHORIZED } from "./errorFormat.ts";

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Amount = (description: string) => Type.String({ description, pattern: "^-?\\d+(\\.\\d+)?$" });

/** The anchor's error body (`ModelError` in its client): an 8-digit code whose first three are the status. */
export const ApiError = Type.Object(
  {
    code: Type.Integer({ description: "HTTP status followed by 10000, or a more specific 8-digit code." }),
    message: Type.String(),
  },
  { examples: [{ code: 40110000, message: NOT_AUTHORIZED }] },
);

const error = (description: string, example: { code: number; message: string }) =>
  Type.Object(ApiError.properties, { description, examples: [example] });

/** An error response of one operation: the error body with its own description and example. */
export const errorResponse = error;

/**
 * The rate limit headers of every answer to an authenticated request (rateLimit.ts), for a response schema's
 * `headers` (@fastify/swagger documents them on the response).
 */
export const rateLimitHeaders = {
  "X-Ratelimit-Limit": Type.Integer({
    description: "Requests allowed per minute for these credentials.",
    examples: [200],
  }),
  "X-Ratelimit-Remaining": Type.Integer({ description: "Requests left in the current minute.", examples: [199] }),
  "X-Ratelimit-Reset": Type.Integer({
    description: "When the current minute's window ends, in epoch seconds.",
    examples: [1767225660],
  }),
};

/** The errors every trading operation can answer (authentication, scope, parameters, rate limit). */
export const tradingErrorResponses = {
  401: error(
    `No credentials, unknown or revoked ones, or none for this host's environment; or a token without the scope the operation needs ("${SCOPE_NOT_AUTHORIZED}", code 40110000 as at the anchor).`,
    { code: 40110000, message: NOT_AUTHORIZED },
  ),
  422: error("A parameter is missing, malformed or out of range.", {
    code: 42210000,
    message: "query.limit: must be <= 500",
  }),
  429: Type.Object(ApiError.properties, {
    description:
      "More requests this minute than the credentials' limit (200 by default; one count per access token across the live and paper hosts, one per key pair). Retry after `Retry-After` seconds, when the window of `X-Ratelimit-Reset` has ended.",
    examples: [{ code: 42910000, message: "too many requests" }],
    headers: {
      ...rateLimitHeaders,
      "Retry-After": Type.Integer({ description: "Seconds until the window ends.", minimum: 1, examples: [42] }),
    },
  }),
};

/** The example is the real shaping of an example row (one source for the fields and their formats). */
const ACCOUNT_EXAMPLE = toAlpacaAccount(
  {
    id: "e6fe16f3-64a4-4921-8928-cadf02f92f98",
    account_number: "PA3PV4WUCNCC",
    status: "ACTIVE",
    currency: "USD",
    cash: "100000.00",
    created_at: new Date("2026-01-05T14:03:11.421Z"),
  },
  new Date("2026-01-06T03:00:00Z"),
);

/** The anchor's account object (reference §2.3); amounts are decimal strings. */
export const Account = Type.Object(
  {
    id: Type.String({ format: "uuid", description: "Account id." }),
    account_number: Type.String(),
    status: Type.String({ description: "ACTIVE, or another of the anchor's account statuses." }),
    crypto_status: Type.String(),
    currency: Type.String({ description: "USD" }),
    buying_power: Amount("Buying power; with multiplier 1, the cash."),
    regt_buying_power: Amount("Buying power under Regulation T."),
    daytrading_buying_power: Amount("Buying power for day trades."),
    effective_buying_power: Amount("Buying power in effect."),
    non_marginable_buying_power: Amount("Buying power for non-marginable securities."),
    options_buying_power: Amount("Buying power for options."),
    bod_dtbp: Amount("Day-trading buying power at the beginning of the day."),
    cash: Amount("Cash balance."),
    accrued_fees: Amount("Fees accrued this month."),
    pending_transfer_in: Amount("Cash on its way in."),
    pending_transfer_out: Amount("Cash on its way out."),
    portfolio_value: Amount("Deprecated: equals equity."),
    pattern_day_trader: Type.Boolean(),
    trading_blocked: Type.Boolean(),
    transfers_blocked: Type.Boolean(),
    account_blocked: Type.Boolean(),
    created_at: Type.String({ format: "date-time" }),
    trade_suspended_by_user: Type.Boolean(),
    multiplier: Type.String({ description: "Buying power multiplier: 1 (cash account)." }),
    shorting_enabled: Type.Boolean(),
    equity: Amount("Cash + long_market_value + short_market_value."),
    last_equity: Amount("Equity at the previous trading day's close."),
    long_market_value: Amount("Market value of long positions."),
    short_market_value: Amount("Market value of short positions."),
    position_market_value: Amount("Market value of all positions."),
    initial_margin: Amount("Reg T initial margin requirement."),
    maintenance_margin: Amount("Maintenance margin requirement."),
    last_maintenance_margin: Amount("Maintenance margin requirement of the previous trading day."),
    sma: Amount("Special memorandum account."),
    daytrade_count: Type.Integer({ minimum: 0 }),
    balance_asof: Type.String({ format: "date", description: "Day the balances are of." }),
    options_approved_level: Type.Integer({ minimum: 0 }),
    options_trading_level: Type.Integer({ minimum: 0 }),
    intraday_adjustments: Amount("Intraday cash adjustments."),
    pending_reg_taf_fees: Amount("Regulatory fees not yet charged."),
  },
  { $id: "Account", examples: [ACCOUNT_EXAMPLE] },
);

const ORDER_EXAMPLE = {
  id: "61e69015-8549-4bfd-b9c3-01e75843f47d",
  client_order_id: "eb9e2aaa-f71a-4f51-b5b4-52a6c565dad4",
  created_at: "2026-01-05T14:05:32.123Z",
  updated_at: "2026-01-05T14:05:32.123Z",
  submitted_at: "2026-01-05T14:05:32.100Z",
  filled_at: null,
  expired_at: null,
  canceled_at: null,
  failed_at: null,
  replaced_at: null,
  replaced_by: null,
  replaces: null,
  asset_id: "b0b6dd9d-8b9b-48a9-ba46-b9d54906e415",
  symbol: "AAPL",
  asset_class: "us_equity",
  notional: null,
  qty: "15",
  filled_qty: "0",
  filled_avg_price: null,
  order_class: "simple",
  order_type: "market",
  type: "market",
  side: "buy",
  time_in_force: "day",
  limit_price: null,
  stop_price: null,
  status: "new",
  extended_hours: false,
  legs: null,
  trail_percent: null,
  trail_price: null,
  hwm: null,
};

const NullableString = (options: Parameters<typeof Type.String>[0] = {}) => Nullable(Type.String(options));

/** The anchor's order object (reference §2.4). No account has orders until order placement exists. */
export const Order = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    client_order_id: Type.String(),
    created_at: Type.String({ format: "date-time" }),
    updated_at: NullableString({ format: "date-time" }),
    submitted_at: NullableString({ format: "date-time" }),
    filled_at: NullableString({ format: "date-time" }),
    expired_at: NullableString({ format: "date-time" }),
    canceled_at: NullableString({ format: "date-time" }),
    failed_at: NullableString({ format: "date-time" }),
    replaced_at: NullableString({ format: "date-time" }),
    replaced_by: NullableString({ format: "uuid" }),
    replaces: NullableString({ format: "uuid" }),
    asset_id: Type.String({ format: "uuid" }),
    symbol: Type.String(),
    asset_class: Type.String(),
    notional: NullableString(),
    qty: NullableString(),
    filled_qty: Type.String(),
    filled_avg_price: NullableString(),
    order_class: Type.String(),
    order_type: Type.String({ description: "Deprecated: equals type." }),
    type: Type.String(),
    side: Type.String(),
    position_intent: Type.Optional(Type.String()),
    time_in_force: Type.String(),
    limit_price: NullableString(),
    stop_price: NullableString(),
    status: Type.String(),
    extended_hours: Type.Boolean(),
    legs: Type.Union([Type.Array(Type.Object({}, { additionalProperties: true })), Type.Null()]),
    trail_percent: NullableString(),
    trail_price: NullableString(),
    hwm: NullableString(),
    expires_at: Type.Optional(NullableString({ format: "date-time" })),
  },
  { $id: "Order", examples: [ORDER_EXAMPLE] },
);

/** Our AAPL listing, as `GET /v2/assets/AAPL` answers it (one source for the fields and their values). */
const ASSET_EXAMPLE = createDefaultAssetUniverse().get("AAPL").asset;

/** The anchor's asset object (reference §2.5, J4 `Assets`; the example is our AAPL); the increments exist for crypto only. */
export const Asset = Type.Object(
  {
    id: Type.String({ format: "uuid", description: "Asset id, stable across runs." }),
    class: Type.Union([Type.Literal("us_equity"), Type.Literal("crypto")]),
    exchange: Type.String({ description: "AMEX, ARCA, BATS, NYSE, NASDAQ, NYSEARCA, OTC or CRYPTO." }),
    symbol: Type.String({ description: "Ticker, or the pair for crypto (`BTC/USD`)." }),
    name: Type.String(),
    cusip: Type.Union([Type.String({ pattern: "^[0-9A-Z]{9}$" }), Type.Null()], {
      description: "CUSIP of a US equity (ours are private-use numbers, as the market is simulated); null for crypto.",
    }),
    status: Type.Union([Type.Literal("active"), Type.Literal("inactive")]),
    tradable: Type.Boolean({ description: "Whether orders for it are accepted." }),
    marginable: Type.Boolean(),
    maintenance_margin_requirement: Type.Number({ description: "Deprecated: percent, as margin_requirement_long." }),
    margin_requirement_long: Type.String({ description: "Margin required for a long position, in percent." }),
    margin_requirement_short: Type.String({ description: "Margin required for a short position, in percent." }),
    shortable: Type.Boolean(),
    easy_to_borrow: Type.Boolean({ description: "Deprecated by the anchor: see borrow_status." }),
    borrow_status: Type.Optional(
      Type.Union([Type.Literal("easy_to_borrow"), Type.Literal("hard_to_borrow")], {
        description: "Whether shorting it borrows easily; US equities only.",
      }),
    ),
    fractionable: Type.Boolean({ description: "Whether fractional quantities and notional orders are accepted." }),
    attributes: Type.Array(Type.String()),
    min_order_size: Type.Optional(Type.String({ description: "Crypto: smallest order quantity." })),
    min_trade_increment: Type.Optional(Type.String({ description: "Crypto: quantity increment." })),
    price_increment: Type.Optional(Type.String({ description: "Crypto: price increment." })),
  },
  { $id: "Asset", examples: [ASSET_EXAMPLE] },
);

/** The anchor's clock (`LegacyClock`): times in New York's offset. */
export const Clock = Type.Object(
  {
    timestamp: Type.String({ format: "date-time", description: "Now." }),
    is_open: Type.Boolean({ description: "Whether the regular session is open (always true in mode `always`)." }),
    next_open: Type.String({ format: "date-time", description: "The exchange's next regular-session open." }),
    next_close: Type.String({ format: "date-time", description: "The exchange's next regular-session close." }),
  },
  {
    $id: "Clock",
    examples: [
      {
        timestamp: "2026-11-25T10:15:00.123-05:00",
        is_open: true,
        next_open: "2026-11-27T09:30:00-05:00",
        next_close: "2026-11-25T16:00:00-05:00",
      },
    ],
  },
);

/** One trading day of the anchor's calendar (`LegacyCalendarDay`), New York times. */
export const CalendarDay = Type.Object(
  {
    date: Type.String({ format: "date" }),
    open: Type.String({ pattern: "^\\d{2}:\\d{2}$", description: "Regular session open, HH:MM." }),
    close: Type.String({
      pattern: "^\\d{2}:\\d{2}$",
      description: "Regular session close, HH:MM (13:00 on early closes).",
    }),
    session_open: Type.String({ pattern: "^\\d{4}$", description: "Pre-market open, HHMM." }),
    session_close: Type.String({ pattern: "^\\d{4}$", description: "After-hours close, HHMM." }),
    settlement_date: Type.String({ format: "date", description: "When a trade of this day settles." }),
  },
  {
    $id: "CalendarDay",
    examples: [
      {
        date: "2026-11-27",
        open: "09:30",
        close: "13:00",
        session_open: "0400",
        session_close: "1700",
        settlement_date: "2026-11-30",
      },
    ],
  },
);
