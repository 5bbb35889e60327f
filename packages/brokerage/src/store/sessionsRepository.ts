/**
 * SQL for `brokerage.sessions`: login sessions of the authorization pages. A row is keyed by the SHA-256 of
 * the cookie's value (the value itself is never stored) and carries the session's CSRF secret; an expired row
 * is never returned and is deleted by later logins.
 */
import type { Queryable } from "@platform/kernel";

export interface SessionRow {
  user_id: string;
  /** The user's email, for "Signed in as …". */
  email: string;
  csrf_secret: Buffer;
  expires_at: Date;
}

/** How many expired sessions one login deletes at most (bounded work per request; logins keep up). */
const EXPIRED_BATCH = 100;

export function createSessionsRepository(db: Queryable) {
  return {
    async insert(session: { idHash: Buffer; userId: string; csrfSecret: Buffer; expiresAt: Date }): Promise<void> {
      await db.query(
        "INSERT INTO brokerage.sessions (id_hash, user_id, csrf_secret, expires_at) VALUES ($1, $2, $3, $4)",
        [session.idHash, session.userId, session.csrfSecret, session.expiresAt],
      );
    },

    /** The unexpired session with this id hash, with its user's email. */
    async find(idHash: Buffer, now: Date): Promise<SessionRow | undefined> {
      const [row] = await db.query<SessionRow>(
        `SELECT s.user_id, u.email, s.csrf_secret, s.expires_at
         FROM brokerage.sessions s JOIN brokerage.users u ON u.id = s.user_id
         WHERE s.id_hash = $1 AND s.expires_at > $2`,
        [idHash, now],
      );
      return row;
    },

    async delete(idHash: Buffer): Promise<void> {
      await db.query("DELETE FROM brokerage.sessions WHERE id_hash = $1", [idHash]);
    },

    /** Deletes up to a batch of sessions expired at `now`; returns how many. */
    async deleteExpired(now: Date): Promise<number> {
      const rows = await db.query(
        `DELETE FROM brokerage.sessions WHERE id_hash IN (
           SELECT id_hash FROM brokerage.sessions WHERE expires_at <= $1 LIMIT ${EXPIRED_BATCH}
         ) RETURNING 1`,
        [now],
      );
      return rows.length;
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
