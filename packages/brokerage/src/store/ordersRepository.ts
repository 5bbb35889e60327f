/**
 * SQL for `brokerage.orders` and `brokerage.order_commands`: what the trading routes read and what a
 * placement, cancel or replace writes. A placement reads its account and writes its order with a
 * compare-and-swap of the account's version (two autocommit statements); cancels, replaces and a placement
 * that lost its compare-and-swap too often run in the caller's transaction, after it locked the account.
 */
import type { Queryable } from "@platform/kernel";
import type { OrderHoldInput } from "../domain/orderHolds.ts";
import { OPEN_STATUSES, type OrderRow } from "../domain/orderObject.ts";

export const OPEN_STATUS_LIST = OPEN_STATUSES.map((s) => `'${s}'`).join(", ");

/** The filters of `GET /v2/orders` (Alpaca's query parameters), already validated. */
export interface OrderListQuery {
  status: "open" | "closed" | "all";
  limit: number;
  after?: Date | undefined;
  until?: Date | undefined;
  direction: "asc" | "desc";
  nested: boolean;
  side?: "buy" | "sell" | undefined;
  symbols?: string[] | undefined;
  /** Only these asset classes; `undefined`: every class. */
  assetClasses?: string[] | undefined;
  /** Only orders submitted before (after) this order of the account, exclusive. */
  beforeOrderId?: string | undefined;
  afterOrderId?: string | undefined;
}

/** The columns a new order row is inserted with (the rest take their defaults), and its time. */
export type NewOrderRow = Pick<OrderRow, (typeof INSERT_COLUMNS)[number]> & { at: Date };

const INSERT_COLUMNS = [
  "id",
  "account_id",
  "client_order_id",
  "symbol",
  "asset_id",
  "asset_class",
  "side",
  "type",
  "time_in_force",
  "order_class",
  "qty",
  "notional",
  "limit_price",
  "stop_price",
  "trail_price",
  "trail_percent",
  "extended_hours",
  "opens_short",
  "hold_price",
  "status",
  "parent_id",
  "replaces",
  "expires_at",
] as const;

/** What a placement stored: the order then its legs, and the account's version after it. */
export interface PlacedOrders {
  orders: OrderRow[];
  version: string;
}

/** What open orders of an account hold, for the placement checks. */
export type OpenOrderHold = OrderHoldInput & { id: string };

/** The account row a placement locks, with what its checks read, fetched with the lock in one statement. */
export interface PlacementState {
  account: {
    id: string;
    cash: string;
    status: string;
    suspend_trade: boolean;
    no_shorting: boolean;
    max_margin_multiplier: "1" | "2" | "4";
    /** Bumped by every write of the account (trigger of migration 0005); a decimal string. */
    version: string;
  };
  holds: OpenOrderHold[];
  positions: { symbol: string; qty: string }[];
}

const HOLD_FIELDS = ["id", "symbol", "side", "opens_short", "parent_id", "status"]
  .map((c) => `'${c}', o.${c}`)
  .concat(["qty", "notional", "filled_qty", "filled_value", "hold_price"].map((c) => `'${c}', o.${c}::text`))
  .join(", ");

/** The account columns the placement checks read, and the version a placement's compare-and-swap expects. */
const ACCOUNT_CHECK_COLUMNS =
  "id, cash::text AS cash, status, suspend_trade, no_shorting, max_margin_multiplier, version::text AS version";

/**
 * The account row, locked: an UPDATE rather than FOR UPDATE, so it bumps the version (migration 0005) and a
 * placement that read the account before fails its compare-and-swap. Its own statement: in READ COMMITTED a
 * statement that waited for a row lock still reads everything else from the snapshot it started with, so
 * holds read in the same statement would miss the orders the previous holder of the lock just committed (the
 * concurrency test on PostgreSQL caught it).
 */
const LOCK_ACCOUNT = `
  UPDATE brokerage.accounts SET version = version WHERE id = $1 RETURNING ${ACCOUNT_CHECK_COLUMNS}`;

