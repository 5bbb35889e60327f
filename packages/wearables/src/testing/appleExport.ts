/**
 * Generated Apple Health exports for tests and benchmarks: an `export.xml` with every element kind Apple
 * writes (the DTD, ExportDate, Me, one Record of every mapped type in a unit that needs converting where one
 * exists, a Correlation with its records also at the top level, sleep analysis stages of two nights and a
 * nap, Workouts with WorkoutStatistics, ActivitySummary, a ClinicalRecord), plus `extraHeartRates` filler
 * records; and a minimal zip writer for `export.zip` (stored as `apple_health_export/export.xml`).
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { crc32, deflateRawSync } from "node:zlib";
import { MAPPED_RECORD_TYPES, recordMapping } from "../imports/appleTypes.ts";

export const WATCH_DEVICE =
  "&lt;&lt;HKDevice: 0x2816a1f40&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,12, software:10.2, creation date:2026-01-01 10:00:00 +0000&gt;";
export const PHONE_DEVICE =
  "&lt;&lt;HKDevice: 0x2816a1f41&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.2&gt;";

/** The DTD's element declarations as Apple writes them (abridged): accepted, never expanded. */
export const APPLE_DTD = `<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
<!ELEMENT ExportDate EMPTY>
<!ATTLIST ExportDate value CDATA #REQUIRED>
<!ELEMENT Me EMPTY>
<!ATTLIST Me HKCharacteristicTypeIdentifierDateOfBirth CDATA #REQUIRED HKCharacteristicTypeIdentifierBiologicalSex CDATA #REQUIRED>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED sourceName CDATA #REQUIRED>
<!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
]>`;

/** Unit and value written for each mapped type (value in that unit), and what it must be stored as. */
export const RECORD_SAMPLES: Record<string, { unit: string; value: number; stored: number }> = {
  HeartRate: { unit: "count/min", value: 62, stored: 62 },
  BodyMass: { unit: "lb", value: 154.3236, stored: 70 },
  Height: { unit: "ft", value: 5.905512, stored: 180 },
  BodyTemperature: { unit: "degF", value: 98.6, stored: 37 },
  BasalBodyTemperature: { unit: "degC", value: 36.5, stored: 36.5 },
  AppleSleepingWristTemperature: { unit: "degC", value: 35.9, stored: 35.9 },
  ActiveEnergyBurned: { unit: "kJ", value: 418.4, stored: 100 },
  BasalEnergyBurned: { unit: "kcal", value: 1600, stored: 1600 },
  DistanceWalkingRunning: { unit: "km", value: 1.5, stored: 1500 },
  DistanceCycling: { unit: "mi", value: 1, stored: 1609.344 },
  OxygenSaturation: { unit: "%", value: 0.97, stored: 97 },
  BodyFatPercentage: { unit: "%", value: 0.2, stored: 20 },
  BloodGlucose: { unit: "mmol<180.1558800000541>/L", value: 5, stored: 90.078 },
  BloodAlcoholContent: { unit: "%", value: 0.0008, stored: 80 },
  WalkingStepLength: { unit: "m", value: 0.72, stored: 72 },
  RunningStrideLength: { unit: "m", value: 1.2, stored: 120 },
  RunningVerticalOscillation: { unit: "cm", value: 8.5, stored: 8.5 },
  WalkingSpeed: { unit: "km/hr", value: 5.4, stored: 1.5 },
  AppleExerciseTime: { unit: "min", value: 1, stored: 1 },
  AppleMoveTime: { unit: "min", value: 1, stored: 1 },
  AppleStandTime: { unit: "min", value: 5, stored: 5 },
  DietaryWater: { unit: "L", value: 0.25, stored: 250 },
  ForcedVitalCapacity: { unit: "L", value: 4.5, stored: 4.5 },
  ForcedExpiratoryVolume1: { unit: "L", value: 3.5, stored: 3.5 },
  HeartRateVariabilitySDNN: { unit: "ms", value: 48, stored: 48 },
  RunningGroundContactTime: { unit: "ms", value: 250, stored: 250 },
  UnderwaterDepth: { unit: "m", value: 3, stored: 3 },
  SixMinuteWalkTestDistance: { unit: "m", value: 500, stored: 500 },
  WaterTemperature: { unit: "degC", value: 20, stored: 20 },
  VO2Max: { unit: "mL/min·kg", value: 45, stored: 45 },
  PeripheralPerfusionIndex: { unit: "%", value: 0.05, stored: 5 },
  TimeInDaylight: { unit: "min", value: 30, stored: 30 },
  InsulinDelivery: { unit: "IU", value: 2, stored: 2 },
  ElectrodermalActivity: { unit: "S", value: 0.000002, stored: 2 },
  PhysicalEffort: { unit: "kcal/hr·kg", value: 3, stored: 3 },
  WorkoutEffortScore: { unit: "appleEffortScore", value: 5, stored: 5 },
  EstimatedWorkoutEffortScore: { unit: "appleEffortScore", value: 5, stored: 5 },
};

