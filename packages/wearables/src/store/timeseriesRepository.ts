/**
 * SQL for `GET /timeseries`. Every read walks the samples primary key, (source_key, series_type, recorded_at),
 * as a range per (data source of the user, requested type) pair:
 *
 * - raw samples: for each pair, the first `limit + 1` samples after the cursor in index order (a LATERAL
 *   subquery stops there), then the pairs' rows merged by (time, source key, type) — a page reads about
 *   `pairs × limit` index entries, whatever the window holds;
 * - buckets: one `GROUP BY date_bin(…)` over the pairs' ranges within a time window, each type combined by its
 *   aggregation (domain/timeseriesResolution.ts);
 * - the raw `total_count`: an index-only count over the same ranges.
 *
 * Timestamps come back with a microsecond text form for the cursors (`at`).
 */
import type { Queryable } from "@platform/kernel";
import type { CursorDirection } from "../domain/cursors.ts";
import { SERIES_TYPES } from "../domain/seriesTypes.ts";
import { aggregateSql } from "../domain/timeseriesResolution.ts";
import { type SourceFilter, sourceFilterSql } from "./eventsRepository.ts";

/** Where a page starts: after (or, going back, before) this sort key. */
export interface SamplePosition {
  at: string;
  sourceKey: number;
  seriesType: number;
  direction: CursorDirection;
}

export interface SampleQuery extends SourceFilter {
  userId: string;
  /** Series type ids; every type when empty. */
  seriesTypes: number[];
  start: Date;
  end: Date;
  after: SamplePosition | null;
  /** Walking back from a `prev_` cursor: newest first (the service puts the page back in order). */
  backward: boolean;
  /** Rows to return (the caller asks for its page size + 1). */
  take: number;
  /**
   * `filter_by_priority`: only the top-priority data source of each series type among those with samples in
   * this window (the whole request's window, so that every page and bucket window ranks alike).
   */
  priorityWindow?: { start: Date; end: Date } | undefined;
}

