/**
 * SQL for the data stream connection slots of the PostgreSQL backend (`brokerage.data_stream_slots`) and the
 * per-user stream settings (`brokerage.users.data_stream_connections`, `data_plan`). A slot row is held while
 * its connection lives; a row whose `expires_at` has passed is a free slot (its instance died without
 * releasing it). Times are the database's clock, the one clock every instance shares.
 */
import type { Queryable } from "@platform/kernel";

/** A user's market data settings: how many stream connections they may hold, and their data plan. */
export interface DataStreamSettings {
  connections: number;
  plan: "basic" | "plus";
}

export function createDataStreamSlotsRepository(db: Queryable) {
  return {
    /** The user's settings, undefined for an unknown user. */
    async settingsOf(userId: string): Promise<DataStreamSettings | undefined> {
      const [row] = await db.query<{ connections: number; plan: "basic" | "plus" }>(
        `SELECT data_stream_connections AS connections, data_plan AS plan FROM brokerage.users WHERE id = $1`,
        [userId],
      );
      return row;
    },

    /**
     * Takes a slot for `connectionId` when the user holds fewer than `limit` unexpired slots. Acquisitions
     * of one user are serialized by locking the user's row, so two instances never both take the last slot.
     * Run inside a transaction.
     */
    async acquire(
      tx: Queryable,
      slot: { userId: string; connectionId: string; instance: string; limit: number; leaseSeconds: number },
    ): Promise<boolean> {
      const locked = await tx.query("SELECT 1 FROM brokerage.users WHERE id = $1 FOR UPDATE", [slot.userId]);
      if (locked.length === 0) return false;
      await tx.query("DELETE FROM brokerage.data_stream_slots WHERE user_id = $1 AND expires_at <= now()", [
        slot.userId,
      ]);
      const [held] = await tx.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM brokerage.data_stream_slots WHERE user_id = $1 AND connection_id <> $2",
        [slot.userId, slot.connectionId],
      );
      if ((held?.n ?? 0) >= slot.limit) return false;
      await tx.query(
        `INSERT INTO brokerage.data_stream_slots (connection_id, user_id, instance, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(secs => $4))
         ON CONFLICT (connection_id) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
        [slot.connectionId, slot.userId, slot.instance, slot.leaseSeconds],
      );
      return true;
    },

    /**
     * Extends the unexpired slots among `connectionIds` by the lease, in one statement; returns those renewed
     * (a missing one has expired and may be someone else's now).
     */
    async renew(connectionIds: readonly string[], leaseSeconds: number): Promise<Set<string>> {
      const rows = await db.query<{ connection_id: string }>(
        `UPDATE brokerage.data_stream_slots SET expires_at = now() + make_interval(secs => $2)
         WHERE connection_id = ANY($1::text[]) AND expires_at > now() RETURNING connection_id`,
        [connectionIds, leaseSeconds],
      );
      return new Set(rows.map((r) => r.connection_id));
    },

    async release(connectionId: string): Promise<void> {
      await db.query("DELETE FROM brokerage.data_stream_slots WHERE connection_id = $1", [connectionId]);
    },

    /** Unexpired slots of the user (for tests and operators). */
    async held(userId: string): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM brokerage.data_stream_slots WHERE user_id = $1 AND expires_at > now()",
        [userId],
      );
      return row?.n ?? 0;
    },
  };
}

export type DataStreamSlotsRepository = ReturnType<typeof createDataStreamSlotsRepository>;
