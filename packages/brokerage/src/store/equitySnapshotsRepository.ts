/**
 * SQL for `brokerage.equity_snapshots` (primary key `(account_id, at)`): what the snapshot job reads and
 * writes, a batch of accounts per statement, and the equity at the ends of portfolio history buckets.
 */
import type { Queryable } from "@platform/kernel";

/** An account as the snapshot job values it: its cash and open positions, read by one statement (consistent). */
export interface AccountHoldings {
  id: string;
  cash: string;
  positions: { symbol: string; qty: string; avg_entry_price: string }[];
}

/** One snapshot to write. */
export interface NewSnapshot {
  accountId: string;
  equity: string;
  cash: string;
}

const HOLDINGS_BATCH = `
  SELECT a.id, a.cash::text AS cash,
    coalesce(
      json_agg(json_build_object('symbol', p.symbol, 'qty', p.qty::text, 'avg_entry_price', p.avg_entry_price::text)
        ORDER BY p.symbol) FILTER (WHERE p.symbol IS NOT NULL),
      '[]'::json) AS positions
  FROM (
    SELECT id, cash FROM brokerage.accounts WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2
  ) a
  LEFT JOIN brokerage.positions p ON p.account_id = a.id
  GROUP BY a.id, a.cash
  ORDER BY a.id`;

/**
 * A snapshot is written only when the account's equity or cash differs from its previous snapshot: history
 * reads the last snapshot at or before each bucket's end, so an unchanged value needs no row (idle accounts
 * cost one index lookup per run, not one row). The primary key makes a second writer of the same bucket
 * (a restart, another instance) a no-op; the join skips an account deleted since it was read.
 */
const INSERT_CHANGED = `
  INSERT INTO brokerage.equity_snapshots (account_id, at, equity, cash)
  SELECT n.account_id, $1::timestamptz, n.equity, n.cash
  FROM unnest($2::uuid[], $3::numeric[], $4::numeric[]) AS n (account_id, equity, cash)
  JOIN brokerage.accounts a ON a.id = n.account_id
  WHERE NOT EXISTS (
    SELECT 1 FROM (
      SELECT s.equity, s.cash FROM brokerage.equity_snapshots s
      WHERE s.account_id = n.account_id AND s.at < $1::timestamptz
      ORDER BY s.at DESC LIMIT 1
    ) previous
    WHERE previous.equity = n.equity AND previous.cash = n.cash
  )
  -- Rows in key order: two writers of one bucket wait for each other in the same order, never in a cycle.
  ORDER BY n.account_id
  ON CONFLICT (account_id, at) DO NOTHING
  RETURNING account_id`;

/** `last_equity` of a batch: the equity of each account's last snapshot at or before the close. */
const SET_LAST_EQUITY = `
  UPDATE brokerage.accounts a SET last_equity = s.equity
  FROM unnest($1::uuid[]) AS b (id)
  CROSS JOIN LATERAL (
    SELECT equity FROM brokerage.equity_snapshots
    WHERE account_id = b.id AND at <= $2::timestamptz
    ORDER BY at DESC LIMIT 1
  ) s
  WHERE a.id = b.id AND a.last_equity IS DISTINCT FROM s.equity
  RETURNING a.id`;

/** The equity of the account's last snapshot at or before each end (one index lookup per end). */
const EQUITY_AT_ENDS = `
  SELECT e.i::int AS i, s.equity
  FROM unnest($2::timestamptz[]) WITH ORDINALITY AS e (end_at, i)
  CROSS JOIN LATERAL (
    SELECT equity FROM brokerage.equity_snapshots
    WHERE account_id = $1 AND at <= e.end_at
    ORDER BY at DESC LIMIT 1
  ) s`;

export function createEquitySnapshotsRepository(db: Queryable) {
  return {
    /** Up to `limit` accounts with ids after `afterId` (all from the first when undefined), by id. */
    holdingsBatch: (afterId: string | undefined, limit: number): Promise<AccountHoldings[]> =>
      db.query<AccountHoldings>(HOLDINGS_BATCH, [afterId ?? null, limit]),

    /** Writes the snapshots of bucket `at` that changed since each account's previous one; how many were written. */
    async insertChanged(at: Date, snapshots: readonly NewSnapshot[]): Promise<number> {
      if (snapshots.length === 0) return 0;
      const rows = await db.query(INSERT_CHANGED, [
        at,
        snapshots.map((s) => s.accountId),
        snapshots.map((s) => s.equity),
        snapshots.map((s) => s.cash),
      ]);
      return rows.length;
    },

    /** Sets `last_equity` of these accounts to their equity at `close`; how many changed. */
    async setLastEquity(accountIds: readonly string[], close: Date): Promise<number> {
      if (accountIds.length === 0) return 0;
      return (await db.query(SET_LAST_EQUITY, [accountIds, close])).length;
    },

    /** The account's equity (decimal string) at each of `ends`, undefined where no snapshot precedes it. */
    async equityAt(accountId: string, ends: readonly number[]): Promise<(string | undefined)[]> {
      const answer: (string | undefined)[] = new Array(ends.length).fill(undefined);
      if (ends.length === 0) return answer;
      const rows = await db.query<{ i: number; equity: string }>(EQUITY_AT_ENDS, [
        accountId,
        ends.map((end) => new Date(end).toISOString()),
      ]);
      for (const row of rows) answer[row.i - 1] = row.equity;
      return answer;
    },
  };
}

export type EquitySnapshotsRepository = ReturnType<typeof createEquitySnapshotsRepository>;
