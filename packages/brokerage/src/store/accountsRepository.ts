/**
 * SQL for `brokerage.accounts`: a user's live account and paper accounts (created with the user, see
 * `usersRepository.insertWithAccounts`). Cash is `numeric(20, 2)`, read as a decimal string.
 */
import type { Queryable } from "@platform/kernel";
import type { AccountEnv } from "../domain/accountNumbers.ts";
import { ACTIVE_TOKEN } from "./accessTokensRepository.ts";

export interface AccountRow {
  id: string;
  user_id: string;
  env: AccountEnv;
  account_number: string;
  status: string;
  currency: string;
  /** Decimal string with two decimals, e.g. "100000.00". */
  cash: string;
  created_at: Date;
}

export const ACCOUNT_COLUMNS = "id, user_id, env, account_number, status, currency, cash, created_at";

/** Live first, then paper accounts oldest first (account number breaks ties: accounts made together). */
export const ACCOUNT_ORDER = "(env = 'live') DESC, created_at, account_number";

/**
 * The hot path of every bearer request on a trading host, one statement per environment: the account an
 * active access token (by its hash) is bound to on that host, with the token's scope. "Active" is the tokens
 * repository's rule (`ACTIVE_TOKEN`: neither the token nor its client revoked), extended by plain
 * joins: a CTE or a CASE join planned 20–40 % slower here (bench brokerage). Run as a prepared statement
 * (named), so PostgreSQL parses it once per connection rather than once per request.
 */
const accountForTokenSql = (env: AccountEnv) => `
  SELECT ${ACCOUNT_COLUMNS.split(", ")
    .map((c) => `a.${c}`)
    .join(", ")}, t.scope AS token_scope
  FROM ${ACTIVE_TOKEN.from}
  JOIN brokerage.accounts a ON a.id = t.${env}_account_id
  WHERE ${ACTIVE_TOKEN.where} AND a.env = '${env}'`;
/** Exported for the benchmark, whose baseline runs exactly this statement. */
export const ACCOUNT_FOR_TOKEN_SQL = { live: accountForTokenSql("live"), paper: accountForTokenSql("paper") } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can be a row id (anything else would make PostgreSQL fail the statement). */
export const isUuid = (id: string): boolean => UUID.test(id);

export function createAccountsRepository(db: Queryable) {
  return {
    /** The user's accounts: the live one first, then the paper ones in the order they were opened. */
    listForUser: async (userId: string): Promise<AccountRow[]> =>
      isUuid(userId)
        ? db.query<AccountRow>(
            `SELECT ${ACCOUNT_COLUMNS} FROM brokerage.accounts WHERE user_id = $1 ORDER BY ${ACCOUNT_ORDER}`,
            [userId],
          )
        : [],

    async get(id: string): Promise<AccountRow | undefined> {
      if (!isUuid(id)) return undefined;
      const [row] = await db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM brokerage.accounts WHERE id = $1`, [id]);
      return row;
    },

    /** The account of `env` the active token with this hash is bound to, and the token's scope. */
    async findForAccessToken(
      tokenHash: Buffer,
      env: AccountEnv,
    ): Promise<{ account: AccountRow; scope: string } | undefined> {
      const [row] = await db.query<AccountRow & { token_scope: string }>(ACCOUNT_FOR_TOKEN_SQL[env], [tokenHash], {
        name: `brokerage.account-for-token.${env}`,
      });
      if (!row) return undefined;
      const { token_scope: scope, ...account } = row;
      return { account, scope };
    },

    async findByNumber(accountNumber: string): Promise<AccountRow | undefined> {
      const [row] = await db.query<AccountRow>(
        `SELECT ${ACCOUNT_COLUMNS} FROM brokerage.accounts WHERE account_number = $1`,
        [accountNumber],
      );
      return row;
    },
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;
