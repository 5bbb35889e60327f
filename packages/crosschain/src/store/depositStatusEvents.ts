/**
 * The deposit status outbox (crosschain.deposit_status_events), written by ONE mechanism: after a writer
 * changed what a status is derived from (the indexer's ranges and rollbacks, the expiry sweep, settlement), it
 * calls {@link recordStatusChanges} in its own transaction (a refund the indexer stored is recorded with the cause
 * `settlement`). The current status of the deposits in scope is
 * computed with the same rule as the reads (`depositStatusSql.ts`) in one INSERT … SELECT, and a row is added
 * only for a deposit whose status, fill tx or refund tx differs from its last row (or that has none), so calling
 * it again writes nothing. The push stream (`http/depositStatusStream.ts`) follows the table by id.
 */
import type { Database, Queryable } from "@platform/kernel";
import { REFUNDED_BY_CHAIN_SQL, STATUS_JOINS, STATUS_SQL } from "./depositStatusSql.ts";

/** The NOTIFY channel of the outbox; the payload is the largest id written (kernel `createOutboxReader`). */
export const DEPOSIT_STATUS_CHANNEL = "crosschain_deposit_status";

/** What made a status change: a stored range, a passed deadline, a refund leaf, a removed block. */
export type StatusCause = "indexer" | "expiry" | "settlement" | "reorg";

/**
 * Which deposits to look at; each form reads only the rows it names (the indexer's range, not the table).
 * - `relayHashes`: these deposits.
 * - `chainId` + `fromBlock`: what one chain stored from that block up: its deposits, the deposits its fills and
 *   slow-fill requests are for, and the deposits its `ExecutedRelayerRefundRoot` events refund.
 * - `originChainId` / `destinationChainId` + `fromBlock`: the deposits / the fills and slow requests part alone.
 * - `bundleId`: the deposits with an `expiredRefund` item in that bundle (settlement, after it learns a leaf's
 *   spoke root bundle id).
 * - `expiredBefore` (unix seconds): deposits whose fill deadline is before it (and not before `expiredSince`)
 *   and whose last status is pending or slowFillRequested.
 */
export type StatusScope =
  | { relayHashes: readonly Buffer[] }
  | { chainId: number; fromBlock: bigint | number }
  | { originChainId: number; fromBlock: bigint | number }
  | { destinationChainId: number; fromBlock: bigint | number }
  | { bundleId: bigint | number | string }
  | { expiredBefore: number; expiredSince?: number };

const ORIGIN_KEYS = "SELECT relay_hash FROM crosschain.deposits WHERE origin_chain_id = $1 AND block_number >= $2";
const DESTINATION_KEYS = `SELECT relay_hash FROM crosschain.fills WHERE destination_chain_id = $1 AND block_number >= $2
  UNION SELECT relay_hash FROM crosschain.slow_fill_requests WHERE destination_chain_id = $1 AND block_number >= $2`;

/** The relay hashes a scope names (an SQL query over parameters $1, $2) with its parameters. */
function scopeKeys(scope: StatusScope): { sql: string; params: unknown[] } {
  if ("relayHashes" in scope) {
    // Hex text, which both drivers pass as an array alike.
    return {
      sql: "SELECT decode(h, 'hex') AS relay_hash FROM unnest($1::text[]) AS h",
      params: [scope.relayHashes.map((b) => b.toString("hex"))],
    };
  }
  if ("bundleId" in scope) {
    return {
      sql: "SELECT relay_hash FROM crosschain.bundle_items WHERE bundle_id = $1 AND kind = 'expiredRefund'",
      params: [scope.bundleId.toString()],
    };
  }
  if ("expiredBefore" in scope) {
    return {
      sql: `SELECT d.relay_hash FROM crosschain.deposits d WHERE d.fill_deadline < $1 AND d.fill_deadline >= $2
        AND (SELECT e.status FROM crosschain.deposit_status_events e
             WHERE e.origin_chain_id = d.origin_chain_id AND e.deposit_id = d.deposit_id
             ORDER BY e.id DESC LIMIT 1) IN ('pending', 'slowFillRequested')`,
      params: [scope.expiredBefore, scope.expiredSince ?? 0],
    };
  }
  if ("originChainId" in scope) return { sql: ORIGIN_KEYS, params: [scope.originChainId, scope.fromBlock.toString()] };
  if ("destinationChainId" in scope) {
    return { sql: DESTINATION_KEYS, params: [scope.destinationChainId, scope.fromBlock.toString()] };
  }
  return {
    sql: `${ORIGIN_KEYS} UNION ${DESTINATION_KEYS} UNION ${REFUNDED_BY_CHAIN_SQL("$1", "$2")}`,
    params: [scope.chainId, scope.fromBlock.toString()],
  };
}