/** The unit written for a type not in RECORD_SAMPLES, by the series type's stored unit. */
const DEFAULT_UNIT: Record<string, string> = {
  bpm: "count/min",
  brpm: "count/min",
  percent: "%",
  count: "count",
  mmHg: "mmHg",
  m_per_s: "m/s",
  watts: "W",
  rpm: "count/min",
  dB: "dBASPL",
  meters: "m",
  cm: "cm",
  kg: "kg",
  kcal: "kcal",
  min: "min",
  score: "count",
  kg_m2: "count",
  "L/min": "L/min",
  mL: "mL",
};

export interface AppleExportOptions {
  /** Filler heart rate records, one a second from 2026-03-02 00:00 +0100 (default 0). */
  extraHeartRates?: number;
  /** Write a record of every mapped type (default true). */
  everyType?: boolean;
}

const HK = "HKQuantityTypeIdentifier";
const esc = (s: string) =>
  s
    .replace(/&(?!lt;|gt;|amp;|quot;)/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");

/** Apple's date format for an instant at a zone offset (minutes). */
export function appleDate(ms: number, offsetMinutes = 60): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString();
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local.slice(0, 10)} ${local.slice(11, 19)} ${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
}

const record = (
  type: string,
  unit: string | null,
  value: string | number,
  start: number,
  end = start,
  device = WATCH_DEVICE,
  sourceName = "Ada's Apple Watch",
) =>
  `<Record type="${type}" sourceName="${esc(sourceName)}" sourceVersion="10.2" device="${device}"${unit === null ? "" : ` unit="${esc(unit)}"`} creationDate="${appleDate(end)}" startDate="${appleDate(start)}" endDate="${appleDate(end)}" value="${value}"/>\n`;

export const T0 = Date.UTC(2026, 2, 1, 8, 0, 0); // 2026-03-01 09:00 +0100