/** What the checks read under the lock, in one statement (a fresh snapshot, after the lock was granted). */
const HOLDS_AND_POSITIONS_COLUMNS = `
    COALESCE((SELECT json_agg(json_build_object(${HOLD_FIELDS})) FROM brokerage.orders o
              WHERE o.account_id = $1 AND o.status IN (${OPEN_STATUS_LIST})), '[]'::json) AS holds,
    COALESCE((SELECT json_agg(json_build_object('symbol', p.symbol, 'qty', p.qty::text)) FROM brokerage.positions p
              WHERE p.account_id = $1), '[]'::json) AS positions`;
const HOLDS_AND_POSITIONS = `SELECT ${HOLDS_AND_POSITIONS_COLUMNS}`;

/**
 * Everything the placement checks read, without a lock, in one statement: one snapshot, so the version read
 * is the version of exactly these holds, positions and balance.
 */
const PLACEMENT_STATE = `
  SELECT ${ACCOUNT_CHECK_COLUMNS.split(", ")
    .map((c) => `a.${c}`)
    .join(", ")}, ${HOLDS_AND_POSITIONS_COLUMNS}
  FROM brokerage.accounts a WHERE a.id = $1`;

/**
 * A placement in one statement: the compare-and-swap of the account's version, and only when it matched, the
 * order and its legs ($3, a JSON array of rows), the command for the exchange writer ($5, of the order $4) and
 * the `pg_notify` that wakes a writer of another instance at commit. The UPDATE takes the account's row lock;
 * after waiting for it, PostgreSQL re-checks `version = $2` against the newest row version (READ COMMITTED), so
 * a placement that read the account before another write committed inserts nothing (no row answered). The
 * version is bumped by the row trigger (migration 0005), as for every update of an account: `SET version =
 * version` only makes the row an update.
 */
const PLACE_ORDERS = `
  WITH cas AS (
    UPDATE brokerage.accounts SET version = version WHERE id = $1 AND version = $2 RETURNING id, version
  ), inserted AS (
    INSERT INTO brokerage.orders (${INSERT_COLUMNS.join(", ")}, created_at, updated_at, submitted_at)
    SELECT ${INSERT_COLUMNS.map((c) => `r.${c}`).join(", ")}, $6, $6, $6
    FROM cas, json_populate_recordset(NULL::brokerage.orders, $3::json) r
    RETURNING *
  ), queued AS (
    INSERT INTO brokerage.order_commands (order_id, command)
    SELECT id, $5 FROM inserted WHERE id = $4
    RETURNING pg_notify('brokerage_order_commands', seq::text)
  )
  SELECT inserted.*, cas.version::text AS account_version FROM inserted, cas`;

/**
 * What valuing an account reads (`GET /v2/account`): its balance and configuration, holds and positions.
 * Exported for the benchmark, whose baseline runs exactly this statement after the bearer lookup.
 */
export const VALUATION_INPUTS_SQL = `
  SELECT a.cash::text AS cash, a.last_equity::text AS last_equity, a.max_margin_multiplier, a.no_shorting,
    a.suspend_trade, ${HOLDS_AND_POSITIONS_COLUMNS}
  FROM brokerage.accounts a WHERE a.id = $1`;

export interface ValuationInputs extends Pick<PlacementState, "holds" | "positions"> {
  cash: string;
  last_equity: string | null;
  max_margin_multiplier: "1" | "2" | "4";
  no_shorting: boolean;
  suspend_trade: boolean;
}

const insertedColumns = (row: NewOrderRow) => Object.fromEntries(INSERT_COLUMNS.map((c) => [c, row[c]]));

