/**
 * The exchange writer's multi-row statements: one per table and kind of change, whatever the number of
 * orders of a batch, so a transaction's cost per order falls as the batch grows (group commit).
 *
 * Rows travel as one jsonb parameter read by `jsonb_to_recordset`: the same text on PGlite and node-postgres,
 * numerics as strings (exact: node-postgres would parse a `numeric[]` parameter's answer as floats, and JSON
 * numbers lose digits) cast by the record's column types, timestamps as ISO strings.
 */
import type { Queryable } from "@platform/kernel";
import type { OrderRow } from "../domain/orderObject.ts";

const json = (rows: readonly unknown[]): string => JSON.stringify(rows);

export interface PositionRow {
  account_id: string;
  symbol: string;
  qty: string;
  avg_entry_price: string;
}

/** The positions of these (account, symbol) pairs that exist. */
export async function readPositions(
  tx: Queryable,
  keys: readonly { account_id: string; symbol: string }[],
): Promise<PositionRow[]> {
  if (keys.length === 0) return [];
  return tx.query<PositionRow>(
    `SELECT p.account_id, p.symbol, p.qty, p.avg_entry_price
     FROM brokerage.positions p
     JOIN jsonb_to_recordset($1::jsonb) AS k(account_id uuid, symbol text)
       ON p.account_id = k.account_id AND p.symbol = k.symbol`,
    [json(keys)],
  );
}

/** Writes back what the writer changes of orders (status, fills, timestamps, book priority, trailing marks). */
export async function updateOrders(tx: Queryable, rows: readonly OrderRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `UPDATE brokerage.orders o SET status = v.status, filled_qty = v.filled_qty, filled_value = v.filled_value,
       filled_at = v.filled_at, canceled_at = v.canceled_at, expired_at = v.expired_at, failed_at = v.failed_at,
       replaced_at = v.replaced_at, replaced_by = v.replaced_by, updated_at = v.updated_at,
       book_priority = v.book_priority, hwm = v.hwm, stop_price = v.stop_price
     FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, status text, filled_qty numeric, filled_value numeric,
       filled_at timestamptz, canceled_at timestamptz, expired_at timestamptz, failed_at timestamptz,
       replaced_at timestamptz, replaced_by uuid, updated_at timestamptz, book_priority bigint, hwm numeric,
       stop_price numeric)
     WHERE o.id = v.id`,
    [
      json(
        rows.map((r) => ({
          id: r.id,
          status: r.status,
          filled_qty: r.filled_qty,
          filled_value: r.filled_value,
          filled_at: r.filled_at,
          canceled_at: r.canceled_at,
          expired_at: r.expired_at,
          failed_at: r.failed_at,
          replaced_at: r.replaced_at,
          replaced_by: r.replaced_by,
          updated_at: r.updated_at,
          book_priority: r.book_priority,
          hwm: r.hwm,
          stop_price: r.stop_price,
        })),
      ),
    ],
  );
}

export interface PositionWrite {
  account_id: string;
  symbol: string;
  asset_id: string | undefined;
  asset_class: string | undefined;
  exchange: string | undefined;
  qty: string;
  avg_entry_price: string;
}

/** Upserts the open positions and deletes the closed ones (qty 0): at most two statements. */
export async function writePositions(
  tx: Queryable,
  open: readonly PositionWrite[],
  closed: readonly { account_id: string; symbol: string }[],
  at: Date,
): Promise<void> {
  if (closed.length > 0) {
    await tx.query(
      `DELETE FROM brokerage.positions p USING jsonb_to_recordset($1::jsonb) AS k(account_id uuid, symbol text)
       WHERE p.account_id = k.account_id AND p.symbol = k.symbol`,
      [json(closed)],
    );
  }
  if (open.length === 0) return;
  await tx.query(
    `INSERT INTO brokerage.positions (account_id, symbol, asset_id, asset_class, exchange, qty, avg_entry_price, updated_at)
     SELECT v.account_id, v.symbol, v.asset_id, v.asset_class, v.exchange, v.qty, v.avg_entry_price, $2::timestamptz
     FROM jsonb_to_recordset($1::jsonb) AS v(account_id uuid, symbol text, asset_id uuid, asset_class text,
       exchange text, qty numeric, avg_entry_price numeric)
     ON CONFLICT (account_id, symbol) DO UPDATE SET qty = EXCLUDED.qty, avg_entry_price = EXCLUDED.avg_entry_price,
       updated_at = EXCLUDED.updated_at`,
    [json(open), at.toISOString()],
  );
}

/** Adds each account's net cash of the batch's fills. */
export async function addCash(tx: Queryable, deltas: readonly { id: string; delta: string }[]): Promise<void> {
  if (deltas.length === 0) return;
  await tx.query(
    `UPDATE brokerage.accounts a SET cash = a.cash + v.delta
     FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, delta numeric) WHERE a.id = v.id`,
    [json(deltas)],
  );
}

/** Persists the live books' sequences and last trades (one row per symbol). */
export async function upsertBooks(
  tx: Queryable,
  books: readonly { symbol: string; sequence: number; last_trade_price: string | null }[],
): Promise<void> {
  if (books.length === 0) return;
  await tx.query(
    `INSERT INTO brokerage.exchange_books (symbol, sequence, last_trade_price)
     SELECT v.symbol, v.sequence, v.last_trade_price
     FROM jsonb_to_recordset($1::jsonb) AS v(symbol text, sequence bigint, last_trade_price numeric)
     ON CONFLICT (symbol) DO UPDATE SET sequence = EXCLUDED.sequence, last_trade_price = EXCLUDED.last_trade_price`,
    [json(books)],
  );
}

/** Queues follow-up commands, numbered (seq) in the order given: the writer runs them in that order. */
export async function insertCommands(
  tx: Queryable,
  commands: readonly { orderId: string; command: "submit" | "cancel" }[],
): Promise<void> {
  if (commands.length === 0) return;
  await tx.query(
    `INSERT INTO brokerage.order_commands (order_id, command)
     SELECT (v->>'orderId')::uuid, v->>'command' FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS j(v, n)
     ORDER BY n`,
    [json(commands)],
  );
}

/** Marks the batch's commands done (in the transaction that applied them: a killed writer redoes the rest). */
export async function markCommandsDone(tx: Queryable, seqs: readonly string[]): Promise<void> {
  if (seqs.length === 0) return;
  await tx.query("UPDATE brokerage.order_commands SET done_at = now() WHERE seq = ANY($1::bigint[])", [seqs]);
}
