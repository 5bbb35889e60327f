/**
 * The OpenAPI schemas of the summaries routes (http/summaries.ts), with the anchor's field names and an example
 * of each answer. Declarations only: long because each summary has many fields.
 */
import { type TSchema, Type } from "typebox";
import { DEVICE_TYPES } from "./dataEnvelope.ts";
import { Nullable, StringEnum } from "./schemas.ts";

const USER_ID = "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12";
export const DATE_DESCRIPTION =
  "ISO 8601 datetime (e.g. `2026-03-01T00:00:00Z`) or Unix timestamp in seconds; a date alone is its midnight " +
  "UTC. Days are counted from the date of `start_date` (included) to the date of `end_date` (excluded).";

const SOURCE_EXAMPLE = {
  provider: "apple",
  source: "com.apple.health",
  device: "Watch6,12",
  device_type: "watch",
  device_name: "Apple Watch Series 8 45mm",
};
const SourceMetadata = Type.Object(
  {
    provider: Type.String(),
    source: Nullable(Type.String()),
    device: Nullable(Type.String()),
    device_type: Nullable(StringEnum(DEVICE_TYPES)),
    device_name: Nullable(Type.String()),
  },
  { examples: [SOURCE_EXAMPLE] },
);

const N = () => Nullable(Type.Number());
const I = () => Nullable(Type.Integer());
const DateTime = () => Type.String({ format: "date-time" });

const Pagination = Type.Object({
  next_cursor: Nullable(Type.String()),
  previous_cursor: Nullable(Type.String()),
  has_more: Type.Boolean(),
  total_count: Nullable(Type.Integer()),
});
const Metadata = Type.Object({
  resolution: Nullable(
    StringEnum(["raw", "1min", "5min", "15min", "1hour"], { description: "Always null: summaries are per day." }),
  ),
  sample_count: Type.Integer(),
  start_time: DateTime(),
  end_time: DateTime(),
});
export const Page = <T extends TSchema>(item: T, example: unknown) =>
  Type.Object(
    { data: Type.Array(item), pagination: Pagination, metadata: Metadata },
    {
      examples: [
        {
          data: [example],
          pagination: { next_cursor: "MjAyNi0wMy0wMQ", previous_cursor: null, has_more: true, total_count: null },
          metadata: {
            resolution: null,
            sample_count: 1,
            start_time: "2026-03-01T00:00:00.000Z",
            end_time: "2026-03-08T00:00:00.000Z",
          },
        },
      ],
    },
  );

export const ACTIVITY_EXAMPLE = {
  date: "2026-03-01",
  source: SOURCE_EXAMPLE,
  steps: 8432,
  distance_meters: 6240.5,
  floors_climbed: 12,
  elevation_meters: 36,
  active_calories_kcal: 342.5,
  total_calories_kcal: 2150,
  active_minutes: 60,
  sedentary_minutes: 480,
  intensity_minutes: { light: 40, moderate: 25, vigorous: 10 },
  heart_rate: { avg_bpm: 72, max_bpm: 165, min_bpm: 48 },
};
export const ActivitySummary = Type.Object({
  date: Type.String({ format: "date" }),
  source: SourceMetadata,
  steps: I(),
  distance_meters: N(),
  floors_climbed: I(),
  elevation_meters: N(),
  active_calories_kcal: N(),
  total_calories_kcal: N(),
  active_minutes: I(),
  sedentary_minutes: I(),
  intensity_minutes: Nullable(Type.Object({ light: I(), moderate: I(), vigorous: I() })),
  heart_rate: Nullable(Type.Object({ avg_bpm: I(), max_bpm: I(), min_bpm: I() })),
});

