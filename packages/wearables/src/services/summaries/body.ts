/**
 * `GET /users/{user_id}/summaries/body` (the anchor's `get_body_summary`, reference §3): the latest weight,
 * height, body fat, lean mass and BMI (BMI computed from weight and height when none is stored), age from the
 * personal record; resting heart rate and HRV averaged over the last `average_period` days; body and skin
 * temperature and blood pressure only when measured within the last `latest_window_hours` (a blood pressure
 * only as a systolic/diastolic pair taken within 5 s). Null when the user has none of these.
 */
import { ageOn, roundHalfEven } from "../../domain/activityDay.ts";
import type { SourceMetadata } from "../../domain/sourceMetadata.ts";
import type { SummariesRepository } from "../../store/summariesRepository.ts";
import { seriesId } from "../../store/summariesRepository.ts";
import { sourceOf } from "./summaryPage.ts";

export interface BodySummary {
  source: SourceMetadata;
  slow_changing: {
    weight_kg: number | null;
    height_cm: number | null;
    body_fat_percent: number | null;
    muscle_mass_kg: number | null;
    bmi: number | null;
    age: number | null;
  };
  averaged: {
    period_days: number;
    resting_heart_rate_bpm: number | null;
    avg_hrv_sdnn_ms: number | null;
    avg_hrv_rmssd_ms: number | null;
    period_start: string;
    period_end: string;
  };
  latest: {
    body_temperature_celsius: number | null;
    body_temperature_measured_at: string | null;
    skin_temperature_celsius: number | null;
    skin_temperature_measured_at: string | null;
    blood_pressure: {
      avg_systolic_mmhg: number;
      avg_diastolic_mmhg: number;
      max_systolic_mmhg: null;
      max_diastolic_mmhg: null;
      min_systolic_mmhg: null;
      min_diastolic_mmhg: null;
      reading_count: number;
    } | null;
    blood_pressure_measured_at: string | null;
  };
}

export interface BodySummaryRequest {
  averagePeriodDays: number;
  latestWindowHours: number;
  /** Epoch ms of "now". */
  now: number;
}

/** Systolic and diastolic readings further apart are not one measurement. */
const BP_PAIR_TOLERANCE_MS = 5_000;

const round1 = (x: number) => roundHalfEven(x * 10) / 10;

/** BMI = kg / m², one decimal; null without both. */
export function bodyMassIndex(weightKg: number | null, heightCm: number | null): number | null {
  if (weightKg === null || heightCm === null || heightCm <= 0) return null;
  const m = heightCm / 100;
  return round1(weightKg / (m * m));
}

