/**
 * Account activities (`GET /v2/account/activities[/{activity_type}]`): the anchor's query rules turned into
 * one page of the account's activities, shaped as the anchor's objects.
 *
 * Rules (the anchor's, reference §2.2, and the client's `AccountActivitiesApi`):
 * - `activity_types` (a list) or `category` (`trade_activity`: fills; `non_trade_activity`: everything
 *   else), not both; an unknown type is refused;
 * - `date` (one New York day) or `after`/`until` (exclusive bounds), not `date` with either;
 * - `direction` `desc` (newest first, the default) or `asc`; `page_size` at most {@link MAX_PAGE_SIZE};
 *   `page_token` is the id of the last activity of the previous page.
 */
import { InvalidActivityQueryError } from "../domain/accountHistoryErrors.ts";
import {
  type ActivityObject,
  isActivityType,
  TRADE_ACTIVITY_TYPES,
  toActivityObject,
} from "../domain/activityObject.ts";
import { parseQueryInstant, queryDate } from "../domain/queryInstants.ts";
import { dayNumber, newYorkInstant } from "../market/newYorkTime.ts";
import type { ActivitiesRepository, ActivityFilter } from "../store/activitiesRepository.ts";

/** The anchor's default and largest `page_size`. */
export const MAX_PAGE_SIZE = 100;

/** The query of `GET /v2/account/activities` as the route validated its shape (times still text). */
export interface ActivityQuery {
  /** Activity types (`activity_types` split, or the path's one type). */
  activityTypes?: readonly string[] | undefined;
  category?: "trade_activity" | "non_trade_activity" | undefined;
  date?: string | undefined;
  until?: string | undefined;
  after?: string | undefined;
  direction: "asc" | "desc";
  pageSize: number;
  pageToken?: string | undefined;
}

function instant(parameter: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const ms = parseQueryInstant(value);
  if (ms === undefined) throw new InvalidActivityQueryError(parameter, "not a valid date or RFC 3339 time");
  return new Date(ms);
}

/** `[midnight, next midnight)` New York time of the day a `date` parameter names (a date or a timestamp's date). */
function newYorkDay(value: string): { from: Date; until: Date } {
  const date = queryDate(value);
  if (date === undefined || parseQueryInstant(value) === undefined) {
    throw new InvalidActivityQueryError("date", "not a valid date or RFC 3339 time");
  }
  const day = dayNumber(date);
  return { from: new Date(newYorkInstant(day, 0)), until: new Date(newYorkInstant(day + 1, 0)) };
}

/**
 * The repository filter of a query.
 * @throws {InvalidActivityQueryError} for an unknown type, `category` with `activity_types`, `date` with
 *   `after`/`until`, a time that does not exist, or a page size out of range.
 */
export function toActivityFilter(query: ActivityQuery): ActivityFilter {
  if (query.activityTypes !== undefined && query.category !== undefined) {
    throw new InvalidActivityQueryError("category", "cannot be used with activity_types");
  }
  const unknown = query.activityTypes?.find((type) => !isActivityType(type));
  if (unknown !== undefined) {
    throw new InvalidActivityQueryError("activity_types", `unknown activity type "${unknown.slice(0, 32)}"`);
  }
  if (query.date !== undefined && (query.after !== undefined || query.until !== undefined)) {
    throw new InvalidActivityQueryError("date", "cannot be used with after or until");
  }
  if (!Number.isInteger(query.pageSize) || query.pageSize < 1 || query.pageSize > MAX_PAGE_SIZE) {
    throw new InvalidActivityQueryError("page_size", `must be between 1 and ${MAX_PAGE_SIZE}`);
  }
  const day = query.date !== undefined ? newYorkDay(query.date) : undefined;
  return {
    types:
      query.category === "trade_activity"
        ? TRADE_ACTIVITY_TYPES
        : query.activityTypes
          ? [...new Set(query.activityTypes)]
          : undefined,
    excludeTypes: query.category === "non_trade_activity" ? TRADE_ACTIVITY_TYPES : undefined,
    from: day?.from,
    after: instant("after", query.after),
    until: day?.until ?? instant("until", query.until),
    direction: query.direction,
    pageToken: query.pageToken,
    limit: query.pageSize,
  };
}

export interface ActivitiesServiceParameters {
  activities: ActivitiesRepository;
}

export function createActivitiesService({ activities }: ActivitiesServiceParameters) {
  return {
    /**
     * One page of the account's activities, newest first unless `direction` is `asc`.
     * @throws {InvalidActivityQueryError} for a query the anchor refuses (see {@link toActivityFilter}).
     */
    async list(accountId: string, query: ActivityQuery): Promise<ActivityObject[]> {
      const rows = await activities.listPage(accountId, toActivityFilter(query));
      return rows.map(toActivityObject);
    },
  };
}

export type ActivitiesService = ReturnType<typeof createActivitiesService>;