export interface SampleRow {
  source_key: number;
  series_type: number;
  recorded_at: Date;
  /** `recorded_at` (or the bucket) as `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  at: string;
  value: number;
  zone_offset: number | null;
  is_daily_total: boolean | null;
  provider: string;
  source: string | null;
  device_model: string | null;
  device_type: string | null;
}

const AT = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The (data source, series type) pairs of the user, with the data source's metadata; the data source filters'
 * values are appended to `values` (so call it once every other parameter is in). With a priority window, only
 * the pairs of each type's top-ranked source with samples there: provider priority, device type priority, then
 * device model, as the anchor ranks sources (unknown ones rank 99; sources that tie all stay).
 */
const pairs = (q: SourceFilter & Pick<SampleQuery, "priorityWindow">, values: unknown[]) => {
  const filters = sourceFilterSql(q, values);
  if (!q.priorityWindow) {
    return `pairs AS (
  SELECT d.key AS source_key, t.id AS series_type, d.provider, d.source, d.device_model, d.device_type
  FROM wearables.data_sources d CROSS JOIN unnest($2::smallint[]) AS t(id)
  WHERE d.user_id = $1${filters})`;
  }
  values.push(q.priorityWindow.start, q.priorityWindow.end);
  const from = `$${values.length - 1}`;
  const to = `$${values.length}`;
  // The EXISTS probes one primary-key range per candidate pair: no scan of the window's samples.
  return `pairs AS (
  SELECT source_key, series_type, provider, source, device_model, device_type FROM (
    SELECT d.key AS source_key, t.id AS series_type, d.provider, d.source, d.device_model, d.device_type,
           dense_rank() OVER (PARTITION BY t.id
             ORDER BY coalesce(pp.priority, 99), coalesce(dp.priority, 99), coalesce(d.device_model, '')) AS source_rank
    FROM wearables.data_sources d CROSS JOIN unnest($2::smallint[]) AS t(id)
    LEFT JOIN wearables.provider_priorities pp ON pp.provider = d.provider
    LEFT JOIN wearables.device_type_priorities dp ON dp.device_type = d.device_type
    WHERE d.user_id = $1${filters}
      AND EXISTS (SELECT 1 FROM wearables.samples s WHERE s.source_key = d.key AND s.series_type = t.id
                    AND s.recorded_at >= ${from}::timestamptz AND s.recorded_at < ${to}::timestamptz)) ranked
  WHERE source_rank = 1)`;
};

const ALL_TYPE_IDS = SERIES_TYPES.map((t) => t.id);
const typeIds = (ids: number[]) => (ids.length > 0 ? ids : ALL_TYPE_IDS);

/** The raw-samples page statement (exported for the benchmark's bare route). */
export function rawSamplesSql(q: SampleQuery): { text: string; values: unknown[] } {
  const backward = q.backward;
  const order = backward ? "DESC" : "ASC";
  const values: unknown[] = [q.userId, typeIds(q.seriesTypes), q.start, q.end, q.take];
  let keyset = "";
  if (q.after) {
    values.push(q.after.at, q.after.sourceKey, q.after.seriesType);
    // Within one pair the sort key is the time: the cursor's own instant is in or out by the pair's place.
    keyset = backward
      ? `AND s.recorded_at <= $6 AND (s.recorded_at < $6 OR (p.source_key, p.series_type) < ($7, $8))`
      : `AND s.recorded_at >= $6 AND (s.recorded_at > $6 OR (p.source_key, p.series_type) > ($7, $8))`;
  }
  const withPairs = pairs(q, values);
  return {
    text: `WITH ${withPairs}
      SELECT p.source_key, p.series_type, s.recorded_at, ${AT("s.recorded_at")} AS at, s.value, s.zone_offset,
             s.is_daily_total, p.provider, p.source, p.device_model, p.device_type
      FROM pairs p CROSS JOIN LATERAL (
        SELECT s.recorded_at, s.value, s.zone_offset, s.is_daily_total FROM wearables.samples s
        WHERE s.source_key = p.source_key AND s.series_type = p.series_type
          AND s.recorded_at >= $3 AND s.recorded_at < $4 ${keyset}
        ORDER BY s.recorded_at ${order} LIMIT $5) s
      ORDER BY s.recorded_at ${order}, p.source_key ${order}, p.series_type ${order}
      LIMIT $5`,
    values,
  };
}

/** The aggregated page statement over one time window (exported for the benchmark's bare route). */
export function bucketSql(q: SampleQuery, bucketMinutes: number): { text: string; values: unknown[] } {
  const ids = typeIds(q.seriesTypes);
  const sumIds = ids.filter((id) => SERIES_TYPES.find((t) => t.id === id)?.aggregation === "sum");
  const maxIds = ids.filter((id) => SERIES_TYPES.find((t) => t.id === id)?.aggregation === "max");
  const backward = q.backward;
  const order = backward ? "DESC" : "ASC";
  const values: unknown[] = [q.userId, ids, q.start, q.end, q.take, `${bucketMinutes} minutes`, sumIds, maxIds];
  let after = "";
  if (q.after) {
    values.push(q.after.at, q.after.sourceKey, q.after.seriesType);
    after = `WHERE (g.bucket, p.source_key, p.series_type) ${backward ? "<" : ">"} ($9::timestamptz, $10::int, $11::smallint)`;
  }
  const withPairs = pairs(q, values);
  // Each (source, type) pair's samples are read through the primary key's range (LATERAL), never by a scan of
  // the table: at 100M samples PostgreSQL chose a parallel scan and an on-disk sort for the plain join.
  return {
    text: `WITH ${withPairs},
      buckets AS (
        SELECT p.source_key, p.series_type, g.bucket, g.value, g.zone_offset,
               CASE WHEN p.series_type = ANY($7::smallint[]) THEN g.intraday = 0 END AS is_daily_total
        FROM pairs p CROSS JOIN LATERAL (
          SELECT date_bin($6::interval, s.recorded_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket,
                 CASE WHEN p.series_type = ANY($7::smallint[]) THEN ${aggregateSql("sum")}
                      WHEN p.series_type = ANY($8::smallint[]) THEN ${aggregateSql("max")}
                      ELSE ${aggregateSql("avg")} END AS value,
                 min(s.zone_offset) AS zone_offset,
                 count(*) FILTER (WHERE s.is_daily_total IS NOT TRUE) AS intraday
          FROM wearables.samples s
          WHERE s.source_key = p.source_key AND s.series_type = p.series_type
            AND s.recorded_at >= $3 AND s.recorded_at < $4
          GROUP BY 1) g
        ${after}
        ORDER BY g.bucket ${order}, p.source_key ${order}, p.series_type ${order}
        LIMIT $5)
      SELECT b.source_key, b.series_type, b.bucket AS recorded_at, ${AT("b.bucket")} AS at, b.value::float8 AS value,
             b.zone_offset, b.is_daily_total, p.provider, p.source, p.device_model, p.device_type
      FROM buckets b JOIN pairs p ON p.source_key = b.source_key AND p.series_type = b.series_type
      ORDER BY b.bucket ${order}, b.source_key ${order}, b.series_type ${order}`,
    values,
  };
}

/** How many raw samples the window holds, before any cursor (the anchor's `total_count`). */
export function countSamplesSql(
  q: Pick<SampleQuery, "userId" | "seriesTypes" | "start" | "end" | "priorityWindow"> & SourceFilter,
) {
  const values: unknown[] = [q.userId, typeIds(q.seriesTypes), q.start, q.end];
  if (q.priorityWindow) {
    const withPairs = pairs(q, values);
    return {
      text: `WITH ${withPairs}
        SELECT coalesce(sum(c.n), 0)::bigint AS n FROM pairs p CROSS JOIN LATERAL (
          SELECT count(*) AS n FROM wearables.samples s
          WHERE s.source_key = p.source_key AND s.series_type = p.series_type
            AND s.recorded_at >= $3 AND s.recorded_at < $4) c`,
      values,
    };
  }
  const filters = sourceFilterSql(q, values);
  return {
    text: `SELECT count(*)::bigint AS n FROM wearables.samples s
      WHERE s.source_key = ANY(ARRAY(SELECT d.key FROM wearables.data_sources d WHERE d.user_id = $1${filters}))
        AND s.series_type = ANY($2::smallint[]) AND s.recorded_at >= $3 AND s.recorded_at < $4`,
    values,
  };
}

export function createTimeseriesRepository(db: Queryable) {
  const run = async (sql: { text: string; values: unknown[] }) =>
    (await db.query<SampleRow>(sql.text, sql.values)).map((r) => ({
      ...r,
      source_key: Number(r.source_key),
      series_type: Number(r.series_type),
      value: Number(r.value),
      zone_offset: r.zone_offset === null ? null : Number(r.zone_offset),
    }));
  return {
    rawSamples: (q: SampleQuery): Promise<SampleRow[]> => run(rawSamplesSql(q)),
    buckets: (q: SampleQuery, bucketMinutes: number): Promise<SampleRow[]> => run(bucketSql(q, bucketMinutes)),
    /** How many (data source, series type) pairs a query of `seriesTypes` (every type when empty) spans. */
    async pairCount(userId: string, seriesTypes: number[]): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM wearables.data_sources WHERE user_id = $1",
        [userId],
      );
      return (row?.n ?? 0) * typeIds(seriesTypes).length;
    },
    async countSamples(
      q: Pick<SampleQuery, "userId" | "seriesTypes" | "start" | "end" | "priorityWindow"> & SourceFilter,
    ): Promise<number> {
      const sql = countSamplesSql(q);
      const [row] = await db.query<{ n: string | number }>(sql.text, sql.values);
      return Number(row?.n ?? 0);
    },
  };
}

export type TimeseriesRepository = ReturnType<typeof createTimeseriesRepository>;