export async function bodySummary(
  repo: SummariesRepository,
  userId: string,
  { averagePeriodDays, latestWindowHours, now }: BodySummaryRequest,
): Promise<BodySummary | null> {
  const ids = {
    weight: seriesId("weight"),
    height: seriesId("height"),
    bodyFat: seriesId("body_fat_percentage"),
    lean: seriesId("lean_body_mass"),
    bmi: seriesId("body_mass_index"),
    restingHr: seriesId("resting_heart_rate"),
    sdnn: seriesId("heart_rate_variability_sdnn"),
    rmssd: seriesId("heart_rate_variability_rmssd"),
    bodyTemp: seriesId("body_temperature"),
    skinTemp: seriesId("skin_temperature"),
    systolic: seriesId("blood_pressure_systolic"),
    diastolic: seriesId("blood_pressure_diastolic"),
  };
  const slowOrder = [ids.weight, ids.height, ids.bodyFat, ids.lean, ids.bmi];
  const periodStart = now - averagePeriodDays * 86_400_000;
  const windowStart = now - latestWindowHours * 3_600_000;
  const [latest, sources, birthDate, averages, bodyTemp, skinTemp, systolic, diastolic] = await Promise.all([
    repo.latestValues(userId, slowOrder, now),
    repo.dataSources(userId),
    repo.birthDate(userId),
    repo.periodAverages(userId, [ids.restingHr, ids.sdnn, ids.rmssd], periodStart, now),
    repo.latestReading(userId, ids.bodyTemp, windowStart, now),
    repo.latestReading(userId, ids.skinTemp, windowStart, now),
    repo.latestReading(userId, ids.systolic, windowStart, now),
    repo.latestReading(userId, ids.diastolic, windowStart, now),
  ]);
  const byType = new Map(latest.map((r) => [Number(r.series_type), r]));
  const value = (id: number) => byType.get(id)?.value ?? null;
  const weight = value(ids.weight);
  const height = value(ids.height);
  const bodyFat = value(ids.bodyFat);
  const lean = value(ids.lean);
  // The most recent slow-changing measurement names the source (the first of the list on a tie).
  let newest: (typeof latest)[number] | undefined;
  for (const id of slowOrder) {
    const row = byType.get(id);
    if (row && (!newest || row.recorded_at.getTime() > newest.recorded_at.getTime())) newest = row;
  }

  const restingAvg = averages.get(ids.restingHr) ?? null;
  const sdnnAvg = averages.get(ids.sdnn) ?? null;
  const rmssdAvg = averages.get(ids.rmssd) ?? null;
  const resting = restingAvg ? roundHalfEven(restingAvg) : null;
  const sdnn = sdnnAvg === null ? null : round1(sdnnAvg);
  const rmssd = rmssdAvg === null ? null : round1(rmssdAvg);

  let bloodPressure: BodySummary["latest"]["blood_pressure"] = null;
  let bpMeasuredAt: string | null = null;
  if (systolic && diastolic) {
    const gap = Math.abs(systolic.recorded_at.getTime() - diastolic.recorded_at.getTime());
    if (gap <= BP_PAIR_TOLERANCE_MS) {
      bloodPressure = {
        avg_systolic_mmhg: roundHalfEven(systolic.value),
        avg_diastolic_mmhg: roundHalfEven(diastolic.value),
        max_systolic_mmhg: null,
        max_diastolic_mmhg: null,
        min_systolic_mmhg: null,
        min_diastolic_mmhg: null,
        reading_count: 1,
      };
      bpMeasuredAt = new Date(Math.max(systolic.recorded_at.getTime(), diastolic.recorded_at.getTime())).toISOString();
    }
  }

  // The anchor's truthiness checks: a 0 reading counts as none.
  const hasSlow = [weight, height, bodyFat, lean].some(Boolean);
  const hasAveraged = [resting, sdnn, rmssd].some(Boolean);
  const hasLatest = Boolean(bodyTemp?.value) || Boolean(skinTemp?.value) || bloodPressure !== null;
  if (!hasSlow && !hasAveraged && !hasLatest) return null;

  return {
    source: sourceOf(newest ? sources.get(Number(newest.source_key)) : undefined),
    slow_changing: {
      weight_kg: weight,
      height_cm: height,
      body_fat_percent: bodyFat,
      muscle_mass_kg: lean,
      bmi: value(ids.bmi) ?? bodyMassIndex(weight, height),
      age: birthDate ? ageOn(birthDate, new Date(now).toISOString().slice(0, 10)) : null,
    },
    averaged: {
      period_days: averagePeriodDays,
      resting_heart_rate_bpm: resting,
      avg_hrv_sdnn_ms: sdnn,
      avg_hrv_rmssd_ms: rmssd,
      period_start: new Date(periodStart).toISOString(),
      period_end: new Date(now).toISOString(),
    },
    latest: {
      body_temperature_celsius: bodyTemp?.value ?? null,
      body_temperature_measured_at: bodyTemp ? bodyTemp.recorded_at.toISOString() : null,
      skin_temperature_celsius: skinTemp?.value ?? null,
      skin_temperature_measured_at: skinTemp ? skinTemp.recorded_at.toISOString() : null,
      blood_pressure: bloodPressure,
      blood_pressure_measured_at: bpMeasuredAt,
    },
  };
}
