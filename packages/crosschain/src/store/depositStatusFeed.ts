/**
 * Reads of the deposit status outbox (crosschain.deposit_status_events) for the push stream: the whole table
 * after an id (the process's one outbox reader), and the rows of one subscriber's filter (its current statuses,
 * or what it missed since its last event id).
 */
import type { Database } from "@platform/kernel";

export interface DepositStatusEventRow {
  id: string;
  origin_chain_id: string;
  deposit_id: string;
  /** bytes32, as crosschain.deposits stores it. */
  depositor: Buffer;
  recipient: Buffer;
  deposit_tx: Buffer;
  status: string;
  fill_tx: Buffer | null;
  refund_tx: Buffer | null;
  cause: string;
  at: Date;
}

/** Which deposits a subscriber follows; every given part must match (depositors: any of them). */
export interface DepositStatusFilter {
  /** bytes32 (left-padded) depositors. */
  depositors?: Buffer[] | undefined;
  deposit?: { originChainId: number; depositId: string } | undefined;
  depositTx?: Buffer | undefined;
}

/** Ids and numbers as text; ORDER BY names the table's columns (e.id), not these text outputs. */
const COLUMNS = `e.id::text, e.origin_chain_id::text, e.deposit_id::text, e.depositor, e.recipient, e.deposit_tx,
  e.status, e.fill_tx, e.refund_tx, e.cause, e.at`;

function whereOf(filter: DepositStatusFilter, params: unknown[]): string {
  const where: string[] = [];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(sql(params.length));
  };
  if (filter.depositors?.length) {
    add((n) => `e.depositor IN (SELECT decode(h, 'hex') FROM unnest($${n}::text[]) AS h)`, filter.depositors.map(hex));
  }
  if (filter.deposit) {
    add((n) => `e.origin_chain_id = $${n}`, filter.deposit.originChainId);
    add((n) => `e.deposit_id = $${n}`, filter.deposit.depositId);
  }
  if (filter.depositTx) add((n) => `e.deposit_tx = $${n}`, filter.depositTx);
  return where.length ? where.join(" AND ") : "true";
}

const hex = (b: Buffer) => b.toString("hex");

export function createDepositStatusFeed(db: Database) {
  return {
    /** The largest id, 0 when empty. */
    async latestId(): Promise<bigint> {
      const [row] = await db.query<{ id: string | null }>(
        "SELECT max(id)::text AS id FROM crosschain.deposit_status_events",
      );
      return BigInt(row?.id ?? 0);
    },

    /** Up to `limit` rows after `afterId`, in id order. */
    after(afterId: bigint, limit: number): Promise<DepositStatusEventRow[]> {
      return db.query<DepositStatusEventRow>(
        `SELECT ${COLUMNS} FROM crosschain.deposit_status_events e WHERE e.id > $1 ORDER BY e.id LIMIT $2`,
        [afterId.toString(), limit],
      );
    },

    /** The last row of each deposit matching `filter`, in id order: the statuses now. */
    current(filter: DepositStatusFilter): Promise<DepositStatusEventRow[]> {
      const params: unknown[] = [];
      const where = whereOf(filter, params);
      return db.query<DepositStatusEventRow>(
        `SELECT * FROM (
           SELECT DISTINCT ON (e.origin_chain_id, e.deposit_id) ${COLUMNS} FROM crosschain.deposit_status_events e
           WHERE ${where} ORDER BY e.origin_chain_id, e.deposit_id, e.id DESC) last
         ORDER BY id::bigint`,
        params,
      );
    },

    /** Up to `limit` rows matching `filter` after `afterId`, in id order: what a resuming subscriber missed. */
    matchingAfter(filter: DepositStatusFilter, afterId: bigint, limit: number): Promise<DepositStatusEventRow[]> {
      const params: unknown[] = [afterId.toString(), limit];
      const where = whereOf(filter, params);
      return db.query<DepositStatusEventRow>(
        `SELECT ${COLUMNS} FROM crosschain.deposit_status_events e WHERE e.id > $1 AND ${where} ORDER BY e.id LIMIT $2`,
        params,
      );
    },
  };
}

export type DepositStatusFeed = ReturnType<typeof createDepositStatusFeed>;
