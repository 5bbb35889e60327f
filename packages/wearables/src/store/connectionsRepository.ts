/**
 * SQL of provider connections (`wearables.user_connections`): the list `/connections` answers (without tokens,
 * with the other users linked to the same provider account, the anchor's `linked_user_ids`: one Garmin account
 * may feed several users), and the write side of OAuth, sync and disconnect, where tokens only ever pass sealed.
 */
import type { Queryable } from "@platform/kernel";

export interface ConnectionRow {
  id: string;
  user_id: string;
  provider: string;
  provider_user_id: string | null;
  provider_username: string | null;
  scope: string | null;
  status: "active" | "revoked" | "expired";
  last_synced_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Other users with an active connection to the same provider account (only for an active connection). */
  linked_user_ids: string[];
}

/** A connection with what a sync needs: its sealed tokens (opened only by the sync's vendor session). */
export interface ConnectionForSync {
  id: string;
  user_id: string;
  provider: string;
  provider_user_id: string | null;
  status: "active" | "revoked" | "expired";
  access_token_sealed: string | null;
  refresh_token_sealed: string | null;
  token_expires_at: Date | null;
  synced_from: Date | null;
  synced_until: Date | null;
  last_synced_at: Date | null;
}

export interface UpsertConnectionInput {
  userId: string;
  provider: string;
  providerUserId: string | null;
  providerUsername: string | null;
  scope: string | null;
  accessTokenSealed: string;
  refreshTokenSealed: string | null;
  tokenExpiresAt: Date | null;
}

/** A connection's tokens as stored, read again under its refresh lease. */
export interface StoredTokens {
  status: "active" | "revoked" | "expired";
  access_token_sealed: string | null;
  refresh_token_sealed: string | null;
  token_expires_at: Date | null;
  /** Set while a refresh is under way; still set after its holder died before storing the answer. */
  refresh_started_at: Date | null;
}

const FOR_SYNC = `id, user_id, provider, provider_user_id, status, access_token_sealed, refresh_token_sealed,
  token_expires_at, synced_from, synced_until, last_synced_at`;

/**
 * Connections: the list `/connections` answers, and the write side of OAuth, sync and disconnect. Tokens only
 * ever pass through here sealed.
 */
