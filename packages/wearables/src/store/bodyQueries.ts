/**
 * SQL of the body summary and the data counts (part of the summaries repository): latest values with the
 * preferred source on ties, period averages, recent readings, and counts per provider and type.
 */
import type { Queryable } from "@platform/kernel";

const iso = (ms: number) => new Date(ms).toISOString();

export interface LatestValueRow {
  series_type: number;
  value: number;
  recorded_at: Date;
  source_key: number;
}

export function createBodyQueries(db: Queryable) {
  return {
    /**
     * The latest value of each type before `before`; of several at that instant, the preferred source's
     * (provider, then device type priority), as the anchor's `get_latest_values_for_types`.
     */
    latestValues(userId: string, types: readonly number[], before: number): Promise<LatestValueRow[]> {
      return db.query<LatestValueRow>(
        `SELECT DISTINCT ON (s.series_type) s.series_type, s.value, s.recorded_at, s.source_key
         FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
         LEFT JOIN wearables.provider_priorities pp ON pp.provider = d.provider
         LEFT JOIN wearables.device_type_priorities dp ON dp.device_type = d.device_type
         WHERE d.user_id = $1 AND s.series_type = ANY($2::smallint[]) AND s.recorded_at < $3
         ORDER BY s.series_type, s.recorded_at DESC, pp.priority ASC NULLS LAST, dp.priority ASC NULLS LAST,
           s.source_key DESC`,
        [userId, types, iso(before)],
      );
    },

    /** Average of each type over [start, end), every source. */
    async periodAverages(userId: string, types: readonly number[], start: number, end: number) {
      const rows = await db.query<{ series_type: number; avg: number }>(
        `SELECT s.series_type, avg(s.value) AS avg
         FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
         WHERE d.user_id = $1 AND s.series_type = ANY($2::smallint[]) AND s.recorded_at >= $3 AND s.recorded_at < $4
         GROUP BY s.series_type`,
        [userId, types, iso(start), iso(end)],
      );
      return new Map(rows.map((r) => [Number(r.series_type), r.avg]));
    },

    /** The latest reading of a type within [start, end] (inclusive end, as the anchor), preferred source first. */
    async latestReading(userId: string, type: number, start: number, end: number) {
      const [row] = await db.query<{ value: number; recorded_at: Date }>(
        `SELECT s.value, s.recorded_at
         FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
         LEFT JOIN wearables.provider_priorities pp ON pp.provider = d.provider
         LEFT JOIN wearables.device_type_priorities dp ON dp.device_type = d.device_type
         WHERE d.user_id = $1 AND s.series_type = $2 AND s.recorded_at >= $3 AND s.recorded_at <= $4
         ORDER BY s.recorded_at DESC, pp.priority ASC NULLS LAST, dp.priority ASC NULLS LAST
         LIMIT 1`,
        [userId, type, iso(start), iso(end)],
      );
      return row;
    },

    /** Sample counts per (provider, series type) and event counts per (provider, category, type) in [start, end). */
    async dataCounts(userId: string, start: number | null, end: number | null) {
      const [samples, events] = await Promise.all([
        db.query<{ provider: string; series_type: number; n: number }>(
          `SELECT d.provider, s.series_type, count(*)::int AS n
           FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
           WHERE d.user_id = $1 AND ($2::timestamptz IS NULL OR s.recorded_at >= $2)
             AND ($3::timestamptz IS NULL OR s.recorded_at < $3)
           GROUP BY d.provider, s.series_type`,
          [userId, start === null ? null : iso(start), end === null ? null : iso(end)],
        ),
        db.query<{ provider: string; category: string; type: string; n: number }>(
          `SELECT d.provider, e.category, e.type, count(*)::int AS n
           FROM wearables.events e JOIN wearables.data_sources d ON d.id = e.data_source_id
           WHERE e.user_id = $1 AND ($2::timestamptz IS NULL OR e.start_datetime >= $2)
             AND ($3::timestamptz IS NULL OR e.start_datetime < $3)
           GROUP BY d.provider, e.category, e.type`,
          [userId, start === null ? null : iso(start), end === null ? null : iso(end)],
        ),
      ]);
      return { samples, events };
    },

    /**
     * Sample counts per (UTC day or ISO week start, provider, series type) and workout counts per (bucket,
     * provider, workout type) in [start, end), of one provider when `provider` is given.
     */
    async timelineCounts(
      userId: string,
      start: number | null,
      end: number | null,
      bucket: "day" | "week",
      provider: string | null,
    ) {
      const values = [userId, start === null ? null : iso(start), end === null ? null : iso(end), bucket, provider];
      const [samples, workouts] = await Promise.all([
        db.query<{ bucket: string; provider: string; series_type: number; n: number }>(
          `SELECT date_trunc($4, s.recorded_at AT TIME ZONE 'UTC')::date::text AS bucket, d.provider, s.series_type,
                  count(*)::int AS n
           FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
           WHERE d.user_id = $1 AND ($2::timestamptz IS NULL OR s.recorded_at >= $2)
             AND ($3::timestamptz IS NULL OR s.recorded_at < $3) AND ($5::text IS NULL OR d.provider = $5)
           GROUP BY 1, 2, 3`,
          values,
        ),
        db.query<{ bucket: string; provider: string; type: string; n: number }>(
          `SELECT date_trunc($4, e.start_datetime AT TIME ZONE 'UTC')::date::text AS bucket, d.provider, e.type,
                  count(*)::int AS n
           FROM wearables.events e JOIN wearables.data_sources d ON d.id = e.data_source_id
           WHERE e.user_id = $1 AND e.category = 'workout' AND ($2::timestamptz IS NULL OR e.start_datetime >= $2)
             AND ($3::timestamptz IS NULL OR e.start_datetime < $3) AND ($5::text IS NULL OR d.provider = $5)
           GROUP BY 1, 2, 3`,
          values,
        ),
      ]);
      return { samples, workouts };
    },
  };
}
