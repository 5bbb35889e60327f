/**
 * A plausible stretch of one person's life as an Apple Health `export.xml`, generated as a stream (a year is
 * ~100 MB: never held in memory) so that `platform wearables demo-data` feeds it through the very importer real
 * exports go through. The file follows Apple's export (reference §8): the HealthKit Export Version 14 DTD,
 * `HealthData` → `ExportDate`, `Me`, then the Records grouped by type in time order, the Workouts with their
 * statistics, the ActivitySummaries; dates "YYYY-MM-DD HH:MM:SS +ZZZZ" in the person's zone, Apple's type
 * identifiers and units (count/min, count, km, kcal, ms, %, kg, cm, mL/min·kg).
 *
 * Same seed, days and end date → the same bytes.
 */
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DAY, type DayPlan, MINUTE, type Person, personFor, planDay } from "./demoPlan.ts";
import {
  activitySummary,
  bodyRecords,
  type DemoContext,
  type DemoRecord,
  type DemoSource,
  dailyRecords,
  energyRecords,
  HK,
  heartRateRecords,
  movementRecords,
  sleepRecords,
  workoutStatistics,
} from "./demoRecords.ts";

export interface DemoExportOptions {
  /** How many days, ending the day before `endDate`. */
  days: number;
  seed: number;
  /** The export day ("YYYY-MM-DD", the person's local date); today (UTC) when unset. */
  endDate?: string;
  /** The person's zone, minutes east of UTC (fixed, no daylight saving); +60 when unset. */
  zoneOffsetMinutes?: number;
  /** Write Apple's DTD at the top, as real exports do (default true). */
  dtd?: boolean;
}

/** What a generated export holds, for progress and tests. */
export interface DemoExportStats {
  records: number;
  recordsByType: Record<string, number>;
  workouts: number;
  activitySummaries: number;
  bytes: number;
}

const WORKOUT_TYPE: Record<string, string> = {
  running: "HKWorkoutActivityTypeRunning",
  cycling: "HKWorkoutActivityTypeCycling",
  walking: "HKWorkoutActivityTypeWalking",
  strength: "HKWorkoutActivityTypeTraditionalStrengthTraining",
};

/** Upper bound of one yielded chunk (characters); the generator keeps no more than this buffered. */
const CHUNK = 64 * 1024;

