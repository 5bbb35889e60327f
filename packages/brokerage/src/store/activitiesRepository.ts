/**
 * SQL for `brokerage.activities`: the account activities of `GET /v2/account/activities` (fills and non-trade
 * activities). Ids are `activityId(transaction_time)` (domain/activityIds.ts), so they sort by time and the
 * index `(account_id, id)` serves every page: time filters are turned into id ranges (an index range scan)
 * and kept as exact `transaction_time` conditions too (an id's prefix is only to the millisecond).
 *
 * The cash deposit of an account's opening is written with the account (usersRepository.insertWithAccounts);
 * fills are written by order execution, in its own transaction.
 */
import type { Queryable } from "@platform/kernel";
import { activityIdPrefix } from "../domain/activityIds.ts";
import type { ActivityRecord } from "../domain/activityObject.ts";

/** Which activities of an account a page holds, already validated. */
export interface ActivityFilter {
  /** Only these types. */
  types?: readonly string[] | undefined;
  /** None of these types. */
  excludeTypes?: readonly string[] | undefined;
  /** Activities at or after this time (inclusive). */
  from?: Date | undefined;
  /** Activities strictly after this time. */
  after?: Date | undefined;
  /** Activities strictly before this time. */
  until?: Date | undefined;
  /** `desc`: newest first (the anchor's default). */
  direction: "asc" | "desc";
  /** The id of the last activity of the previous page: the page starts after it, in `direction`. */
  pageToken?: string | undefined;
  /** Most activities answered. */
  limit: number;
}

export const ACTIVITY_COLUMNS =
  "id, activity_type, transaction_time, order_id, symbol, side, type, qty, price, cum_qty, leaves_qty, " +
  "order_status, net_amount, per_share_amount, description";

// ---------------------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------------------

/** The statement of one page: only the conditions the filter has, so every plan is an index range scan. */
export function activityPageQuery(accountId: string, filter: ActivityFilter): { text: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ["account_id = $1"];
  if (filter.types) where.push(`activity_type = ANY(${bind(filter.types)}::text[])`);
  if (filter.excludeTypes) where.push(`activity_type <> ALL(${bind(filter.excludeTypes)}::text[])`);
  // transaction_time >= t (or > t) implies id >= prefix(t): the id is prefix(floor_ms(transaction_time)) + "::…".
  if (filter.from) {
    where.push(`id >= ${bind(activityIdPrefix(filter.from))}`, `transaction_time >= ${bind(filter.from)}`);
  }
  if (filter.after) {
    where.push(`id >= ${bind(activityIdPrefix(filter.after))}`, `transaction_time > ${bind(filter.after)}`);
  }
  // transaction_time < t (t whole milliseconds) implies floor_ms(transaction_time) < t, so id < prefix(t).
  if (filter.until) {
    where.push(`id < ${bind(activityIdPrefix(filter.until))}`, `transaction_time < ${bind(filter.until)}`);
  }
  const descending = filter.direction === "desc";
  if (filter.pageToken !== undefined) where.push(`id ${descending ? "<" : ">"} ${bind(filter.pageToken)}`);
  return {
    text: `SELECT ${ACTIVITY_COLUMNS} FROM brokerage.activities WHERE ${where.join(" AND ")}
      ORDER BY id ${descending ? "DESC" : "ASC"} LIMIT ${bind(filter.limit)}`,
    params,
  };
}

export function createActivitiesRepository(db: Queryable) {
  return {
    /** One page of the account's activities matching `filter`, in `filter.direction` order of their ids. */
    async listPage(accountId: string, filter: ActivityFilter): Promise<ActivityRecord[]> {
      const { text, params } = activityPageQuery(accountId, filter);
      return db.query<ActivityRecord>(text, params);
    },
  };
}

export type ActivitiesRepository = ReturnType<typeof createActivitiesRepository>;
