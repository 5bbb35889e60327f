/**
 * Leases (`platform.leases`): one holder per name at a time, for `ttlMs` after its last renewal by the
 * database's clock, with a **fencing token** that grows at every change of holder (and at every new tenure
 * after an expiry). A holder's writes carry the token: in the transaction that writes, `assertHeld(tx, lease)`
 * locks the lease row `FOR SHARE` and checks the token, so
 * - a paused old holder whose lease was taken over has its transaction refused (`LeaseLostError`), and
 * - a takeover (which updates the row) waits for a holder's transaction in progress: the two never interleave.
 * A released lease keeps its row (holder cleared): deleting it would start the token again at 1.
 *
 * @example
 * const leases = createLeases({ db });
 * const lease = await leases.acquire({ name: "wearables.provider-sync", holder, ttlMs: 30_000 });
 * if (lease) {
 *   await db.transaction(async (tx) => {
 *     await leases.assertHeld(tx, lease); // throws LeaseLostError if another holder took it
 *     await writeWhatOnlyTheHolderMayWrite(tx);
 *   });
 * }
 */
import type { Queryable } from "../db/database.ts";
import { LeaseLostError } from "./errors.ts";

/** A lease as its holder knows it. */
export interface Lease {
  name: string;
  holder: string;
  /** The fencing token of this tenure. */
  token: bigint;
  /** By the database's clock, as of the acquisition or the last renewal. */
  expiresAt: Date;
}

/** A lease as stored, for operators. */
export interface LeaseRecord {
  name: string;
  /** Null once released. */
  holder: string | null;
  token: string;
  expires_at: Date;
  acquired_at: Date;
  renewed_at: Date;
  /** Held now: a holder, not expired. */
  held: boolean;
}

export interface AcquireLeaseParameters {
  name: string;
  holder: string;
  ttlMs: number;
}

export interface Leases {
  /**
   * Takes the lease for `holder` if it is free, expired, or already `holder`'s (then it is renewed, the token
   * unchanged); `undefined` while another holder has it.
   */
  acquire(parameters: AcquireLeaseParameters): Promise<Lease | undefined>;
  /** Extends a held, unexpired lease by `ttlMs`; `undefined` when it was lost (then `acquire` again). */
  renew(lease: Lease, ttlMs: number): Promise<Lease | undefined>;
  /** Gives the lease up, so another holder takes it at once; false when it was not held any more. */
  release(lease: Lease): Promise<boolean>;
  /**
   * In the holder's transaction `tx`: throws `LeaseLostError` unless the lease is held with this token now, and
   * keeps it from changing hands until `tx` ends.
   */
  assertHeld(tx: Queryable, lease: Pick<Lease, "name" | "token">): Promise<void>;
  list(): Promise<LeaseRecord[]>;
}

const NAME = /^[A-Za-z][A-Za-z0-9._:/-]{0,199}$/;

/** A lease name or TTL that cannot be. */
export class InvalidLeaseError extends Error {
  override name = "InvalidLeaseError" as const;
}
export type InvalidLeaseErrorType = InvalidLeaseError & { name: "InvalidLeaseError" };

const toLease = (name: string, holder: string, row: { token: string; expires_at: Date }): Lease => ({
  name,
  holder,
  token: BigInt(row.token),
  expiresAt: row.expires_at,
});

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new InvalidLeaseError(`ttlMs must be > 0, not ${ttlMs}`);
}

export function createLeases({ db }: { db: Queryable }): Leases {
  return {
    async acquire({ name, holder, ttlMs }) {
      if (!NAME.test(name)) throw new InvalidLeaseError(`invalid lease name "${name}"`);
      checkTtl(ttlMs);
      // The same holder with an unexpired lease keeps its token; anyone else (or a new tenure) gets token + 1.
      const rows = await db.query<{ token: string; expires_at: Date }>(
        `INSERT INTO platform.leases AS l (name, holder, token, expires_at)
         VALUES ($1, $2, 1, clock_timestamp() + make_interval(secs => $3::double precision / 1000))
         ON CONFLICT (name) DO UPDATE SET
           token = CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at > clock_timestamp() THEN l.token
                   ELSE l.token + 1 END,
           acquired_at = CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at > clock_timestamp() THEN l.acquired_at
                         ELSE clock_timestamp() END,
           holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at, renewed_at = clock_timestamp()
         WHERE l.holder IS NULL OR l.holder = EXCLUDED.holder OR l.expires_at <= clock_timestamp()
         RETURNING token, expires_at`,
        [name, holder, ttlMs],
      );
      return rows[0] ? toLease(name, holder, rows[0]) : undefined;
    },
    async renew(lease, ttlMs) {
      checkTtl(ttlMs);
      const rows = await db.query<{ token: string; expires_at: Date }>(
        `UPDATE platform.leases SET expires_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000),
           renewed_at = clock_timestamp()
         WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > clock_timestamp()
         RETURNING token, expires_at`,
        [lease.name, lease.holder, lease.token.toString(), ttlMs],
      );
      return rows[0] ? toLease(lease.name, lease.holder, rows[0]) : undefined;
    },
    async release(lease) {
      const rows = await db.query(
        `UPDATE platform.leases SET holder = NULL, expires_at = clock_timestamp()
         WHERE name = $1 AND holder = $2 AND token = $3 RETURNING 1`,
        [lease.name, lease.holder, lease.token.toString()],
      );
      return rows.length > 0;
    },
    async assertHeld(tx, lease) {
      const rows = await tx.query(
        `SELECT 1 FROM platform.leases
         WHERE name = $1 AND token = $2 AND holder IS NOT NULL AND expires_at > clock_timestamp() FOR SHARE`,
        [lease.name, lease.token.toString()],
      );
      if (rows.length === 0) throw new LeaseLostError(lease.name, lease.token);
    },
    list: () =>
      db.query<LeaseRecord>(
        `SELECT name, holder, token, expires_at, acquired_at, renewed_at,
           holder IS NOT NULL AND expires_at > clock_timestamp() AS held
         FROM platform.leases ORDER BY name`,
      ),
  };
}
