/**
 * Times in query parameters of the account history endpoints (`after`, `until`, `date`, `start`, `end`,
 * `date_end`), as the anchor and its client send them: RFC 3339 timestamps (`2026-01-05T14:30:00Z`,
 * `2026-01-05T09:30:00-05:00`; the client sends `Date.toISOString()`) or dates (`2026-01-05`). Pure.
 *
 * Decisions: a date alone is midnight New York time at its start (the anchor's activity dates and trading days
 * are New York dates); a timestamp without an offset is UTC; an offset whose `+` arrived as a space (an
 * unencoded `+` in a query string) is read as `+`. Impossible dates (`2026-02-30`) are refused, where
 * `Date.parse` would roll them over.
 */
import { dayNumber, InvalidDateError, newYorkInstant } from "../market/newYorkTime.ts";

/** The shape a query time must have (the exact checks are in {@link parseQueryInstant}). */
export const QUERY_INSTANT_PATTERN = "^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]{5,18}(Z|[+ -]\\d{2}:\\d{2})?)?$";

const TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?$/;

/** The civil date "YYYY-MM-DD" a query time is written with (its first ten characters), if it is a real date. */
export function queryDate(text: string): string | undefined {
  const date = text.slice(0, 10);
  try {
    dayNumber(date);
    return date;
  } catch (error) {
    if (error instanceof InvalidDateError) return undefined;
    throw error;
  }
}

/** The instant (epoch ms) of a query time, or undefined when it is not a valid date or RFC 3339 timestamp. */
export function parseQueryInstant(input: string): number | undefined {
  const text = input.replace(/ (\d{2}:\d{2})$/, "+$1");
  const date = queryDate(text);
  if (date === undefined) return undefined;
  if (text.length === 10) return newYorkInstant(dayNumber(date), 0);
  const match = TIMESTAMP.exec(text);
  if (!match) return undefined;
  const ms = Date.parse(match[5] === undefined ? `${text}Z` : text);
  return Number.isNaN(ms) ? undefined : ms;
}
