/**
 * `GET /users/{user_id}/summaries/data/timeline` (the anchor's 0.9 `UserDataTimelineResponse`): how much data
 * the user has over time, per UTC day or ISO week (Monday), grouped by provider, series type or workout type.
 * `provider` and `series_type` series count samples (`data_points`); `workout_type` series, and a provider's
 * second series when it has workouts, count workouts (`workouts`). Only buckets holding data are listed, in time
 * order; series are sorted by key, then metric.
 */
import { currentProviderName } from "../../domain/providers.ts";
import { seriesTypeById } from "../../domain/seriesTypes.ts";
import type { SummariesRepository } from "../../store/summariesRepository.ts";

export type TimelineBucket = "day" | "week";
export type TimelineGroupBy = "provider" | "series_type" | "workout_type";

export interface TimelineSeries {
  key: string;
  metric: "data_points" | "workouts";
  buckets: [string, number][];
}

export interface DataTimeline {
  bucket: TimelineBucket;
  group_by: TimelineGroupBy;
  series: TimelineSeries[];
}

export async function dataTimeline(
  repo: SummariesRepository,
  userId: string,
  window: { start: Date | null; end: Date | null },
  q: { bucket: TimelineBucket; groupBy: TimelineGroupBy; provider?: string | undefined },
): Promise<DataTimeline> {
  const { samples, workouts } = await repo.timelineCounts(
    userId,
    window.start?.getTime() ?? null,
    window.end?.getTime() ?? null,
    q.bucket,
    q.provider === undefined ? null : currentProviderName(q.provider),
  );
  const series = new Map<string, { key: string; metric: TimelineSeries["metric"]; counts: Map<string, number> }>();
  const add = (key: string, metric: TimelineSeries["metric"], bucket: string, n: number) => {
    const id = `${key}\u0000${metric}`;
    const entry = series.get(id) ?? { key, metric, counts: new Map<string, number>() };
    entry.counts.set(bucket, (entry.counts.get(bucket) ?? 0) + n);
    series.set(id, entry);
  };
  if (q.groupBy !== "workout_type") {
    for (const r of samples) {
      const key =
        q.groupBy === "provider" ? r.provider : (seriesTypeById(Number(r.series_type))?.code ?? String(r.series_type));
      add(key, "data_points", r.bucket, Number(r.n));
    }
  }
  if (q.groupBy !== "series_type") {
    for (const r of workouts) add(q.groupBy === "provider" ? r.provider : r.type, "workouts", r.bucket, Number(r.n));
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    bucket: q.bucket,
    group_by: q.groupBy,
    series: [...series.values()]
      .sort((a, b) => byName(a.key, b.key) || byName(a.metric, b.metric))
      .map((s) => ({
        key: s.key,
        metric: s.metric,
        buckets: [...s.counts].sort((a, b) => byName(a[0], b[0])) as [string, number][],
      })),
  };
}
