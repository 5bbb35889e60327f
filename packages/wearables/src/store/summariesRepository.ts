/**
 * SQL of the daily summaries. Heavy aggregation (a year of per-second samples) stays in the database:
 * per (local day, data source) sums, averages and per-minute buckets; grouping of the few events (sleep
 * sessions, workouts) and every rule above the sums live in `domain/` and the service. A local day is
 * `recorded_at` shifted by the sample's zone offset (minutes east of UTC), computed in UTC whatever the
 * session's time zone.
 */
import type { Queryable } from "@platform/kernel";
import type { HeartRateZones } from "../domain/intensityMinutes.ts";
import { seriesTypeByCode } from "../domain/seriesTypes.ts";
import type { SleepSessionRow } from "../domain/sleepDay.ts";
import type { PriorityOrder } from "../domain/sourcePriority.ts";
import { createBodyQueries } from "./bodyQueries.ts";

/** The stored id of a series type code. */
export const seriesId = (code: string): number => {
  const type = seriesTypeByCode(code);
  if (!type) throw new Error(`unknown series type ${code}`);
  return type.id;
};

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The local day of a sample row `s` (a SQL expression; measured cheaper on PGlite than epoch arithmetic). */
const LOCAL_DAY = `((s.recorded_at AT TIME ZONE 'UTC') + coalesce(s.zone_offset, 0) * interval '1 minute')::date`;
/** The UTC minute of a sample row. */
const MINUTE = `date_trunc('minute', recorded_at AT TIME ZONE 'UTC')`;
/** A day as "YYYY-MM-DD". */
const DAY_TEXT = "day::text";
/** The local days [$4, $5). */
const IN_DAYS = "day >= $4::date AND day < $5::date";

export interface DataSourceRow {
  id: string;
  key: number;
  provider: string;
  source: string | null;
  device_model: string | null;
  device_type: string | null;
}

export interface DailyActivityRow {
  day: string;
  source_key: number;
  steps: number | null;
  energy: number | null;
  basal_energy: number | null;
  distance: number | null;
  flights: number | null;
  active_time: number | null;
  hr_avg: number | null;
  hr_max: number | null;
  hr_min: number | null;
  active_step_minutes: number;
  tracked_step_minutes: number;
  heart_rate_minutes: number;
  light_minutes: number;
  moderate_minutes: number;
  vigorous_minutes: number;
}

export interface WorkoutRow {
  end_datetime: Date;
  zone_offset: string | null;
  source_key: number;
  total_elevation_gain: string | null;
  distance: string | null;
  energy_burned: string | null;
}

export interface PhysioAverages {
  avg_hr: number | null;
  avg_sdnn: number | null;
  avg_rmssd: number | null;
  avg_resp: number | null;
  avg_spo2: number | null;
}

export interface HealthScoreRow {
  id: string;
  provider: string;
  value: string;
  recorded_at: Date;
  zone_offset: string | null;
  components: Record<string, { value?: number | null; qualifier?: string | null }> | null;
  source_key: number | null;
}

/** Daily sums of a `sum` type: its daily totals when the source sent some, else its intraday samples. */
const preferDaily = (id: number) =>
  `coalesce(sum(value) FILTER (WHERE series_type = ${id} AND is_daily_total),
            sum(value) FILTER (WHERE series_type = ${id} AND is_daily_total IS NOT TRUE))`;

