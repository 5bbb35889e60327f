/**
 * Why a change of account configurations can fail, as typed errors (viem style): the domain and the
 * repository throw them, the route answers the anchor's 400 `{"code":40010000,"message":"One of the new
 * values is unacceptable."}`.
 */

/** A configuration value the brokerage does not accept (the anchor's 400 "One of the new values is unacceptable."). */
export class UnacceptableConfigurationError extends Error {
  override name = "UnacceptableConfigurationError" as const;
  constructor(
    readonly field: string,
    options?: ErrorOptions,
  ) {
    super(`unacceptable value of ${field}`, options);
  }
}
export type UnacceptableConfigurationErrorType = UnacceptableConfigurationError & {
  name: "UnacceptableConfigurationError";
};
