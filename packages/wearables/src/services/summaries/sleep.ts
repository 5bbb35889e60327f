/**
 * `GET /users/{user_id}/summaries/sleep`: one row per local wake-up date, from the preferred source of that
 * night (domain/sleepDay.ts, reference §3), with the averages of heart rate, HRV, respiratory rate and SpO2
 * samples (every source of the user) taken between the start of its first and the end of its last main session.
 */
import { round3, roundHalfEven } from "../../domain/activityDay.ts";
import { type SleepDay, summarizeSleepDays } from "../../domain/sleepDay.ts";
import type { SourceMetadata } from "../../domain/sourceMetadata.ts";
import { bestPerDate } from "../../domain/sourcePriority.ts";
import type { DataSourceRow, PhysioAverages, SummariesRepository } from "../../store/summariesRepository.ts";
import {
  decodeSummaryCursor,
  metadataOf,
  type PageRequest,
  pageByDate,
  type SummaryPage,
  type SummaryRange,
  sourceOf,
} from "./summaryPage.ts";

export interface SleepSummary {
  date: string;
  source: SourceMetadata;
  start_time: string | null;
  end_time: string | null;
  zone_offset: string | null;
  duration_minutes: number;
  total_duration_minutes: number;
  time_in_bed_minutes: number | null;
  efficiency_percent: number | null;
  stages: {
    awake_minutes: number | null;
    light_minutes: number | null;
    deep_minutes: number | null;
    rem_minutes: number | null;
  } | null;
  interruptions_count: number | null;
  nap_count: number;
  nap_duration_minutes: number;
  sessions:
    | { start_time: string; end_time: string; zone_offset: string | null; duration_minutes: number; is_nap: boolean }[]
    | null;
  avg_heart_rate_bpm: number | null;
  avg_hrv_sdnn_ms: number | null;
  avg_hrv_rmssd_ms: number | null;
  avg_respiratory_rate: number | null;
  avg_spo2_percent: number | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The preferred source's sleep day of every wake-up date in the range, ascending. */
export async function bestSleepDays(
  repo: SummariesRepository,
  userId: string,
  range: SummaryRange,
): Promise<{ days: SleepDay[]; sources: Map<number, DataSourceRow> }> {
  const [order, sources, sessions] = await Promise.all([
    repo.priorityOrder(),
    repo.dataSources(userId),
    repo.sleepSessionsAround(userId, range.from, range.to),
  ]);
  const days = summarizeSleepDays(sessions).filter((d) => d.date >= range.from && d.date < range.to);
  const entries = days.map((d) => {
    const ds = sources.get(d.sourceKey);
    return { ...d, provider: ds?.provider ?? null, deviceModel: ds?.device_model ?? null };
  });
  return { days: bestPerDate(entries, order), sources };
}

/** Averages during the main sleep of each day (all null for a day of naps only). */
export async function nightAverages(repo: SummariesRepository, userId: string, days: readonly SleepDay[]) {
  const withWindow = days.filter((d) => d.mainStart !== null && d.mainEnd !== null);
  const averages = await repo.physioAverages(
    userId,
    withWindow.map((d) => [d.mainStart as number, d.mainEnd as number]),
  );
  const byDay = new Map<SleepDay, PhysioAverages>();
  withWindow.forEach((d, i) => {
    const a = averages[i];
    if (a) byDay.set(d, a);
  });
  return byDay;
}

export async function sleepSummaries(
  repo: SummariesRepository,
  userId: string,
  range: SummaryRange,
  request: PageRequest,
): Promise<SummaryPage<SleepSummary>> {
  const cursor = request.cursor ? decodeSummaryCursor(request.cursor, 2) : null;
  const { days, sources } = await bestSleepDays(repo, userId, range);
  const page = pageByDate(days, request, cursor, (d) => d.recordId);
  const averages = await nightAverages(repo, userId, page.data);
  const data = page.data.map((d): SleepSummary => {
    const a = averages.get(d);
    return {
      date: d.date,
      source: sourceOf(sources.get(d.sourceKey)),
      start_time: iso(d.start),
      end_time: iso(d.end),
      zone_offset: d.zoneOffset,
      duration_minutes: d.durationMinutes,
      total_duration_minutes: d.totalDurationMinutes,
      time_in_bed_minutes: d.timeInBedMinutes,
      efficiency_percent: d.efficiencyPercent,
      stages: d.stages && {
        awake_minutes: d.stages.awake,
        light_minutes: d.stages.light,
        deep_minutes: d.stages.deep,
        rem_minutes: d.stages.rem,
      },
      interruptions_count: null,
      nap_count: d.napCount,
      nap_duration_minutes: d.napDurationMinutes,
      sessions: d.sessions.length
        ? d.sessions.map((s) => ({
            start_time: new Date(s.start).toISOString(),
            end_time: new Date(s.end).toISOString(),
            zone_offset: s.zoneOffset,
            duration_minutes: s.durationMinutes,
            is_nap: s.isNap,
          }))
        : null,
      avg_heart_rate_bpm: a?.avg_hr == null ? null : roundHalfEven(a.avg_hr),
      avg_hrv_sdnn_ms: round3(a?.avg_sdnn ?? null),
      avg_hrv_rmssd_ms: round3(a?.avg_rmssd ?? null),
      avg_respiratory_rate: round3(a?.avg_resp ?? null),
      avg_spo2_percent: round3(a?.avg_spo2 ?? null),
    };
  });
  return { data, pagination: page.pagination, metadata: metadataOf(range, data.length) };
}
