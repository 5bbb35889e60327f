/**
 * Workouts and sleep sessions: the cursor lists (newest first) and the deletes. Parameters are checked here;
 * rows become the anchor's `Workout` and `SleepSession`.
 */
import { cursorPage, decodeEventCursor, encodeEventCursor } from "../domain/cursors.ts";
import { currentProviderName } from "../domain/providers.ts";
import { eventWindow } from "../domain/queryDates.ts";
import { type SourceMetadata, sourceMetadata } from "../domain/sourceMetadata.ts";
import type { EventBaseRow, EventsRepository, SleepRow, SourceFilter, WorkoutRow } from "../store/eventsRepository.ts";
import type { CursorEnvelope } from "./timeseries.ts";

export interface EventListQuery extends SourceFilter {
  userId: string;
  startDate: string;
  endDate: string;
  cursor?: string | undefined;
  limit: number;
}

/** The data source filters of a query, the provider under its 0.9 name (`google` → `google_health`). */
export const sourceFilter = (q: SourceFilter): SourceFilter => ({
  provider: q.provider === undefined ? undefined : currentProviderName(q.provider),
  source: q.source,
  deviceModel: q.deviceModel,
  dataSourceId: q.dataSourceId,
});

export interface Workout {
  id: string;
  type: string;
  name: string | null;
  start_time: string;
  end_time: string;
  zone_offset: string | null;
  duration_seconds: number;
  source: SourceMetadata;
  entry_source: string | null;
  intensity: string | null;
  calories_kcal: number | null;
  distance_meters: number | null;
  avg_heart_rate_bpm: number | null;
  max_heart_rate_bpm: number | null;
  avg_pace_sec_per_km: number | null;
  elevation_gain_meters: number | null;
  heart_rate_min: number | null;
  steps_count: number | null;
  average_speed: number | null;
  max_speed: number | null;
  average_cadence: number | null;
  average_watts: number | null;
  max_watts: number | null;
  moving_time_seconds: number | null;
  elev_high: number | null;
  elev_low: number | null;
  hr_zones: null;
  power_zones: null;
  segments: null;
}

export interface SleepSession {
  id: string;
  start_time: string;
  end_time: string;
  zone_offset: string | null;
  source: SourceMetadata;
  duration_seconds: number;
  sleep_duration_seconds: number | null;
  time_in_bed_seconds: number | null;
  efficiency_percent: number | null;
  stages: { awake_minutes: number; light_minutes: number; deep_minutes: number; rem_minutes: number } | null;
  sleep_stage_intervals: { stage: string; start_time: string; end_time: string }[] | null;
  is_nap: boolean;
}

/** No event of that id and category belongs to the user. */
export class EventNotFoundError extends Error {
  override name = "EventNotFoundError" as const;
  constructor(readonly category: "workout" | "sleep") {
    super(category === "workout" ? "Workout not found" : "Sleep session not found");
  }
}

const numeric = (v: string | number | null) => (v === null ? null : Number(v));

const eventBase = (r: EventBaseRow) => ({
  id: r.id,
  start_time: r.start_datetime.toISOString(),
  end_time: r.end_datetime.toISOString(),
  zone_offset: r.zone_offset,
});

/** Seconds per km over the moving time (else the duration), when the workout has a distance. */
function pace(r: WorkoutRow): number | null {
  const meters = numeric(r.distance);
  const seconds = r.moving_time_seconds ?? r.duration_seconds;
  if (!meters || meters <= 0 || !seconds) return null;
  return Math.round(seconds / (meters / 1000));
}

const toWorkout = (r: WorkoutRow): Workout => ({
  ...eventBase(r),
  type: r.type || "unknown",
  // Names, entry source, intensity, zones and segments are not kept by any importer: null, as the anchor
  // answers for a workout without them.
  name: null,
  duration_seconds: r.duration_seconds,
  source: sourceMetadata(r),
  entry_source: null,
  intensity: null,
  calories_kcal: numeric(r.energy_burned),
  distance_meters: numeric(r.distance),
  avg_heart_rate_bpm: r.avg_heart_rate,
  max_heart_rate_bpm: r.heart_rate_max,
  avg_pace_sec_per_km: pace(r),
  elevation_gain_meters: numeric(r.total_elevation_gain),
  heart_rate_min: r.heart_rate_min,
  steps_count: r.steps_count,
  average_speed: numeric(r.average_speed),
  max_speed: numeric(r.max_speed),
  average_cadence: numeric(r.average_cadence),
  average_watts: numeric(r.average_watts),
  max_watts: numeric(r.max_watts),
  moving_time_seconds: r.moving_time_seconds,
  elev_high: numeric(r.elev_high),
  elev_low: numeric(r.elev_low),
  hr_zones: null,
  power_zones: null,
  segments: null,
});