/** The lines of an export.xml, generated lazily (constant memory whatever `extraHeartRates`). */
export function* appleExportLines(options: AppleExportOptions = {}): Generator<string> {
  const { extraHeartRates = 0, everyType = true } = options;
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield `${APPLE_DTD}\n`;
  yield '<HealthData locale="en_GB">\n';
  yield ` <ExportDate value="${appleDate(T0 + 86_400_000 * 10)}"/>\n`;
  yield ' <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-17" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>\n';
  if (everyType) {
    let i = 0;
    for (const type of MAPPED_RECORD_TYPES) {
      const name = type.slice(HK.length);
      const spec = RECORD_SAMPLES[name];
      const unit = spec?.unit ?? DEFAULT_UNIT[unitOf(type)] ?? "count";
      const value = spec?.value ?? (unit === "%" ? 0.5 : 10);
      yield record(type, unit, value, T0 + i * 60_000);
      i++;
    }
    // A phone step record: a second data source.
    yield record(`${HK}StepCount`, "count", 120, T0 + 5_000, T0 + 65_000, PHONE_DEVICE, "Ada's iPhone");
  }
  // Blood pressure: the correlation and, as Apple writes them, the same records at the top level.
  const bp = T0 + 3_600_000;
  yield `<Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" sourceVersion="1" creationDate="${appleDate(bp)}" startDate="${appleDate(bp)}" endDate="${appleDate(bp)}">\n`;
  yield ` ${record(`${HK}BloodPressureSystolic`, "mmHg", 121, bp, bp, "", "Omron")}`;
  yield ` ${record(`${HK}BloodPressureDiastolic`, "mmHg", 79, bp, bp, "", "Omron")}`;
  yield "</Correlation>\n";
  yield record(`${HK}BloodPressureSystolic`, "mmHg", 121, bp, bp, "", "Omron");
  yield record(`${HK}BloodPressureDiastolic`, "mmHg", 79, bp, bp, "", "Omron");
  // Sleep: two nights (23:00–07:00 local, stages) and a 40-minute nap, as stage records.
  for (const night of [0, 1]) {
    const bed = Date.UTC(2026, 2, 1 + night, 22, 0, 0); // 23:00 +0100
    const stages: [string, number, number][] = [
      ["InBed", 0, 480],
      ["AsleepCore", 10, 120],
      ["AsleepDeep", 120, 200],
      ["Awake", 200, 210],
      ["AsleepREM", 210, 300],
      ["AsleepCore", 300, 470],
    ];
    for (const [stage, from, to] of stages) {
      yield record(
        "HKCategoryTypeIdentifierSleepAnalysis",
        null,
        `HKCategoryValueSleepAnalysis${stage}`,
        bed + from * 60_000,
        bed + to * 60_000,
      );
    }
  }
  const nap = Date.UTC(2026, 2, 2, 13, 0, 0);
  yield record(
    "HKCategoryTypeIdentifierSleepAnalysis",
    null,
    "HKCategoryValueSleepAnalysisAsleepUnspecified",
    nap,
    nap + 40 * 60_000,
  );
  // Another category record, not stored (as at the anchor).
  yield record("HKCategoryTypeIdentifierMindfulSession", null, "HKCategoryValueNotApplicable", T0, T0 + 600_000);
  // Workouts.
  const run = Date.UTC(2026, 2, 1, 17, 0, 0);
  yield `<Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Ada's Apple Watch" sourceVersion="10.2" device="${WATCH_DEVICE}" creationDate="${appleDate(run + 1_800_000)}" startDate="${appleDate(run)}" endDate="${appleDate(run + 1_800_000)}">\n`;
  yield ' <MetadataEntry key="HKIndoorWorkout" value="0"/>\n';
  yield ` <WorkoutEvent type="HKWorkoutEventTypeSegment" date="${appleDate(run)}" duration="10" durationUnit="min"/>\n`;
  yield ` <WorkoutStatistics type="${HK}HeartRate" startDate="${appleDate(run)}" endDate="${appleDate(run + 1_800_000)}" average="150" minimum="110" maximum="178" unit="count/min"/>\n`;
  yield ` <WorkoutStatistics type="${HK}ActiveEnergyBurned" startDate="${appleDate(run)}" endDate="${appleDate(run + 1_800_000)}" sum="1255.2" unit="kJ"/>\n`;
  yield ` <WorkoutStatistics type="${HK}DistanceWalkingRunning" startDate="${appleDate(run)}" endDate="${appleDate(run + 1_800_000)}" sum="3.1" unit="mi"/>\n`;
  yield ` <WorkoutStatistics type="${HK}StepCount" startDate="${appleDate(run)}" endDate="${appleDate(run + 1_800_000)}" sum="5200" unit="count"/>\n`;
  yield ` <WorkoutStatistics type="${HK}RunningSpeed" startDate="${appleDate(run)}" endDate="${appleDate(run + 1_800_000)}" average="10.8" maximum="14.4" unit="km/hr"/>\n`;
  yield ` <WorkoutStatistics type="${HK}RunningPower" startDate="${appleDate(run)}" endDate="${appleDate(run + 1_800_000)}" average="250" maximum="400" unit="W"/>\n`;
  yield ' <WorkoutRoute sourceName="Ada\'s Apple Watch" sourceVersion="10.2"><FileReference path="/workout-routes/route_2026-03-01_6.00pm.gpx"/></WorkoutRoute>\n';
  yield "</Workout>\n";
  const ride = Date.UTC(2026, 2, 2, 7, 0, 0);
  yield `<Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="60" durationUnit="min" totalDistance="20" totalDistanceUnit="km" totalEnergyBurned="500" totalEnergyBurnedUnit="kcal" sourceName="Ada's Apple Watch" sourceVersion="10.2" device="${WATCH_DEVICE}" creationDate="${appleDate(ride + 3_600_000)}" startDate="${appleDate(ride)}" endDate="${appleDate(ride + 3_600_000)}"/>\n`;
  // Activity summaries.
  yield ' <ActivitySummary dateComponents="2026-03-01" activeEnergyBurned="450" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="35" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>\n';
  yield ' <ActivitySummary dateComponents="2026-03-02" activeEnergyBurned="1046" activeEnergyBurnedGoal="2092" activeEnergyBurnedUnit="kJ" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="60" appleExerciseTimeGoal="30" appleStandHours="9" appleStandHoursGoal="12"/>\n';
  yield ' <ClinicalRecord type="HKClinicalTypeIdentifierAllergyRecord" identifier="a1" sourceName="Clinic" sourceURL="https://clinic.example/a1" fhirVersion="4.0.1" receivedDate="2026-01-01 10:00:00 +0000" resourceFilePath="/clinical-records/a1.json"/>\n';
  const hr0 = Date.UTC(2026, 2, 1, 23, 0, 0);
  for (let i = 0; i < extraHeartRates; i++) {
    yield record(`${HK}HeartRate`, "count/min", 55 + (i % 40), hr0 + i * 1000);
  }
  yield "</HealthData>\n";
}

