/**
 * SQL for `brokerage.watchlists` and their symbols (`brokerage.watchlist_assets`, ordered by `position`).
 * Every write of an account runs in one transaction that first takes the account's watchlist lock (a
 * transaction-level advisory lock), so two writes of the same account never interleave: the count of
 * watchlists, the positions of symbols and the symbol limit hold under concurrent requests, on any number of
 * instances. A taken name becomes `WatchlistNameTakenError` here.
 */
import { constraintViolation, type Database, type Queryable } from "@platform/kernel";
import { WatchlistNameTakenError } from "../domain/watchlistErrors.ts";
import type { WatchlistRef } from "../domain/watchlists.ts";
import { isUuid } from "./accountsRepository.ts";

export interface WatchlistRow {
  id: string;
  account_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

/** A watchlist with its symbols in their order. */
export interface StoredWatchlist extends WatchlistRow {
  symbols: string[];
}

/**
 * First key of the accounts' watchlist locks (`pg_advisory_xact_lock(int4, int4)`; the second key is the
 * account id's hash). The two-key space does not overlap the one-key locks of migrations and seeding.
 */
const WATCHLIST_LOCK_CLASS = 0x57_4c_53_54; // "WLST"

const ROW = "w.id, w.account_id, w.name, w.created_at, w.updated_at";
/** json_agg: both drivers parse json the same way (arrays of text differ between them). */
const SYMBOLS = `COALESCE((SELECT json_agg(a.symbol ORDER BY a.position) FROM brokerage.watchlist_assets a
  WHERE a.watchlist_id = w.id), '[]'::json) AS symbols`;

/** The account's watchlist named by `ref` with its symbols (the statement and its parameters). */
function findStatement(accountId: string, ref: WatchlistRef): [string, unknown[]] | undefined {
  const by = "id" in ref ? "w.id" : "w.name";
  const key = "id" in ref ? ref.id : ref.name;
  if ("id" in ref && !isUuid(ref.id)) return undefined;
  return [
    `SELECT ${ROW}, ${SYMBOLS} FROM brokerage.watchlists w WHERE w.account_id = $1 AND ${by} = $2`,
    [accountId, key],
  ];
}

async function find(db: Queryable, accountId: string, ref: WatchlistRef): Promise<StoredWatchlist | undefined> {
  const statement = findStatement(accountId, ref);
  if (!statement || !isUuid(accountId)) return undefined;
  const [row] = await db.query<StoredWatchlist>(...statement);
  return row;
}

/** `name` taken by another watchlist of the account → WatchlistNameTakenError; anything else is rethrown. */
function nameTakenOr(error: unknown, name: string): never {
  const violation = constraintViolation(error);
  if (violation?.kind === "unique" && violation.constraint === "watchlists_name_key") {
    throw new WatchlistNameTakenError(name, { cause: error });
  }
  throw error;
}

/** The statements of one account's write transaction (see `write`). */
function writerOf(tx: Queryable, accountId: string) {
  return {
    find: (ref: WatchlistRef) => find(tx, accountId, ref),

    async count(): Promise<number> {
      const [row] = await tx.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM brokerage.watchlists WHERE account_id = $1",
        [accountId],
      );
      return row?.count ?? 0;
    },

    /**
     * A new, empty watchlist.
     * @throws {WatchlistNameTakenError} when the account has one of this name.
     */
    async insert(name: string): Promise<WatchlistRow> {
      try {
        const [row] = await tx.query<WatchlistRow>(
          `INSERT INTO brokerage.watchlists AS w (account_id, name) VALUES ($1, $2) RETURNING ${ROW}`,
          [accountId, name],
        );
        return row as WatchlistRow;
      } catch (error) {
        return nameTakenOr(error, name);
      }
    },

    /**
     * Marks the watchlist changed now, renamed when `name` is given.
     * @throws {WatchlistNameTakenError} when another watchlist of the account has that name.
     */
    async touch(id: string, name?: string): Promise<WatchlistRow> {
      try {
        const [row] = await tx.query<WatchlistRow>(
          `UPDATE brokerage.watchlists w SET name = COALESCE($3, w.name), updated_at = now()
           WHERE w.id = $1 AND w.account_id = $2 RETURNING ${ROW}`,
          [id, accountId, name ?? null],
        );
        return row as WatchlistRow;
      } catch (error) {
        return nameTakenOr(error, name ?? "");
      }
    },

    /** Replaces the watchlist's symbols by `symbols` (distinct), in that order. */
    async setSymbols(id: string, symbols: readonly string[]): Promise<void> {
      await tx.query("DELETE FROM brokerage.watchlist_assets WHERE watchlist_id = $1", [id]);
      if (symbols.length === 0) return;
      await tx.query(
        `INSERT INTO brokerage.watchlist_assets (watchlist_id, position, symbol)
         SELECT $1, t.ordinality - 1, t.symbol FROM unnest($2::text[]) WITH ORDINALITY AS t (symbol, ordinality)`,
        [id, symbols],
      );
    },

    /** Adds `symbol` after the watchlist's last one (nothing when it is listed already). */
    async appendSymbol(id: string, symbol: string): Promise<void> {
      await tx.query(
        `INSERT INTO brokerage.watchlist_assets (watchlist_id, position, symbol)
         SELECT $1, COALESCE(max(position) + 1, 0), $2 FROM brokerage.watchlist_assets WHERE watchlist_id = $1
         ON CONFLICT (watchlist_id, symbol) DO NOTHING`,
        [id, symbol],
      );
    },

    /** Removes `symbol` from the watchlist; false when it was not listed. */
    async removeSymbol(id: string, symbol: string): Promise<boolean> {
      const removed = await tx.query(
        "DELETE FROM brokerage.watchlist_assets WHERE watchlist_id = $1 AND symbol = $2 RETURNING symbol",
        [id, symbol],
      );
      return removed.length > 0;
    },

    /** Deletes the watchlist and its symbols; false when the account has no such watchlist. */
    async delete(id: string): Promise<boolean> {
      const deleted = await tx.query(
        "DELETE FROM brokerage.watchlists WHERE id = $1 AND account_id = $2 RETURNING id",
        [id, accountId],
      );
      return deleted.length > 0;
    },
  };
}

export type WatchlistWriter = ReturnType<typeof writerOf>;

export function createWatchlistsRepository(db: Database) {
  return {
    /** The account's watchlists without their symbols, oldest first. */
    list: async (accountId: string): Promise<WatchlistRow[]> =>
      isUuid(accountId)
        ? db.query<WatchlistRow>(
            `SELECT ${ROW} FROM brokerage.watchlists w WHERE w.account_id = $1 ORDER BY w.created_at, w.name`,
            [accountId],
          )
        : [],

    /** The account's watchlist named by `ref` (id or name) with its symbols, or undefined. */
    find: (accountId: string, ref: WatchlistRef): Promise<StoredWatchlist | undefined> => find(db, accountId, ref),

    /**
     * Runs `work` in one transaction holding the account's watchlist lock: committed when it resolves,
     * rolled back when it throws (so a refused change leaves nothing behind).
     */
    write<T>(accountId: string, work: (writer: WatchlistWriter) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        await tx.query("SELECT pg_advisory_xact_lock($1::int4, hashtext($2::text))", [WATCHLIST_LOCK_CLASS, accountId]);
        return work(writerOf(tx, accountId));
      });
    },
  };
}

export type WatchlistsRepository = ReturnType<typeof createWatchlistsRepository>;
