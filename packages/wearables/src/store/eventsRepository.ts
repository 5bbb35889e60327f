/**
 * SQL for the workouts and sleep sessions lists (`wearables.events` with their details) and their deletes.
 * Lists walk `events_user_category_start_idx` (user, category, start DESC, id DESC) with a keyset on
 * (start, id): newest first, and a page never shifts when events are added. A workout without a stored
 * average heart rate gets the average of its data source's heart-rate samples in its window (a LATERAL read
 * of the samples key, only for the rows of the page that need it).
 */
import type { Database } from "@platform/kernel";
import type { CursorDirection } from "../domain/cursors.ts";
import { enqueueScoreNights, lockUserScoresShared } from "../jobs/scoreNights.ts";

export interface EventPosition {
  at: string;
  id: string;
  direction: CursorDirection;
}

/** Filters on the event's data source (the anchor's `provider`, `source`, `device_model`, `data_source_id`). */
export interface SourceFilter {
  provider?: string | undefined;
  source?: string | undefined;
  deviceModel?: string | undefined;
  dataSourceId?: string | undefined;
}

export interface EventQuery extends SourceFilter {
  userId: string;
  start: Date;
  end: Date;
  after: EventPosition | null;
  /** Rows to return (page size + 1). */
  take: number;
}

export interface WorkoutQuery extends EventQuery {
  /** Part of the workout type, case-insensitive. */
  recordType?: string | undefined;
  /** The workout type, exactly. */
  type?: string | undefined;
}

export interface SleepQuery extends EventQuery {
  byPriority: boolean;
  isNap?: boolean | undefined;
}

/** ` AND …` on data source `d` for the filters given, their values appended to `values`. */
export function sourceFilterSql(f: SourceFilter, values: unknown[], d = "d"): string {
  let sql = "";
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    values.push(value);
    sql += ` AND ${d}.${column} = $${values.length}`;
  };
  add("provider", f.provider);
  add("source", f.source);
  add("device_model", f.deviceModel);
  if (f.dataSourceId !== undefined) {
    values.push(f.dataSourceId);
    sql += ` AND ${d}.id = $${values.length}::uuid`;
  }
  return sql;
}

