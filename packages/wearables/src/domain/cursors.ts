/**
 * Keyset cursors of the data lists, in the anchor's form: base64url of `|`-joined fields, a `prev_` prefix for
 * a cursor that pages backwards. A cursor names the last row seen (its sort key), not a position, so rows
 * inserted while a client pages never shift a page: nothing is skipped and nothing repeats.
 *
 * - events: `<start_datetime>|<event id>` (the anchor's `timestamp|id`);
 * - samples and buckets: `<recorded_at or bucket>|<source key>|<series type id>` (the sort key of a sample).
 *
 * Timestamps are written with microseconds (PostgreSQL's precision), so a row is never confused with a
 * neighbour in the same millisecond.
 */
import { InvalidQueryError, parseQueryDatetime } from "./queryDates.ts";

export type CursorDirection = "next" | "prev";

export class InvalidCursorError extends InvalidQueryError {
  override name = "InvalidCursorError" as const;
  constructor(readonly cursor: string) {
    super(`Invalid cursor format: '${cursor}'. Expected 'timestamp|id'.`);
  }
}

export function encodeCursor(fields: readonly string[], direction: CursorDirection = "next"): string {
  const encoded = Buffer.from(fields.join("|"), "utf8").toString("base64url");
  return direction === "prev" ? `prev_${encoded}` : encoded;
}

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** The fields of a cursor and its direction. @throws {InvalidCursorError} unless it has `arity` fields. */
export function decodeCursor(cursor: string, arity: number): { fields: string[]; direction: CursorDirection } {
  const direction: CursorDirection = cursor.startsWith("prev_") ? "prev" : "next";
  const body = direction === "prev" ? cursor.slice(5) : cursor;
  if (!BASE64URL.test(body)) throw new InvalidCursorError(cursor);
  const fields = Buffer.from(body.replace(/=+$/, ""), "base64url").toString("utf8").split("|");
  if (fields.length !== arity || fields.some((f) => f === "")) throw new InvalidCursorError(cursor);
  return { fields, direction };
}

/** A cursor timestamp as PostgreSQL gives it (`2026-05-01T08:00:00.123456Z`), checked. */
function cursorTimestamp(text: string, cursor: string): string {
  try {
    parseQueryDatetime(text);
  } catch {
    throw new InvalidCursorError(cursor);
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) throw new InvalidCursorError(cursor);
  return text;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The position of an event in a list sorted by (start, id). */
export interface EventCursor {
  /** ISO timestamp with microseconds. */
  at: string;
  id: string;
  direction: CursorDirection;
}

export const encodeEventCursor = (at: string, id: string, direction: CursorDirection = "next") =>
  encodeCursor([at, id], direction);

/** @throws {InvalidCursorError} */
export function decodeEventCursor(cursor: string): EventCursor {
  const { fields, direction } = decodeCursor(cursor, 2);
  const [at, id] = fields as [string, string];
  if (!UUID.test(id)) throw new InvalidCursorError(cursor);
  return { at: cursorTimestamp(at, cursor), id, direction };
}

/** The position of a sample (or an aggregated bucket) in a list sorted by (time, source key, series type). */
export interface SampleCursor {
  at: string;
  sourceKey: number;
  seriesType: number;
  direction: CursorDirection;
}

export const encodeSampleCursor = (
  at: string,
  sourceKey: number,
  seriesType: number,
  direction: CursorDirection = "next",
) => encodeCursor([at, String(sourceKey), String(seriesType)], direction);

const SMALL_INT = /^\d{1,9}$/;

/** @throws {InvalidCursorError} */
export function decodeSampleCursor(cursor: string): SampleCursor {
  const { fields, direction } = decodeCursor(cursor, 3);
  const [at, sourceKey, seriesType] = fields as [string, string, string];
  if (!SMALL_INT.test(sourceKey) || !SMALL_INT.test(seriesType) || Number(seriesType) > 32767) {
    throw new InvalidCursorError(cursor);
  }
  return { at: cursorTimestamp(at, cursor), sourceKey: Number(sourceKey), seriesType: Number(seriesType), direction };
}

/**
 * The page of `rows` (fetched `limit + 1`, in the page's direction of travel) with the envelope's cursors.
 * Going forward, `has_more` says a next page exists and `previous_cursor` is given once a cursor was used;
 * going backward (a `prev_` cursor), rows are returned in list order, `has_more` says an earlier page exists,
 * and `next_cursor` leads back to where the client came from.
 */
export function cursorPage<T>(
  rows: T[],
  limit: number,
  direction: CursorDirection | null,
  cursorOf: (row: T, direction: CursorDirection) => string,
): { data: T[]; next_cursor: string | null; previous_cursor: string | null; has_more: boolean } {
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  if (direction === "prev") {
    page.reverse();
    const first = page[0];
    const last = page.at(-1);
    return {
      data: page,
      next_cursor: last === undefined ? null : cursorOf(last, "next"),
      previous_cursor: hasMore && first !== undefined ? cursorOf(first, "prev") : null,
      has_more: hasMore,
    };
  }
  const first = page[0];
  const last = page.at(-1);
  return {
    data: page,
    next_cursor: hasMore && last !== undefined ? cursorOf(last, "next") : null,
    previous_cursor: direction === "next" && first !== undefined ? cursorOf(first, "prev") : null,
    has_more: hasMore,
  };
}
