/**
 * `GET /users/{user_id}/summaries/recovery`. The anchor builds it from provider recovery scores only
 * (`health_scores` of category `recovery`: Whoop, Suunto, Polar…), takes resting HR, HRV and SpO2 from the
 * score's components and always leaves the sleep fields null. File imports bring no provider recovery score,
 * so ours also answers from the night itself — one row per local wake-up date that has a recovery score or a
 * sleep of the preferred source:
 *
 * - `recovery_score`: the provider's recovery score of that date (truncated to an integer, as the anchor), else
 *   null: the service's own scores are sleep and resilience (see `/health-scores`), not a recovery score;
 * - `sleep_duration_seconds`, `sleep_efficiency_percent`: from that night's main sleep (the sleep summary's
 *   `duration_minutes` × 60 and `efficiency_percent`) — null at the anchor;
 * - `resting_heart_rate_bpm`: the score's component, else the mean of that local day's resting heart rate
 *   samples (rounded half to even);
 * - `avg_hrv_sdnn_ms`: the score's `hrv_rmssd_milli` component (the anchor fills this field from RMSSD), else
 *   the mean of SDNN samples during the night's main sleep;
 * - `avg_hrv_rmssd_ms` (0.9): the score's `hrv_rmssd_milli` component, else the mean of RMSSD samples during the
 *   night's main sleep;
 * - `avg_spo2_percent`: the score's component, else the mean SpO2 during the night's main sleep.
 */
import { round3, roundHalfEven, utcDate } from "../../domain/activityDay.ts";
import type { SleepDay } from "../../domain/sleepDay.ts";
import type { SourceMetadata } from "../../domain/sourceMetadata.ts";
import { bestPerDate } from "../../domain/sourcePriority.ts";
import type { HealthScoreRow, SummariesRepository } from "../../store/summariesRepository.ts";
import { bestSleepDays, nightAverages } from "./sleep.ts";
import {
  decodeSummaryCursor,
  metadataOf,
  type PageRequest,
  pageByDate,
  type SummaryPage,
  type SummaryRange,
  sourceOf,
} from "./summaryPage.ts";

export interface RecoverySummary {
  date: string;
  source: SourceMetadata;
  sleep_duration_seconds: number | null;
  sleep_efficiency_percent: number | null;
  resting_heart_rate_bpm: number | null;
  avg_hrv_sdnn_ms: number | null;
  avg_hrv_rmssd_ms: number | null;
  avg_spo2_percent: number | null;
  recovery_score: number | null;
}

interface RecoveryDay {
  date: string;
  id: string;
  score: HealthScoreRow | null;
  night: SleepDay | null;
}

const component = (score: HealthScoreRow | null, name: string): number | null => {
  const value = score?.components?.[name]?.value;
  return typeof value === "number" ? value : null;
};

export async function recoverySummaries(
  repo: SummariesRepository,
  userId: string,
  range: SummaryRange,
  request: PageRequest,
): Promise<SummaryPage<RecoverySummary>> {
  const cursor = request.cursor ? decodeSummaryCursor(request.cursor, 2) : null;
  const start = Date.parse(`${range.from}T00:00:00Z`);
  const end = Date.parse(`${range.to}T00:00:00Z`);
  const [{ days: nights, sources }, scores, order] = await Promise.all([
    bestSleepDays(repo, userId, range),
    repo.healthScores(userId, "recovery", start, end),
    repo.priorityOrder(),
  ]);
  const scoreEntries = scores.map((s) => {
    const ds = s.source_key === null ? undefined : sources.get(Number(s.source_key));
    return {
      ...s,
      date: utcDate(s.recorded_at.getTime()),
      provider: s.provider,
      deviceModel: ds?.device_model ?? null,
    };
  });
  const byDate = new Map<string, RecoveryDay>();
  for (const night of nights) byDate.set(night.date, { date: night.date, id: night.recordId, score: null, night });
  for (const score of bestPerDate(scoreEntries, order)) {
    const night = byDate.get(score.date)?.night ?? null;
    byDate.set(score.date, { date: score.date, id: score.id, score, night });
  }
  const days = [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const page = pageByDate(days, request, cursor, (d) => d.id);

  const pageNights = page.data.flatMap((d) => (d.night ? [d.night] : []));
  const [averages, restingByDay] = await Promise.all([
    nightAverages(repo, userId, pageNights),
    page.data.length
      ? repo.dailyRestingHeartRate(userId, firstDate(page.data), nextDate(page.data))
      : Promise.resolve(new Map<string, number>()),
  ]);
  const data = page.data.map((d): RecoverySummary => {
    const night = d.night ? averages.get(d.night) : undefined;
    const scoreResting = component(d.score, "resting_heart_rate");
    const sampleResting = restingByDay.get(d.date);
    const sourceKey = d.score ? d.score.source_key : (d.night?.sourceKey ?? null);
    const source = sourceOf(sourceKey === null ? undefined : sources.get(Number(sourceKey)));
    return {
      date: d.date,
      source: d.score && sourceKey === null ? { ...source, provider: d.score.provider } : source,
      sleep_duration_seconds: d.night ? d.night.durationMinutes * 60 : null,
      sleep_efficiency_percent: d.night?.efficiencyPercent ?? null,
      resting_heart_rate_bpm:
        scoreResting !== null
          ? Math.trunc(scoreResting)
          : sampleResting === undefined
            ? null
            : roundHalfEven(sampleResting),
      avg_hrv_sdnn_ms: d.score ? component(d.score, "hrv_rmssd_milli") : round3(night?.avg_sdnn ?? null),
      avg_hrv_rmssd_ms: d.score ? component(d.score, "hrv_rmssd_milli") : round3(night?.avg_rmssd ?? null),
      avg_spo2_percent: d.score ? component(d.score, "spo2_percentage") : round3(night?.avg_spo2 ?? null),
      recovery_score: d.score ? Math.trunc(Number(d.score.value)) : null,
    };
  });
  return { data, pagination: page.pagination, metadata: metadataOf(range, data.length) };
}

/** The earliest date of a page (pages may be in either order). */
const firstDate = (rows: readonly { date: string }[]): string =>
  rows.reduce((min, r) => (r.date < min ? r.date : min), rows[0]?.date ?? "");

/** The day after the latest date of a page. */
function nextDate(rows: readonly { date: string }[]): string {
  const last = rows.reduce((max, r) => (r.date > max ? r.date : max), rows[0]?.date ?? "");
  return new Date(Date.parse(`${last}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