export function createConnectionsStore(db: Queryable) {
  return {
    /** A user's connections for `/connections` (no tokens), with the users linked to the same account. */
    listForUser: (userId: string): Promise<ConnectionRow[]> =>
      db.query<ConnectionRow>(
        `SELECT c.id, c.user_id, c.provider, c.provider_user_id, c.provider_username, c.scope, c.status,
                c.last_synced_at, c.created_at, c.updated_at,
                CASE WHEN c.status = 'active' AND c.provider_user_id IS NOT NULL THEN ARRAY(
                  SELECT o.user_id FROM wearables.user_connections o
                  WHERE o.provider = c.provider AND o.provider_user_id = c.provider_user_id
                    AND o.status = 'active' AND o.user_id <> c.user_id
                  ORDER BY o.created_at, o.user_id) ELSE ARRAY[]::uuid[] END AS linked_user_ids
         FROM wearables.user_connections c WHERE c.user_id = $1
         ORDER BY c.created_at, c.provider`,
        [userId],
      ),

    /** The connection made (or renewed) by an OAuth callback: active again, with the new tokens. */
    async upsert(q: Queryable, c: UpsertConnectionInput): Promise<{ id: string; created: boolean }> {
      const [row] = await q.query<{ id: string; created: boolean }>(
        `INSERT INTO wearables.user_connections (user_id, provider, provider_user_id, provider_username, scope,
           access_token_sealed, refresh_token_sealed, token_expires_at, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active')
         ON CONFLICT (user_id, provider) DO UPDATE SET provider_user_id = EXCLUDED.provider_user_id,
           provider_username = coalesce(EXCLUDED.provider_username, wearables.user_connections.provider_username),
           scope = EXCLUDED.scope, access_token_sealed = EXCLUDED.access_token_sealed,
           refresh_token_sealed = EXCLUDED.refresh_token_sealed, token_expires_at = EXCLUDED.token_expires_at,
           status = 'active', status_reason = NULL, refresh_started_at = NULL, updated_at = now()
         RETURNING id, (xmax = 0) AS created`,
        [
          c.userId,
          c.provider,
          c.providerUserId,
          c.providerUsername,
          c.scope,
          c.accessTokenSealed,
          c.refreshTokenSealed,
          c.tokenExpiresAt,
        ],
      );
      return row as { id: string; created: boolean };
    },
    /** `q`: a transaction of the caller's (PGlite has one connection: a query beside an open transaction waits). */
    async get(id: string, q: Queryable = db): Promise<ConnectionForSync | undefined> {
      const [row] = await q.query<ConnectionForSync>(
        `SELECT ${FOR_SYNC} FROM wearables.user_connections WHERE id = $1`,
        [id],
      );
      return row;
    },
    async findForUser(userId: string, provider: string): Promise<ConnectionForSync | undefined> {
      const [row] = await db.query<ConnectionForSync>(
        `SELECT ${FOR_SYNC} FROM wearables.user_connections WHERE user_id = $1 AND provider = $2`,
        [userId, provider],
      );
      return row;
    },
    /** Active connections of the vendor account a push names (one account may feed several users). */
    async findActiveByProviderUser(provider: string, providerUserId: string): Promise<ConnectionForSync[]> {
      return db.query<ConnectionForSync>(
        `SELECT ${FOR_SYNC} FROM wearables.user_connections
         WHERE provider = $1 AND provider_user_id = $2 AND status = 'active' ORDER BY created_at, id`,
        [provider, providerUserId],
      );
    },
    /** Active connections of the given providers, for the scheduled pull. */
    async listActive(providers: readonly string[]): Promise<ConnectionForSync[]> {
      return db.query<ConnectionForSync>(
        `SELECT ${FOR_SYNC} FROM wearables.user_connections
         WHERE status = 'active' AND provider = ANY($1::text[]) ORDER BY id`,
        [providers],
      );
    },
    /** The tokens as stored now, for a refresh that must not act on a copy another holder made stale. */
    async readTokens(id: string): Promise<StoredTokens | undefined> {
      const [row] = await db.query<StoredTokens>(
        `SELECT status, access_token_sealed, refresh_token_sealed, token_expires_at, refresh_started_at
         FROM wearables.user_connections WHERE id = $1`,
        [id],
      );
      return row;
    },
    /**
     * Just before a refresh request (under the connection's refresh lease): the marker a later holder finds set
     * if this one dies before storing the answer. False when the connection is no longer active.
     */
    async markRefreshStarted(id: string): Promise<boolean> {
      const rows = await db.query(
        `UPDATE wearables.user_connections SET refresh_started_at = now()
         WHERE id = $1 AND status = 'active' RETURNING 1`,
        [id],
      );
      return rows.length > 0;
    },
    /** The vendor answered the refresh with an error: no tokens were issued, nothing was interrupted. */
    async clearRefreshMarker(id: string) {
      await db.query("UPDATE wearables.user_connections SET refresh_started_at = NULL WHERE id = $1", [id]);
    },
    /**
     * New tokens after a refresh, and the refresh marker cleared, in one statement: the vendor voided the old
     * refresh token, so nothing may come between its answer and this. A vendor that did not rotate the refresh
     * token keeps the old one. A connection revoked meanwhile (disconnect, deauthorization) stays revoked.
     */
    async updateTokens(
      id: string,
      t: { accessTokenSealed: string; refreshTokenSealed: string | null; expiresAt: Date | null },
    ) {
      await db.query(
        `UPDATE wearables.user_connections SET access_token_sealed = $2,
           refresh_token_sealed = coalesce($3, refresh_token_sealed), token_expires_at = $4,
           refresh_started_at = NULL, updated_at = now()
         WHERE id = $1 AND status = 'active'`,
        [id, t.accessTokenSealed, t.refreshTokenSealed, t.expiresAt],
      );
    },
    /**
     * The vendor refused the tokens, or the user disconnected: tokens forgotten, status kept for the record,
     * with why (`reason`, e.g. `refresh_failed`, `refresh_interrupted`, `deauthorized`).
     */
    async revoke(q: Queryable, id: string, status: "revoked" | "expired" = "revoked", reason: string | null = null) {
      await q.query(
        `UPDATE wearables.user_connections SET status = $2, status_reason = $3, access_token_sealed = NULL,
           refresh_token_sealed = NULL, token_expires_at = NULL, refresh_started_at = NULL, updated_at = now()
         WHERE id = $1`,
        [id, status, reason],
      );
    },
    /**
     * Data arrived through the connection (pull, push): `last_synced_at` moves, and a pulled window widens the
     * synced span.
     */
    async markSynced(q: Queryable, id: string, window: { start: Date; end: Date } | null) {
      await q.query(
        `UPDATE wearables.user_connections SET last_synced_at = now(),
           synced_from = CASE WHEN $2::timestamptz IS NULL THEN synced_from
                              ELSE least(coalesce(synced_from, $2::timestamptz), $2::timestamptz) END,
           synced_until = CASE WHEN $3::timestamptz IS NULL THEN synced_until
                               ELSE greatest(coalesce(synced_until, $3::timestamptz), $3::timestamptz) END,
           updated_at = now() WHERE id = $1`,
        [id, window?.start ?? null, window?.end ?? null],
      );
    },
    /**
     * A file import of a provider without a cloud (Apple Health) brought data: its connection (token-less, as
     * the anchor keeps for SDK providers) is made or kept active and synced now, so the user's `last_synced_at`
     * and `last_synced_provider` follow imports as they follow pulls and pushes.
     */
    async recordImport(q: Queryable, userId: string, provider: string) {
      await q.query(
        `INSERT INTO wearables.user_connections (user_id, provider, status, last_synced_at)
         VALUES ($1, $2, 'active', now())
         ON CONFLICT (user_id, provider) DO UPDATE SET status = 'active', last_synced_at = now(), updated_at = now()`,
        [userId, provider],
      );
    },
    /** Removes the connection (its data stays unless deleted first). */
    async remove(q: Queryable, id: string) {
      await q.query("DELETE FROM wearables.user_connections WHERE id = $1", [id]);
    },
    /** Every data source (with its samples and events) and health score of the user that came from `provider`. */
    async deleteProviderData(q: Queryable, userId: string, provider: string): Promise<number> {
      await q.query("DELETE FROM wearables.health_scores WHERE user_id = $1 AND provider = $2", [userId, provider]);
      const rows = await q.query<{ id: string }>(
        "DELETE FROM wearables.data_sources WHERE user_id = $1 AND provider = $2 RETURNING id",
        [userId, provider],
      );
      return rows.length;
    },
  };
}

export type ConnectionsStore = ReturnType<typeof createConnectionsStore>;