const toSleepSession = (r: SleepRow): SleepSession => ({
  ...eventBase(r),
  source: sourceMetadata(r),
  duration_seconds: r.duration_seconds ?? 0,
  sleep_duration_seconds: r.sleep_total_duration_minutes === null ? null : r.sleep_total_duration_minutes * 60,
  time_in_bed_seconds: r.sleep_time_in_bed_minutes === null ? null : r.sleep_time_in_bed_minutes * 60,
  efficiency_percent: numeric(r.sleep_efficiency_score),
  stages: r.has_details
    ? {
        awake_minutes: r.sleep_awake_minutes ?? 0,
        light_minutes: r.sleep_light_minutes ?? 0,
        deep_minutes: r.sleep_deep_minutes ?? 0,
        rem_minutes: r.sleep_rem_minutes ?? 0,
      }
    : null,
  sleep_stage_intervals: r.has_details ? r.sleep_stages : null,
  is_nap: r.is_nap ?? false,
});

function envelope<R extends EventBaseRow, T>(
  rows: R[],
  total: number,
  q: EventListQuery,
  direction: "next" | "prev" | null,
  window: { start: Date; end: Date },
  map: (row: R) => T,
): CursorEnvelope<T> {
  const page = cursorPage(rows, q.limit, direction, (r, d) => encodeEventCursor(r.at, r.id, d));
  return {
    data: page.data.map(map),
    pagination: {
      next_cursor: page.next_cursor,
      previous_cursor: page.previous_cursor,
      has_more: page.has_more,
      total_count: total,
    },
    metadata: {
      resolution: null,
      sample_count: page.data.length,
      start_time: window.start.toISOString(),
      end_time: window.end.toISOString(),
    },
  };
}

export function createEventsService(events: EventsRepository) {
  return {
    /** @throws {InvalidQueryError} on a bad date, an inverted range or a bad cursor. */
    async workouts(
      q: EventListQuery & { recordType?: string | undefined; type?: string | undefined },
    ): Promise<CursorEnvelope<Workout>> {
      const window = eventWindow(q.startDate, q.endDate);
      const after = q.cursor ? decodeEventCursor(q.cursor) : null;
      const { rows, total } = await events.workouts({
        userId: q.userId,
        ...window,
        after,
        take: q.limit + 1,
        recordType: q.recordType,
        type: q.type,
        ...sourceFilter(q),
      });
      return envelope(rows, total, q, after?.direction ?? null, window, toWorkout);
    },

    /** @throws {InvalidQueryError} on a bad date, an inverted range or a bad cursor. */
    async sleepSessions(
      q: EventListQuery & { filterByPriority: boolean; isNap?: boolean | undefined },
    ): Promise<CursorEnvelope<SleepSession>> {
      const window = eventWindow(q.startDate, q.endDate);
      const after = q.cursor ? decodeEventCursor(q.cursor) : null;
      const { rows, total } = await events.sleepSessions({
        userId: q.userId,
        ...window,
        after,
        take: q.limit + 1,
        byPriority: q.filterByPriority,
        isNap: q.isNap,
        ...sourceFilter(q),
      });
      return envelope(rows, total, q, after?.direction ?? null, window, toSleepSession);
    },

    /** The workout types the user has workouts of, sorted; none for an unknown user. */
    workoutTypes: (userId: string): Promise<string[]> => events.workoutTypes(userId),

    /** @throws {EventNotFoundError} */
    async delete(userId: string, eventId: string, category: "workout" | "sleep"): Promise<void> {
      if (!(await events.delete(userId, eventId, category))) throw new EventNotFoundError(category);
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
