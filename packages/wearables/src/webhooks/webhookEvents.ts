/**
 * The events the service sends, as the anchor builds them (its `outgoing_webhooks/events.py`, reference §A2):
 * a payload `{type, data}` with the anchor's data fields, and the cause's idempotency key (`event_id`), so a
 * cause written twice (a retried page, a re-import) makes one message. Samples go out per (user, provider,
 * series type) batch as a group event and a granular `series.<type>.created` event, in chunks of at most
 * 2,500 samples (`chunk_index`, `total_chunks` when there is more than one).
 */
import { GROUP_OF_SERIES, seriesEventName } from "./eventTypes.ts";

export interface WebhookEvent {
  type: string;
  /** The cause's idempotency key: one message per key, ever. Characters `[A-Za-z0-9._-]`. */
  eventId: string;
  /** Whose data it is (endpoints scoped to a user get only theirs); null for service events. */
  userId: string | null;
  data: Record<string, unknown>;
  /** Sent to this endpoint only (a test message), whatever the others' filters. */
  onlyEndpointId?: string;
}

/** The anchor's limit per timeseries message (Svix's 1 MB payload at ~200 bytes a sample). */
export const MAX_SAMPLES_PER_EVENT = 2500;

/** Characters an event id may not hold become `_` (the anchor's `_safe_key`). */
export const safeEventId = (raw: string) => raw.replace(/[^A-Za-z0-9._-]/g, "_");

const iso = (d: Date | string | number) => new Date(d).toISOString();

export interface SessionSource {
  provider: string;
  /** The device model, if known. */
  device: string | null;
}

export interface WorkoutCreated {
  id: string;
  userId: string;
  source: SessionSource;
  type: string | null;
  startTime: Date;
  endTime: Date;
  zoneOffset: string | null;
  durationSeconds: number | null;
  caloriesKcal?: number | null;
  distanceMeters?: number | null;
  avgHeartRateBpm?: number | null;
  maxHeartRateBpm?: number | null;
  elevationGainMeters?: number | null;
  avgPaceSecPerKm?: number | null;
}

export function workoutCreated(w: WorkoutCreated): WebhookEvent {
  return {
    type: "workout.created",
    eventId: `workout.created.${w.id}`,
    userId: w.userId,
    data: {
      id: w.id,
      user_id: w.userId,
      type: w.type,
      start_time: iso(w.startTime),
      end_time: iso(w.endTime),
      zone_offset: w.zoneOffset,
      duration_seconds: w.durationSeconds,
      source: w.source,
      calories_kcal: w.caloriesKcal ?? null,
      distance_meters: w.distanceMeters ?? null,
      avg_heart_rate_bpm: w.avgHeartRateBpm ?? null,
      max_heart_rate_bpm: w.maxHeartRateBpm ?? null,
      avg_pace_sec_per_km: w.avgPaceSecPerKm ?? null,
      elevation_gain_meters: w.elevationGainMeters ?? null,
    },
  };
}

export interface SleepCreated {
  id: string;
  userId: string;
  source: SessionSource;
  startTime: Date;
  endTime: Date;
  zoneOffset: string | null;
  durationSeconds: number | null;
  efficiencyPercent?: number | null;
  /** Minutes per stage (`deep`, `light`, `rem`, `awake`). */
  stages?: Record<string, number | null> | null;
  isNap?: boolean | null;
}

export function sleepCreated(s: SleepCreated): WebhookEvent {
  return {
    type: "sleep.created",
    eventId: `sleep.created.${s.id}`,
    userId: s.userId,
    data: {
      id: s.id,
      user_id: s.userId,
      start_time: iso(s.startTime),
      end_time: iso(s.endTime),
      zone_offset: s.zoneOffset,
      duration_seconds: s.durationSeconds,
      source: s.source,
      efficiency_percent: s.efficiencyPercent ?? null,
      stages: s.stages ?? null,
      is_nap: s.isNap ?? null,
    },
  };
}

export interface ConnectionChange {
  userId: string;
  provider: string;
  connectionId: string;
  at: Date;
}

