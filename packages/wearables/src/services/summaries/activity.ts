/**
 * `GET /users/{user_id}/summaries/activity`: one row per local day, from the preferred source of that day
 * (reference §3). Sums prefer the source's daily total; missing steps and calories are 0 as at the anchor;
 * active minutes are the provider's active time, else minutes with ≥ 30 steps; intensity minutes come from
 * heart rate zones of 220 − age; elevation and (lacking flights) floors come from that day's workouts.
 */
import {
  ACTIVE_STEPS_PER_MINUTE,
  activeMinutes,
  floorsClimbed,
  localDate,
  parseZoneOffset,
  round3,
  roundHalfEven,
} from "../../domain/activityDay.ts";
import { heartRateZones, maxHeartRate } from "../../domain/intensityMinutes.ts";
import type { SourceMetadata } from "../../domain/sourceMetadata.ts";
import { bestPerDate } from "../../domain/sourcePriority.ts";
import type { SummariesRepository } from "../../store/summariesRepository.ts";
import {
  decodeSummaryCursor,
  metadataOf,
  type PageRequest,
  pageByDate,
  type SummaryPage,
  type SummaryRange,
  sourceOf,
} from "./summaryPage.ts";

export interface ActivitySummary {
  date: string;
  source: SourceMetadata;
  steps: number | null;
  distance_meters: number | null;
  floors_climbed: number | null;
  elevation_meters: number | null;
  active_calories_kcal: number | null;
  total_calories_kcal: number | null;
  active_minutes: number | null;
  sedentary_minutes: number | null;
  intensity_minutes: { light: number; moderate: number; vigorous: number } | null;
  heart_rate: { avg_bpm: number | null; max_bpm: number | null; min_bpm: number | null } | null;
}

const keyOf = (day: string, sourceKey: number) => `${day}|${sourceKey}`;
const num = (v: string | number | null) => (v === null ? null : Number(v));

export async function activitySummaries(
  repo: SummariesRepository,
  userId: string,
  range: SummaryRange,
  request: PageRequest,
): Promise<SummaryPage<ActivitySummary>> {
  const cursor = request.cursor ? decodeSummaryCursor(request.cursor, 1) : null;
  const { from, to } = range;
  const maxHr = maxHeartRate(await repo.birthDate(userId), from);
  const [order, sources, days, workouts] = await Promise.all([
    repo.priorityOrder(),
    repo.dataSources(userId),
    repo.dailyActivity(userId, from, to, ACTIVE_STEPS_PER_MINUTE, heartRateZones(maxHr)),
    repo.workoutsAround(userId, from, to),
  ]);

  const elevation = new Map<string, number | null>();
  for (const w of workouts) {
    const day = localDate(w.end_datetime.getTime(), parseZoneOffset(w.zone_offset));
    if (day < from || day >= to) continue;
    const key = keyOf(day, Number(w.source_key));
    const gain = num(w.total_elevation_gain);
    const sum = elevation.get(key) ?? null;
    elevation.set(key, gain === null ? sum : round3((sum ?? 0) + gain));
  }

  const entries = days.map((d) => {
    const ds = sources.get(Number(d.source_key));
    return { ...d, date: d.day, provider: ds?.provider ?? null, deviceModel: ds?.device_model ?? null };
  });
  const best = bestPerDate(entries, order);
  const page = pageByDate(best, request, cursor, null);

  const data = page.data.map((d): ActivitySummary => {
    const key = keyOf(d.day, Number(d.source_key));
    const active = round3(d.energy ?? 0);
    const tracked = d.tracked_step_minutes > 0;
    const minutes = activeMinutes({
      providerActiveMinutes: d.active_time === null ? null : Math.trunc(d.active_time),
      activeStepMinutes: tracked ? d.active_step_minutes : null,
      trackedStepMinutes: tracked ? d.tracked_step_minutes : null,
    });
    const elevationMeters = elevation.get(key) ?? null;
    return {
      date: d.day,
      source: sourceOf(sources.get(Number(d.source_key))),
      steps: Math.trunc(d.steps ?? 0),
      distance_meters: round3(d.distance),
      floors_climbed: floorsClimbed(d.flights, elevationMeters),
      elevation_meters: elevationMeters,
      active_calories_kcal: active,
      total_calories_kcal: round3(active + (d.basal_energy ?? 0)),
      active_minutes: minutes.active,
      sedentary_minutes: minutes.sedentary,
      intensity_minutes:
        d.heart_rate_minutes > 0
          ? { light: d.light_minutes, moderate: d.moderate_minutes, vigorous: d.vigorous_minutes }
          : null,
      heart_rate:
        d.hr_avg === null
          ? null
          : {
              avg_bpm: roundHalfEven(d.hr_avg),
              max_bpm: d.hr_max === null ? null : Math.trunc(d.hr_max),
              min_bpm: d.hr_min === null ? null : Math.trunc(d.hr_min),
            },
    };
  });
  return { data, pagination: page.pagination, metadata: metadataOf(range, data.length) };
}
