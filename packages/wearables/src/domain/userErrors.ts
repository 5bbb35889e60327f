/**
 * Why a users request can fail, as typed errors: the repository and the service throw them, the routes turn
 * them into HTTP answers (nothing above the repository reads database error codes).
 */

/** A user with this email (whatever its case) or this external_user_id exists already. */
export class UserAlreadyExistsError extends Error {
  override name = "UserAlreadyExistsError" as const;
  constructor(
    /** The field whose value is taken. */
    readonly field: "email" | "external_user_id",
    options?: ErrorOptions,
  ) {
    super(`User with this ${field} already exists.`, options);
  }
}

/** No user has this id. */
export class UserNotFoundError extends Error {
  override name = "UserNotFoundError" as const;
  constructor(readonly userId: string) {
    super(`User with ID: ${userId} not found.`);
  }
}

export type UserErrorType = UserAlreadyExistsError | UserNotFoundError;
