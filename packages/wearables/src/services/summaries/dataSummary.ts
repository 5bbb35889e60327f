/**
 * `GET /users/{user_id}/summaries/data` (the anchor's `get_user_data_summary`): counts of samples per series
 * type and of events per workout type, overall and per provider, optionally within [start_date, end_date)
 * (samples by their time, events by their start). An unknown user has zero of everything.
 */
import { seriesTypeById } from "../../domain/seriesTypes.ts";
import type { SummariesRepository } from "../../store/summariesRepository.ts";

export interface DataSummary {
  user_id: string;
  total_data_points: number;
  total_workouts: number;
  total_sleep_events: number;
  series_type_counts: Record<string, number>;
  workout_type_counts: Record<string, number>;
  by_provider: {
    provider: string;
    data_points: number;
    series_counts: Record<string, number>;
    workout_count: number;
    sleep_count: number;
  }[];
  has_womens_health_data: boolean;
}

/** A count map, largest first (ties by name, for a stable answer). */
const sortedCounts = (counts: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));

const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);

export async function dataSummary(
  repo: SummariesRepository,
  userId: string,
  window: { start: Date | null; end: Date | null },
): Promise<DataSummary> {
  const { samples, events } = await repo.dataCounts(
    userId,
    window.start?.getTime() ?? null,
    window.end?.getTime() ?? null,
  );
  const seriesTotals = new Map<string, number>();
  const workoutTotals = new Map<string, number>();
  const perProvider = new Map<
    string,
    { series: Map<string, number>; points: number; workouts: number; sleep: number }
  >();
  const providerOf = (p: string) => {
    let entry = perProvider.get(p);
    if (!entry) {
      entry = { series: new Map(), points: 0, workouts: 0, sleep: 0 };
      perProvider.set(p, entry);
    }
    return entry;
  };
  for (const row of samples) {
    const code = seriesTypeById(Number(row.series_type))?.code ?? String(row.series_type);
    const entry = providerOf(row.provider);
    add(entry.series, code, row.n);
    entry.points += row.n;
    add(seriesTotals, code, row.n);
  }
  for (const row of events) {
    const entry = providerOf(row.provider);
    if (row.category === "workout") {
      entry.workouts += row.n;
      add(workoutTotals, row.type || "unknown", row.n);
    } else if (row.category === "sleep") {
      entry.sleep += row.n;
    }
  }
  const byProvider = [...perProvider]
    .map(([provider, e]) => ({
      provider,
      data_points: e.points,
      series_counts: sortedCounts(e.series),
      workout_count: e.workouts,
      sleep_count: e.sleep,
    }))
    .sort(
      (a, b) =>
        b.data_points + b.workout_count + b.sleep_count - (a.data_points + a.workout_count + a.sleep_count) ||
        (a.provider < b.provider ? -1 : 1),
    );
  return {
    user_id: userId,
    total_data_points: byProvider.reduce((a, p) => a + p.data_points, 0),
    total_workouts: byProvider.reduce((a, p) => a + p.workout_count, 0),
    total_sleep_events: byProvider.reduce((a, p) => a + p.sleep_count, 0),
    series_type_counts: sortedCounts(seriesTotals),
    workout_type_counts: sortedCounts(workoutTotals),
    by_provider: byProvider,
    has_womens_health_data: false,
  };
}
