/**
 * SQL of the internal scores job (jobs/scoresJob.ts): what the sleep and resilience scores read, and the
 * upserts of `health_scores` rows of provider `internal`. Every function takes the transaction it runs in: a
 * night's scores and the completion of its kernel job commit together.
 */
import type { Queryable } from "@platform/kernel";
import type { NightlyHrv } from "../domain/resilienceScore.ts";
import { seriesId } from "./summariesRepository.ts";

const iso = (ms: number) => new Date(ms).toISOString();

export interface ScoredSleepSession {
  id: string;
  data_source_id: string;
  start: number;
  end: number;
  zoneOffset: string | null;
  isNap: boolean;
  totalMinutes: number | null;
  deepMinutes: number | null;
  remMinutes: number | null;
  awakeMinutes: number | null;
  stages: { stage: string; start: number; end: number }[];
}

export interface InternalScore {
  userId: string;
  category: "sleep" | "resilience";
  value: number;
  recordedAt: number;
  zoneOffset: string | null;
  dataSourceId: string | null;
  sleepEventId: string | null;
  components: Record<string, { value: number | null; qualifier: string | null }>;
}

/** Asleep windows of the user's sleep sessions overlapping [$2, $3): asleep stages, or whole sessions without stages. */
const ASLEEP_WINDOWS = `
  SELECT greatest(CASE WHEN st IS NULL THEN e.start_datetime ELSE (st->>'start_time')::timestamptz END, $2::timestamptz) AS ws,
         least(CASE WHEN st IS NULL THEN e.end_datetime ELSE (st->>'end_time')::timestamptz END, $3::timestamptz) AS we
  FROM wearables.events e
  LEFT JOIN wearables.sleep_details sd ON sd.event_id = e.id
  LEFT JOIN LATERAL jsonb_array_elements(
    CASE WHEN jsonb_array_length(coalesce(sd.sleep_stages, '[]'::jsonb)) > 0 THEN sd.sleep_stages END) st ON true
  WHERE e.user_id = $1 AND e.category = 'sleep' AND e.end_datetime >= $2 AND e.start_datetime < $3
    AND (st IS NULL OR st->>'stage' IN ('sleeping', 'light', 'deep', 'rem'))`;

