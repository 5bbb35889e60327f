/**
 * The health data writer with webhook events: every path that brings data (provider sync and push, file and
 * Apple Health imports, the sandbox) writes through it, so each written workout, sleep session and batch of
 * samples puts its events into the outbox in the same transaction. Nothing is built when no endpoint wants the
 * user's events. A batch of samples that changed nothing (a re-import) sends nothing; one that changed
 * something is keyed by its data source, span and content, so the same content is never sent twice.
 *
 * @example
 * const writer = withWebhookEvents(createHealthDataWriter(), outbox);
 * await db.transaction(async (tx) => writer.writeSamples(tx, source, samples));
 */
import { createHash } from "node:crypto";
import type { Queryable } from "@platform/kernel";
import { formatZoneOffset } from "../domain/queryDates.ts";
import { seriesTypeById } from "../domain/seriesTypes.ts";
import type { DataSourceIdentity, DataSourceRef, HealthDataWriter, SampleInput } from "../store/healthDataWriter.ts";
import {
  type SessionSource,
  seriesCreated,
  sleepCreated,
  type WebhookSample,
  workoutCreated,
} from "./webhookEvents.ts";
import type { WebhookOutbox } from "./webhookOutbox.ts";

interface SourceInfo {
  userId: string;
  provider: string;
  device: string | null;
  id: string;
}

const finite = (v: number | null | undefined) => (v === undefined || v === null || !Number.isFinite(v) ? null : v);

export function withWebhookEvents(writer: HealthDataWriter, outbox: WebhookOutbox): HealthDataWriter {
  // Data source identities seen (a small, stable set: the key of a source never changes).
  const sources = new Map<number, SourceInfo>();

  async function sourceInfo(tx: Queryable, ref: DataSourceRef): Promise<SourceInfo> {
    const known = sources.get(ref.key);
    if (known) return known;
    const [row] = await tx.query<{ user_id: string; provider: string; device_model: string | null }>(
      "SELECT user_id, provider, device_model FROM wearables.data_sources WHERE key = $1",
      [ref.key],
    );
    if (!row) throw new Error(`data source ${ref.key} not found`);
    const info = { userId: row.user_id, provider: row.provider, device: row.device_model, id: ref.id };
    sources.set(ref.key, info);
    return info;
  }
  const sessionSource = (s: SourceInfo): SessionSource => ({ provider: s.provider, device: s.device });

  return {
    ...writer,

    async ensureDataSource(tx: Queryable, userId: string, identity: DataSourceIdentity) {
      const ref = await writer.ensureDataSource(tx, userId, identity);
      sources.set(ref.key, { userId, provider: identity.provider, device: identity.deviceModel ?? null, id: ref.id });
      return ref;
    },

    async writeWorkout(tx, userId, source, workout) {
      const id = await writer.writeWorkout(tx, userId, source, workout);
      const interest = await outbox.interest(tx, userId);
      if (!interest?.wants("workout.created")) return id;
      const d = workout.details;
      const km = finite(d.distance) ? (d.distance as number) / 1000 : null;
      const seconds = (workout.end - workout.start) / 1000;
      await interest.emit([
        workoutCreated({
          id,
          userId,
          source: sessionSource(await sourceInfo(tx, source)),
          type: workout.type,
          startTime: new Date(workout.start),
          endTime: new Date(workout.end),
          zoneOffset: workout.zoneOffset ?? null,
          durationSeconds: seconds,
          caloriesKcal: finite(d.energyBurned),
          distanceMeters: finite(d.distance),
          avgHeartRateBpm: finite(d.heartRateAvg) === null ? null : Math.round(d.heartRateAvg as number),
          maxHeartRateBpm: finite(d.heartRateMax) === null ? null : Math.round(d.heartRateMax as number),
          elevationGainMeters: finite(d.totalElevationGain),
          avgPaceSecPerKm: km ? Math.round((finite(d.movingTimeSeconds) ?? seconds) / km) : null,
        }),
      ]);
      return id;
    },

    async writeSleep(tx, userId, source, sleep) {
      const id = await writer.writeSleep(tx, userId, source, sleep);
      const interest = await outbox.interest(tx, userId);
      if (!interest?.wants("sleep.created")) return id;
      const d = sleep.details;
      await interest.emit([
        sleepCreated({
          id,
          userId,
          source: sessionSource(await sourceInfo(tx, source)),
          startTime: new Date(sleep.start),
          endTime: new Date(sleep.end),
          zoneOffset: sleep.zoneOffset ?? null,
          durationSeconds:
            finite(d.totalDurationMinutes) !== null
              ? (d.totalDurationMinutes as number) * 60
              : (sleep.end - sleep.start) / 1000,
          efficiencyPercent: finite(d.efficiencyScore),
          stages: {
            deep: finite(d.deepMinutes),
            light: finite(d.lightMinutes),
            rem: finite(d.remMinutes),
            awake: finite(d.awakeMinutes),
          },
          isNap: d.isNap,
        }),
      ]);
      return id;
    },

    async writeSamples(tx, source, samples) {
      const written = await writer.writeSamples(tx, source, samples);
      if (written === 0) return written;
      const info = await sourceInfo(tx, source);
      const interest = await outbox.interest(tx, info.userId);
      if (!interest) return written;
      const byType = new Map<number, SampleInput[]>();
      for (const s of samples) {
        const list = byType.get(s.seriesType);
        if (list) list.push(s);
        else byType.set(s.seriesType, [s]);
      }
      const events = [...byType].flatMap(([typeId, list]) => {
        const type = seriesTypeById(typeId);
        if (!type) return [];
        const sorted = [...list].sort((a, b) => a.recordedAt - b.recordedAt);
        const out: WebhookSample[] = sorted.map((s) => ({
          timestamp: new Date(s.recordedAt).toISOString(),
          zone_offset: formatZoneOffset(s.zoneOffsetMinutes ?? null),
          type: type.code,
          value: s.value,
          unit: type.unit,
          is_daily_total: s.isDailyTotal ?? null,
        }));
        const content = createHash("sha256").update(JSON.stringify(out)).digest("base64url").slice(0, 16);
        return seriesCreated({
          userId: info.userId,
          provider: info.provider,
          seriesType: type.code,
          samples: out,
          batchKey: `${info.id}.${content}`,
        }).filter((e) => interest.wants(e.type));
      });
      await interest.emit(events);
      return written;
    },
  };
}