/** The filters of a workouts list beyond the window and the keyset (type, record type, data source). */
function workoutFilters(q: WorkoutQuery, values: unknown[]): string {
  let sql = "";
  if (q.recordType) {
    values.push(`%${q.recordType.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    sql += ` AND e.type ILIKE $${values.length}`;
  }
  if (q.type) {
    values.push(q.type);
    sql += ` AND e.type = $${values.length}`;
  }
  return sql + sourceFilterSql(q, values);
}

/** The filters of a sleep list beyond the window and the keyset (nap or not, data source, priority). */
function sleepFilters(q: SleepQuery, values: unknown[]): string {
  let sql = "";
  if (q.isNap !== undefined) {
    values.push(q.isNap);
    sql += ` AND coalesce(z.is_nap, false) = $${values.length}`;
  }
  sql += sourceFilterSql(q, values);
  return q.byPriority ? `${sql} AND ${WINNING_SLEEP}` : sql;
}

export interface EventBaseRow {
  id: string;
  start_datetime: Date;
  end_datetime: Date;
  /** start_datetime with microseconds, for the cursor. */
  at: string;
  zone_offset: string | null;
  duration_seconds: number;
  provider: string;
  source: string | null;
  device_model: string | null;
  device_type: string | null;
}

export interface WorkoutRow extends EventBaseRow {
  type: string;
  energy_burned: string | null;
  distance: string | null;
  heart_rate_min: number | null;
  heart_rate_max: number | null;
  avg_heart_rate: number | null;
  total_elevation_gain: string | null;
  steps_count: number | null;
  average_speed: string | null;
  max_speed: string | null;
  average_cadence: string | null;
  average_watts: string | null;
  max_watts: string | null;
  moving_time_seconds: number | null;
  elev_high: string | null;
  elev_low: string | null;
}

export interface SleepRow extends EventBaseRow {
  has_details: boolean;
  sleep_total_duration_minutes: number | null;
  sleep_time_in_bed_minutes: number | null;
  sleep_efficiency_score: string | null;
  sleep_deep_minutes: number | null;
  sleep_light_minutes: number | null;
  sleep_rem_minutes: number | null;
  sleep_awake_minutes: number | null;
  is_nap: boolean | null;
  sleep_stages: { stage: string; start_time: string; end_time: string }[] | null;
}

const HEART_RATE = 1;

/** Shared WHERE of a list: user, category, window (start ≥ start, end < end) and the keyset. */
function listWhere(q: EventQuery, values: unknown[]): { where: string; order: string } {
  values.push(q.userId, q.start, q.end);
  let where = "e.user_id = $1 AND e.start_datetime >= $2 AND e.end_datetime < $3";
  const backward = q.after?.direction === "prev";
  if (q.after) {
    values.push(q.after.at, q.after.id);
    const n = values.length;
    where += ` AND (e.start_datetime, e.id) ${backward ? ">" : "<"} ($${n - 1}::timestamptz, $${n}::uuid)`;
  }
  const order = backward ? "ASC" : "DESC";
  return { where, order: `e.start_datetime ${order}, e.id ${order}` };
}

const EVENT_COLUMNS = `e.id, e.start_datetime, e.end_datetime,
  to_char(e.start_datetime AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
  e.zone_offset, e.duration_seconds, d.provider, d.source, d.device_model, d.device_type`;

/** The workouts page statement (exported for the benchmark's bare route). */
export function workoutsSql(q: WorkoutQuery) {
  const values: unknown[] = [];
  const { where, order } = listWhere(q, values);
  const filters = workoutFilters(q, values);
  values.push(q.take);
  return {
    text: `SELECT ${EVENT_COLUMNS}, e.type, w.energy_burned, w.distance, w.heart_rate_min, w.heart_rate_max,
             w.total_elevation_gain, w.steps_count, w.average_speed, w.max_speed, w.average_cadence, w.average_watts,
             w.max_watts, w.moving_time_seconds, w.elev_high, w.elev_low,
             coalesce(round(w.heart_rate_avg), hr.avg)::int AS avg_heart_rate
      FROM wearables.events e
      JOIN wearables.data_sources d ON d.id = e.data_source_id
      LEFT JOIN wearables.workout_details w ON w.event_id = e.id
      LEFT JOIN LATERAL (
        SELECT round(avg(s.value)) AS avg FROM wearables.samples s
        WHERE w.heart_rate_avg IS NULL AND s.source_key = d.key AND s.series_type = ${HEART_RATE}
          AND s.recorded_at >= e.start_datetime AND s.recorded_at < e.end_datetime) hr ON true
      WHERE e.category = 'workout' AND ${where}${filters}
      ORDER BY ${order} LIMIT $${values.length}`,
    values,
  };
}

/**
 * Sleep sessions of the top-priority source of each night (local wake-up date): provider priority, then
 * device type priority, then device model, as the anchor ranks them (unknown ones rank 99).
 */
const WINNING_SLEEP = `e.id IN (
  SELECT id FROM (
    SELECT r.id, dense_rank() OVER (
      PARTITION BY (r.end_datetime + coalesce(r.zone_offset, '+00:00')::interval)::date
      ORDER BY coalesce(pp.priority, 99), coalesce(dp.priority, 99), coalesce(rd.device_model, '')) AS source_rank
    FROM wearables.events r
    JOIN wearables.data_sources rd ON rd.id = r.data_source_id
    LEFT JOIN wearables.provider_priorities pp ON pp.provider = rd.provider
    LEFT JOIN wearables.device_type_priorities dp ON dp.device_type = rd.device_type
    WHERE r.user_id = $1 AND r.category = 'sleep' AND r.start_datetime >= $2 AND r.end_datetime < $3) ranked
  WHERE source_rank = 1)`;

/** The sleep sessions page statement. */
export function sleepSql(q: SleepQuery) {
  const values: unknown[] = [];
  const { where, order } = listWhere(q, values);
  const filters = sleepFilters(q, values);
  values.push(q.take);
  return {
    text: `SELECT ${EVENT_COLUMNS}, z.event_id IS NOT NULL AS has_details, z.sleep_total_duration_minutes,
             z.sleep_time_in_bed_minutes, z.sleep_efficiency_score, z.sleep_deep_minutes, z.sleep_light_minutes,
             z.sleep_rem_minutes, z.sleep_awake_minutes, z.is_nap, z.sleep_stages
      FROM wearables.events e
      JOIN wearables.data_sources d ON d.id = e.data_source_id
      LEFT JOIN wearables.sleep_details z ON z.event_id = e.id
      WHERE e.category = 'sleep' AND ${where}${filters}
      ORDER BY ${order} LIMIT $${values.length}`,
    values,
  };
}

export function createEventsRepository(db: Database) {
  /** Rows matching a list's filters, whatever the keyset. */
  async function count(category: "workout" | "sleep", q: WorkoutQuery & Partial<SleepQuery>) {
    const values: unknown[] = [q.userId, q.start, q.end];
    const filters =
      category === "workout" ? workoutFilters(q, values) : sleepFilters({ ...q, byPriority: !!q.byPriority }, values);
    const [row] = await db.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM wearables.events e
       JOIN wearables.data_sources d ON d.id = e.data_source_id
       ${category === "sleep" ? "LEFT JOIN wearables.sleep_details z ON z.event_id = e.id" : ""}
       WHERE e.category = '${category}' AND e.user_id = $1 AND e.start_datetime >= $2 AND e.end_datetime < $3${filters}`,
      values,
    );
    return Number(row?.n ?? 0);
  }

  return {
    async workouts(q: WorkoutQuery): Promise<{ rows: WorkoutRow[]; total: number }> {
      const sql = workoutsSql(q);
      const [rows, total] = await Promise.all([db.query<WorkoutRow>(sql.text, sql.values), count("workout", q)]);
      return { rows, total };
    },

    async sleepSessions(q: SleepQuery): Promise<{ rows: SleepRow[]; total: number }> {
      const sql = sleepSql(q);
      const [rows, total] = await Promise.all([db.query<SleepRow>(sql.text, sql.values), count("sleep", q)]);
      return { rows, total };
    },

    /** The workout types the user has workouts of, sorted (the anchor's `/events/workouts/types`). */
    async workoutTypes(userId: string): Promise<string[]> {
      const rows = await db.query<{ type: string }>(
        "SELECT DISTINCT type FROM wearables.events WHERE user_id = $1 AND category = 'workout' ORDER BY type",
        [userId],
      );
      return rows.map((r) => r.type);
    },

    /**
     * Deletes the user's event of that category; false when the user has none with that id. Deleting a sleep
     * session enqueues its night (local wake-up date) for the scores job in the same transaction: its internal
     * sleep score goes with it (foreign key) and the night's resilience must be computed again. The scores
     * lock is taken before the row is deleted (see jobs/scoreNights.ts: a job holding it may reference the row).
     */
    async delete(userId: string, eventId: string, category: "workout" | "sleep"): Promise<boolean> {
      return db.transaction(async (tx) => {
        if (category === "sleep") await lockUserScoresShared(tx, userId);
        const gone = await tx.query<{ night: string }>(
          `DELETE FROM wearables.events WHERE id = $1 AND user_id = $2 AND category = $3
           RETURNING ((end_datetime + coalesce(zone_offset, '+00:00')::interval)::date)::text AS night`,
          [eventId, userId, category],
        );
        if (category === "sleep")
          await enqueueScoreNights(
            tx,
            userId,
            gone.map((r) => r.night),
          );
        return gone.length > 0;
      });
    },
  };
}

export type EventsRepository = ReturnType<typeof createEventsRepository>;
