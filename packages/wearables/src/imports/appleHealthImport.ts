/**
 * Imports an Apple Health export (`export.xml`, or the `export.zip` holding it) for one import job, streamed:
 * items (top-level elements) are mapped as they are read (appleExportReader.ts, appleRecords.ts) and written
 * in chunks of `chunkItems`, each chunk committed with the job's checkpoint (the number of items behind it). A
 * resumed job reads the file again from the start and writes nothing until it passes its checkpoint; sleep
 * analysis records are kept (they are small: one per stage interval) and assembled into sessions at the end,
 * in the last chunk. An export of `readerThreadMinBytes` or more is read on a thread of its own
 * (appleThreadedReader.ts), the next chunk read while this one is written.
 *
 * What each element becomes (units: see appleTypes.ts):
 * - `Record` of a mapped type → a sample of its series type at `startDate`, with the zone offset of that date;
 *   sleep analysis records → sleep sessions (sleepSessions.ts), whose nights are enqueued for the scores job;
 *   other category records are skipped, as at the anchor;
 * - `Correlation` → nothing (its records also appear at the top level);
 * - `Workout` → a workout with its WorkoutStatistics (heart rate min/max/avg, active energy, distance, steps,
 *   speed, power, cadence) and `totalDistance`/`totalEnergyBurned` when statistics lack them;
 * - `ActivitySummary` → daily totals (`is_daily_total`) of active energy (kcal) and exercise time (min) at
 *   the day's local midnight (offset: the last Record's before it). Stand HOURS are not stored: they count hours with
 *   a minute of standing and are not the `stand_time` series' minutes (AppleStandTime records carry those);
 * - `Me` → the personal record (birth date, biological sex).
 * Data sources: provider `apple`; source = `sourceName`, the writing app or device as Apple names it (the
 * anchor's SDK path stores the writing app there; its XML path writes `apple_health_xml` for every record, which
 * merges every app without a device into one source); device model from the `device` string (its `hardware`,
 * else `model`, e.g. "Watch6,12"); software version = `sourceVersion`; original source name = `sourceName`;
 * device type watch/phone/… from the model. Activity summaries have their own source, `apple_activity_summary`.
 */
import type { Queryable } from "@platform/kernel";
import type { DataSourceIdentity, DataSourceRef } from "../store/healthDataWriter.ts";
import { type AppleRead, readAppleChunks } from "./appleExportReader.ts";
import type { Pending } from "./appleRecords.ts";
import { readAppleChunksOnThread } from "./appleThreadedReader.ts";
import type { ImportContext } from "./importJobs.ts";
import { assembleSleepSessions, type SleepStageRecord } from "./sleepSessions.ts";

export { parseHkDevice, sourceIdentity } from "./appleRecords.ts";

interface AppleCheckpoint {
  items: number;
  sleepWritten?: boolean;
}

export async function importAppleHealth(context: ImportContext): Promise<{ bytesRead: number }> {
  const { job, signal, writer, repository, chunkItems } = context;
  const checkpoint = (job.checkpoint ?? { items: 0 }) as unknown as AppleCheckpoint;
  const parameters = {
    kind: job.kind as "apple_xml" | "apple_zip",
    path: job.file_path,
    fileBytes: job.file_bytes,
    fromItems: checkpoint.items,
    chunkItems,
  };
  const reads: AsyncGenerator<AppleRead> =
    job.file_bytes >= context.readerThreadMinBytes ? readAppleChunksOnThread(parameters) : readAppleChunks(parameters);

  const write = (chunk: Pending, at: { items: number; bytesRead: number }) =>
    context.commit(
      async (tx) => {
        let samples = 0;
        let events = 0;
        const sourceOf = sameSourceAgain(context, tx);
        for (const { identity, samples: list } of chunk.samples.values()) {
          const source = await sourceOf(identity);
          samples += await writer.writeSamples(tx, source, list);
        }
        for (const { identity, workout } of chunk.workouts) {
          const source = await sourceOf(identity);
          await writer.writeWorkout(tx, job.user_id, source, workout);
          events++;
        }
        if (chunk.me) await repository.upsertPersonalRecord(tx, job.user_id, chunk.me);
        return { samples, events };
      },
      { bytesRead: at.bytesRead, itemsProcessed: at.items, checkpoint: { items: at.items } satisfies AppleCheckpoint },
    );

  try {
    for await (const read of reads) {
      if (signal.aborted) throw signal.reason;
      if (read.kind === "chunk") await write(read.chunk, read.position);
      else if (!checkpoint.sleepWritten) await writeSleep(context, read.sleepRecords, read.position);
    }
    return { bytesRead: job.file_bytes };
  } finally {
    await reads.return(undefined);
  }
}

async function writeSleep(
  context: ImportContext,
  records: SleepStageRecord[],
  at: { bytesRead: number; items: number },
) {
  const { job, writer } = context;
  const sessions = assembleSleepSessions(records);
  const identities = new Map(records.map((r) => [r.sourceKey, JSON.parse(r.sourceKey) as DataSourceIdentity]));
  await context.commit(
    async (tx) => {
      const sourceOf = sameSourceAgain(context, tx);
      for (const s of sessions) {
        const source = await sourceOf(identities.get(s.sourceKey) as DataSourceIdentity);
        await writer.writeSleep(tx, job.user_id, source, s.sleep);
      }
      await writer.queueScoreWork(
        tx,
        job.user_id,
        sessions.map((s) => s.night),
      );
      return { samples: 0, events: sessions.length };
    },
    {
      bytesRead: at.bytesRead,
      itemsProcessed: at.items,
      checkpoint: { items: at.items, sleepWritten: true } satisfies AppleCheckpoint,
    },
  );
}

/**
 * `ensureDataSource` in `tx`, but a call with the identity of the call just before it answers that call's
 * source without asking the database again: the same upsert twice in a row changes nothing, and an export's
 * workouts and nights come in runs of one source (one statement each was a tenth of an import's statements).
 */
function sameSourceAgain(context: ImportContext, tx: Queryable) {
  let last: { key: string; source: Promise<DataSourceRef> } | undefined;
  return (identity: DataSourceIdentity): Promise<DataSourceRef> => {
    const key = JSON.stringify(identity);
    if (last?.key !== key) last = { key, source: context.writer.ensureDataSource(tx, context.job.user_id, identity) };
    return last.source;
  };
}
