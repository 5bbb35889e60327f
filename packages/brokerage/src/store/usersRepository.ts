/**
 * SQL for `brokerage.users` and the accounts opened with each user. A user and its accounts are written by
 * one statement (data-modifying CTEs), so they exist together or not at all, inside a caller's transaction
 * or not. A taken email (whatever its case) becomes `UserAlreadyExistsError` here.
 */
import { constraintViolation, type Queryable } from "@platform/kernel";
import { newAccountNumber } from "../domain/accountNumbers.ts";
import { activityId } from "../domain/activityIds.ts";
import { UserAlreadyExistsError } from "../domain/brokerageErrors.ts";
import { ACCOUNT_COLUMNS, ACCOUNT_ORDER, type AccountRow, isUuid } from "./accountsRepository.ts";

export interface UserRow {
  id: string;
  email: string;
  created_at: Date;
}

/** A user with its argon2id hash (PHC string): only for checking a password, never shown. */
/** What a user may do with market data (migration 0003). */
export interface MarketDataAccess {
  user_id: string;
  email: string;
  data_plan: "basic" | "plus";
  data_stream_connections: number;
}

export interface UserWithPasswordHash extends UserRow {
  password_hash: string;
}

export interface UserWithAccounts extends UserRow {
  /** The live account first, then the paper accounts in the order they were opened. */
  accounts: AccountRow[];
}

export interface NewUserWithAccounts {
  email: string;
  passwordHash: string;
  /** Cash of every new account, a decimal string with at most two decimals. */
  startingCash: string;
  /** How many paper accounts besides the one live account. */
  paperAccounts: number;
}

/**
 * Each account opens with its starting cash deposited: a `CSD` activity (the anchor's cash deposit) of that
 * amount, written by the same statement, so an account's activities always explain its cash.
 */
const INSERT_USER_WITH_ACCOUNTS = `
  WITH new_user AS (
    INSERT INTO brokerage.users (email, password_hash) VALUES ($1, $2) RETURNING id, email, created_at
  ), new_accounts AS (
    INSERT INTO brokerage.accounts (user_id, env, account_number, cash)
    SELECT new_user.id, a.env, a.account_number, $3::numeric
    FROM new_user, unnest($4::text[], $5::text[]) AS a (env, account_number)
    RETURNING ${ACCOUNT_COLUMNS}
  ), opening_deposits AS (
    INSERT INTO brokerage.activities (id, account_id, activity_type, transaction_time, net_amount, description)
    SELECT d.activity_id, a.id, 'CSD', $7::timestamptz, $3::numeric, 'Initial deposit'
    FROM new_accounts a JOIN unnest($5::text[], $6::text[]) AS d (account_number, activity_id)
      ON d.account_number = a.account_number
  )
  SELECT u.email, u.created_at AS user_created_at, a.*
  FROM new_user u JOIN new_accounts a ON a.user_id = u.id
  ORDER BY (a.env = 'live') DESC, a.created_at, a.account_number`;

/** Account numbers are random: a collision (36^10 possibilities) is retried with new ones. */
const ATTEMPTS = 3;

type InsertedRow = AccountRow & { email: string; user_created_at: Date };

export function createUsersRepository(db: Queryable) {
  return {
    /**
     * Inserts the user, its live account and `paperAccounts` paper accounts, all with `startingCash`, and the
     * cash deposit activity (`CSD`) of each account's starting cash.
     * @throws {UserAlreadyExistsError} when the email (whatever its case) is taken.
     */
    async insertWithAccounts(user: NewUserWithAccounts): Promise<UserWithAccounts> {
      const envs = ["live", ...Array.from({ length: user.paperAccounts }, () => "paper" as const)] as const;
      const openedAt = new Date();
      for (let attempt = 1; ; attempt++) {
        try {
          const rows = await db.query<InsertedRow>(INSERT_USER_WITH_ACCOUNTS, [
            user.email,
            user.passwordHash,
            user.startingCash,
            envs,
            envs.map((env) => newAccountNumber(env)),
            envs.map(() => activityId(openedAt)),
            openedAt,
          ]);
          const first = rows[0] as InsertedRow;
          return {
            id: first.user_id,
            email: first.email,
            created_at: first.user_created_at,
            accounts: rows.map(({ email: _e, user_created_at: _c, ...account }) => account),
          };
        } catch (error) {
          const violation = constraintViolation(error);
          if (violation?.kind !== "unique") throw error;
          if (violation.constraint === "users_email_key")
            throw new UserAlreadyExistsError(user.email, { cause: error });
          if (violation.constraint !== "accounts_account_number_key" || attempt === ATTEMPTS) throw error;
        }
      }
    },

    /** The user with this email, compared case-insensitively (the unique index is on `lower(email)`). */
    async findByEmail(email: string): Promise<UserWithPasswordHash | undefined> {
      const [row] = await db.query<UserWithPasswordHash>(
        "SELECT id, email, password_hash, created_at FROM brokerage.users WHERE lower(email) = lower($1)",
        [email],
      );
      return row;
    },

    async get(id: string): Promise<UserRow | undefined> {
      if (!isUuid(id)) return undefined;
      const [row] = await db.query<UserRow>("SELECT id, email, created_at FROM brokerage.users WHERE id = $1", [id]);
      return row;
    },

    /**
     * Sets a user's market data access (plan, stream connections allowed at once); answers the values now
     * held, or undefined for an unknown email.
     */
    async setMarketDataAccess(
      email: string,
      access: { plan?: "basic" | "plus" | undefined; streamConnections?: number | undefined },
    ): Promise<MarketDataAccess | undefined> {
      const [row] = await db.query<MarketDataAccess>(
        `UPDATE brokerage.users SET data_plan = coalesce($2, data_plan),
           data_stream_connections = coalesce($3, data_stream_connections)
         WHERE lower(email) = lower($1)
         RETURNING id AS user_id, email, data_plan, data_stream_connections`,
        [email, access.plan ?? null, access.streamConnections ?? null],
      );
      return row;
    },

    /** Every user with its accounts, oldest user first (an operator's list: two statements, no pagination). */
    async list(): Promise<UserWithAccounts[]> {
      const [users, accounts] = await Promise.all([
        db.query<UserRow>("SELECT id, email, created_at FROM brokerage.users ORDER BY created_at, email"),
        db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM brokerage.accounts ORDER BY user_id, ${ACCOUNT_ORDER}`),
      ]);
      const byUser = new Map<string, AccountRow[]>();
      for (const a of accounts) {
        const list = byUser.get(a.user_id);
        if (list) list.push(a);
        else byUser.set(a.user_id, [a]);
      }
      return users.map((u) => ({ ...u, accounts: byUser.get(u.id) ?? [] }));
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
