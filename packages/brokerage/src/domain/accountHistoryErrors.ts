/**
 * Why a query of the account history (activities, portfolio history) is refused, as typed errors (viem
 * style): the services throw them, the routes answer them as the anchor's 422 (`42210000`) naming the
 * parameter. Callers decide with `instanceof` or `name`, never by the wording of a message.
 */

/** A parameter of `GET /v2/account/activities` the service does not accept (alone or with another one). */
export class InvalidActivityQueryError extends Error {
  override name = "InvalidActivityQueryError" as const;
  constructor(
    /** The query parameter at fault, e.g. `activity_types`. */
    readonly parameter: string,
    reason: string,
  ) {
    super(reason);
  }
}
export type InvalidActivityQueryErrorType = InvalidActivityQueryError & { name: "InvalidActivityQueryError" };

/** A parameter of `GET /v2/account/portfolio/history` the service does not accept, or a range too large. */
export class InvalidPortfolioHistoryQueryError extends Error {
  override name = "InvalidPortfolioHistoryQueryError" as const;
  constructor(
    /** The query parameter at fault, e.g. `timeframe`. */
    readonly parameter: string,
    reason: string,
  ) {
    super(reason);
  }
}
export type InvalidPortfolioHistoryQueryErrorType = InvalidPortfolioHistoryQueryError & {
  name: "InvalidPortfolioHistoryQueryError";
};
