/**
 * The lease that keeps one relayer process per key and destination chain. Every instance of a
 * multi-instance deployment starts a relayer with the same key; only the lease holder polls and sends,
 * the others stand by and take over once the lease expires (`ttlSec` after its last renewal, by the
 * database's clock). The holder renews on its polls once a third of the lease has passed. A holder that
 * stalls past the lease may overlap a successor for a moment: the durable intents (one live row per
 * relay) still prevent a second fill, and reconciliation settles a nonce both used.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { type Database, hexToBytea } from "@platform/kernel";
import type { Address } from "viem";

export interface RelayerLease {
  /** True when this process holds the lease now (acquiring or renewing it when due). */
  hold(): Promise<boolean>;
  /** Gives the lease up (on stop), so a standby instance takes over at once. */
  release(): Promise<void>;
  readonly holder: string;
}

/** Identifies this process in `crosschain.relayer_leases.holder`. */
export const leaseHolderId = () => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export function createRelayerLease(
  db: Database,
  relayer: Address,
  destinationChainId: number,
  ttlSec: number,
  holder: string = leaseHolderId(),
): RelayerLease {
  const key = hexToBytea(relayer);
  let renewDueAt = 0;
  return {
    holder,
    async hold() {
      if (Date.now() < renewDueAt) return true;
      const rows = await db.query(
        `INSERT INTO crosschain.relayer_leases (relayer, destination_chain_id, holder, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(secs => $4))
         ON CONFLICT (relayer, destination_chain_id) DO UPDATE
           SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
           WHERE crosschain.relayer_leases.holder = EXCLUDED.holder OR crosschain.relayer_leases.expires_at < now()
         RETURNING holder`,
        [key, destinationChainId, holder, ttlSec],
      );
      renewDueAt = rows.length > 0 ? Date.now() + (ttlSec * 1000) / 3 : 0;
      return rows.length > 0;
    },
    async release() {
      renewDueAt = 0;
      await db.query(
        "DELETE FROM crosschain.relayer_leases WHERE relayer = $1 AND destination_chain_id = $2 AND holder = $3",
        [key, destinationChainId, holder],
      );
    },
  };
}