export function createSummariesRepository(db: Queryable) {
  const ids = {
    hr: seriesId("heart_rate"),
    restingHr: seriesId("resting_heart_rate"),
    sdnn: seriesId("heart_rate_variability_sdnn"),
    rmssd: seriesId("heart_rate_variability_rmssd"),
    spo2: seriesId("oxygen_saturation"),
    resp: seriesId("respiratory_rate"),
    steps: seriesId("steps"),
    energy: seriesId("active_energy"),
    basal: seriesId("basal_energy"),
    distance: seriesId("distance_walking_running"),
    flights: seriesId("flights_climbed"),
    activeTime: seriesId("active_time"),
  };

  /** Samples of `types` of the user's sources whose local day is in [from, to) (dates). */
  const localSamples = (types: number[], extraWhere = "") => `
    SELECT s.source_key, s.series_type, s.value::float8 AS value, s.is_daily_total, s.recorded_at, ${LOCAL_DAY} AS day
    FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
    WHERE d.user_id = $1 AND s.series_type IN (${types.join(",")}) ${extraWhere}
      AND s.recorded_at >= $2::timestamptz AND s.recorded_at < $3::timestamptz`;

  /** The parameters of {@link localSamples} plus the local date bounds ($4, $5). */
  const rangeParams = (userId: string, from: string, to: string) => [
    userId,
    iso(Date.parse(`${from}T00:00:00Z`) - DAY_MS),
    iso(Date.parse(`${to}T00:00:00Z`) + DAY_MS),
    from,
    to,
  ];

  return {
    ...createBodyQueries(db),
    seriesIds: ids,

    async priorityOrder(): Promise<PriorityOrder> {
      const [providers, deviceTypes] = await Promise.all([
        db.query<{ provider: string; priority: number }>(
          "SELECT provider, priority FROM wearables.provider_priorities",
        ),
        db.query<{ device_type: string; priority: number }>(
          "SELECT device_type, priority FROM wearables.device_type_priorities",
        ),
      ]);
      return {
        providers: new Map(providers.map((p) => [p.provider, p.priority])),
        deviceTypes: new Map(deviceTypes.map((d) => [d.device_type, d.priority])),
      };
    },

    async birthDate(userId: string): Promise<string | null> {
      const [row] = await db.query<{ birth_date: string | null }>(
        "SELECT birth_date FROM wearables.personal_records WHERE user_id = $1",
        [userId],
      );
      return row?.birth_date ?? null;
    },

    /** Every data source of the user, by key. */
    async dataSources(userId: string): Promise<Map<number, DataSourceRow>> {
      const rows = await db.query<DataSourceRow>(
        `SELECT id, key, provider, source, device_model, device_type FROM wearables.data_sources WHERE user_id = $1`,
        [userId],
      );
      return new Map(rows.map((r) => [Number(r.key), { ...r, key: Number(r.key) }]));
    },

    /**
     * Per (local day, source) of days in [from, to), in one pass over the samples: the activity sums
     * ("prefer the daily total"), heart rate statistics, step minutes (intraday steps per UTC minute: `active`
     * with ≥ `activeSteps`, `tracked` with any) and heart rate minutes per zone (each minute's mean).
     * Samples are first grouped by (day, source, type, daily total or not, minute); the rest runs on those rows.
     */
    dailyActivity(
      userId: string,
      from: string,
      to: string,
      activeSteps: number,
      z: HeartRateZones,
    ): Promise<DailyActivityRow[]> {
      const types = [ids.steps, ids.energy, ids.basal, ids.distance, ids.flights, ids.activeTime, ids.hr];
      const hr = `series_type = ${ids.hr}`;
      const stepMinute = `series_type = ${ids.steps} AND NOT is_daily_total`;
      const bpm = "value / n";
      return db.query<DailyActivityRow>(
        `SELECT ${DAY_TEXT} AS day, source_key,
           ${preferDaily(ids.steps)} AS steps, ${preferDaily(ids.energy)} AS energy,
           ${preferDaily(ids.basal)} AS basal_energy, ${preferDaily(ids.distance)} AS distance,
           ${preferDaily(ids.flights)} AS flights, ${preferDaily(ids.activeTime)} AS active_time,
           sum(value) FILTER (WHERE ${hr}) / (sum(n) FILTER (WHERE ${hr}))::float8 AS hr_avg,
           max(hi) FILTER (WHERE ${hr}) AS hr_max,
           min(lo) FILTER (WHERE ${hr}) AS hr_min,
           count(*) FILTER (WHERE ${stepMinute} AND value >= $6)::int AS active_step_minutes,
           count(*) FILTER (WHERE ${stepMinute})::int AS tracked_step_minutes,
           count(*) FILTER (WHERE ${hr})::int AS heart_rate_minutes,
           count(*) FILTER (WHERE ${hr} AND ${bpm} >= $7 AND ${bpm} <= $8)::int AS light_minutes,
           count(*) FILTER (WHERE ${hr} AND ${bpm} > $8 AND ${bpm} <= $9)::int AS moderate_minutes,
           count(*) FILTER (WHERE ${hr} AND ${bpm} > $9 AND ${bpm} <= $10)::int AS vigorous_minutes
         FROM (SELECT day, source_key, series_type, is_daily_total IS TRUE AS is_daily_total, ${MINUTE} AS minute,
                 sum(value) AS value, count(*) AS n, max(value) AS hi, min(value) AS lo
               FROM (${localSamples(types)}) x
               WHERE ${IN_DAYS}
               GROUP BY day, source_key, series_type, is_daily_total IS TRUE, minute) g
         GROUP BY day, source_key ORDER BY day, source_key`,
        [...rangeParams(userId, from, to), activeSteps, z.lightMin, z.lightMax, z.moderateMax, z.vigorousMax],
      );
    },

    /** Workouts ending within a day of [from, to) (the service keeps those whose local end date is in it). */
    workoutsAround(userId: string, from: string, to: string): Promise<WorkoutRow[]> {
      const [, start, end] = rangeParams(userId, from, to);
      return db.query<WorkoutRow>(
        `SELECT e.end_datetime, e.zone_offset, d.key AS source_key, w.total_elevation_gain, w.distance, w.energy_burned
         FROM wearables.events e JOIN wearables.data_sources d ON d.id = e.data_source_id
         LEFT JOIN wearables.workout_details w ON w.event_id = e.id
         WHERE e.user_id = $1 AND e.category = 'workout' AND e.end_datetime >= $2 AND e.end_datetime < $3
           AND e.start_datetime >= $4`,
        [userId, start, end, iso(Date.parse(`${from}T00:00:00Z`) - 8 * DAY_MS)],
      );
    },

    /** Sleep sessions ending within a day of [from, to) (the service keeps those whose wake-up date is in it). */
    async sleepSessionsAround(userId: string, from: string, to: string): Promise<SleepSessionRow[]> {
      const [, start, end] = rangeParams(userId, from, to);
      const rows = await db.query<{
        id: string;
        source_key: number;
        start_datetime: Date;
        end_datetime: Date;
        zone_offset: string | null;
        duration_seconds: number;
        is_nap: boolean | null;
        total: number | null;
        in_bed: number | null;
        efficiency: string | null;
        deep: number | null;
        rem: number | null;
        light: number | null;
        awake: number | null;
      }>(
        `SELECT e.id, d.key AS source_key, e.start_datetime, e.end_datetime, e.zone_offset, e.duration_seconds,
           sd.is_nap, sd.sleep_total_duration_minutes AS total, sd.sleep_time_in_bed_minutes AS in_bed,
           sd.sleep_efficiency_score AS efficiency, sd.sleep_deep_minutes AS deep, sd.sleep_rem_minutes AS rem,
           sd.sleep_light_minutes AS light, sd.sleep_awake_minutes AS awake
         FROM wearables.events e JOIN wearables.data_sources d ON d.id = e.data_source_id
         LEFT JOIN wearables.sleep_details sd ON sd.event_id = e.id
         WHERE e.user_id = $1 AND e.category = 'sleep' AND e.end_datetime >= $2 AND e.end_datetime < $3
           AND e.start_datetime >= $4`,
        [userId, start, end, iso(Date.parse(`${from}T00:00:00Z`) - 3 * DAY_MS)],
      );
      return rows.map((r) => ({
        id: r.id,
        sourceKey: Number(r.source_key),
        start: r.start_datetime.getTime(),
        end: r.end_datetime.getTime(),
        zoneOffset: r.zone_offset,
        durationSeconds: r.duration_seconds,
        isNap: r.is_nap ?? false,
        totalSleepMinutes: r.total,
        timeInBedMinutes: r.in_bed,
        efficiency: r.efficiency === null ? null : Number(r.efficiency),
        deepMinutes: r.deep,
        remMinutes: r.rem,
        lightMinutes: r.light,
        awakeMinutes: r.awake,
      }));
    },

    /** Averages of the user's heart rate, HRV, respiratory rate and SpO2 samples within each [start, end). */
    async physioAverages(userId: string, windows: readonly [number, number][]): Promise<PhysioAverages[]> {
      if (windows.length === 0) return [];
      const rows = await db.query<PhysioAverages & { i: string }>(
        `SELECT w.i::text AS i, p.* FROM unnest($2::timestamptz[], $3::timestamptz[]) WITH ORDINALITY AS w(ws, we, i)
         LEFT JOIN LATERAL (
           SELECT avg(s.value) FILTER (WHERE s.series_type = ${ids.hr}) AS avg_hr,
                  avg(s.value) FILTER (WHERE s.series_type = ${ids.sdnn}) AS avg_sdnn,
                  avg(s.value) FILTER (WHERE s.series_type = ${ids.rmssd}) AS avg_rmssd,
                  avg(s.value) FILTER (WHERE s.series_type = ${ids.resp}) AS avg_resp,
                  avg(s.value) FILTER (WHERE s.series_type = ${ids.spo2}) AS avg_spo2
           FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
           WHERE d.user_id = $1 AND s.series_type IN (${[ids.hr, ids.sdnn, ids.rmssd, ids.resp, ids.spo2].join(",")})
             AND s.recorded_at >= w.ws AND s.recorded_at < w.we) p ON true
         ORDER BY w.i`,
        [userId, windows.map((w) => iso(w[0])), windows.map((w) => iso(w[1]))],
      );
      return rows.map(({ i: _i, ...averages }) => averages);
    },

    /** Per local day in [from, to): the average of the user's resting heart rate samples (every source). */
    async dailyRestingHeartRate(userId: string, from: string, to: string): Promise<Map<string, number>> {
      const rows = await db.query<{ day: string; bpm: number }>(
        `SELECT ${DAY_TEXT} AS day, avg(value) AS bpm FROM (${localSamples([ids.restingHr])}) x
         WHERE ${IN_DAYS} GROUP BY day`,
        rangeParams(userId, from, to),
      );
      return new Map(rows.map((r) => [r.day, r.bpm]));
    },

    /** Health scores of a category recorded in [start, end). */
    healthScores(userId: string, category: string, start: number, end: number): Promise<HealthScoreRow[]> {
      return db.query<HealthScoreRow>(
        `SELECT h.id, h.provider, h.value, h.recorded_at, h.zone_offset, h.components, d.key AS source_key
         FROM wearables.health_scores h LEFT JOIN wearables.data_sources d ON d.id = h.data_source_id
         WHERE h.user_id = $1 AND h.category = $2 AND h.recorded_at >= $3 AND h.recorded_at < $4
         ORDER BY h.recorded_at, h.id`,
        [userId, category, iso(start), iso(end)],
      );
    },
  };
}

export type { LatestValueRow } from "./bodyQueries.ts";
export type SummariesRepository = ReturnType<typeof createSummariesRepository>;
