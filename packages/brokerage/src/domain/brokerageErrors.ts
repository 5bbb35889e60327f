/**
 * Why a brokerage operation on users, accounts, clients and key pairs can fail, as typed errors (viem style):
 * repositories and services throw them, routes and operator commands turn them into answers. Callers decide
 * with `instanceof` or `name`, never by the wording of a message. (OAuth protocol errors are `OAuthError`.)
 */

/** A user with this email (whatever its case) exists already. */
export class UserAlreadyExistsError extends Error {
  override name = "UserAlreadyExistsError" as const;
  constructor(
    readonly email: string,
    options?: ErrorOptions,
  ) {
    super(`A user with the email ${email} exists already`, options);
  }
}
export type UserAlreadyExistsErrorType = UserAlreadyExistsError & { name: "UserAlreadyExistsError" };

/** No user has this id. */
export class UserNotFoundError extends Error {
  override name = "UserNotFoundError" as const;
  constructor(readonly userId: string) {
    super(`No user with id ${userId}`);
  }
}
export type UserNotFoundErrorType = UserNotFoundError & { name: "UserNotFoundError" };

/** No account has this id or account number. */
export class AccountNotFoundError extends Error {
  override name = "AccountNotFoundError" as const;
  constructor(readonly account: string) {
    super(`No account with id or account number ${account}`);
  }
}
export type AccountNotFoundErrorType = AccountNotFoundError & { name: "AccountNotFoundError" };

/** No OAuth client has this client_id. */
export class ClientNotFoundError extends Error {
  override name = "ClientNotFoundError" as const;
  constructor(readonly clientId: string) {
    super(`No OAuth client with client_id ${clientId}`);
  }
}
export type ClientNotFoundErrorType = ClientNotFoundError & { name: "ClientNotFoundError" };

/**
 * A value given to create a user, a client or a key pair breaks a rule (email format, password length,
 * application name, number of paper accounts, starting cash). `field` names the input at fault.
 */
export class BrokerageInputError extends Error {
  override name = "BrokerageInputError" as const;
  constructor(
    readonly field: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
export type BrokerageInputErrorType = BrokerageInputError & { name: "BrokerageInputError" };

export type BrokerageErrorType =
  | UserAlreadyExistsError
  | UserNotFoundError
  | AccountNotFoundError
  | ClientNotFoundError
  | BrokerageInputError;
