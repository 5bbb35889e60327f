/**
 * The write side of the health data model (0002_health_data.sql), in the caller's transaction: every import
 * (Apple Health, FIT, GPX, TCX, the demo data) writes through here, so deduplication and the rows' shape are
 * decided once.
 *
 * - A data source is found or created by its identity (user, provider, device model, source app).
 * - Samples are deduplicated by (data source, series type, instant) as at the anchor: a sample written again
 *   replaces the value (the anchor's upsert), so a resumed import never duplicates a sample. Duplicates inside
 *   one batch keep the last one. New rows of a large batch are COPYed straight in (sampleWrites.ts).
 * - Events are deduplicated by (data source, start, end); their details are replaced.
 * - Nights whose internal scores change are enqueued as kernel jobs (queue `wearables.scores`, one per user and
 *   night: jobs/scoreNights.ts) in the same transaction.
 */
import type { Queryable } from "@platform/kernel";
import { enqueueScoreNights } from "../jobs/scoreNights.ts";
import { type SampleRow, writeSampleRows } from "./sampleWrites.ts";

/** Who recorded the data: one data source per distinct identity of a user. */
export interface DataSourceIdentity {
  provider: string;
  deviceModel?: string | null;
  softwareVersion?: string | null;
  /** The writing app (e.g. a HealthKit bundle id, `apple_health_xml`, `fit_file`). */
  source?: string | null;
  deviceType?: string | null;
  originalSourceName?: string | null;
  userConnectionId?: string | null;
}

export interface DataSourceRef {
  id: string;
  key: number;
}

export interface SampleInput extends SampleRow {
  /** A series type id (domain/seriesTypes.ts). */
  seriesType: number;
  /** Minutes east of UTC, or null when unknown. */
  zoneOffsetMinutes?: number | null;
}

export interface WorkoutDetailsInput {
  heartRateMin?: number | null;
  heartRateMax?: number | null;
  heartRateAvg?: number | null;
  /** kcal */
  energyBurned?: number | null;
  /** meters */
  distance?: number | null;
  stepsCount?: number | null;
  /** m/s */
  maxSpeed?: number | null;
  maxWatts?: number | null;
  movingTimeSeconds?: number | null;
  /** meters */
  totalElevationGain?: number | null;
  averageSpeed?: number | null;
  averageCadence?: number | null;
  averageWatts?: number | null;
  elevHigh?: number | null;
  elevLow?: number | null;
}

export type SleepStage = "in_bed" | "awake" | "sleeping" | "light" | "deep" | "rem" | "unknown";

export interface SleepDetailsInput {
  totalDurationMinutes?: number | null;
  timeInBedMinutes?: number | null;
  efficiencyScore?: number | null;
  deepMinutes?: number | null;
  remMinutes?: number | null;
  lightMinutes?: number | null;
  awakeMinutes?: number | null;
  isNap: boolean;
  /** Epoch ms bounds of each stage interval. */
  stages: { stage: SleepStage; start: number; end: number }[];
}

export interface EventInput {
  externalId?: string | null;
  /** Epoch ms. */
  start: number;
  end: number;
  /** The anchor's form, "+01:00", or null. */
  zoneOffset?: string | null;
  sourceName?: string | null;
}

export type WorkoutInput = EventInput & { type: string; details: WorkoutDetailsInput };
export type SleepInput = EventInput & { details: SleepDetailsInput };

const num = (v: number | null | undefined): number | null =>
  v === undefined || v === null || !Number.isFinite(v) ? null : v;

