/**
 * SQL for `brokerage.access_tokens`: a token is stored by its SHA-256 only, bound to its client, user, scope,
 * accounts and the code it was issued from. A token is active while neither it nor its client is revoked.
 */
import type { Database } from "@platform/kernel";

/** What an active token grants (the row the trading hosts' auth hook needs). */
export interface ActiveTokenRow {
  id: string;
  client_id: string;
  user_id: string;
  scope: string;
  live_account_id: string | null;
  paper_account_id: string | null;
}

/** One (token, account) pair of a user's active tokens, with the application's name. */
export interface AuthorizedAccountRow {
  client_id: string;
  name: string;
  scope: string;
  created_at: Date;
  env: "live" | "paper";
  account_number: string;
}

/**
 * What makes a token active: found by its hash (unique index), neither it nor its client revoked. The client
 * is checked on every read, not only when it is revoked, so a token issued while its client was being revoked
 * dies with the client all the same. The trading hosts apply the same rule in the one statement that also
 * reads the account (`accountsRepository.ts`). A lookup by a 256-bit hash needs no constant-time comparison:
 * its timing says nothing about a token nobody can derive from the hash.
 */
/**
 * The one rule of an active token, as the parts of a statement that others extend (`t` the token, `c` its
 * client, `$1` the token's hash): neither the token nor its client revoked.
 */
export const ACTIVE_TOKEN = {
  from: "brokerage.access_tokens t JOIN brokerage.oauth_clients c ON c.client_id = t.client_id",
  where: "t.token_hash = $1 AND t.revoked_at IS NULL AND c.revoked_at IS NULL",
} as const;

export const FIND_ACTIVE_TOKEN_SQL = `
  SELECT t.id, t.client_id, t.user_id, t.scope, t.live_account_id, t.paper_account_id
  FROM ${ACTIVE_TOKEN.from}
  WHERE ${ACTIVE_TOKEN.where}`;

// One statement consumes the code and inserts its token, copying the grant from the code's row: either both
// happen or neither. A code already used, or expired at `$3`, matches no row. With two exchanges at once,
// the second waits on the first one's row lock, then finds used_at set.
const ISSUE_FROM_CODE_SQL = `
  WITH consumed AS (
    UPDATE brokerage.authorization_codes SET used_at = now()
    WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $3
    RETURNING code_hash, client_id, user_id, scope, live_account_id, paper_account_id)
  INSERT INTO brokerage.access_tokens
    (token_hash, client_id, user_id, code_hash, scope, live_account_id, paper_account_id)
  SELECT $2, client_id, user_id, code_hash, scope, live_account_id, paper_account_id FROM consumed
  RETURNING id, client_id, user_id, scope, live_account_id, paper_account_id`;

export function createAccessTokensRepository(db: Database) {
  return {
    /**
     * Consumes the unused, unexpired code `codeHash` and issues the token `tokenHash` from it, atomically;
     * undefined when the code is unknown, used or expired at `now` (nothing changed then).
     */
    async issueFromCode({
      codeHash,
      tokenHash,
      now,
    }: {
      codeHash: Buffer;
      tokenHash: Buffer;
      now: Date;
    }): Promise<ActiveTokenRow | undefined> {
      const [row] = await db.query<ActiveTokenRow>(ISSUE_FROM_CODE_SQL, [codeHash, tokenHash, now]);
      return row;
    },

    /** Revokes every token issued from `codeHash` (RFC 6749 §4.1.2: a replayed code); how many were active. */
    async revokeIssuedFromCode(codeHash: Buffer): Promise<number> {
      const rows = await db.query(
        `UPDATE brokerage.access_tokens SET revoked_at = now()
         WHERE code_hash = $1 AND revoked_at IS NULL RETURNING id`,
        [codeHash],
      );
      return rows.length;
    },

    async findActive(tokenHash: Buffer): Promise<ActiveTokenRow | undefined> {
      const [row] = await db.query<ActiveTokenRow>(FIND_ACTIVE_TOKEN_SQL, [tokenHash]);
      return row;
    },

    /** Revokes the token if it is `clientId`'s (RFC 7009 §2.1); whether an active token was revoked. */
    async revokeForClient({ tokenHash, clientId }: { tokenHash: Buffer; clientId: string }): Promise<boolean> {
      const rows = await db.query(
        `UPDATE brokerage.access_tokens SET revoked_at = now()
         WHERE token_hash = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING id`,
        [tokenHash, clientId],
      );
      return rows.length > 0;
    },

    /** The user's active tokens with their accounts, newest first (one row per token and account). */
    listAuthorizedAccounts(userId: string): Promise<AuthorizedAccountRow[]> {
      return db.query<AuthorizedAccountRow>(
        `SELECT t.client_id, c.name, t.scope, t.created_at, a.env, a.account_number
         FROM brokerage.access_tokens t
         JOIN brokerage.oauth_clients c ON c.client_id = t.client_id AND c.revoked_at IS NULL
         JOIN brokerage.accounts a ON a.id = t.live_account_id OR a.id = t.paper_account_id
         WHERE t.user_id = $1 AND t.revoked_at IS NULL
         ORDER BY t.created_at DESC, t.id, a.env`,
        [userId],
      );
    },

    /**
     * Withdraws everything `userId` granted `clientId`: its unused codes expire at `now` first, so that an
     * exchange running at the same moment either finished before (and its token is revoked next) or finds
     * the code expired; then its tokens are revoked. Returns how many tokens were active.
     */
    revokeForUserAndClient({
      userId,
      clientId,
      now,
    }: {
      userId: string;
      clientId: string;
      now: Date;
    }): Promise<number> {
      return db.transaction(async (tx) => {
        await tx.query(
          `UPDATE brokerage.authorization_codes SET expires_at = $3
           WHERE user_id = $1 AND client_id = $2 AND used_at IS NULL AND expires_at > $3`,
          [userId, clientId, now],
        );
        const revoked = await tx.query(
          `UPDATE brokerage.access_tokens SET revoked_at = now()
           WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING id`,
          [userId, clientId],
        );
        return revoked.length;
      });
    },
  };
}

export type AccessTokensRepository = ReturnType<typeof createAccessTokensRepository>;