/**
 * Records the status changes of the deposits in `scope` (see the module comment); returns how many rows it
 * added. Call it in the writer's transaction (`tx`), as its last statement: it takes a transaction-scoped
 * advisory lock so that outbox ids commit in increasing order (a reader's cursor never passes a row that
 * commits later), and holding that lock shortly keeps the indexers of several chains from waiting on each other.
 */
export async function recordStatusChanges(
  tx: Queryable,
  scope: StatusScope,
  cause: StatusCause,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Promise<number> {
  const keys = scopeKeys(scope);
  const n = keys.params.length;
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('crosschain.deposit_status_events'))");
  const [row] = await tx.query<{ written: string; last_id: string | null }>(
    `WITH keys AS (${keys.sql}),
     current AS (
       SELECT d.origin_chain_id, d.deposit_id, d.depositor, d.recipient, d.tx_hash, d.block_number, d.log_index,
              ${STATUS_SQL(`$${n + 1}::bigint`, "pending")} AS status, f.tx_hash AS fill_tx,
              CASE WHEN f.relay_hash IS NULL THEN r.tx_hash END AS refund_tx
       FROM (SELECT DISTINCT relay_hash FROM keys) k
       JOIN crosschain.deposits d ON d.relay_hash = k.relay_hash
       ${STATUS_JOINS}),
     inserted AS (
       INSERT INTO crosschain.deposit_status_events
         (origin_chain_id, deposit_id, depositor, recipient, deposit_tx, status, fill_tx, refund_tx, cause)
       SELECT c.origin_chain_id, c.deposit_id, c.depositor, c.recipient, c.tx_hash, c.status, c.fill_tx, c.refund_tx,
              CASE WHEN $${n + 2} = 'indexer' AND c.status = 'refunded' THEN 'settlement' ELSE $${n + 2} END
       FROM current c
       LEFT JOIN LATERAL (
         SELECT e.status, e.fill_tx, e.refund_tx FROM crosschain.deposit_status_events e
         WHERE e.origin_chain_id = c.origin_chain_id AND e.deposit_id = c.deposit_id ORDER BY e.id DESC LIMIT 1
       ) last ON true
       WHERE last.status IS DISTINCT FROM c.status OR last.fill_tx IS DISTINCT FROM c.fill_tx
          OR last.refund_tx IS DISTINCT FROM c.refund_tx
       ORDER BY c.origin_chain_id, c.block_number, c.log_index
       RETURNING id)
     SELECT count(*) AS written, max(id)::text AS last_id FROM inserted`,
    [...keys.params, nowSeconds, cause],
  );
  if (row?.last_id) await tx.query("SELECT pg_notify($1, $2)", [DEPOSIT_STATUS_CHANNEL, row.last_id]);
  return Number(row?.written ?? 0);
}

/**
 * Relay hashes whose status may go back when chain `chainId` loses its blocks from `fromBlock` up: the
 * deposits its fills, slow-fill requests and refund executions there are for. Read before the delete, recorded
 * after it (`cause` reorg). Deposits of the chain itself are deleted with the blocks: they have no status left.
 */
export async function statusKeysAbove(tx: Queryable, chainId: number, fromBlock: bigint): Promise<Buffer[]> {
  const rows = await tx.query<{ relay_hash: Buffer }>(
    `${DESTINATION_KEYS} UNION ${REFUNDED_BY_CHAIN_SQL("$1", "$2")}`,
    [chainId, fromBlock.toString()],
  );
  return rows.map((r) => r.relay_hash);
}

/**
 * Records `expired` for the deposits whose deadline passed by `nowSeconds` while their last status said
 * pending or slowFillRequested. `sinceSeconds` bounds the deadlines read (the sweep passes the previous
 * sweep's time, less a margin for a range committed late); without it every past deadline is read once.
 */
export async function sweepExpiredStatuses(db: Database, nowSeconds: number, sinceSeconds?: number): Promise<number> {
  return db.transaction((tx) =>
    recordStatusChanges(tx, { expiredBefore: nowSeconds, expiredSince: sinceSeconds }, "expiry", nowSeconds),
  );
}
