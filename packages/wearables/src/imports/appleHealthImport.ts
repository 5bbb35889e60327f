/**
 * Imports an Apple Health export (`export.xml`, or the `export.zip` holding it) for one import job, streamed:
 * items (top-level elements) are mapped as they are read and written in chunks of `chunkItems`, each chunk
 * committed with the job's checkpoint (the number of items behind it). A resumed job reads the file again from
 * the start and writes nothing until it passes its checkpoint; sleep analysis records are kept (they are small:
 * one per stage interval) and assembled into sessions at the end, in the last chunk.
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
import { createReadStream } from "node:fs";
import type { DataSourceIdentity, SampleInput, WorkoutInput } from "../store/healthDataWriter.ts";
import { type AppleDate, formatZoneOffset, parseAppleDate } from "./appleDates.ts";
import { AppleExportError, type AppleHealthItem, type Attributes, readAppleHealthXml } from "./appleHealthXml.ts";
import { convertRecordValue, recordMapping, toKcal, toMinutes } from "./appleTypes.ts";
import { appleWorkoutDetails } from "./appleWorkouts.ts";
import { appleWorkoutType } from "./appleWorkoutTypes.ts";
import { openExportXmlInZip } from "./exportZip.ts";
import type { ImportContext } from "./importJobs.ts";
import { appleSleepStage, assembleSleepSessions, type SleepStageRecord } from "./sleepSessions.ts";

const SLEEP_TYPE = "HKCategoryTypeIdentifierSleepAnalysis";
const ACTIVITY_SOURCE: DataSourceIdentity = {
  provider: "apple",
  source: "apple_activity_summary",
  originalSourceName: "Activity",
};

interface AppleCheckpoint {
  items: number;
  sleepWritten?: boolean;
}

/** One chunk's data, grouped by data source identity. */
interface Pending {
  samples: Map<string, { identity: DataSourceIdentity; samples: SampleInput[] }>;
  workouts: { identity: DataSourceIdentity; workout: WorkoutInput }[];
  me: { birthDate: string | null; sex: boolean | null } | null;
  items: number;
}

const emptyPending = (): Pending => ({ samples: new Map(), workouts: [], me: null, items: 0 });

