/**
 * What the daily summaries share: the date range of `start_date`/`end_date` (the anchor's
 * `[start_date::date, end_date::date)`), the envelope, and date-keyed pages. After the source-priority
 * filter a summary list has one row per date, so its cursor is the date of the last row seen (plus, for
 * sleep and recovery, the row's id in the anchor's `timestamp|id` form): rows added while a client pages
 * never shift a page.
 */
import {
  type CursorDirection,
  cursorPage,
  decodeCursor,
  encodeCursor,
  InvalidCursorError,
} from "../../domain/cursors.ts";
import { InvalidRangeError, parseQueryDatetime } from "../../domain/queryDates.ts";
import type { SourceMetadata } from "../../domain/sourceMetadata.ts";
import { sourceMetadata } from "../../domain/sourceMetadata.ts";
import type { DataSourceRow } from "../../store/summariesRepository.ts";

export interface SummaryRange {
  /** The parsed parameters (shown in `metadata`). */
  start: Date;
  end: Date;
  /** First local date included and first excluded ("YYYY-MM-DD"). */
  from: string;
  to: string;
}

export interface SummaryPage<T> {
  data: T[];
  pagination: { next_cursor: string | null; previous_cursor: string | null; has_more: boolean; total_count: null };
  metadata: { resolution: null; sample_count: number; start_time: string; end_time: string };
}

export interface PageRequest {
  cursor?: string | undefined;
  limit: number;
  sortOrder?: "asc" | "desc";
}

/** @throws {DatetimeParseError} @throws {InvalidRangeError} when `start_date` is not before `end_date`. */
export function summaryRange(startDate: string, endDate: string): SummaryRange {
  const start = parseQueryDatetime(startDate);
  const end = parseQueryDatetime(endDate);
  if (start.getTime() >= end.getTime()) throw new InvalidRangeError("start_date", "end_date");
  return { start, end, from: start.toISOString().slice(0, 10), to: end.toISOString().slice(0, 10) };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The date a summary cursor points at: `date` (activity) or `date-midnight|id` (sleep, recovery). */
export function decodeSummaryCursor(cursor: string, arity: 1 | 2): { date: string; direction: CursorDirection } {
  const { fields, direction } = decodeCursor(cursor, arity);
  const date = (fields[0] as string).slice(0, 10);
  if (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) throw new InvalidCursorError(cursor);
  return { date, direction };
}

/** The cursor of a row: its date alone, or the anchor's `<date midnight>|<id>`. */
export const summaryCursor = (date: string, id: string | null, direction: CursorDirection) =>
  encodeCursor(id === null ? [date] : [`${date}T00:00:00+00:00`, id], direction);

/**
 * The page of `rows` (one per date, ascending) after the cursor, in `sortOrder`; `prev_` cursors page back.
 * Cursors name dates, so this works on the rows of any range that includes the page.
 */
export function pageByDate<T extends { date: string }>(
  rows: readonly T[],
  request: PageRequest,
  cursor: { date: string; direction: CursorDirection } | null,
  idOf: ((row: T) => string) | null,
): Omit<SummaryPage<T>, "metadata"> {
  const desc = request.sortOrder === "desc";
  const ordered = desc ? [...rows].reverse() : [...rows];
  let travel = ordered;
  if (cursor) {
    // "after" in list order; a prev_ cursor travels the other way.
    const forward = cursor.direction === "next";
    const after = (d: string) => (desc ? d < cursor.date : d > cursor.date);
    const before = (d: string) => (desc ? d > cursor.date : d < cursor.date);
    travel = forward ? ordered.filter((r) => after(r.date)) : ordered.filter((r) => before(r.date)).reverse();
  }
  const page = cursorPage(travel.slice(0, request.limit + 1), request.limit, cursor?.direction ?? null, (row, d) =>
    summaryCursor(row.date, idOf ? idOf(row) : null, d),
  );
  return {
    data: page.data,
    pagination: {
      next_cursor: page.next_cursor,
      previous_cursor: page.previous_cursor,
      has_more: page.has_more,
      total_count: null,
    },
  };
}

export const metadataOf = (range: SummaryRange, count: number): SummaryPage<never>["metadata"] => ({
  resolution: null,
  sample_count: count,
  start_time: range.start.toISOString(),
  end_time: range.end.toISOString(),
});

const UNKNOWN_SOURCE: SourceMetadata = {
  provider: "unknown",
  source: null,
  device: null,
  device_type: null,
  device_name: null,
};

/** The `source` of a summary row from its data source (unknown when it has none). */
export const sourceOf = (ds: DataSourceRow | undefined): SourceMetadata => (ds ? sourceMetadata(ds) : UNKNOWN_SOURCE);