export function connectionCreated(c: ConnectionChange): WebhookEvent {
  const at = iso(c.at);
  return {
    type: "connection.created",
    eventId: safeEventId(`connection.created.${c.userId}.${c.provider}.${at}`),
    userId: c.userId,
    data: { user_id: c.userId, provider: c.provider, connection_id: c.connectionId, connected_at: at },
  };
}

/** `reason`: `refresh_failed`, `deregistration`, `disconnected`, … */
export function connectionRevoked(c: ConnectionChange & { reason: string }): WebhookEvent {
  const at = iso(c.at);
  return {
    type: "connection.revoked",
    eventId: safeEventId(`connection.revoked.${c.userId}.${c.provider}.${at}`),
    userId: c.userId,
    data: { user_id: c.userId, provider: c.provider, connection_id: c.connectionId, reason: c.reason, revoked_at: at },
  };
}

export interface SyncRunEvent {
  userId: string;
  provider: string;
  /** The run's source (`pull`, `webhook`, `backfill`, …). */
  source: string;
  runId: string;
  message?: string | null;
  metadata?: Record<string, unknown>;
}

/** A sync run's event: its fields, what `type` adds, then the message and metadata (the anchor's order). */
function syncEvent(type: string, r: SyncRunEvent, extra: Record<string, unknown> = {}): WebhookEvent {
  return {
    type,
    eventId: `${type}.${r.runId}`,
    userId: r.userId,
    data: {
      user_id: r.userId,
      provider: r.provider,
      source: r.source,
      run_id: r.runId,
      ...extra,
      message: r.message ?? null,
      metadata: r.metadata ?? {},
    },
  };
}

export const syncStarted = (r: SyncRunEvent): WebhookEvent => syncEvent("sync.started", r);

export const syncCompleted = (r: SyncRunEvent & { status: string; itemsProcessed: number | null }): WebhookEvent =>
  syncEvent("sync.completed", r, { status: r.status, items_processed: r.itemsProcessed });

export const syncFailed = (r: SyncRunEvent & { error: string }): WebhookEvent =>
  syncEvent("sync.failed", r, { error: r.error });

/** One sample as the timeseries endpoint answers it. */
export interface WebhookSample {
  timestamp: string;
  zone_offset: string | null;
  type: string;
  value: number;
  unit: string;
  is_daily_total: boolean | null;
}

export interface SeriesBatch {
  userId: string;
  provider: string;
  /** The series type's 0.9 code. */
  seriesType: string;
  /** New or changed samples of the batch, in time order. */
  samples: WebhookSample[];
  /**
   * What makes the batch's key unique besides its span (the data source's id): two sources of one provider
   * writing the same span are two batches.
   */
  batchKey: string;
}

/** The group and granular events of a batch of samples, chunked; none for a type the anchor groups nowhere. */
export function seriesCreated(b: SeriesBatch): WebhookEvent[] {
  const group = GROUP_OF_SERIES.get(b.seriesType);
  if (!group || b.samples.length === 0) return [];
  const types = [group, seriesEventName(b.seriesType)];
  const start = b.samples[0]?.timestamp as string;
  const end = b.samples[b.samples.length - 1]?.timestamp as string;
  const base = `timeseries.${b.userId}.${b.provider}.${b.seriesType}.${b.batchKey}.${start}.${end}`;
  const chunks: WebhookSample[][] = [];
  for (let i = 0; i < b.samples.length; i += MAX_SAMPLES_PER_EVENT) {
    chunks.push(b.samples.slice(i, i + MAX_SAMPLES_PER_EVENT));
  }
  return chunks.flatMap((chunk, index) => {
    const data: Record<string, unknown> = {
      user_id: b.userId,
      provider: b.provider,
      series_type: b.seriesType,
      sample_count: b.samples.length,
      start_time: chunks.length > 1 ? chunk[0]?.timestamp : start,
      end_time: chunks.length > 1 ? chunk[chunk.length - 1]?.timestamp : end,
      samples: chunk,
    };
    if (chunks.length > 1) Object.assign(data, { chunk_index: index, total_chunks: chunks.length });
    const key = chunks.length > 1 ? `${base}.chunk${index}` : base;
    return types.map((type) => ({ type, eventId: safeEventId(`${key}.${type}`), userId: b.userId, data }));
  });
}