export const SLEEP_EXAMPLE = {
  date: "2026-03-02",
  source: SOURCE_EXAMPLE,
  start_time: "2026-03-01T22:30:00.000Z",
  end_time: "2026-03-02T06:30:00.000Z",
  zone_offset: "+01:00",
  duration_minutes: 450,
  total_duration_minutes: 480,
  time_in_bed_minutes: 480,
  efficiency_percent: 93.75,
  stages: { awake_minutes: 30, light_minutes: 240, deep_minutes: 90, rem_minutes: 120 },
  interruptions_count: null,
  nap_count: 1,
  nap_duration_minutes: 30,
  sessions: [
    {
      start_time: "2026-03-01T22:30:00.000Z",
      end_time: "2026-03-02T06:30:00.000Z",
      zone_offset: "+01:00",
      duration_minutes: 450,
      is_nap: false,
    },
  ],
  avg_heart_rate_bpm: 54,
  avg_hrv_sdnn_ms: 48.2,
  avg_hrv_rmssd_ms: null,
  avg_respiratory_rate: 14.5,
  avg_spo2_percent: 96.8,
};
export const SleepSummary = Type.Object({
  date: Type.String({ format: "date" }),
  source: SourceMetadata,
  start_time: Nullable(DateTime()),
  end_time: Nullable(DateTime()),
  zone_offset: Nullable(Type.String()),
  duration_minutes: I(),
  total_duration_minutes: I(),
  time_in_bed_minutes: I(),
  efficiency_percent: N(),
  stages: Nullable(Type.Object({ awake_minutes: I(), light_minutes: I(), deep_minutes: I(), rem_minutes: I() })),
  interruptions_count: I(),
  nap_count: I(),
  nap_duration_minutes: I(),
  sessions: Nullable(
    Type.Array(
      Type.Object({
        start_time: DateTime(),
        end_time: DateTime(),
        zone_offset: Nullable(Type.String()),
        duration_minutes: I(),
        is_nap: Type.Boolean(),
      }),
    ),
  ),
  avg_heart_rate_bpm: I(),
  avg_hrv_sdnn_ms: N(),
  avg_hrv_rmssd_ms: N(),
  avg_respiratory_rate: N(),
  avg_spo2_percent: N(),
});

export const RECOVERY_EXAMPLE = {
  date: "2026-03-02",
  source: SOURCE_EXAMPLE,
  sleep_duration_seconds: 27000,
  sleep_efficiency_percent: 93.75,
  resting_heart_rate_bpm: 52,
  avg_hrv_sdnn_ms: 48.2,
  avg_hrv_rmssd_ms: null,
  avg_spo2_percent: 96.8,
  recovery_score: null,
};
export const RecoverySummary = Type.Object({
  date: Type.String({ format: "date" }),
  source: SourceMetadata,
  sleep_duration_seconds: I(),
  sleep_efficiency_percent: N(),
  resting_heart_rate_bpm: I(),
  avg_hrv_sdnn_ms: N(),
  avg_hrv_rmssd_ms: N(),
  avg_spo2_percent: N(),
  recovery_score: I(),
});