export function createInternalScoresRepository() {
  const rmssdId = seriesId("heart_rate_variability_rmssd");
  const hrId = seriesId("heart_rate");
  return {
    /** Sleep sessions of the user starting in [start, end). */
    async sleepSessions(tx: Queryable, userId: string, start: number, end: number): Promise<ScoredSleepSession[]> {
      const rows = await tx.query<{
        id: string;
        data_source_id: string;
        start_datetime: Date;
        end_datetime: Date;
        zone_offset: string | null;
        is_nap: boolean | null;
        total: number | null;
        deep: number | null;
        rem: number | null;
        awake: number | null;
        stages: { stage: string; start_time: string; end_time: string }[] | null;
      }>(
        `SELECT e.id, e.data_source_id, e.start_datetime, e.end_datetime, e.zone_offset, sd.is_nap,
           sd.sleep_total_duration_minutes AS total, sd.sleep_deep_minutes AS deep, sd.sleep_rem_minutes AS rem,
           sd.sleep_awake_minutes AS awake, sd.sleep_stages AS stages
         FROM wearables.events e LEFT JOIN wearables.sleep_details sd ON sd.event_id = e.id
         WHERE e.user_id = $1 AND e.category = 'sleep' AND e.start_datetime >= $2 AND e.start_datetime < $3
         ORDER BY e.start_datetime, e.id`,
        [userId, iso(start), iso(end)],
      );
      return rows.map((r) => ({
        id: r.id,
        data_source_id: r.data_source_id,
        start: r.start_datetime.getTime(),
        end: r.end_datetime.getTime(),
        zoneOffset: r.zone_offset,
        isNap: r.is_nap ?? false,
        totalMinutes: r.total,
        deepMinutes: r.deep,
        remMinutes: r.rem,
        awakeMinutes: r.awake,
        stages: (r.stages ?? []).map((s) => ({
          stage: s.stage,
          start: Date.parse(s.start_time),
          end: Date.parse(s.end_time),
        })),
      }));
    },

    /**
     * Per UTC day of [start, end): the RMSSD samples and heart rate samples (every source of the user) taken
     * while asleep — RMSSD mean and count, heart rate count and Σ of squared successive RR differences.
     */
    async nightlyHrv(tx: Queryable, userId: string, start: number, end: number): Promise<NightlyHrv[]> {
      const rows = await tx.query<{
        day: string;
        rmssd_mean: number | null;
        rmssd_n: number;
        hr_n: number;
        rr_ss: number | null;
      }>(
        `WITH w AS (${ASLEEP_WINDOWS}),
         pts AS (
           SELECT DISTINCT s.source_key, s.series_type, s.recorded_at, s.value::float8 AS value
           FROM w JOIN wearables.data_sources d ON d.user_id = $1
           JOIN wearables.samples s ON s.source_key = d.key AND s.series_type IN (${rmssdId}, ${hrId})
             AND s.recorded_at >= w.ws AND s.recorded_at < w.we
           WHERE w.ws < w.we),
         daily AS (
           SELECT (recorded_at AT TIME ZONE 'UTC')::date AS day, series_type, value,
             CASE WHEN series_type = ${hrId} AND value > 0 THEN
               (60000.0 / value - 60000.0 / lag(value) OVER (
                 PARTITION BY (recorded_at AT TIME ZONE 'UTC')::date, series_type, value > 0
                 ORDER BY recorded_at, source_key)) ^ 2 END AS d2
           FROM pts)
         SELECT day::text AS day,
           avg(value) FILTER (WHERE series_type = ${rmssdId}) AS rmssd_mean,
           count(*) FILTER (WHERE series_type = ${rmssdId})::int AS rmssd_n,
           count(*) FILTER (WHERE series_type = ${hrId} AND value > 0)::int AS hr_n,
           sum(d2) AS rr_ss
         FROM daily GROUP BY day ORDER BY day`,
        [userId, iso(start), iso(end)],
      );
      return rows.map((r) => ({
        date: r.day,
        rmssdMean: r.rmssd_mean,
        rmssdCount: r.rmssd_n,
        heartRateCount: r.hr_n,
        rrSquaredDiffSum: r.rr_ss ?? 0,
      }));
    },

    /** Writes (or replaces) an internal score; its key is (user, provider, category, recorded_at). */
    async upsertScore(tx: Queryable, score: InternalScore): Promise<void> {
      await tx.query(
        `INSERT INTO wearables.health_scores (user_id, data_source_id, provider, category, value, recorded_at,
           zone_offset, components, sleep_event_id)
         VALUES ($1, $2, 'internal', $3, $4, $5, $6, $7::jsonb, $8)
         ON CONFLICT (user_id, provider, category, recorded_at) DO UPDATE SET data_source_id = EXCLUDED.data_source_id,
           value = EXCLUDED.value, zone_offset = EXCLUDED.zone_offset, components = EXCLUDED.components,
           sleep_event_id = EXCLUDED.sleep_event_id`,
        [
          score.userId,
          score.dataSourceId,
          score.category,
          score.value,
          iso(score.recordedAt),
          score.zoneOffset,
          JSON.stringify(score.components),
          score.sleepEventId,
        ],
      );
    },

    /** Removes the internal sleep scores of `sessionIds` but those of `keep` (sessions that lost their score). */
    async deleteSleepScores(tx: Queryable, userId: string, sessionIds: string[], keep: string[]): Promise<void> {
      if (sessionIds.length === 0) return;
      await tx.query(
        `DELETE FROM wearables.health_scores WHERE user_id = $1 AND provider = 'internal' AND category = 'sleep'
           AND sleep_event_id = ANY($2::uuid[]) AND NOT (sleep_event_id = ANY($3::uuid[]))`,
        [userId, sessionIds, keep],
      );
    },

    /** Removes the internal resilience score of a reference date (its data is no longer enough). */
    async deleteResilienceScore(tx: Queryable, userId: string, recordedAt: number): Promise<void> {
      await tx.query(
        `DELETE FROM wearables.health_scores WHERE user_id = $1 AND provider = 'internal' AND category = 'resilience'
           AND recorded_at = $2`,
        [userId, iso(recordedAt)],
      );
    },
  };
}

export type InternalScoresRepository = ReturnType<typeof createInternalScoresRepository>;
