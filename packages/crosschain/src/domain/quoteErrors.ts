/**
 * Why a fee quote fails, as typed errors: `services/suggestedFees.ts` throws them and `http/suggestedFees.ts`
 * turns them into HTTP answers (a refusal is a 400; a chain that cannot be read, a 502 or 503).
 */

/** Codes of a refused quote: the anchor's, shown to the caller as they are. */
export type QuoteRefusalCode =
  | "INVALID_PARAM"
  | "MISSING_PARAM"
  | "ROUTE_NOT_ENABLED"
  | "AMOUNT_TOO_HIGH"
  | "AMOUNT_TOO_LOW"
  | "SIMULATION_ERROR"
  | "SWAP_LIQUIDITY_INSUFFICIENT"
  | "SWAP_QUOTE_UNAVAILABLE"
  | "ABI_ENCODING_ERROR"
  | "INVALID_METHOD";

/**
 * The request cannot be quoted as asked: a bad or missing parameter, a route that is not enabled, an amount
 * outside the limits, a message fill that fails in simulation, a swap no pool can carry, actions that do not
 * encode.
 */
export class QuoteRefusedError extends Error {
  override name = "QuoteRefusedError" as const;
  constructor(
    message: string,
    readonly code: QuoteRefusalCode,
    /** The request parameter at fault, when there is one. */
    readonly param?: string,
  ) {
    super(message);
  }
}

/** A refusal for a bad parameter: `INVALID_PARAM`, naming the parameter when there is one. */
export const invalidParam = (message: string, param?: string) => new QuoteRefusedError(message, "INVALID_PARAM", param);

/**
 * What the quote needs from the cached chain state is not there: not read yet (a cold start), stale (the
 * chain's RPC stopped answering), or without a gas estimate or a price for the token yet.
 */
export class ChainStateUnavailableError extends Error {
  override name = "ChainStateUnavailableError" as const;
  constructor(
    message: string,
    readonly chainId: number,
  ) {
    super(message);
  }
}

/**
 * A chain the quote had to ask (a message fill: is the recipient a contract?) did not answer. The message
 * is ours: the RPC's own error can carry its URL, and a key in it.
 */
export class ChainNotAnsweringError extends Error {
  override name = "ChainNotAnsweringError" as const;
  constructor(
    message: string,
    readonly chainId: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export type QuoteErrorType = QuoteRefusedError | ChainStateUnavailableError | ChainNotAnsweringError;
