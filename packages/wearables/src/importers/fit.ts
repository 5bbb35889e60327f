/**
 * FIT activity files (Garmin, Wahoo, Coros, Polar, Suunto exports) → one workout and its per-second samples,
 * decoded with Garmin's official SDK. The file's CRC is checked before anything is read: a damaged file is
 * refused whole, never half imported. Compressed-timestamp records, which the SDK refuses, are rewritten as
 * ordinary ones first (`fitCompressedTimestamps.ts`).
 *
 * Record fields → series: heart_rate → heart_rate (1), enhanced_speed|speed m/s → speed (182), cadence (rpm,
 * i.e. strides per minute for running, as the device writes it) → cadence (180), power → power (181),
 * enhanced_altitude|altitude m → elevation (209), position_lat/long semicircles × 180/2^31 → latitude (210) /
 * longitude (211). The cumulative `distance` is not a sample: a running total is not an amount per interval
 * (distance types aggregate by sum), so it only gives the workout's distance when the session lacks it.
 */
import { Decoder, type FitMessages, Stream, Utils } from "@garmin/fitsdk";
import type { WorkoutDetailsInput } from "../store/healthDataWriter.ts";
import { expandCompressedTimestamps } from "./fitCompressedTimestamps.ts";
import {
  boundDetails,
  detailsFromSamples,
  formatZoneOffset,
  MAX_TRACK_POINTS,
  maxOf,
  preferDetails,
  providerOf,
  round,
  SampleCollector,
  SERIES,
  WorkoutFileError,
  type WorkoutFileImport,
} from "./workoutFile.ts";

const SEMICIRCLE_TO_DEG = 180 / 2 ** 31;

type Session = NonNullable<FitMessages["sessionMesgs"]>[number];
type Lap = NonNullable<FitMessages["lapMesgs"]>[number];

