/**
 * Workouts and sleep sessions: `GET /users/{user_id}/events/workouts`, `GET …/events/sleep` (newest first,
 * keyset cursors) and the deletes of one workout or one sleep session.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { PROVIDER_INPUT_NAMES } from "../domain/providers.ts";
import { WORKOUT_TYPES } from "../domain/workoutTypes.ts";
import { EventNotFoundError, type EventsService } from "../services/events.ts";
import {
  asQueryHttpError,
  badRequest,
  CursorEnvelopeSchema,
  CursorParam,
  DateParam,
  SOURCE_EXAMPLE,
  SourceMetadataSchema,
  unauthorized,
} from "./dataEnvelope.ts";
import { ErrorBody, Nullable, StringEnum } from "./schemas.ts";

export const eventsTag = { name: "Events", description: "Workouts and sleep sessions." };

const SOURCE = SOURCE_EXAMPLE;

const WORKOUT_EXAMPLE = {
  id: "7b0c2f64-3c1e-4f0a-9d55-2f1b6a0c9e11",
  type: "running",
  name: null,
  start_time: "2026-05-01T06:30:00.000Z",
  end_time: "2026-05-01T07:15:00.000Z",
  zone_offset: "+02:00",
  duration_seconds: 2700,
  source: SOURCE,
  calories_kcal: 512.4,
  distance_meters: 8040,
  avg_heart_rate_bpm: 148,
  max_heart_rate_bpm: 176,
  avg_pace_sec_per_km: 336,
  elevation_gain_meters: 64,
  entry_source: null,
  intensity: null,
  heart_rate_min: 92,
  steps_count: 7480,
  average_speed: 2.98,
  max_speed: 4.1,
  average_cadence: 166,
  average_watts: null,
  max_watts: null,
  moving_time_seconds: 2700,
  elev_high: 212.4,
  elev_low: 148.6,
  hr_zones: null,
  power_zones: null,
  segments: null,
};

const Workout = Type.Object({
  id: Type.String({ format: "uuid" }),
  type: Type.String({ description: "A workout type (running, cycling, …)." }),
  name: Nullable(Type.String({ description: "Always null: no importer keeps a workout name." })),
  start_time: Type.String({ format: "date-time" }),
  end_time: Type.String({ format: "date-time" }),
  zone_offset: Nullable(Type.String()),
  duration_seconds: Type.Integer(),
  source: SourceMetadataSchema,
  entry_source: Nullable(StringEnum(["manual", "automatic", "unknown"], { description: "Not kept yet: null." })),
  intensity: Nullable(StringEnum(["low", "moderate", "high", "unknown"], { description: "Not kept yet: null." })),
  calories_kcal: Nullable(Type.Number()),
  distance_meters: Nullable(Type.Number()),
  avg_heart_rate_bpm: Nullable(
    Type.Integer({ description: "Stored average, else the mean of the source's heart-rate samples in the workout." }),
  ),
  max_heart_rate_bpm: Nullable(Type.Integer()),
  avg_pace_sec_per_km: Nullable(
    Type.Number({ description: "Moving time (else duration) per km of distance; null without a distance." }),
  ),
  elevation_gain_meters: Nullable(Type.Number()),
  heart_rate_min: Nullable(Type.Integer()),
  steps_count: Nullable(Type.Integer()),
  average_speed: Nullable(Type.Number({ description: "m/s" })),
  max_speed: Nullable(Type.Number({ description: "m/s" })),
  average_cadence: Nullable(Type.Number()),
  average_watts: Nullable(Type.Number()),
  max_watts: Nullable(Type.Number()),
  moving_time_seconds: Nullable(Type.Integer()),
  elev_high: Nullable(Type.Number({ description: "Highest elevation, meters." })),
  elev_low: Nullable(Type.Number({ description: "Lowest elevation, meters." })),
  hr_zones: Nullable(
    Type.Object(
      {
        zones: Type.Array(
          Type.Object({ zone: Type.Integer(), seconds: Type.Number(), max_bpm: Nullable(Type.Integer()) }),
        ),
        max_hr: Nullable(Type.Integer()),
        threshold_hr: Nullable(Type.Integer()),
      },
      { description: "Not kept yet: null (also with `include=zones`)." },
    ),
  ),
  power_zones: Nullable(
    Type.Object(
      {
        zones: Type.Array(
          Type.Object({ zone: Type.Integer(), seconds: Type.Number(), max_watts: Nullable(Type.Integer()) }),
        ),
        ftp_watts: Nullable(Type.Integer()),
      },
      { description: "Not kept yet: null (also with `include=zones`)." },
    ),
  ),
  segments: Nullable(
    Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description: "Not kept yet: null (also with `include=segments`).",
    }),
  ),
});

const SLEEP_EXAMPLE = {
  id: "c5f7e0a2-1d3b-4e6f-8a9b-0c1d2e3f4a5b",
  start_time: "2026-04-30T21:45:00.000Z",
  end_time: "2026-05-01T05:15:00.000Z",
  zone_offset: "+02:00",
  source: SOURCE,
  duration_seconds: 27000,
  sleep_duration_seconds: 25200,
  time_in_bed_seconds: 27000,
  efficiency_percent: 93.33,
  stages: { awake_minutes: 30, light_minutes: 240, deep_minutes: 90, rem_minutes: 90 },
  sleep_stage_intervals: [
    { stage: "light", start_time: "2026-04-30T21:45:00.000Z", end_time: "2026-04-30T23:45:00.000Z" },
  ],
  is_nap: false,
};

const SleepStageInterval = Type.Object({
  stage: StringEnum(["in_bed", "awake", "sleeping", "light", "deep", "rem", "unknown"]),
  start_time: Type.String({ format: "date-time" }),
  end_time: Type.String({ format: "date-time" }),
});

const SleepSession = Type.Object({
  id: Type.String({ format: "uuid" }),
  start_time: Type.String({ format: "date-time" }),
  end_time: Type.String({ format: "date-time" }),
  zone_offset: Nullable(Type.String()),
  source: SourceMetadataSchema,
  duration_seconds: Type.Integer(),
  sleep_duration_seconds: Nullable(Type.Integer()),
  time_in_bed_seconds: Nullable(Type.Integer()),
  efficiency_percent: Nullable(Type.Number()),
  stages: Nullable(
    Type.Object({
      awake_minutes: Type.Integer(),
      light_minutes: Type.Integer(),
      deep_minutes: Type.Integer(),
      rem_minutes: Type.Integer(),
    }),
  ),
  sleep_stage_intervals: Nullable(Type.Array(SleepStageInterval)),
  is_nap: Type.Boolean(),
});

const EventQuery = {
  start_date: DateParam("Events starting at or after it."),
  end_date: DateParam("Events ending before it."),
  cursor: Type.Optional(CursorParam),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  provider: Type.Optional(
    StringEnum(PROVIDER_INPUT_NAMES, {
      description: "Only events of this provider's data sources (the retired `google` is taken for `google_health`).",
    }),
  ),
  source: Type.Optional(
    Type.String({ maxLength: 100, description: "Only events of data sources of this source app." }),
  ),
  device_model: Type.Optional(
    Type.String({ maxLength: 100, description: "Only events of data sources of this device model." }),
  ),
  data_source_id: Type.Optional(Type.String({ format: "uuid", description: "Only events of this data source." })),
};

const WorkoutsQuery = Type.Object({
  ...EventQuery,
  include: Type.Array(StringEnum(["zones", "segments"]), {
    default: [],
    maxItems: 2,
    description: "Details to add (`zones`, `segments`); none is kept yet, so they stay null.",
  }),
  record_type: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "Part of the workout type (case-insensitive)." }),
  ),
  type: Type.Optional(StringEnum(WORKOUT_TYPES, { description: "Only workouts of this type." })),
});

const SleepQuery = Type.Object({
  ...EventQuery,
  include: Type.Array(StringEnum(["stages"]), {
    default: [],
    maxItems: 1,
    description: "`stages`: the stage intervals, which every session answers already.",
  }),
  is_nap: Type.Optional(Type.Boolean({ description: "Only naps (true) or only main sleeps (false)." })),
  filter_by_priority: Type.Boolean({
    default: false,
    description:
      "When true, keep only the sessions of the highest-priority source of each night (local wake-up date), " +
      "ranked by provider priority, device type priority, then device model.",
  }),
});

const UserPath = Type.Object({ user_id: Type.String({ format: "uuid" }) });
const page = (example: Record<string, unknown>) => ({
  pagination: {
    next_cursor: "MjAyNi0wNS0wMVQwNjozMDowMC4wMDAwMDBafDdiMGMy…",
    previous_cursor: null,
    has_more: true,
    total_count: 12,
  },
  metadata: {
    resolution: null,
    sample_count: 1,
    start_time: "2026-04-01T00:00:00.000Z",
    end_time: "2026-05-02T00:00:00.000Z",
  },
  data: [example],
});
const BAD_RANGE = "start_date must be before end_date";

/** Rethrows a missing event as 404; bad parameters as 400. */
function asEventHttpError(error: unknown): never {
  if (error instanceof EventNotFoundError) throw new HttpError(404, error.message);
  return asQueryHttpError(error);
}