export async function importAppleHealth(context: ImportContext): Promise<{ bytesRead: number }> {
  const { job, signal, writer, repository, chunkItems } = context;
  const checkpoint = (job.checkpoint ?? { items: 0 }) as unknown as AppleCheckpoint;
  const input = await openInput(job.kind, job.file_path, job.file_bytes);
  let bytesRead = 0;
  let items = 0;
  let lastOffset = 0;
  const sleepRecords: SleepStageRecord[] = [];
  let pending = emptyPending();

  const flush = async () => {
    const chunk = pending;
    pending = emptyPending();
    await context.commit(
      async (tx) => {
        let samples = 0;
        let events = 0;
        for (const { identity, samples: list } of chunk.samples.values()) {
          const source = await writer.ensureDataSource(tx, job.user_id, identity);
          samples += await writer.writeSamples(tx, source, list);
        }
        for (const { identity, workout } of chunk.workouts) {
          const source = await writer.ensureDataSource(tx, job.user_id, identity);
          await writer.writeWorkout(tx, job.user_id, source, workout);
          events++;
        }
        if (chunk.me) await repository.upsertPersonalRecord(tx, job.user_id, chunk.me);
        return { samples, events };
      },
      { bytesRead, itemsProcessed: items, checkpoint: { items } satisfies AppleCheckpoint },
    );
  };

  try {
    for await (const item of readAppleHealthXml(input.stream, { onBytes: (n) => (bytesRead = input.toFileBytes(n)) })) {
      items++;
      if (item.kind === "record" && item.attributes.type === SLEEP_TYPE) {
        sleepRecords.push(sleepRecord(item.attributes, item.line));
        continue;
      }
      if (item.kind === "record") lastOffset = parseAppleDate(item.attributes.startDate)?.offsetMinutes ?? lastOffset;
      if (items <= checkpoint.items) continue;
      collect(pending, item, lastOffset);
      pending.items++;
      if (pending.items >= chunkItems) await flush();
      if (signal.aborted) throw signal.reason;
    }
    if (pending.items > 0 || items > checkpoint.items) await flush();
    if (!checkpoint.sleepWritten) await writeSleep(context, sleepRecords, { bytesRead, items });
    return { bytesRead: job.file_bytes };
  } finally {
    input.close();
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
      for (const s of sessions) {
        const source = await writer.ensureDataSource(
          tx,
          job.user_id,
          identities.get(s.sourceKey) as DataSourceIdentity,
        );
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

/** Adds one item's data to the chunk. */
function collect(pending: Pending, item: AppleHealthItem, lastOffset: number) {
  switch (item.kind) {
    case "record": {
      const sample = recordSample(item.attributes, item.line);
      if (!sample) return;
      const identity = sourceIdentity(item.attributes);
      const key = JSON.stringify(identity);
      const group = pending.samples.get(key) ?? { identity, samples: [] };
      group.samples.push(sample);
      pending.samples.set(key, group);
      return;
    }
    case "workout": {
      const start = requireDate(item.attributes, "startDate", item.line, "Workout");
      const end = requireDate(item.attributes, "endDate", item.line, "Workout");
      if (end.ms < start.ms) throw new AppleExportError(`the Workout at line ${item.line} ends before it starts`);
      pending.workouts.push({
        identity: sourceIdentity(item.attributes),
        workout: {
          type: appleWorkoutType(item.attributes.workoutActivityType),
          start: start.ms,
          end: end.ms,
          zoneOffset: formatZoneOffset(start.offsetMinutes),
          sourceName: item.attributes.sourceName?.slice(0, 64) ?? null,
          details: appleWorkoutDetails(item.attributes, item.statistics, item.line),
        },
      });
      return;
    }
    case "activitySummary":
      addActivitySummary(pending, item.attributes, item.line, lastOffset);
      return;
    case "me":
      pending.me = personalRecord(item.attributes);
      return;
    default:
      return;
  }
}

function recordSample(a: Attributes, line: number): SampleInput | undefined {
  const mapping = a.type === undefined ? undefined : recordMapping(a.type);
  if (!mapping) return undefined;
  const start = requireDate(a, "startDate", line, "Record");
  const raw = Number(a.value);
  if (a.value === undefined || a.value.trim() === "" || !Number.isFinite(raw)) {
    throw new AppleExportError(`the ${a.type} Record at line ${line} has no numeric value ("${a.value ?? ""}")`);
  }
  let value: number;
  try {
    value = convertRecordValue(mapping, raw, a.unit ?? "");
  } catch (error) {
    throw new AppleExportError(`line ${line}: ${(error as Error).message}`);
  }
  return { seriesType: mapping.seriesType, recordedAt: start.ms, value, zoneOffsetMinutes: start.offsetMinutes };
}

function addActivitySummary(pending: Pending, a: Attributes, line: number, offsetMinutes: number) {
  const day = /^(\d{4})-(\d\d)-(\d\d)$/.exec(a.dateComponents ?? "");
  if (!day) throw new AppleExportError(`the ActivitySummary at line ${line} has no dateComponents date`);
  const recordedAt = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])) - offsetMinutes * 60_000;
  const samples: SampleInput[] = [];
  const add = (
    seriesType: number,
    raw: string | undefined,
    convert: (v: number) => number | undefined,
    what: string,
  ) => {
    if (raw === undefined || raw === "") return;
    const value = convert(Number(raw));
    if (value === undefined || !Number.isFinite(value)) {
      throw new AppleExportError(`the ActivitySummary at line ${line} has an unreadable ${what} ("${raw}")`);
    }
    samples.push({ seriesType, recordedAt, value, zoneOffsetMinutes: offsetMinutes, isDailyTotal: true });
  };
  add(81, a.activeEnergyBurned, (v) => toKcal(v, a.activeEnergyBurnedUnit), "activeEnergyBurned");
  add(84, a.appleExerciseTime, (v) => toMinutes(v, a.appleExerciseTimeUnit ?? "min"), "appleExerciseTime");
  if (samples.length === 0) return;
  const key = JSON.stringify(ACTIVITY_SOURCE);
  const group = pending.samples.get(key) ?? { identity: ACTIVITY_SOURCE, samples: [] };
  group.samples.push(...samples);
  pending.samples.set(key, group);
}

