/**
 * Ids of account activities, as the anchor writes them: `<yyyymmddHHMMSSmmm>::<uuid v4>`, e.g.
 * `20260105143406977::8efc7b9a-8b2b-4000-9955-d36e7db0df74`. The time prefix makes ids sort by time, so an
 * activity's id is its place in the account's history and `page_token` (the id of the last item of a page) is
 * a position in it.
 *
 * Decision: the prefix is UTC, where the anchor's ids look like New York wall time. New York time repeats an
 * hour when daylight saving ends, which would break the order pages rely on; UTC never goes back.
 *
 * Every activity's id must be `activityId(transaction_time)`: the read queries turn time filters into id
 * ranges with {@link activityIdPrefix} (index range scans on `(account_id, id)`).
 */
import { randomUUID } from "node:crypto";

/** The 17-digit time prefix of the ids of activities at `at` (UTC, millisecond precision). */
export function activityIdPrefix(at: Date): string {
  const iso = at.toISOString(); // 2026-01-05T14:34:06.977Z
  if (iso.length !== 24) throw new RangeError(`activity time out of range: ${iso}`);
  return iso.replace(/[-T:.Z]/g, "");
}

/**
 * A new activity id for an activity at `at`: its time prefix, `::`, and a random UUID v4 (or `uuid`).
 * @throws {RangeError} for a time outside years 0000–9999.
 */
export function activityId(at: Date, uuid: string = randomUUID()): string {
  return `${activityIdPrefix(at)}::${uuid}`;
}

/** What an activity id looks like (the `page_token` parameter is one). */
export const ACTIVITY_ID_PATTERN =
  "^\\d{17}::[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