export function registerEventRoutes(app: HttpServer, events: EventsService) {
  app.get(
    "/users/:user_id/events/workouts",
    {
      schema: {
        operationId: "listWorkouts",
        tags: [eventsTag.name],
        summary: "List workouts",
        description: "Workouts with start ≥ `start_date` and end < `end_date`, newest first. An unknown user has none.",
        params: UserPath,
        querystring: WorkoutsQuery,
        response: {
          200: CursorEnvelopeSchema(Workout, page(WORKOUT_EXAMPLE)),
          ...badRequest(BAD_RANGE),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const q = request.query;
      return events
        .workouts({
          userId: request.params.user_id,
          startDate: q.start_date,
          endDate: q.end_date,
          cursor: q.cursor,
          limit: q.limit,
          recordType: q.record_type,
          type: q.type,
          provider: q.provider,
          source: q.source,
          deviceModel: q.device_model,
          dataSourceId: q.data_source_id,
        })
        .catch(asEventHttpError);
    },
  );

  app.get(
    "/users/:user_id/events/sleep",
    {
      schema: {
        operationId: "listSleepSessions",
        tags: [eventsTag.name],
        summary: "List sleep sessions",
        description: "Sleep sessions (naps included) with start ≥ `start_date` and end < `end_date`, newest first.",
        params: UserPath,
        querystring: SleepQuery,
        response: {
          200: CursorEnvelopeSchema(SleepSession, page(SLEEP_EXAMPLE)),
          ...badRequest(BAD_RANGE),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const q = request.query;
      return events
        .sleepSessions({
          userId: request.params.user_id,
          startDate: q.start_date,
          endDate: q.end_date,
          cursor: q.cursor,
          limit: q.limit,
          filterByPriority: q.filter_by_priority,
          isNap: q.is_nap,
          provider: q.provider,
          source: q.source,
          deviceModel: q.device_model,
          dataSourceId: q.data_source_id,
        })
        .catch(asEventHttpError);
    },
  );

  app.get(
    "/users/:user_id/events/workouts/types",
    {
      schema: {
        operationId: "listWorkoutTypes",
        tags: [eventsTag.name],
        summary: "List workout types",
        description: "The workout types the user has workouts of, sorted. An unknown user has none.",
        params: UserPath,
        response: {
          200: Type.Array(Type.String(), { examples: [["cycling", "running", "walking"]] }),
          ...badRequest('path.user_id: must match format "uuid"'),
          ...unauthorized,
        },
      },
    },
    async (request) => events.workoutTypes(request.params.user_id),
  );

  const deleteRoute = (path: string, idParam: "workout_id" | "sleep_id", category: "workout" | "sleep") =>
    app.delete(
      path,
      {
        schema: {
          operationId: category === "workout" ? "deleteWorkout" : "deleteSleepSession",
          tags: [eventsTag.name],
          summary: category === "workout" ? "Delete workout" : "Delete sleep session",
          description:
            category === "workout"
              ? "Deletes the workout with its details."
              : "Deletes the sleep session with its details and its internal sleep score; the night's scores are " +
                "queued to be computed again.",
          params: Type.Object({
            user_id: Type.String({ format: "uuid" }),
            [idParam]: Type.String({ format: "uuid" }),
          }),
          response: {
            204: Type.Null({ description: "Deleted." }),
            ...badRequest(`path.${idParam}: must match format "uuid"`),
            404: ErrorBody(category === "workout" ? "Workout not found" : "Sleep session not found"),
            ...unauthorized,
          },
        },
      },
      async (request, reply) => {
        const params = request.params as Record<string, string>;
        await events.delete(params.user_id as string, params[idParam] as string, category).catch(asEventHttpError);
        return reply.code(204).send(null);
      },
    );
  deleteRoute("/users/:user_id/events/workouts/:workout_id", "workout_id", "workout");
  deleteRoute("/users/:user_id/events/sleep/:sleep_id", "sleep_id", "sleep");
}
