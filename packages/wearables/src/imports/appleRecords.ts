/**
 * What each top-level element of an Apple Health export becomes (see appleHealthImport.ts for the rules): the
 * mapping of items into one chunk's samples, workouts and personal record, grouped by data source identity.
 * Pure functions of the items, so they run on the reader's thread as well as on the caller's.
 */
import type { DataSourceIdentity, SampleInput, WorkoutInput } from "../store/healthDataWriter.ts";
import { type AppleDate, formatZoneOffset, parseAppleDate } from "./appleDates.ts";
import { AppleExportError, type AppleHealthItem, type Attributes } from "./appleHealthXml.ts";
import { convertRecordValue, recordMapping, toKcal, toMinutes } from "./appleTypes.ts";
import { appleWorkoutDetails } from "./appleWorkouts.ts";
import { appleWorkoutType } from "./appleWorkoutTypes.ts";
import { appleSleepStage, type SleepStageRecord } from "./sleepSessions.ts";

export const SLEEP_TYPE = "HKCategoryTypeIdentifierSleepAnalysis";
const ACTIVITY_SOURCE: DataSourceIdentity = {
  provider: "apple",
  source: "apple_activity_summary",
  originalSourceName: "Activity",
};

/** One chunk's data, grouped by data source identity (its key). */
export interface Pending {
  samples: Map<string, { identity: DataSourceIdentity; samples: SampleInput[] }>;
  workouts: { identity: DataSourceIdentity; workout: WorkoutInput }[];
  me: { birthDate: string | null; sex: boolean | null } | null;
  items: number;
}

export const emptyPending = (): Pending => ({ samples: new Map(), workouts: [], me: null, items: 0 });

/** A data source identity and its key in a chunk's `samples`. */
interface KeyedIdentity {
  identity: DataSourceIdentity;
  key: string;
}

/**
 * Element attributes → data source identity, remembered: an export has a handful of sources over hundreds of
 * thousands of Records, and parsing the device string and keying its identity each time was a fifth of the
 * import's own time. Bounded, so that a file with a new device string on every Record cannot grow it.
 */
export function createIdentityCache(limit = 1_000) {
  const known = new Map<string, KeyedIdentity>();
  // Records come in runs of one source: the last one's attributes are compared before any key is built.
  let last: { name?: string; version?: string; device?: string; found: KeyedIdentity } | undefined;
  return (a: Attributes): KeyedIdentity => {
    if (last && last.name === a.sourceName && last.version === a.sourceVersion && last.device === a.device)
      return last.found;
    // U+0000 and U+0001 cannot occur in XML 1.0 text: a separator, and an absent attribute.
    const key = `${a.sourceName ?? "\u0001"}\u0000${a.sourceVersion ?? "\u0001"}\u0000${a.device ?? "\u0001"}`;
    let found = known.get(key);
    if (!found) {
      const identity = sourceIdentity(a);
      found = { identity, key: JSON.stringify(identity) };
      if (known.size >= limit) known.clear();
      known.set(key, found);
    }
    last = { name: a.sourceName, version: a.sourceVersion, device: a.device, found };
    return found;
  };
}
export type IdentityOf = ReturnType<typeof createIdentityCache>;

/** Adds one item's data to the chunk. */
export function collect(
  pending: Pending,
  item: AppleHealthItem,
  lastOffset: number,
  identityOf: IdentityOf,
  start: AppleDate | undefined,
) {
  switch (item.kind) {
    case "record": {
      const sample = recordSample(item.attributes, item.line, start);
      if (!sample) return;
      const { identity, key } = identityOf(item.attributes);
      let group = pending.samples.get(key);
      if (!group) {
        group = { identity, samples: [] };
        pending.samples.set(key, group);
      }
      group.samples.push(sample);
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

/** `parsed`: the Record's startDate, read already (undefined when it is not a date). */
function recordSample(a: Attributes, line: number, parsed: AppleDate | undefined): SampleInput | undefined {
  const mapping = a.type === undefined ? undefined : recordMapping(a.type);
  if (!mapping) return undefined;
  const start = parsed ?? requireDate(a, "startDate", line, "Record");
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

export function sleepRecord(a: Attributes, line: number, identityOf: IdentityOf): SleepStageRecord {
  const start = requireDate(a, "startDate", line, "sleep Record");
  const end = requireDate(a, "endDate", line, "sleep Record");
  return {
    sourceKey: identityOf(a).key,
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
