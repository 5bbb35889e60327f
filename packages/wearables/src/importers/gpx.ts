/**
 * GPX 1.1 tracks (Garmin Connect, Strava, Apple Health workout routes, most GPS apps) → one workout and its
 * per-point samples: `trkpt` lat/lon → latitude/longitude, `ele` → elevation, and the Garmin
 * TrackPointExtension (v1/v2) `hr` → heart rate, `cad` → cadence, `speed` → speed, plus a bare `power` element
 * (Strava) → power. Distance, moving time and climb are computed from the track; GPX carries no energy.
 * Speed samples are only what the file records: point-to-point GPS speed is too noisy to store as measured.
 */
import {
  boundDetails,
  detailsFromSamples,
  formatZoneOffset,
  haversineMeters,
  MAX_TRACK_POINTS,
  parseXmlInstant,
  preferDetails,
  providerOf,
  round,
  SampleCollector,
  SERIES,
  WorkoutFileError,
  type WorkoutFileImport,
  workoutTypeOfSportText,
  type XmlInput,
} from "./workoutFile.ts";
import { readXml } from "./xmlTrack.ts";

/** A gap between points longer than this is a pause, not movement. */
export const MAX_MOVING_GAP_SECONDS = 30;
/** Below this speed (m/s) the athlete is standing, not moving. */
export const MIN_MOVING_SPEED = 0.3;

interface Point {
  lat: number | null;
  lon: number | null;
  ele: number | null;
  time: number | null;
  offset: number | null;
  hr: number | null;
  cad: number | null;
  speed: number | null;
  power: number | null;
}

const emptyPoint = (): Point => ({
  lat: null,
  lon: null,
  ele: null,
  time: null,
  offset: null,
  hr: null,
  cad: null,
  speed: null,
  power: null,
});

const numberOf = (text: string): number | null => {
  if (text === "") return null;
  const v = Number(text);
  return Number.isFinite(v) ? v : null;
};

/** Parses a GPX file (text, bytes or a chunk stream); throws `WorkoutFileError` when it holds no timed track. */
export async function parseGpx(input: XmlInput): Promise<WorkoutFileImport> {
  const points: Point[] = [];
  let creator: string | null = null;
  let rootSeen = false;
  let trackType: string | null = null;
  let trackName: string | null = null;
  let metadataTime: number | null = null;
  let point: Point | null = null;

  await readXml("gpx", input, {
    open(path, attributes) {
      const name = path[path.length - 1];
      if (path.length === 1) {
        if (name !== "gpx") throw new WorkoutFileError("gpx", "not_a_workout_file", `Not a GPX file: root <${name}>`);
        rootSeen = true;
        creator = attributes.creator ?? null;
      } else if (name === "trkpt") {
        if (points.length >= MAX_TRACK_POINTS) {
          throw new WorkoutFileError("gpx", "too_large", `GPX file has more than ${MAX_TRACK_POINTS} track points`);
        }
        point = emptyPoint();
        point.lat = numberOf(attributes.lat ?? "");
        point.lon = numberOf(attributes.lon ?? "");
      }
    },
    close(path, text) {
      const name = path[path.length - 1];
      if (point && name === "trkpt") {
        points.push(point);
        point = null;
        return;
      }
      if (point) {
        if (name === "ele") point.ele = numberOf(text);
        else if (name === "time") {
          const t = parseXmlInstant(text);
          point.time = t?.ms ?? null;
          point.offset = t?.offsetMinutes ?? null;
        } else if (name === "hr") point.hr = numberOf(text);
        else if (name === "cad") point.cad = numberOf(text);
        else if (name === "speed") point.speed = numberOf(text);
        else if (name === "power") point.power = numberOf(text);
        return;
      }
      if (path[1] === "trk" && path.length === 3) {
        if (name === "type") trackType = text || null;
        else if (name === "name") trackName = text || null;
      } else if (path[1] === "metadata" && path.length === 3 && name === "time") {
        metadataTime = parseXmlInstant(text)?.ms ?? null;
      }
    },
  });
  if (!rootSeen) throw new WorkoutFileError("gpx", "not_a_workout_file", "Not a GPX file: no <gpx> root");
  return buildGpxImport(points, { creator, trackType, trackName, metadataTime });
}

