/**
 * The daily summaries of a user (activity, sleep, recovery, body, data counts): what the `/summaries` routes
 * ask for. Each summary's rules live in `summaries/*.ts` and `domain/`; SQL in the repository. Bad query
 * parameters are `InvalidQueryError`s (domain/queryDates.ts, domain/cursors.ts). An unknown user has no
 * data: empty lists, a null body summary, zero counts — as at the anchor.
 */
import { optionalWindow } from "../domain/queryDates.ts";
import type { SummariesRepository } from "../store/summariesRepository.ts";
import { activitySummaries } from "./summaries/activity.ts";
import { bodySummary } from "./summaries/body.ts";
import { dataSummary } from "./summaries/dataSummary.ts";
import { dataTimeline, type TimelineBucket, type TimelineGroupBy } from "./summaries/dataTimeline.ts";
import { recoverySummaries } from "./summaries/recovery.ts";
import { sleepSummaries } from "./summaries/sleep.ts";
import { type PageRequest, summaryRange } from "./summaries/summaryPage.ts";

export type { ActivitySummary } from "./summaries/activity.ts";
export type { BodySummary } from "./summaries/body.ts";
export type { DataSummary } from "./summaries/dataSummary.ts";
export type { DataTimeline } from "./summaries/dataTimeline.ts";
export type { RecoverySummary } from "./summaries/recovery.ts";
export type { SleepSummary } from "./summaries/sleep.ts";
export type { SummaryPage } from "./summaries/summaryPage.ts";

/** A summaries list request: the raw `start_date`/`end_date` parameters and the page. */
export interface SummaryListQuery extends PageRequest {
  userId: string;
  startDate: string;
  endDate: string;
}

export interface CreateSummariesServiceParameters {
  repository: SummariesRepository;
  /** Epoch ms of now (the body summary's windows end now); injectable for tests. */
  now?: () => number;
}

export function createSummariesService({ repository, now = Date.now }: CreateSummariesServiceParameters) {
  return {
    /** @throws {InvalidQueryError} */
    activity: async (q: SummaryListQuery) =>
      activitySummaries(repository, q.userId, summaryRange(q.startDate, q.endDate), q),
    /** @throws {InvalidQueryError} */
    sleep: async (q: SummaryListQuery) => sleepSummaries(repository, q.userId, summaryRange(q.startDate, q.endDate), q),
    /** @throws {InvalidQueryError} */
    recovery: async (q: SummaryListQuery) =>
      recoverySummaries(repository, q.userId, summaryRange(q.startDate, q.endDate), q),
    body: async (userId: string, averagePeriodDays: number, latestWindowHours: number) =>
      bodySummary(repository, userId, { averagePeriodDays, latestWindowHours, now: now() }),
    /** @throws {InvalidQueryError} */
    data: async (userId: string, startDate?: string, endDate?: string) =>
      dataSummary(repository, userId, optionalWindow(startDate, endDate)),
    /** @throws {InvalidQueryError} */
    timeline: async (
      userId: string,
      q: {
        startDate?: string | undefined;
        endDate?: string | undefined;
        bucket: TimelineBucket;
        groupBy: TimelineGroupBy;
        provider?: string | undefined;
      },
    ) => dataTimeline(repository, userId, optionalWindow(q.startDate, q.endDate), q),
  };
}

export type SummariesService = ReturnType<typeof createSummariesService>;