const unitOf = (type: string): string => recordMapping(type)?.unit ?? "count";

/** The whole export.xml as a string (small exports). */
export const appleExportXml = (options?: AppleExportOptions): string => [...appleExportLines(options)].join("");

/** Writes an export.xml to `path`, streamed; answers its size. */
export async function writeAppleExportXml(path: string, options?: AppleExportOptions): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  let batch = "";
  for (const line of appleExportLines(options)) {
    batch += line;
    if (batch.length >= 1 << 20) {
      bytes += Buffer.byteLength(batch);
      if (!out.write(batch)) await once(out, "drain");
      batch = "";
    }
  }
  bytes += Buffer.byteLength(batch);
  out.end(batch);
  await once(out, "finish");
  return bytes;
}

export interface ZipEntryInput {
  name: string;
  data: Uint8Array;
  /** Write this uncompressed size in the headers instead of the real one (a lying zip). */
  declaredSize?: number;
}

/** A zip (deflated entries) in memory: enough for tests' export.zip, zip bombs and lying headers. */
export function zipBytes(entries: readonly ZipEntryInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const compressed = deflateRawSync(entry.data);
    const crc = crc32(entry.data);
    const size = entry.declaredSize ?? entry.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** An export.zip holding `xml` as apple_health_export/export.xml (and a route file, as Apple's). */
export const appleExportZip = (xml: string): Buffer =>
  zipBytes([
    { name: "apple_health_export/workout-routes/route_2026-03-01_6.00pm.gpx", data: Buffer.from("<gpx/>") },
    { name: "apple_health_export/export.xml", data: Buffer.from(xml) },
    { name: "apple_health_export/export_cda.xml", data: Buffer.from("<ClinicalDocument/>") },
  ]);
