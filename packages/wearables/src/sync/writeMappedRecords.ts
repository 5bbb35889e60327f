/**
 * Writes one vendor page (already mapped by its adapter) through the shared health data writer, in the
 * caller's transaction: the same deduplication as every import (a page written twice, after a kill, changes
 * nothing), one data source per device of the connection, and the nights whose scores change enqueued.
 */
import type { Queryable } from "@platform/kernel";
import { wakeDate } from "../domain/sleepDay.ts";
import type { MappedRecords, PageSource } from "../providers/types.ts";
import type { DataSourceRef, HealthDataWriter, SampleInput } from "../store/healthDataWriter.ts";

export interface WriteMappedRecordsParameters {
  userId: string;
  provider: string;
  connectionId: string | null;
  records: MappedRecords;
}

/** Answers how many rows were written (samples new or changed, events upserted). */
export async function writeMappedRecords(
  tx: Queryable,
  writer: HealthDataWriter,
  p: WriteMappedRecordsParameters,
): Promise<number> {
  const sources = new Map<string, Promise<DataSourceRef>>();
  const sourceOf = (s: PageSource) => {
    const key = JSON.stringify([s.deviceModel ?? null, s.source ?? null]);
    let ref = sources.get(key);
    if (!ref) {
      ref = writer.ensureDataSource(tx, p.userId, {
        provider: p.provider,
        deviceModel: s.deviceModel ?? null,
        source: s.source ?? null,
        deviceType: s.deviceType ?? null,
        userConnectionId: p.connectionId,
      });
      sources.set(key, ref);
    }
    return ref;
  };
  let written = 0;
  for (const w of p.records.workouts) {
    await writer.writeWorkout(tx, p.userId, await sourceOf(w), w);
    written += 1;
  }
  const nights = new Set<string>();
  for (const s of p.records.sleeps) {
    await writer.writeSleep(tx, p.userId, await sourceOf(s), s);
    nights.add(wakeDate(s.end, s.zoneOffset ?? null));
    written += 1;
  }
  const bySource = new Map<string, { source: PageSource; samples: SampleInput[] }>();
  for (const s of p.records.samples) {
    const key = JSON.stringify([s.deviceModel ?? null, s.source ?? null]);
    const group = bySource.get(key) ?? { source: s, samples: [] };
    group.samples.push(s);
    bySource.set(key, group);
  }
  for (const { source, samples } of bySource.values())
    written += await writer.writeSamples(tx, await sourceOf(source), samples);
  if (nights.size > 0) await writer.queueScoreWork(tx, p.userId, nights);
  return written;
}
