/**
 * SQL for the account configurations stored on `brokerage.accounts` (migration 0002's columns, each with a
 * CHECK of its accepted values). A change is one UPDATE, so concurrent PATCHes of different fields never
 * lose each other's changes; a value a CHECK refuses becomes `UnacceptableConfigurationError` here.
 */
import { constraintViolation, type Queryable } from "@platform/kernel";
import { UnacceptableConfigurationError } from "../domain/accountConfigurationErrors.ts";
import { STORED_CONFIGURATION_FIELDS, type StoredAccountConfigurations } from "../domain/accountConfigurations.ts";
import { isUuid } from "./accountsRepository.ts";

const COLUMNS = STORED_CONFIGURATION_FIELDS.join(", ");

/** Each column set to its parameter ($2, $3, …) when that is not null, else kept. */
const ASSIGNMENTS = STORED_CONFIGURATION_FIELDS.map((column, i) => {
  const type = ["suspend_trade", "no_shorting", "fractional_trading"].includes(column) ? "boolean" : "text";
  return `${column} = COALESCE($${i + 2}::${type}, ${column})`;
}).join(", ");

export function createAccountConfigurationsRepository(db: Queryable) {
  return {
    /** The account's stored settings, or undefined when no account has this id. */
    async get(accountId: string): Promise<StoredAccountConfigurations | undefined> {
      if (!isUuid(accountId)) return undefined;
      const [row] = await db.query<StoredAccountConfigurations>(
        `SELECT ${COLUMNS} FROM brokerage.accounts WHERE id = $1`,
        [accountId],
      );
      return row;
    },

    /**
     * Sets the given settings (absent ones are kept) and returns them all, or undefined when no account has
     * this id.
     * @throws {UnacceptableConfigurationError} when a value breaks its column's CHECK.
     */
    async update(
      accountId: string,
      changes: Partial<StoredAccountConfigurations>,
    ): Promise<StoredAccountConfigurations | undefined> {
      if (!isUuid(accountId)) return undefined;
      try {
        const [row] = await db.query<StoredAccountConfigurations>(
          `UPDATE brokerage.accounts SET ${ASSIGNMENTS} WHERE id = $1 RETURNING ${COLUMNS}`,
          [accountId, ...STORED_CONFIGURATION_FIELDS.map((field) => changes[field] ?? null)],
        );
        return row;
      } catch (error) {
        const violation = constraintViolation(error);
        if (violation?.kind !== "check") throw error;
        const field = STORED_CONFIGURATION_FIELDS.find((f) => violation.constraint?.includes(f)) ?? "configuration";
        throw new UnacceptableConfigurationError(field, { cause: error });
      }
    },
  };
}

export type AccountConfigurationsRepository = ReturnType<typeof createAccountConfigurationsRepository>;
