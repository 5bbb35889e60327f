/**
 * SQL for a user's provider connections (`wearables.user_connections`), without their tokens, and the other
 * users linked to the same provider account (the anchor's `linked_user_ids`: one Garmin account may feed
 * several users).
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

export function createConnectionsRepository(db: Queryable) {
  return {
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
  };
}

export type ConnectionsRepository = ReturnType<typeof createConnectionsRepository>;