export function createHealthDataWriter() {
  return {
    /** The data source of `identity` for `userId`, created on first use. */
    async ensureDataSource(tx: Queryable, userId: string, identity: DataSourceIdentity): Promise<DataSourceRef> {
      const [row] = await tx.query<{ id: string; key: number }>(
        `INSERT INTO wearables.data_sources AS d (user_id, provider, device_model, software_version, source, device_type,
           original_source_name, user_connection_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (user_id, provider, coalesce(device_model, ''), coalesce(source, ''))
         DO UPDATE SET software_version = coalesce(EXCLUDED.software_version, d.software_version),
           device_type = coalesce(d.device_type, EXCLUDED.device_type),
           original_source_name = coalesce(d.original_source_name, EXCLUDED.original_source_name),
           user_connection_id = coalesce(EXCLUDED.user_connection_id, d.user_connection_id)
         RETURNING id, key`,
        [
          userId,
          identity.provider,
          identity.deviceModel ?? null,
          identity.softwareVersion ?? null,
          identity.source ?? null,
          identity.deviceType ?? null,
          identity.originalSourceName ?? null,
          identity.userConnectionId ?? null,
        ],
      );
      if (!row) throw new Error("data source upsert returned nothing");
      return { id: row.id, key: Number(row.key) };
    },

    /** Writes `samples` of one data source; answers how many rows were new or changed (see sampleWrites.ts). */
    writeSamples: (tx: Queryable, source: DataSourceRef, samples: readonly SampleInput[]): Promise<number> =>
      writeSampleRows(tx, source.key, samples),

    /** Writes a workout (replacing one of the same source, start and end); answers its id. */
    async writeWorkout(tx: Queryable, userId: string, source: DataSourceRef, workout: WorkoutInput): Promise<string> {
      const id = await upsertEvent(tx, userId, source, "workout", workout.type, workout);
      const d = workout.details;
      await tx.query(
        `INSERT INTO wearables.workout_details (event_id, heart_rate_min, heart_rate_max, heart_rate_avg, energy_burned,
           distance, steps_count, max_speed, max_watts, moving_time_seconds, total_elevation_gain, average_speed,
           average_cadence, average_watts, elev_high, elev_low)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         ON CONFLICT (event_id) DO UPDATE SET heart_rate_min = EXCLUDED.heart_rate_min,
           heart_rate_max = EXCLUDED.heart_rate_max, heart_rate_avg = EXCLUDED.heart_rate_avg,
           energy_burned = EXCLUDED.energy_burned, distance = EXCLUDED.distance, steps_count = EXCLUDED.steps_count,
           max_speed = EXCLUDED.max_speed, max_watts = EXCLUDED.max_watts,
           moving_time_seconds = EXCLUDED.moving_time_seconds, total_elevation_gain = EXCLUDED.total_elevation_gain,
           average_speed = EXCLUDED.average_speed, average_cadence = EXCLUDED.average_cadence,
           average_watts = EXCLUDED.average_watts, elev_high = EXCLUDED.elev_high, elev_low = EXCLUDED.elev_low`,
        [
          id,
          num(d.heartRateMin) === null ? null : Math.round(d.heartRateMin as number),
          num(d.heartRateMax) === null ? null : Math.round(d.heartRateMax as number),
          num(d.heartRateAvg),
          num(d.energyBurned),
          num(d.distance),
          num(d.stepsCount) === null ? null : Math.round(d.stepsCount as number),
          num(d.maxSpeed),
          num(d.maxWatts),
          num(d.movingTimeSeconds) === null ? null : Math.round(d.movingTimeSeconds as number),
          num(d.totalElevationGain),
          num(d.averageSpeed),
          num(d.averageCadence),
          num(d.averageWatts),
          num(d.elevHigh),
          num(d.elevLow),
        ],
      );
      return id;
    },

    /** Writes a sleep session (replacing one of the same source, start and end); answers its id. */
    async writeSleep(tx: Queryable, userId: string, source: DataSourceRef, sleep: SleepInput): Promise<string> {
      const id = await upsertEvent(tx, userId, source, "sleep", "sleep_session", sleep);
      const d = sleep.details;
      const stages = d.stages.map((s) => ({
        stage: s.stage,
        start_time: new Date(s.start).toISOString(),
        end_time: new Date(s.end).toISOString(),
      }));
      await tx.query(
        `INSERT INTO wearables.sleep_details (event_id, sleep_total_duration_minutes, sleep_time_in_bed_minutes,
           sleep_efficiency_score, sleep_deep_minutes, sleep_rem_minutes, sleep_light_minutes, sleep_awake_minutes,
           is_nap, sleep_stages)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb)
         ON CONFLICT (event_id) DO UPDATE SET sleep_total_duration_minutes = EXCLUDED.sleep_total_duration_minutes,
           sleep_time_in_bed_minutes = EXCLUDED.sleep_time_in_bed_minutes,
           sleep_efficiency_score = EXCLUDED.sleep_efficiency_score, sleep_deep_minutes = EXCLUDED.sleep_deep_minutes,
           sleep_rem_minutes = EXCLUDED.sleep_rem_minutes, sleep_light_minutes = EXCLUDED.sleep_light_minutes,
           sleep_awake_minutes = EXCLUDED.sleep_awake_minutes, is_nap = EXCLUDED.is_nap,
           sleep_stages = EXCLUDED.sleep_stages`,
        [
          id,
          num(d.totalDurationMinutes),
          num(d.timeInBedMinutes),
          num(d.efficiencyScore),
          num(d.deepMinutes),
          num(d.remMinutes),
          num(d.lightMinutes),
          num(d.awakeMinutes),
          d.isNap,
          JSON.stringify(stages),
        ],
      );
      return id;
    },

    /**
     * Enqueues the scores jobs of the nights (local wake-up dates, "YYYY-MM-DD") whose internal scores must be
     * computed again, in `tx` (see jobs/scoreNights.ts).
     */
    async queueScoreWork(tx: Queryable, userId: string, nights: Iterable<string>): Promise<void> {
      await enqueueScoreNights(tx, userId, nights);
    },
  };
}

async function upsertEvent(
  tx: Queryable,
  userId: string,
  source: DataSourceRef,
  category: "workout" | "sleep",
  type: string,
  event: EventInput,
): Promise<string> {
  const [row] = await tx.query<{ id: string }>(
    `INSERT INTO wearables.events (user_id, data_source_id, external_id, category, type, source_name, duration_seconds,
       start_datetime, end_datetime, zone_offset)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (data_source_id, start_datetime, end_datetime) DO UPDATE SET external_id = EXCLUDED.external_id,
       type = EXCLUDED.type, source_name = EXCLUDED.source_name, duration_seconds = EXCLUDED.duration_seconds,
       zone_offset = EXCLUDED.zone_offset
     RETURNING id`,
    [
      userId,
      source.id,
      event.externalId ?? null,
      category,
      type,
      event.sourceName ?? null,
      Math.round((event.end - event.start) / 1000),
      new Date(event.start),
      new Date(event.end),
      event.zoneOffset ?? null,
    ],
  );
  if (!row) throw new Error("event upsert returned nothing");
  return row.id;
}

export type HealthDataWriter = ReturnType<typeof createHealthDataWriter>;