function personalRecord(a: Attributes): { birthDate: string | null; sex: boolean | null } {
  const birth = a.HKCharacteristicTypeIdentifierDateOfBirth;
  const sex = a.HKCharacteristicTypeIdentifierBiologicalSex;
  return {
    birthDate: birth && /^\d{4}-\d\d-\d\d$/.test(birth) ? birth : null,
    sex: sex === "HKBiologicalSexMale" ? true : sex === "HKBiologicalSexFemale" ? false : null,
  };
}

function sleepRecord(a: Attributes, line: number): SleepStageRecord {
  const start = requireDate(a, "startDate", line, "sleep Record");
  const end = requireDate(a, "endDate", line, "sleep Record");
  return {
    sourceKey: JSON.stringify(sourceIdentity(a)),
    start: start.ms,
    end: end.ms,
    stage: appleSleepStage(a.value),
    offsetMinutes: start.offsetMinutes,
  };
}

function requireDate(a: Attributes, name: string, line: number, what: string): AppleDate {
  const date = parseAppleDate(a[name]);
  if (!date) throw new AppleExportError(`the ${what} at line ${line} has no valid ${name} ("${a[name] ?? ""}")`);
  return date;
}

/** The data source of an element, from its sourceName, sourceVersion and device. */
export function sourceIdentity(a: Attributes): DataSourceIdentity {
  const device = parseHkDevice(a.device);
  const model = device.hardware ?? device.model ?? null;
  return {
    provider: "apple",
    source: a.sourceName?.slice(0, 100) || "apple_health_xml",
    deviceModel: model?.slice(0, 100) ?? null,
    softwareVersion: (a.sourceVersion ?? device.software)?.slice(0, 50) ?? null,
    deviceType: deviceType(model),
    originalSourceName: a.sourceName?.slice(0, 100) ?? null,
  };
}

/** `<<HKDevice: 0x…>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,12, …>`. */
export function parseHkDevice(text: string | undefined): Record<string, string | undefined> {
  const fields: Record<string, string | undefined> = {};
  if (!text) return fields;
  for (const match of text.matchAll(/(?:^|, )(name|manufacturer|model|hardware|software):([^,>]*(?:,\d+[^,>]*)?)/g)) {
    const [, key, value] = match;
    if (key && value !== undefined) fields[key] = value.trim();
  }
  return fields;
}

function deviceType(model: string | null): string | null {
  if (!model) return null;
  if (/^watch/i.test(model)) return "watch";
  if (/^iphone/i.test(model)) return "phone";
  if (/ring/i.test(model)) return "ring";
  return "other";
}

interface AppleInput {
  stream: AsyncIterable<Uint8Array>;
  /** Maps bytes of XML read to bytes of the uploaded file (the same for XML; scaled for a zip). */
  toFileBytes(xmlBytes: number): number;
  close(): void;
}

async function openInput(kind: string, path: string, fileBytes: number): Promise<AppleInput> {
  if (kind === "apple_zip") {
    const entry = await openExportXmlInZip(path);
    const scale = entry.uncompressedSize > 0 ? fileBytes / entry.uncompressedSize : 1;
    return {
      stream: entry.stream,
      toFileBytes: (n) => Math.min(fileBytes, Math.round(n * scale)),
      close: () => {
        entry.stream.destroy();
        entry.close();
      },
    };
  }
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  return { stream, toFileBytes: (n) => n, close: () => stream.destroy() };
}
