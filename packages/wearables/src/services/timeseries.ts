/**
 * `GET /timeseries`: raw samples or aggregated buckets of a user's data in a window, a keyset page at a time.
 * Parameters are checked here (dates, range, cursor, limit per resolution); the SQL is the repository's.
 */
import { cursorPage, decodeSampleCursor, encodeSampleCursor } from "../domain/cursors.ts";
import { formatZoneOffset, InvalidQueryError, timeseriesWindow } from "../domain/queryDates.ts";
import { seriesTypeByCode, seriesTypeById } from "../domain/seriesTypes.ts";
import { type SourceMetadata, sourceMetadata } from "../domain/sourceMetadata.ts";
import {
  BUCKET_MINUTES,
  bucketWindows,
  bucketWindowsBackward,
  RAW_LIMIT_MAX,
  type Resolution,
} from "../domain/timeseriesResolution.ts";
import type { SourceFilter } from "../store/eventsRepository.ts";
import type { SamplePosition, SampleQuery, SampleRow, TimeseriesRepository } from "../store/timeseriesRepository.ts";
import { sourceFilter } from "./events.ts";

export interface TimeseriesQuery extends SourceFilter {
  userId: string;
  startTime: string;
  endTime: string;
  /** Series type codes; all types when empty. */
  types: string[];
  resolution: Resolution;
  cursor?: string | undefined;
  limit: number;
  /** Only the top-priority data source of each type in the window (the anchor's `filter_by_priority`). */
  filterByPriority?: boolean | undefined;
}

export interface TimeseriesSample {
  timestamp: string;
  zone_offset: string | null;
  type: string;
  value: number;
  unit: string;
  source: SourceMetadata;
  is_daily_total: boolean | null;
}

/** The anchor's cursor envelope. */
export interface CursorEnvelope<T> {
  data: T[];
  pagination: {
    next_cursor: string | null;
    previous_cursor: string | null;
    has_more: boolean;
    total_count: number | null;
  };
  metadata: { resolution: Resolution | null; sample_count: number; start_time: string | null; end_time: string | null };
}

export class LimitTooLargeError extends InvalidQueryError {
  override name = "LimitTooLargeError" as const;
  constructor(max: number) {
    super(`query.limit: must be <= ${max} when resolution is raw`);
  }
}

export class UnknownSeriesTypeError extends InvalidQueryError {
  override name = "UnknownSeriesTypeError" as const;
  constructor(code: string) {
    super(`query.types: unknown series type '${code}'`);
  }
}

const toSample = (r: SampleRow): TimeseriesSample => {
  const type = seriesTypeById(r.series_type);
  return {
    timestamp: r.recorded_at.toISOString(),
    zone_offset: formatZoneOffset(r.zone_offset),
    type: type?.code ?? String(r.series_type),
    value: r.value,
    unit: type?.unit ?? "",
    source: sourceMetadata(r),
    is_daily_total: r.is_daily_total,
  };
};

export function createTimeseriesService(samples: TimeseriesRepository) {
  /** Up to `take` buckets after (or before) the position, read window by window (see `bucketWindows`). */
  async function readBuckets(
    q: Pick<SampleQuery, "userId" | "seriesTypes" | "start" | "end" | "priorityWindow"> & SourceFilter,
    after: SamplePosition | null,
    minutes: number,
    take: number,
  ): Promise<SampleRow[]> {
    const rows: SampleRow[] = [];
    const start = q.start.getTime();
    const end = q.end.getTime();
    const cursorAt = after ? new Date(after.at).getTime() : null;
    const backward = after?.direction === "prev";
    // Every (source, type) pair with data fills a bucket per interval: a first window of take / pairs buckets
    // reads about a page (the windows double after it when pairs have no data there).
    const need = Math.max(1, Math.ceil(take / Math.max(1, await samples.pairCount(q.userId, q.seriesTypes))));
    const windows = backward
      ? bucketWindowsBackward(start, Math.min(end, (cursorAt as number) + minutes * 60_000), minutes, need)
      : bucketWindows(Math.max(start, cursorAt ?? start), end, minutes, need);
    let first = true;
    for (const w of windows) {
      const got = await samples.buckets(
        {
          ...q,
          start: new Date(w.start),
          end: new Date(w.end),
          // Only the window holding the cursor's bucket has rows on both sides of it.
          after: first ? after : null,
          backward,
          take: take - rows.length,
        },
        minutes,
      );
      first = false;
      rows.push(...got);
      if (rows.length >= take) break;
    }
    return rows;
  }

  return {
    /** @throws {InvalidQueryError} on a bad date, an empty or inverted window, a bad cursor or limit. */
    async list(query: TimeseriesQuery): Promise<CursorEnvelope<TimeseriesSample>> {
      const { start, end } = timeseriesWindow(query.startTime, query.endTime);
      // A retired name (`energy`) and its successor (`active_energy`) are one type: deduplicated by id.
      const seriesTypes = [
        ...new Set(
          query.types.map((code) => {
            const type = seriesTypeByCode(code);
            if (!type) throw new UnknownSeriesTypeError(code);
            return type.id;
          }),
        ),
      ];
      if (query.resolution === "raw" && query.limit > RAW_LIMIT_MAX) throw new LimitTooLargeError(RAW_LIMIT_MAX);
      const after = query.cursor ? decodeSampleCursor(query.cursor) : null;
      const base = {
        userId: query.userId,
        seriesTypes,
        start,
        end,
        ...sourceFilter(query),
        priorityWindow: query.filterByPriority ? { start, end } : undefined,
      };
      const take = query.limit + 1;

      let rows: SampleRow[];
      let total: number | null = null;
      if (query.resolution === "raw") {
        [rows, total] = await Promise.all([
          samples.rawSamples({ ...base, after, backward: after?.direction === "prev", take }),
          samples.countSamples(base),
        ]);
      } else {
        rows = await readBuckets(base, after, BUCKET_MINUTES[query.resolution], take);
      }
      const page = cursorPage(rows, query.limit, after?.direction ?? null, (r, direction) =>
        encodeSampleCursor(r.at, r.source_key, r.series_type, direction),
      );
      return {
        data: page.data.map(toSample),
        pagination: {
          next_cursor: page.next_cursor,
          previous_cursor: page.previous_cursor,
          has_more: page.has_more,
          total_count: total,
        },
        metadata: {
          resolution: query.resolution,
          sample_count: page.data.length,
          start_time: start.toISOString(),
          end_time: end.toISOString(),
        },
      };
    },
  };
}

export type TimeseriesService = ReturnType<typeof createTimeseriesService>;
