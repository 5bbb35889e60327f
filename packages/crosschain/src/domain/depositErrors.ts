/**
 * Why a deposit lookup fails, as typed errors: `services/deposits.ts` throws them and `http/deposits.ts` turns
 * them into HTTP answers.
 */

/** No stored deposit matches the lookup. */
export class DepositNotFoundError extends Error {
  override name = "DepositNotFoundError" as const;
  constructor() {
    super("Deposit not found given the provided constraints");
  }
}

/** Deposits match, but fewer than the asked `index` + 1 (the anchor's IndexParamOutOfRangeException). */
export class DepositIndexOutOfRangeError extends Error {
  override name = "DepositIndexOutOfRangeError" as const;
  constructor(
    readonly index: number,
    readonly maxIndex: number,
  ) {
    super(`Index ${index} out of range. Index must be between 0 and ${maxIndex}`);
  }
}

export type DepositErrorType = DepositNotFoundError | DepositIndexOutOfRangeError;