/** The export as text chunks; `stats` (when given) is filled as it goes. */
export async function* demoExportChunks(options: DemoExportOptions, stats?: DemoExportStats): AsyncGenerator<string> {
  if (!Number.isInteger(options.days) || options.days < 1 || options.days > 3660) {
    throw new RangeError(`days must be an integer from 1 to 3660, got ${options.days}`);
  }
  const offset = options.zoneOffsetMinutes ?? 60;
  const endDay = dayNumberOf(options.endDate ?? new Date().toISOString().slice(0, 10));
  const firstDay = endDay - options.days;
  const person = personFor(options.seed);
  const ctx: DemoContext = { seed: options.seed, person, offsetMinutes: offset };
  const s: DemoExportStats = stats ?? { records: 0, recordsByType: {}, workouts: 0, activitySummaries: 0, bytes: 0 };
  const fmt = (ms: number) => appleDate(ms, offset);
  const devices = deviceStrings(person, offset);
  let buffer = "";
  const emit = function* (text: string): Generator<string> {
    buffer += text;
    if (buffer.length >= CHUNK) {
      s.bytes += Buffer.byteLength(buffer);
      yield buffer;
      buffer = "";
    }
  };
  const plans = function* (): Generator<DayPlan> {
    for (let d = firstDay; d < endDay; d++) yield planDay(options.seed, person, d, offset);
  };
  const recordXml = (rec: DemoRecord): string => {
    s.records += 1;
    s.recordsByType[rec.type] = (s.recordsByType[rec.type] ?? 0) + 1;
    const src = SOURCES[rec.source](person);
    const attrs =
      `type="${rec.type}" sourceName="${escapeXml(src.name)}" sourceVersion="${src.version}"` +
      (src.device ? ` device="${escapeXml(devices[rec.source] ?? "")}"` : "") +
      (rec.unit ? ` unit="${escapeXml(rec.unit)}"` : "") +
      ` creationDate="${fmt(rec.end + 90_000)}" startDate="${fmt(rec.start)}" endDate="${fmt(rec.end)}" value="${rec.value}"`;
    const children = [
      ...(rec.metadata ?? []).map(([k, v]) => `  <MetadataEntry key="${k}" value="${escapeXml(v)}"/>\n`),
      ...(rec.beats
        ? [
            "  <HeartRateVariabilityMetadataList>\n",
            ...rec.beats.map((b) => `   <InstantaneousBeatsPerMinute bpm="${b.bpm}" time="${b.time}"/>\n`),
            "  </HeartRateVariabilityMetadataList>\n",
          ]
        : []),
    ];
    return children.length ? ` <Record ${attrs}>\n${children.join("")} </Record>\n` : ` <Record ${attrs}/>\n`;
  };

  yield* emit('<?xml version="1.0" encoding="UTF-8"?>\n');
  if (options.dtd !== false) yield* emit(APPLE_DTD);
  yield* emit('<HealthData locale="en_CH">\n');
  yield* emit(` <ExportDate value="${fmt(localMidnightOf(endDay, offset) + 8 * 60 * MINUTE)}"/>\n`);
  yield* emit(
    ` <Me HKCharacteristicTypeIdentifierDateOfBirth="${person.birthDate}" HKCharacteristicTypeIdentifierBiologicalSex="${person.sex}" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>\n`,
  );

  // Records, grouped by type as Apple writes them, each group in time order.
  const firstStart = localMidnightOf(firstDay, offset);
  yield* emit(
    recordXml({
      type: HK.height,
      unit: "cm",
      value: String(person.heightCm),
      source: "phone",
      start: firstStart + 9 * 60 * MINUTE,
      end: firstStart + 9 * 60 * MINUTE,
    }),
  );
  const passes: [string, (p: DayPlan) => DemoRecord[]][] = [
    [HK.bodyMass, (p) => bodyRecords(ctx, p)[HK.bodyMass] ?? []],
    [HK.heartRate, (p) => heartRateRecords(ctx, p)],
    [HK.steps, (p) => movementRecords(ctx, p).steps],
    [
      HK.distanceWalkingRunning,
      (p) => movementRecords(ctx, p).distance.filter((r) => r.type === HK.distanceWalkingRunning),
    ],
    [HK.distanceCycling, (p) => movementRecords(ctx, p).distance.filter((r) => r.type === HK.distanceCycling)],
    [HK.activeEnergy, (p) => energyRecords(ctx, p).active],
    [HK.basalEnergy, (p) => energyRecords(ctx, p).basal],
    [HK.restingHeartRate, (p) => dailyRecords(ctx, p)[HK.restingHeartRate] ?? []],
    [HK.hrvSdnn, (p) => dailyRecords(ctx, p)[HK.hrvSdnn] ?? []],
    [HK.oxygenSaturation, (p) => dailyRecords(ctx, p)[HK.oxygenSaturation] ?? []],
    [HK.respiratoryRate, (p) => dailyRecords(ctx, p)[HK.respiratoryRate] ?? []],
    [HK.vo2Max, (p) => bodyRecords(ctx, p)[HK.vo2Max] ?? []],
    [HK.sleep, (p) => sleepRecords(p)],
  ];
  for (const [, recordsOf] of passes) {
    for (const plan of plans()) {
      for (const rec of recordsOf(plan)) yield* emit(recordXml(rec));
    }
  }

  for (const plan of plans()) {
    for (const w of plan.workouts) {
      s.workouts += 1;
      yield* emit(workoutXml(ctx, plan, w, devices.watch ?? "", fmt));
    }
  }
  for (const plan of plans()) {
    const a = activitySummary(ctx, plan);
    s.activitySummaries += 1;
    yield* emit(
      ` <ActivitySummary dateComponents="${isoDay(plan.day)}" activeEnergyBurned="${round(a.activeEnergyBurned, 3)}" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="${a.exerciseMinutes}" appleExerciseTimeGoal="30" appleStandHours="${a.standHours}" appleStandHoursGoal="12"/>\n`,
    );
  }
  yield* emit("</HealthData>\n");
  if (buffer) {
    s.bytes += Buffer.byteLength(buffer);
    yield buffer;
  }
}

