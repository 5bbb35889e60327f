/**
 * Portfolio history (`GET /v2/account/portfolio/history`): the query's buckets (domain/portfolioHistory.ts),
 * the account's equity at each bucket's end from the snapshots, and the anchor's series. One statement per
 * request, at most `MAX_POINTS` index lookups.
 */
import { InvalidPortfolioHistoryQueryError } from "../domain/accountHistoryErrors.ts";
import {
  baselineOf,
  endOfNewYorkDay,
  historySeries,
  type PortfolioHistoryObject,
  parsePeriod,
  planHistory,
  type Timeframe,
} from "../domain/portfolioHistory.ts";
import { parseQueryInstant, queryDate } from "../domain/queryInstants.ts";
import type { EquitySnapshotsRepository } from "../store/equitySnapshotsRepository.ts";

/** The query as the route validated its shape (times still text). */
export interface PortfolioHistoryQuery {
  period?: string | undefined;
  timeframe?: Timeframe | undefined;
  start?: string | undefined;
  end?: string | undefined;
  /** Deprecated at the anchor: the last day (`YYYY-MM-DD`, New York) of the history. Not with `end`. */
  dateEnd?: string | undefined;
}

const refuse = (parameter: string, reason: string): never => {
  throw new InvalidPortfolioHistoryQueryError(parameter, reason);
};

function instant(parameter: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return parseQueryInstant(value) ?? refuse(parameter, "not a valid date or RFC 3339 time");
}

function endOf(query: PortfolioHistoryQuery): number | undefined {
  if (query.dateEnd === undefined) return instant("end", query.end);
  if (query.end !== undefined) refuse("date_end", "cannot be used with end");
  const date = queryDate(query.dateEnd);
  return date === undefined ? refuse("date_end", "not a valid date") : endOfNewYorkDay(date);
}

export interface PortfolioHistoryServiceParameters {
  equitySnapshots: EquitySnapshotsRepository;
  /** The current instant, epoch ms (default `Date.now`). */
  now?: () => number;
}

export function createPortfolioHistoryService({ equitySnapshots, now = Date.now }: PortfolioHistoryServiceParameters) {
  return {
    /**
     * The account's portfolio history for the query, at now.
     * @throws {InvalidPortfolioHistoryQueryError} for a malformed period or time, start + end + period, an
     *   empty range, or a range too long for its timeframe.
     */
    async get(accountId: string, query: PortfolioHistoryQuery): Promise<PortfolioHistoryObject> {
      const period =
        query.period === undefined ? undefined : (parsePeriod(query.period) ?? refuse("period", "must be <n>D|W|M|A"));
      const plan = planHistory(
        { period, timeframe: query.timeframe, start: instant("start", query.start), end: endOf(query) },
        now(),
      );
      const baseline = baselineOf(plan);
      const equities = await equitySnapshots.equityAt(accountId, baseline ? [...plan.ends, baseline.at] : plan.ends);
      return historySeries(
        plan,
        equities.slice(0, plan.ends.length),
        baseline && { date: baseline.date, equity: equities[plan.ends.length] },
      );
    },
  };
}

export type PortfolioHistoryService = ReturnType<typeof createPortfolioHistoryService>;