function buildGpxImport(
  points: Point[],
  meta: { creator: string | null; trackType: string | null; trackName: string | null; metadataTime: number | null },
): WorkoutFileImport {
  const offset = points.find((p) => p.offset !== null)?.offset ?? null;
  const collector = new SampleCollector(offset);
  const timed: Point[] = [];
  for (const p of points) {
    if (p.time === null) {
      collector.warn("point_without_time", "track points without a valid <time> dropped");
      continue;
    }
    timed.push(p);
    const at = p.time;
    collector.add(SERIES.heartRate, at, p.hr);
    collector.add(SERIES.cadence, at, p.cad);
    collector.add(SERIES.speed, at, p.speed);
    collector.add(SERIES.power, at, p.power);
    collector.add(SERIES.elevation, at, p.ele);
    if (p.lat !== null && p.lon !== null) {
      const latOk = collector.add(SERIES.latitude, at, p.lat);
      const lonOk = latOk && collector.add(SERIES.longitude, at, p.lon);
      if (latOk && !lonOk) collector.samples.pop(); // a position is both coordinates or none
      if (!latOk || !lonOk) {
        p.lat = null;
        p.lon = null;
      }
    }
  }
  if (timed.length === 0) throw new WorkoutFileError("gpx", "no_data", "GPX file has no track point with a time");
  timed.sort((a, b) => (a.time as number) - (b.time as number));

  let distance = 0;
  let moving = 0;
  let prev: Point | null = null;
  for (const p of timed) {
    if (p.lat === null || p.lon === null) continue;
    if (prev && prev.lat !== null && prev.lon !== null) {
      const d = haversineMeters(prev.lat, prev.lon, p.lat, p.lon);
      const dt = ((p.time as number) - (prev.time as number)) / 1000;
      distance += d;
      if (dt > 0 && dt <= MAX_MOVING_GAP_SECONDS && d / dt >= MIN_MOVING_SPEED) moving += dt;
    }
    prev = p;
  }
  const start = Math.min(timed[0]?.time as number, meta.metadataTime ?? Number.POSITIVE_INFINITY);
  const end = timed[timed.length - 1]?.time as number;
  const hasTrack = timed.some((p) => p.lat !== null);
  const fromTrack = hasTrack
    ? {
        distance: round(distance, 1),
        movingTimeSeconds: Math.round(moving),
        averageSpeed: moving > 0 ? round(distance / moving, 3) : null,
      }
    : {};
  const sampled = detailsFromSamples(collector);
  const details = boundDetails(preferDetails(boundDetails(fromTrack, collector), sampled), collector);
  return {
    device: {
      provider: providerOf(meta.creator),
      deviceModel: meta.creator ? meta.creator.slice(0, 100) : null,
      source: "gpx_file",
      originalSourceName: meta.creator ? meta.creator.slice(0, 100) : null,
    },
    workout: {
      type: gpxWorkoutType(meta.trackType, meta.trackName),
      start,
      end,
      zoneOffset: offset === null ? null : formatZoneOffset(offset),
      sourceName: meta.creator ? meta.creator.slice(0, 64) : null,
      details,
    },
    samples: collector.samples,
    warnings: collector.warnings,
  };
}

/**
 * Strava's GPX export writes its activity type as a number in `<type>` (the order of Strava's ActivityType
 * enum: 1 Ride, 4 Hike, 9 Run, 10 Walk, 16 Swim, …); other writers use words (`running`, `cycling`).
 */
const STRAVA_TYPE_CODES: Record<string, string> = {
  "1": "cycling",
  "2": "alpine_skiing",
  "3": "backcountry_skiing",
  "4": "hiking",
  "5": "ice_skating",
  "6": "inline_skating",
  "7": "cross_country_skiing",
  "8": "cross_country_skiing",
  "9": "running",
  "10": "walking",
  "12": "snowboarding",
  "13": "snowshoeing",
  "14": "kitesurfing",
  "15": "windsurfing",
  "16": "swimming",
  "17": "indoor_cycling",
  "18": "e_biking",
};

/** The workout type of a GPX track: its `<type>` (Strava's number or a word), else words in its name. */
export function gpxWorkoutType(trackType: string | null, trackName: string | null): string {
  const code = trackType?.trim() ?? "";
  if (/^\d+$/.test(code)) {
    const t = STRAVA_TYPE_CODES[String(Number(code))];
    return t ?? workoutTypeOfSportText(trackName);
  }
  const byType = workoutTypeOfSportText(trackType);
  return byType === "other" && trackName ? workoutTypeOfSportText(trackName) : byType;
}