/** The export as a Node Readable (UTF-8 text). */
export function demoExportStream(options: DemoExportOptions, stats?: DemoExportStats): Readable {
  return Readable.from(demoExportChunks(options, stats), { objectMode: false, encoding: "utf8" });
}

/** Writes the export to `out` (honouring back-pressure, ending it) and answers what it held. */
export async function writeDemoExport(options: DemoExportOptions & { out: Writable }): Promise<DemoExportStats> {
  const stats: DemoExportStats = { records: 0, recordsByType: {}, workouts: 0, activitySummaries: 0, bytes: 0 };
  await pipeline(demoExportStream(options, stats), options.out);
  return stats;
}

function workoutXml(
  ctx: DemoContext,
  plan: DayPlan,
  w: DayPlan["workouts"][number],
  device: string,
  fmt: (ms: number) => string,
): string {
  const st = workoutStatistics(ctx, plan, w);
  const watch = SOURCES.watch(ctx.person);
  const minutes = (w.end - w.start) / MINUTE;
  const span = `startDate="${fmt(w.start)}" endDate="${fmt(w.end)}"`;
  const hasDistance = w.kind !== "strength";
  const lines = [
    ` <Workout workoutActivityType="${WORKOUT_TYPE[w.kind]}" duration="${round(minutes, 6)}" durationUnit="min"` +
      (hasDistance ? ` totalDistance="${round(st.distanceKm, 6)}" totalDistanceUnit="km"` : "") +
      ` totalEnergyBurned="${round(st.activeEnergy, 3)}" totalEnergyBurnedUnit="kcal"` +
      ` sourceName="${escapeXml(watch.name)}" sourceVersion="${watch.version}" device="${escapeXml(device)}"` +
      ` creationDate="${fmt(w.end + 30_000)}" ${span}>`,
    `  <MetadataEntry key="HKIndoorWorkout" value="${w.kind === "strength" ? 1 : 0}"/>`,
    ...(w.kind === "running" || w.kind === "walking"
      ? [`  <MetadataEntry key="HKElevationAscended" value="${Math.round(minutes * 120)} cm"/>`]
      : []),
    `  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="${fmt(w.start)}" duration="${round(minutes, 6)}" durationUnit="min"/>`,
    `  <WorkoutStatistics type="${HK.activeEnergy}" ${span} sum="${round(st.activeEnergy, 3)}" unit="kcal"/>`,
    `  <WorkoutStatistics type="${HK.basalEnergy}" ${span} sum="${round(st.basalEnergy, 3)}" unit="kcal"/>`,
    `  <WorkoutStatistics type="${HK.heartRate}" ${span} average="${round(st.heartRate.average, 4)}" minimum="${st.heartRate.minimum}" maximum="${st.heartRate.maximum}" unit="count/min"/>`,
    ...(hasDistance
      ? [`  <WorkoutStatistics type="${st.distanceType}" ${span} sum="${round(st.distanceKm, 6)}" unit="km"/>`]
      : []),
    ...(st.steps > 0 ? [`  <WorkoutStatistics type="${HK.steps}" ${span} sum="${st.steps}" unit="count"/>`] : []),
    " </Workout>",
  ];
  return `${lines.join("\n")}\n`;
}

const SOURCES: Record<DemoSource, (p: Person) => { name: string; version: string; device: boolean }> = {
  watch: (p) => ({ name: `${p.name}’s Apple Watch`, version: "11.1", device: true }),
  phone: (p) => ({ name: `${p.name}’s iPhone`, version: "18.1", device: true }),
  scale: () => ({ name: "Health Mate", version: "6.12.0", device: false }),
};

/** Apple's `device` attribute text of the person's watch and phone. */
function deviceStrings(person: Person, offset: number): Partial<Record<DemoSource, string>> {
  // A fixed pairing date, so that a longer export only adds days.
  const since = appleDate(Date.UTC(2024, 8, 20, 9, 14, 3), offset);
  const code = (person.birthDate.charCodeAt(3) * 7919).toString(16).padStart(6, "0");
  return {
    watch: `<<HKDevice: 0x28${code}>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch7,2, software:11.1, creation date:${since}>`,
    phone: `<<HKDevice: 0x29${code}>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone16,1, software:18.1, creation date:${since}>`,
  };
}