/** Parses a FIT activity file; throws `WorkoutFileError` when it is not one, is damaged, or has no workout. */
export function parseFit(bytes: Uint8Array): WorkoutFileImport {
  const fail = (code: ConstructorParameters<typeof WorkoutFileError>[1], message: string, cause?: unknown) =>
    new WorkoutFileError("fit", code, message, cause === undefined ? undefined : { cause });
  if (bytes.length < 12) throw fail("truncated", "FIT file is truncated: shorter than its 12-byte header");
  const stream = Stream.fromByteArray(bytes);
  if (!Decoder.isFIT(stream)) throw fail("not_a_workout_file", "Not a FIT file: the header lacks the '.FIT' mark");
  const headerSize = bytes[0] as number;
  const dataSize = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  if (bytes.length < headerSize + dataSize + 2) {
    throw fail(
      "truncated",
      `FIT file is truncated: ${bytes.length} bytes, the header announces ${headerSize + dataSize + 2}`,
    );
  }
  if (!new Decoder(stream).checkIntegrity()) throw fail("bad_crc", "FIT file is damaged: its CRC does not match");

  let messages: FitMessages;
  try {
    const { messages: m, errors } = new Decoder(Stream.fromByteArray(expandCompressedTimestamps(bytes))).read({
      convertTypesToStrings: true,
      convertDateTimesToDates: true,
    });
    if (errors.length > 0) throw errors[0];
    messages = m;
  } catch (e) {
    throw fail("malformed", `FIT file could not be decoded: ${e instanceof Error ? e.message : String(e)}`, e);
  }

  const records = messages.recordMesgs ?? [];
  if (records.length > MAX_TRACK_POINTS) throw fail("too_large", `FIT file has more than ${MAX_TRACK_POINTS} records`);
  const sessions = messages.sessionMesgs ?? [];
  const laps = messages.lapMesgs ?? [];
  const fileId = messages.fileIdMesgs?.[0];
  if (fileId?.type !== undefined && fileId.type !== "activity") {
    throw fail("not_a_workout_file", `FIT file is a '${String(fileId.type)}' file, not an activity`);
  }

  const zoneOffsetMinutes = zoneOffsetOf(messages);
  const collector = new SampleCollector(zoneOffsetMinutes);
  const times: number[] = [];
  let lastDistance: number | null = null;
  for (const r of records) {
    const at = r.timestamp instanceof Date ? r.timestamp.getTime() : Number.NaN;
    if (!Number.isFinite(at)) {
      collector.warn("record_without_time", "records without a timestamp dropped");
      continue;
    }
    times.push(at);
    collector.add(SERIES.heartRate, at, num(r.heartRate));
    collector.add(SERIES.speed, at, roundOrNull(num(r.enhancedSpeed) ?? num(r.speed)));
    collector.add(SERIES.cadence, at, num(r.cadence));
    collector.add(SERIES.power, at, num(r.power));
    collector.add(SERIES.elevation, at, roundOrNull(num(r.enhancedAltitude) ?? num(r.altitude)));
    const lat = num(r.positionLat);
    const lon = num(r.positionLong);
    if (lat !== null && lon !== null) {
      collector.add(SERIES.latitude, at, round(lat * SEMICIRCLE_TO_DEG, 7));
      collector.add(SERIES.longitude, at, round(lon * SEMICIRCLE_TO_DEG, 7));
    }
    lastDistance = num(r.distance) ?? lastDistance;
  }

  const span = workoutSpan(sessions, laps, times);
  if (!span) throw fail("no_data", "FIT file has no session, lap or timed record: nothing to import");

  const fromSession = detailsOfSessions(sessions.length > 0 ? sessions : laps);
  const details = boundDetails(
    preferDetails(boundDetails(fromSession, collector), {
      ...detailsFromSamples(collector),
      distance: lastDistance === null ? null : round(lastDistance, 2),
    }),
    collector,
  );

  const creator = messages.deviceInfoMesgs?.find((d) => d.deviceIndex === "creator" || d.deviceIndex === 0);
  const manufacturer = String(fileId?.manufacturer ?? creator?.manufacturer ?? "");
  const model =
    fileId?.productName ??
    creator?.productName ??
    (fileId?.garminProduct !== undefined ? String(fileId.garminProduct) : undefined) ??
    (creator?.garminProduct !== undefined ? String(creator.garminProduct) : undefined) ??
    (fileId?.product !== undefined ? `${manufacturer} ${fileId.product}` : undefined);
  const software = num(creator?.softwareVersion);

  return {
    device: {
      provider: providerOf(manufacturer),
      deviceModel: model ? String(model).slice(0, 100) : null,
      softwareVersion: software === null ? null : String(software),
      source: "fit_file",
      originalSourceName: manufacturer || null,
    },
    workout: {
      type:
        sessions.length > 1
          ? "multisport"
          : workoutTypeOfFitSport(sessions[0]?.sport ?? laps[0]?.sport, sessions[0]?.subSport ?? laps[0]?.subSport),
      start: span.start,
      end: span.end,
      zoneOffset: zoneOffsetMinutes === null ? null : formatZoneOffset(zoneOffsetMinutes),
      sourceName: model ? String(model).slice(0, 64) : null,
      details,
    },
    samples: collector.samples,
    warnings: collector.warnings,
  };
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const roundOrNull = (v: number | null): number | null => (v === null ? null : round(v));
const ms = (d: unknown): number | null => (d instanceof Date && Number.isFinite(d.getTime()) ? d.getTime() : null);

/** Start and end of the activity: its sessions (or laps) when present, else its first and last record. */
function workoutSpan(sessions: Session[], laps: Lap[], times: number[]): { start: number; end: number } | null {
  const parts = (sessions.length > 0 ? sessions : laps)
    .map((s) => {
      const start = ms(s.startTime);
      const elapsed = num(s.totalElapsedTime);
      const end = start !== null && elapsed !== null ? start + Math.round(elapsed * 1000) : ms(s.timestamp);
      return start !== null && end !== null ? { start, end } : null;
    })
    .filter((p): p is { start: number; end: number } => p !== null);
  let start = parts.length ? Math.min(...parts.map((p) => p.start)) : null;
  let end = parts.length ? Math.max(...parts.map((p) => p.end)) : null;
  if (times.length > 0) {
    const first = Math.min(...times);
    const last = Math.max(...times);
    start = start === null ? first : Math.min(start, first);
    end = end === null ? last : Math.max(end, last);
  }
  return start !== null && end !== null && end >= start ? { start, end } : null;
}

/** Totals and extremes over the sessions (or laps): sums of amounts, time-weighted averages, extremes. */
function detailsOfSessions(parts: (Session | Lap)[]): WorkoutDetailsInput {
  if (parts.length === 0) return {};
  const sum = (f: (s: Session | Lap) => unknown): number | null => {
    const xs = parts.map((s) => num(f(s))).filter((x): x is number => x !== null);
    return xs.length
      ? round(
          xs.reduce((a, b) => a + b, 0),
          3,
        )
      : null;
  };
  const extreme = (f: (s: Session | Lap) => unknown, pick: (xs: number[]) => number | null) =>
    pick(parts.map((s) => num(f(s))).filter((x): x is number => x !== null));
  const weighted = (f: (s: Session | Lap) => unknown): number | null => {
    let total = 0;
    let weight = 0;
    for (const s of parts) {
      const v = num(f(s));
      if (v === null) continue;
      const w = num(s.totalTimerTime) ?? num(s.totalElapsedTime) ?? 1;
      total += v * w;
      weight += w;
    }
    return weight > 0 ? round(total / weight, 3) : null;
  };
  const strides = sum((s) => num(s.totalStrides) ?? num(s.totalCycles));
  const sports = new Set(parts.map((s) => s.sport));
  const onFoot = [...sports].every((s) => s === "running" || s === "walking" || s === "hiking");
  return {
    heartRateMin: extreme(
      (s) => s.minHeartRate,
      (xs) => (xs.length ? Math.min(...xs) : null),
    ),
    heartRateMax: extreme((s) => s.maxHeartRate, maxOf),
    heartRateAvg: weighted((s) => s.avgHeartRate),
    energyBurned: sum((s) => s.totalCalories),
    distance: sum((s) => s.totalDistance),
    // A running/walking cycle is one stride, i.e. two steps.
    stepsCount: onFoot && strides !== null ? strides * 2 : null,
    maxSpeed: extreme((s) => num(s.enhancedMaxSpeed) ?? num(s.maxSpeed), maxOf),
    averageSpeed: weighted((s) => num(s.enhancedAvgSpeed) ?? num(s.avgSpeed)),
    averageCadence: weighted((s) => s.avgCadence),
    averageWatts: weighted((s) => s.avgPower),
    maxWatts: extreme((s) => s.maxPower, maxOf),
    movingTimeSeconds: sum((s) => num(s.totalMovingTime) ?? num(s.totalTimerTime)),
    totalElevationGain: sum((s) => s.totalAscent),
    elevHigh: extreme((s) => num(s.enhancedMaxAltitude) ?? num(s.maxAltitude), maxOf),
    elevLow: extreme(
      (s) => num(s.enhancedMinAltitude) ?? num(s.minAltitude),
      (xs) => (xs.length ? Math.min(...xs) : null),
    ),
  };
}

/**
 * Minutes east of UTC from the activity message's local timestamp (what the device's clock showed at the end),
 * rounded to the quarter hour; null when the file does not say.
 */
function zoneOffsetOf(messages: FitMessages): number | null {
  const activity = messages.activityMesgs?.[0];
  const utc = ms(activity?.timestamp);
  const local = num(activity?.localTimestamp);
  if (utc === null || local === null) return null;
  const localMs = local * 1000 + Utils.FIT_EPOCH_MS;
  const minutes = Math.round((localMs - utc) / 60_000 / 15) * 15;
  return Math.abs(minutes) <= 14 * 60 ? minutes : null;
}

/** The anchor's workout types (WorkoutType) for FIT `sport` / `sub_sport` (the SDK's camelCase names). */
export function workoutTypeOfFitSport(sport: unknown, subSport: unknown): string {
  const sub = String(subSport ?? "");
  switch (String(sport ?? "")) {
    case "running":
      if (sub === "treadmill" || sub === "indoorRunning" || sub === "virtualActivity") return "treadmill";
      return sub === "trail" ? "trail_running" : "running";
    case "cycling":
      if (sub === "indoorCycling" || sub === "spin" || sub === "virtualActivity") return "indoor_cycling";
      if (sub === "mountain" || sub === "downhill") return "mountain_biking";
      if (sub === "cyclocross") return "cyclocross";
      if (sub === "eBikeFitness" || sub === "eBikeMountain") return "e_biking";
      return "cycling";
    case "swimming":
      if (sub === "lapSwimming") return "pool_swimming";
      return sub === "openWater" ? "open_water_swimming" : "swimming";
    case "walking":
      return "walking";
    case "hiking":
      return "hiking";
    case "mountaineering":
      return "mountaineering";
    case "training":
      if (sub === "strengthTraining") return "strength_training";
      if (sub === "yoga") return "yoga";
      if (sub === "pilates") return "pilates";
      if (sub === "flexibilityTraining" || sub === "breathing") return "stretching";
      return "cardio_training";
    case "fitnessEquipment":
      if (sub === "elliptical") return "elliptical";
      if (sub === "stairClimbing") return "stair_climbing";
      if (sub === "indoorRowing") return "rowing_machine";
      if (sub === "treadmill") return "treadmill";
      if (sub === "indoorCycling") return "indoor_cycling";
      return "fitness_equipment";
    case "rowing":
      return sub === "indoorRowing" ? "rowing_machine" : "rowing";
    case "hiit":
    case "jumpRope":
      return "cardio_training";
    case "eBiking":
      return "e_biking";
    case "crossCountrySkiing":
      return "cross_country_skiing";
    case "alpineSkiing":
      return sub === "backcountry" ? "backcountry_skiing" : "alpine_skiing";
    case "generic":
      return "generic";
    case "transition":
      return "transition";
    case "multisport":
      return "multisport";
    case "":
      return "other";
    default:
      return FIT_SPORT_SAME_NAME.has(String(sport)) ? camelToSnake(String(sport)) : "other";
  }
}

/** FIT sports whose snake_case name is already one of the anchor's workout types. */
const FIT_SPORT_SAME_NAME = new Set([
  "basketball",
  "soccer",
  "tennis",
  "americanFootball",
  "snowboarding",
  "paddling",
  "golf",
  "inlineSkating",
  "rockClimbing",
  "sailing",
  "iceSkating",
  "snowshoeing",
  "snowmobiling",
  "standUpPaddleboarding",
  "surfing",
  "wakeboarding",
  "waterSkiing",
  "kayaking",
  "windsurfing",
  "kitesurfing",
  "boxing",
  "baseball",
  "diving",
  "meditation",
  "cricket",
  "rugby",
  "hockey",
  "lacrosse",
  "volleyball",
  "archery",
  "snorkeling",
  "dance",
  "canoeing",
  "motorcycling",
  "boating",
  "fishing",
  "hunting",
]);

const camelToSnake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
