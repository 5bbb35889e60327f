/**
 * The failures of the market data REST API, one class each with a literal `name`. The routes turn them into
 * the data host's error body `{"code": <status>10000, "message": "…"}` (the trading hosts' format, which the
 * anchor's data API shares: `{"code":42210000,"message":"invalid timeframe"}`); `status` says which.
 */

/** A symbol that is malformed or not one of the market's (of the asset class the endpoint serves). */
export class InvalidSymbolError extends Error {
  override name = "InvalidSymbolError" as const;
  readonly status = 400;
  constructor(readonly symbol: string) {
    super(`invalid symbol: ${symbol}`);
  }
}

/** A `page_token` this API did not write for this query (altered, truncated, or of another endpoint). */
export class InvalidPageTokenError extends Error {
  override name = "InvalidPageTokenError" as const;
  readonly status = 400;
  constructor() {
    super("invalid page_token");
  }
}

/** A `timeframe` outside the anchor's grammar (`[1-59]Min`, `[1-23]Hour`, `1Day`, `1Week`, `[1,2,3,4,6,12]Month`). */
export class InvalidTimeframeError extends Error {
  override name = "InvalidTimeframeError" as const;
  readonly status = 422;
  constructor(readonly timeframe: string) {
    super("invalid timeframe");
  }
}

/** A `start`/`end` that is not a time, or a range that ends before it starts. */
export class InvalidTimeRangeError extends Error {
  override name = "InvalidTimeRangeError" as const;
  readonly status = 422;
}

/** A parameter value the anchor accepts but this market cannot serve (a currency other than USD, a location). */
export class UnsupportedParameterError extends Error {
  override name = "UnsupportedParameterError" as const;
  readonly status = 400;
}

/** The `basic` plan asking the `sip` feed for data of the last 15 minutes (the anchor's 403, verbatim). */
export class RecentSipDataError extends Error {
  override name = "RecentSipDataError" as const;
  readonly status = 403;
  constructor() {
    super("subscription does not permit querying recent SIP data");
  }
}

/** A single-symbol latest value or snapshot of a symbol that has no data yet. */
export class NoMarketDataError extends Error {
  override name = "NoMarketDataError" as const;
  readonly status = 404;
  constructor(
    readonly kind: "trade" | "quote" | "bar" | "snapshot",
    readonly symbol: string,
  ) {
    super(`no ${kind} found for ${symbol}`);
  }
}

export type MarketDataError =
  | InvalidSymbolError
  | InvalidPageTokenError
  | InvalidTimeframeError
  | InvalidTimeRangeError
  | UnsupportedParameterError
  | RecentSipDataError
  | NoMarketDataError;

const CLASSES = [
  InvalidSymbolError,
  InvalidPageTokenError,
  InvalidTimeframeError,
  InvalidTimeRangeError,
  UnsupportedParameterError,
  RecentSipDataError,
  NoMarketDataError,
];

/** Whether `error` is one of the market data failures (anything else is a bug: a 500). */
export const isMarketDataError = (error: unknown): error is MarketDataError => CLASSES.some((c) => error instanceof c);
