/**
 * The `resolution` of `GET /timeseries`: `raw` samples, or buckets of 1, 5, 15 or 60 minutes aligned on UTC
 * (`date_bin` from 2000-01-01T00:00Z), one value per (bucket, data source, series type) combined by the
 * type's aggregation (domain/seriesTypes.ts): `avg` for rates and levels, `max` for tests, `sum` for counts.
 * A `sum` bucket adds the intraday samples and falls back to the provider's daily totals only when the bucket
 * has nothing else, so a daily total never doubles the samples it sums (the anchor's "prefer the daily total"
 * guards the same thing by day).
 */
import type { Aggregation } from "./seriesTypes.ts";

export const RESOLUTIONS = ["raw", "1min", "5min", "15min", "1hour"] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** Width of an aggregated bucket in minutes. */
export const BUCKET_MINUTES: Record<Exclude<Resolution, "raw">, number> = {
  "1min": 1,
  "5min": 5,
  "15min": 15,
  "1hour": 60,
};

/** Where every bucket grid starts (date_bin's origin). */
export const BUCKET_ORIGIN_MS = Date.UTC(2000, 0, 1);

/** Page size bounds: raw samples as the spec (≤ 100); buckets up to 1000 (the anchor once it aggregated). */
export const RAW_LIMIT_MAX = 100;
export const BUCKET_LIMIT_MAX = 1000;

/** The bucket of `ms` on a grid of `minutes`, in epoch ms. */
export function bucketStart(ms: number, minutes: number): number {
  const width = minutes * 60_000;
  return BUCKET_ORIGIN_MS + Math.floor((ms - BUCKET_ORIGIN_MS) / width) * width;
}

/**
 * The SQL expression that combines the rows of one group of `wearables.samples` (alias `s`) by `aggregation`.
 * Used inside `CASE` on the series type, so one GROUP BY serves every requested type.
 */
export function aggregateSql(aggregation: Aggregation): string {
  switch (aggregation) {
    case "sum":
      return (
        "coalesce(sum(s.value) FILTER (WHERE s.is_daily_total IS NOT TRUE), " +
        "sum(s.value) FILTER (WHERE s.is_daily_total))"
      );
    case "max":
      return "max(s.value)";
    case "avg":
      return "avg(s.value)";
  }
}

/**
 * The time windows a page of buckets is read in: the first covers `need` buckets from `from` (a dense series
 * fills a page from it alone), each next one twice the previous, up to `end`. Window ends fall on bucket
 * boundaries, so the buckets of consecutive windows follow one another and a page never reads the whole
 * range to return its first rows.
 */
export function* bucketWindows(
  from: number,
  end: number,
  minutes: number,
  need: number,
): Generator<{ start: number; end: number }> {
  const width = minutes * 60_000;
  let start = from;
  let span = Math.max(1, need) * width;
  while (start < end) {
    const windowEnd = Math.min(end, bucketStart(start, minutes) + span);
    yield { start, end: windowEnd };
    start = windowEnd;
    span *= 2;
  }
}

/** The same windows walking back from `upper` (exclusive) towards `start`, for a `prev_` cursor. */
export function* bucketWindowsBackward(
  start: number,
  upper: number,
  minutes: number,
  need: number,
): Generator<{ start: number; end: number }> {
  const width = minutes * 60_000;
  let end = upper;
  let span = Math.max(1, need) * width;
  while (end > start) {
    const windowStart = Math.max(start, bucketStart(end - 1, minutes) + width - span);
    yield { start: windowStart, end };
    end = windowStart;
    span *= 2;
  }
}