const BODY_EXAMPLE = {
  source: { ...SOURCE_EXAMPLE, device: "iPhone15,2", device_type: "phone", device_name: "iPhone 14 Pro" },
  slow_changing: {
    weight_kg: 72.5,
    height_cm: 175.5,
    body_fat_percent: 18.5,
    muscle_mass_kg: 58.2,
    bmi: 23.5,
    age: 32,
  },
  averaged: {
    period_days: 7,
    resting_heart_rate_bpm: 62,
    avg_hrv_sdnn_ms: 45.2,
    avg_hrv_rmssd_ms: null,
    period_start: "2026-02-22T10:00:00.000Z",
    period_end: "2026-03-01T10:00:00.000Z",
  },
  latest: {
    body_temperature_celsius: 36.6,
    body_temperature_measured_at: "2026-03-01T08:00:00.000Z",
    skin_temperature_celsius: null,
    skin_temperature_measured_at: null,
    blood_pressure: {
      avg_systolic_mmhg: 120,
      avg_diastolic_mmhg: 80,
      max_systolic_mmhg: null,
      max_diastolic_mmhg: null,
      min_systolic_mmhg: null,
      min_diastolic_mmhg: null,
      reading_count: 1,
    },
    blood_pressure_measured_at: "2026-03-01T08:05:00.000Z",
  },
};
export const BodySummary = Nullable(
  Type.Object(
    {
      source: SourceMetadata,
      slow_changing: Type.Object({
        weight_kg: N(),
        height_cm: N(),
        body_fat_percent: N(),
        muscle_mass_kg: N(),
        bmi: N(),
        age: I(),
      }),
      averaged: Type.Object({
        period_days: Type.Integer(),
        resting_heart_rate_bpm: I(),
        avg_hrv_sdnn_ms: N(),
        avg_hrv_rmssd_ms: N(),
        period_start: DateTime(),
        period_end: DateTime(),
      }),
      latest: Type.Object({
        body_temperature_celsius: N(),
        body_temperature_measured_at: Nullable(DateTime()),
        skin_temperature_celsius: N(),
        skin_temperature_measured_at: Nullable(DateTime()),
        blood_pressure: Nullable(
          Type.Object({
            avg_systolic_mmhg: I(),
            avg_diastolic_mmhg: I(),
            max_systolic_mmhg: I(),
            max_diastolic_mmhg: I(),
            min_systolic_mmhg: I(),
            min_diastolic_mmhg: I(),
            reading_count: I(),
          }),
        ),
        blood_pressure_measured_at: Nullable(DateTime()),
      }),
    },
    { examples: [BODY_EXAMPLE] },
  ),
);

const Counts = () => Type.Record(Type.String(), Type.Integer());
export const DataSummary = Type.Object(
  {
    user_id: Type.String({ format: "uuid" }),
    total_data_points: Type.Integer(),
    total_workouts: Type.Integer(),
    total_sleep_events: Type.Integer(),
    series_type_counts: Counts(),
    workout_type_counts: Counts(),
    by_provider: Type.Array(
      Type.Object({
        provider: Type.String(),
        data_points: Type.Integer(),
        series_counts: Counts(),
        workout_count: Type.Integer(),
        sleep_count: Type.Integer(),
      }),
    ),
    has_womens_health_data: Type.Boolean(),
  },
  {
    examples: [
      {
        user_id: USER_ID,
        total_data_points: 86400,
        total_workouts: 3,
        total_sleep_events: 7,
        series_type_counts: { heart_rate: 80000, steps: 6400 },
        workout_type_counts: { running: 2, cycling: 1 },
        by_provider: [
          {
            provider: "apple",
            data_points: 86400,
            series_counts: { heart_rate: 80000, steps: 6400 },
            workout_count: 3,
            sleep_count: 7,
          },
        ],
        has_womens_health_data: false,
      },
    ],
  },
);

export const DataTimeline = Type.Object(
  {
    bucket: StringEnum(["day", "week"]),
    group_by: StringEnum(["provider", "series_type", "workout_type"]),
    series: Type.Array(
      Type.Object({
        key: Type.String({ description: "The provider, series type or workout type." }),
        metric: StringEnum(["data_points", "workouts"], { default: "data_points" }),
        buckets: Type.Array(
          Type.Array(Type.Union([Type.String({ format: "date" }), Type.Integer()]), {
            minItems: 2,
            maxItems: 2,
            description: "`[bucket start date, count]`.",
          }),
        ),
      }),
    ),
  },
  {
    examples: [
      {
        bucket: "day",
        group_by: "provider",
        series: [
          {
            key: "apple",
            metric: "data_points",
            buckets: [
              ["2026-03-01", 1440],
              ["2026-03-02", 1380],
            ],
          },
          { key: "garmin", metric: "workouts", buckets: [["2026-03-02", 1]] },
        ],
      },
    ],
  },
);