/** "2026-03-01 07:04:12 +0100": an instant as Apple writes it, in a zone `offset` minutes east of UTC. */
export function appleDate(ms: number, offset: number): string {
  const d = new Date(Math.floor(ms / 1000) * 1000 + offset * MINUTE);
  const p = (n: number) => String(n).padStart(2, "0");
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  return (
    `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ` +
    `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} ${sign}${p(Math.floor(abs / 60))}${p(abs % 60)}`
  );
}

const dayNumberOf = (isoDate: string): number => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(isoDate) || Number.isNaN(Date.parse(`${isoDate}T00:00:00Z`))) {
    throw new RangeError(`endDate must be YYYY-MM-DD, got '${isoDate}'`);
  }
  return Math.round(Date.parse(`${isoDate}T00:00:00Z`) / DAY);
};
const localMidnightOf = (day: number, offset: number) => day * DAY - offset * MINUTE;
const isoDay = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);
const round = (v: number, digits: number) => String(Math.round(v * 10 ** digits) / 10 ** digits);

const escapeXml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The part of Apple's HealthKit Export Version 14 DTD for the elements this file uses. */
const APPLE_DTD = `<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 14 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT ExportDate EMPTY>
<!ATTLIST ExportDate
  value CDATA #REQUIRED
>
<!ELEMENT Me EMPTY>
<!ATTLIST Me
  HKCharacteristicTypeIdentifierDateOfBirth                   CDATA #REQUIRED
  HKCharacteristicTypeIdentifierBiologicalSex                 CDATA #REQUIRED
  HKCharacteristicTypeIdentifierBloodType                     CDATA #REQUIRED
  HKCharacteristicTypeIdentifierFitzpatrickSkinType           CDATA #REQUIRED
  HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse   CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
<!ATTLIST Workout
  workoutActivityType   CDATA #REQUIRED
  duration              CDATA #IMPLIED
  durationUnit          CDATA #IMPLIED
  totalDistance         CDATA #IMPLIED
  totalDistanceUnit     CDATA #IMPLIED
  totalEnergyBurned     CDATA #IMPLIED
  totalEnergyBurnedUnit CDATA #IMPLIED
  sourceName            CDATA #REQUIRED
  sourceVersion         CDATA #IMPLIED
  device                CDATA #IMPLIED
  creationDate          CDATA #IMPLIED
  startDate             CDATA #REQUIRED
  endDate               CDATA #REQUIRED
>
<!ELEMENT WorkoutEvent ((MetadataEntry)*)>
<!ATTLIST WorkoutEvent
  type                 CDATA #REQUIRED
  date                 CDATA #REQUIRED
  duration             CDATA #IMPLIED
  durationUnit         CDATA #IMPLIED
>
<!ELEMENT WorkoutStatistics EMPTY>
<!ATTLIST WorkoutStatistics
  type                 CDATA #REQUIRED
  startDate            CDATA #REQUIRED
  endDate              CDATA #REQUIRED
  average              CDATA #IMPLIED
  minimum              CDATA #IMPLIED
  maximum              CDATA #IMPLIED
  sum                  CDATA #IMPLIED
  unit                 CDATA #IMPLIED
>
<!ELEMENT ActivitySummary EMPTY>
<!ATTLIST ActivitySummary
  dateComponents           CDATA #IMPLIED
  activeEnergyBurned       CDATA #IMPLIED
  activeEnergyBurnedGoal   CDATA #IMPLIED
  activeEnergyBurnedUnit   CDATA #IMPLIED
  appleMoveTime            CDATA #IMPLIED
  appleMoveTimeGoal        CDATA #IMPLIED
  appleExerciseTime        CDATA #IMPLIED
  appleExerciseTimeGoal    CDATA #IMPLIED
  appleStandHours          CDATA #IMPLIED
  appleStandHoursGoal      CDATA #IMPLIED
>
<!ELEMENT MetadataEntry EMPTY>
<!ATTLIST MetadataEntry
  key   CDATA #REQUIRED
  value CDATA #REQUIRED
>
<!ELEMENT HeartRateVariabilityMetadataList (InstantaneousBeatsPerMinute*)>
<!ELEMENT InstantaneousBeatsPerMinute EMPTY>
<!ATTLIST InstantaneousBeatsPerMinute
  bpm  CDATA #REQUIRED
  time CDATA #REQUIRED
>
]>
`;