export function createOrdersRepository(db: Queryable) {
  return {
    /** Locks the account row (an UPDATE, which bumps its version) and reads the columns the order checks use. */
    async lockAccount(tx: Queryable, accountId: string): Promise<PlacementState["account"] | undefined> {
      const [account] = await tx.query<PlacementState["account"]>(LOCK_ACCOUNT, [accountId]);
      return account;
    },

    /** What the placement checks read and the account's version, in one statement (no lock). */
    async placementState(accountId: string): Promise<PlacementState | undefined> {
      const [row] = await db.query<PlacementState["account"] & Pick<PlacementState, "holds" | "positions">>(
        PLACEMENT_STATE,
        [accountId],
        { name: "brokerage.placement-state" },
      );
      if (!row) return undefined;
      const { holds, positions, ...account } = row;
      return { account, holds: holds ?? [], positions: positions ?? [] };
    },

    /**
     * Inserts `rows` (an order, then its legs) with a `command` for the first one, if the account's version is
     * still `version` (and bumps it); answers the rows as stored in the order given, or undefined when another
     * write of the account came first. `tx`: a transaction that holds the account lock (default: autocommit).
     */
    async place(
      accountId: string,
      version: string,
      rows: readonly NewOrderRow[],
      command: "submit",
      tx: Queryable = db,
    ): Promise<PlacedOrders | undefined> {
      const [first] = rows;
      if (!first) return { orders: [], version };
      const stored = await tx.query<OrderRow & { account_version: string }>(
        PLACE_ORDERS,
        [accountId, version, JSON.stringify(rows.map(insertedColumns)), first.id, command, first.at],
        { name: "brokerage.place-orders" },
      );
      if (stored.length === 0) return undefined;
      const byId = new Map(stored.map(({ account_version: _, ...r }) => [r.id, r as OrderRow]));
      return {
        orders: rows.map((r) => byId.get(r.id) as OrderRow),
        version: (stored[0] as { account_version: string }).account_version,
      };
    },

    /** The open orders' holds and the positions of an account, in one statement (read after the lock). */
    async holdsAndPositions(tx: Queryable, accountId: string): Promise<Pick<PlacementState, "holds" | "positions">> {
      const [read] = await tx.query<Pick<PlacementState, "holds" | "positions">>(HOLDS_AND_POSITIONS, [accountId]);
      return { holds: read?.holds ?? [], positions: read?.positions ?? [] };
    },

    /**
     * Inserts an order and answers it as stored; with `command`, queues it for the exchange writer in the same
     * statement (and wakes a writer of another instance at commit).
     */
    async insert(tx: Queryable, row: NewOrderRow, command?: "submit" | "replace"): Promise<OrderRow> {
      const values = INSERT_COLUMNS.map((c) => row[c]);
      const at = INSERT_COLUMNS.length;
      const insert = `INSERT INTO brokerage.orders (${INSERT_COLUMNS.join(", ")}, created_at, updated_at, submitted_at)
         VALUES (${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(", ")}, $${at + 1}, $${at + 1}, $${at + 1})
         RETURNING *`;
      const [stored] = await tx.query<OrderRow>(
        command
          ? `WITH inserted AS (${insert}),
               queued AS (INSERT INTO brokerage.order_commands (order_id, command)
                          SELECT id, $${at + 2} FROM inserted RETURNING seq)
             SELECT inserted.* FROM inserted, queued, LATERAL (SELECT pg_notify('brokerage_order_commands', queued.seq::text)) n`
          : insert,
        command ? [...values, row.at, command] : [...values, row.at],
      );
      return stored as OrderRow;
    },

    /** Queues an engine command; `pg_notify` wakes the exchange writer of another instance at commit. */
    async enqueueCommand(tx: Queryable, orderId: string, command: "submit" | "cancel" | "replace"): Promise<void> {
      await tx.query(
        `WITH queued AS (INSERT INTO brokerage.order_commands (order_id, command) VALUES ($1, $2) RETURNING seq)
         SELECT pg_notify('brokerage_order_commands', seq::text) FROM queued`,
        [orderId, command],
      );
    },

    /** An account's balance, configuration, holds and positions, in one statement (no lock: a read). */
    async valuationInputs(accountId: string): Promise<ValuationInputs | undefined> {
      const [row] = await db.query<ValuationInputs>(VALUATION_INPUTS_SQL, [accountId]);
      return row;
    },

    /** What the account's open orders hold (`tx`: inside the caller's transaction; default the pool). */
    async openHolds(tx: Queryable | undefined, accountId: string): Promise<OpenOrderHold[]> {
      return (tx ?? db).query<OpenOrderHold>(
        `SELECT id, symbol, side, opens_short, qty, notional, filled_qty, filled_value, hold_price, parent_id, status
         FROM brokerage.orders WHERE account_id = $1 AND status IN (${OPEN_STATUS_LIST})`,
        [accountId],
      );
    },

    async get(accountId: string, orderId: string, tx: Queryable = db): Promise<OrderRow | undefined> {
      const [row] = await tx.query<OrderRow>("SELECT * FROM brokerage.orders WHERE id = $1 AND account_id = $2", [
        orderId,
        accountId,
      ]);
      return row;
    },

    async lock(tx: Queryable, accountId: string, orderId: string): Promise<OrderRow | undefined> {
      const [row] = await tx.query<OrderRow>(
        "SELECT * FROM brokerage.orders WHERE id = $1 AND account_id = $2 FOR UPDATE",
        [orderId, accountId],
      );
      return row;
    },

    async byClientOrderId(accountId: string, clientOrderId: string): Promise<OrderRow | undefined> {
      const [row] = await db.query<OrderRow>(
        "SELECT * FROM brokerage.orders WHERE account_id = $1 AND client_order_id = $2",
        [accountId, clientOrderId],
      );
      return row;
    },

    async legsOf(parentIds: readonly string[]): Promise<OrderRow[]> {
      if (parentIds.length === 0) return [];
      return db.query<OrderRow>(
        "SELECT * FROM brokerage.orders WHERE parent_id = ANY($1::uuid[]) ORDER BY created_at, id",
        [parentIds],
      );
    },

    /** The account's open orders, bracket and oco legs included (each after its parent), oldest first. */
    async openIds(tx: Queryable, accountId: string): Promise<string[]> {
      const rows = await tx.query<{ id: string }>(
        `SELECT id FROM brokerage.orders WHERE account_id = $1 AND status IN (${OPEN_STATUS_LIST})
         ORDER BY created_at, parent_id NULLS FIRST, id`,
        [accountId],
      );
      return rows.map((r) => r.id);
    },

    /** Which of `ids` are still open. */
    async stillOpen(accountId: string, ids: readonly string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await db.query<{ id: string }>(
        `SELECT id FROM brokerage.orders WHERE account_id = $1 AND id = ANY($2::uuid[]) AND status IN (${OPEN_STATUS_LIST})`,
        [accountId, ids],
      );
      return rows.map((r) => r.id);
    },

    async list(accountId: string, q: OrderListQuery): Promise<OrderRow[]> {
      const where = ["account_id = $1"];
      const params: unknown[] = [accountId];
      const add = (sql: string, value: unknown) => {
        params.push(value);
        where.push(sql.replace("?", `$${params.length}`));
      };
      if (q.status === "open") where.push(`status IN (${OPEN_STATUS_LIST})`);
      if (q.status === "closed") where.push(`status NOT IN (${OPEN_STATUS_LIST})`);
      if (q.after) add("submitted_at > ?", q.after);
      if (q.until) add("submitted_at < ?", q.until);
      if (q.side) add("side = ?", q.side);
      if (q.symbols) add("symbol = ANY(?::text[])", q.symbols);
      if (q.assetClasses) add("asset_class = ANY(?::text[])", q.assetClasses);
      // The order named by a cursor is taken in the account only: another account's id matches nothing.
      const cursorOrder = "(SELECT submitted_at, id FROM brokerage.orders WHERE id = ?::uuid AND account_id = $1)";
      if (q.beforeOrderId) add(`(submitted_at, id) < ${cursorOrder}`, q.beforeOrderId);
      if (q.afterOrderId) add(`(submitted_at, id) > ${cursorOrder}`, q.afterOrderId);
      // Legs are listed under their parent when nested, else as orders of their own (as at the anchor).
      if (q.nested) where.push("parent_id IS NULL");
      params.push(q.limit);
      return db.query<OrderRow>(
        `SELECT * FROM brokerage.orders WHERE ${where.join(" AND ")}
         ORDER BY submitted_at ${q.direction}, id ${q.direction} LIMIT $${params.length}`,
        params,
      );
    },
  };
}

export type OrdersRepository = ReturnType<typeof createOrdersRepository>;
