/**
 * TCX (Garmin Training Center) activities → one workout and its per-point samples. Trackpoint `Time`,
 * `Position` → latitude/longitude, `AltitudeMeters` → elevation, `HeartRateBpm` → heart rate, `Cadence` or the
 * ActivityExtension `RunCadence` → cadence, `Speed` → speed, `Watts` → power. The workout's totals come from the
 * laps (time, distance, calories, maximum speed and heart rate, the LX extension's averages and steps); what
 * the laps lack is derived from the samples. Only the first `Activity` of a file is imported.
 */
import type { WorkoutDetailsInput } from "../store/healthDataWriter.ts";
import {
  boundDetails,
  detailsFromSamples,
  formatZoneOffset,
  MAX_TRACK_POINTS,
  maxOf,
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

interface Trackpoint {
  time: number | null;
  offset: number | null;
  lat: number | null;
  lon: number | null;
  ele: number | null;
  distance: number | null;
  hr: number | null;
  cadence: number | null;
  runCadence: number | null;
  speed: number | null;
  watts: number | null;
}

interface Lap {
  start: number | null;
  totalTimeSeconds: number | null;
  distance: number | null;
  maxSpeed: number | null;
  calories: number | null;
  avgHr: number | null;
  maxHr: number | null;
  cadence: number | null;
  avgSpeed: number | null;
  avgRunCadence: number | null;
  avgWatts: number | null;
  maxWatts: number | null;
  steps: number | null;
}

const numberOf = (text: string): number | null => {
  if (text === "") return null;
  const v = Number(text);
  return Number.isFinite(v) ? v : null;
};

const newLap = (start: number | null): Lap => ({
  start,
  totalTimeSeconds: null,
  distance: null,
  maxSpeed: null,
  calories: null,
  avgHr: null,
  maxHr: null,
  cadence: null,
  avgSpeed: null,
  avgRunCadence: null,
  avgWatts: null,
  maxWatts: null,
  steps: null,
});

const newPoint = (): Trackpoint => ({
  time: null,
  offset: null,
  lat: null,
  lon: null,
  ele: null,
  distance: null,
  hr: null,
  cadence: null,
  runCadence: null,
  speed: null,
  watts: null,
});

/** Parses a TCX file (text, bytes or a chunk stream); throws `WorkoutFileError` when it holds no activity. */
export async function parseTcx(input: XmlInput): Promise<WorkoutFileImport> {
  let rootSeen = false;
  let activities = 0;
  let sport: string | null = null;
  let activityId: number | null = null;
  let creatorName: string | null = null;
  let creatorVersion: string[] = [];
  let authorName: string | null = null;
  const laps: Lap[] = [];
  const points: Trackpoint[] = [];
  let lap: Lap | null = null;
  let point: Trackpoint | null = null;

  await readXml("tcx", input, {
    open(path, attributes) {
      const name = path[path.length - 1];
      if (path.length === 1) {
        if (name !== "TrainingCenterDatabase") {
          throw new WorkoutFileError("tcx", "not_a_workout_file", `Not a TCX file: root <${name}>`);
        }
        rootSeen = true;
      } else if (name === "Activity" && path[path.length - 2] === "Activities") {
        activities += 1;
        if (activities === 1) sport = attributes.Sport ?? null;
      } else if (activities === 1 && name === "Lap" && path.length === 4) {
        lap = newLap(attributes.StartTime ? (parseXmlInstant(attributes.StartTime)?.ms ?? null) : null);
      } else if (activities === 1 && name === "Trackpoint") {
        if (points.length >= MAX_TRACK_POINTS) {
          throw new WorkoutFileError("tcx", "too_large", `TCX file has more than ${MAX_TRACK_POINTS} track points`);
        }
        point = newPoint();
      }
    },
    close(path, text) {
      const name = path[path.length - 1] as string;
      const parent = path[path.length - 2];
      if (path.length === 2 && name === "Author") return;
      if (path[1] === "Author" && name === "Name" && path.length === 3) {
        authorName = text || null;
        return;
      }
      if (activities !== 1) return;
      if (point) {
        if (name === "Trackpoint") {
          points.push(point);
          point = null;
        } else if (name === "Time") {
          const t = parseXmlInstant(text);
          point.time = t?.ms ?? null;
          point.offset = t?.offsetMinutes ?? null;
        } else if (name === "LatitudeDegrees") point.lat = numberOf(text);
        else if (name === "LongitudeDegrees") point.lon = numberOf(text);
        else if (name === "AltitudeMeters") point.ele = numberOf(text);
        else if (name === "DistanceMeters") point.distance = numberOf(text);
        else if (name === "Value" && parent === "HeartRateBpm") point.hr = numberOf(text);
        else if (name === "Cadence") point.cadence = numberOf(text);
        else if (name === "RunCadence") point.runCadence = numberOf(text);
        else if (name === "Speed") point.speed = numberOf(text);
        else if (name === "Watts") point.watts = numberOf(text);
        return;
      }
      if (lap && path.length === 4 && name === "Lap") {
        laps.push(lap);
        lap = null;
        return;
      }
      if (lap && path.length === 5) {
        if (name === "TotalTimeSeconds") lap.totalTimeSeconds = numberOf(text);
        else if (name === "DistanceMeters") lap.distance = numberOf(text);
        else if (name === "MaximumSpeed") lap.maxSpeed = numberOf(text);
        else if (name === "Calories") lap.calories = numberOf(text);
        else if (name === "Cadence") lap.cadence = numberOf(text);
        return;
      }
      if (lap && name === "Value" && path.length === 6) {
        if (parent === "AverageHeartRateBpm") lap.avgHr = numberOf(text);
        else if (parent === "MaximumHeartRateBpm") lap.maxHr = numberOf(text);
        return;
      }
      if (lap && parent === "LX") {
        if (name === "AvgSpeed") lap.avgSpeed = numberOf(text);
        else if (name === "AvgRunCadence") lap.avgRunCadence = numberOf(text);
        else if (name === "AvgWatts") lap.avgWatts = numberOf(text);
        else if (name === "MaxWatts") lap.maxWatts = numberOf(text);
        else if (name === "Steps") lap.steps = numberOf(text);
        return;
      }
      if (path.length === 4 && name === "Id") activityId = parseXmlInstant(text)?.ms ?? null;
      else if (path[3] === "Creator" && path.length === 5 && name === "Name") creatorName = text || null;
      else if (path[3] === "Creator" && parent === "Version") creatorVersion = [...creatorVersion, text];
    },
  });
  if (!rootSeen) throw new WorkoutFileError("tcx", "not_a_workout_file", "Not a TCX file: no <TrainingCenterDatabase>");
  if (activities === 0) throw new WorkoutFileError("tcx", "no_data", "TCX file has no <Activity>");

  const offset = points.find((p) => p.offset !== null)?.offset ?? null;
  const collector = new SampleCollector(offset);
  if (activities > 1) {
    for (let i = 1; i < activities; i++) collector.warn("extra_activity", "activities after the first one ignored");
  }
  const times: number[] = [];
  let lastDistance: number | null = null;
  for (const p of points) {
    if (p.time === null) {
      collector.warn("point_without_time", "trackpoints without a valid <Time> dropped");
      continue;
    }
    times.push(p.time);
    collector.add(SERIES.heartRate, p.time, p.hr);
    collector.add(SERIES.cadence, p.time, p.runCadence ?? p.cadence);
    collector.add(SERIES.speed, p.time, p.speed);
    collector.add(SERIES.power, p.time, p.watts);
    collector.add(SERIES.elevation, p.time, p.ele);
    if (p.lat !== null && p.lon !== null && collector.add(SERIES.latitude, p.time, p.lat)) {
      if (!collector.add(SERIES.longitude, p.time, p.lon)) collector.samples.pop();
    }
    lastDistance = p.distance ?? lastDistance;
  }

  const lapStarts = laps.map((l) => l.start).filter((s): s is number => s !== null);
  // The activity's <Id> is only its name (often when the device was switched on, before the first lap):
  // the workout starts with its first lap or trackpoint, and at <Id> only when it has neither.
  const starts = [...lapStarts, ...times];
  if (starts.length === 0 && activityId !== null) starts.push(activityId);
  if (starts.length === 0) throw new WorkoutFileError("tcx", "no_data", "TCX activity has no start time");
  const start = Math.min(...starts);
  const lapEnds = laps
    .filter((l) => l.start !== null && l.totalTimeSeconds !== null)
    .map((l) => (l.start as number) + Math.round((l.totalTimeSeconds as number) * 1000));
  const end = Math.max(start, ...lapEnds, ...times);

  const details = boundDetails(
    preferDetails(boundDetails(detailsOfLaps(laps), collector), {
      ...detailsFromSamples(collector),
      distance: lastDistance === null ? null : round(lastDistance, 2),
    }),
    collector,
  );
  // Assigned inside the handlers, which TypeScript's narrowing does not see.
  const creator = creatorName as string | null;
  const author = authorName as string | null;
  const maker = `${creator ?? ""} ${author ?? ""}`;
  return {
    device: {
      provider: providerOf(maker),
      deviceModel: creator ? creator.slice(0, 100) : null,
      softwareVersion: creatorVersion.length ? creatorVersion.slice(0, 2).join(".") : null,
      source: "tcx_file",
      originalSourceName: (creator ?? author)?.slice(0, 100) ?? null,
    },
    workout: {
      type: workoutTypeOfSportText(sport),
      start,
      end,
      zoneOffset: offset === null ? null : formatZoneOffset(offset),
      sourceName: (creator ?? author)?.slice(0, 64) ?? null,
      details,
    },
    samples: collector.samples,
    warnings: collector.warnings,
  };
}

/** Sums of the laps' amounts, their time-weighted averages and their extremes. */
function detailsOfLaps(laps: Lap[]): WorkoutDetailsInput {
  const values = (f: (l: Lap) => number | null) => laps.map(f).filter((x): x is number => x !== null);
  const sum = (f: (l: Lap) => number | null) => {
    const xs = values(f);
    return xs.length
      ? round(
          xs.reduce((a, b) => a + b, 0),
          3,
        )
      : null;
  };
  const weighted = (f: (l: Lap) => number | null) => {
    let total = 0;
    let weight = 0;
    for (const l of laps) {
      const v = f(l);
      if (v === null) continue;
      const w = l.totalTimeSeconds ?? 1;
      total += v * w;
      weight += w;
    }
    return weight > 0 ? round(total / weight, 3) : null;
  };
  const time = sum((l) => l.totalTimeSeconds);
  const distance = sum((l) => l.distance);
  return {
    heartRateAvg: weighted((l) => l.avgHr),
    heartRateMax: maxOf(values((l) => l.maxHr)),
    energyBurned: sum((l) => l.calories),
    distance,
    stepsCount: sum((l) => l.steps),
    maxSpeed: maxOf(values((l) => l.maxSpeed)),
    averageSpeed: weighted((l) => l.avgSpeed) ?? (time && distance !== null ? round(distance / time, 3) : null),
    averageCadence: weighted((l) => l.avgRunCadence ?? l.cadence),
    averageWatts: weighted((l) => l.avgWatts),
    maxWatts: maxOf(values((l) => l.maxWatts)),
    movingTimeSeconds: time === null ? null : Math.round(time),
  };
}
