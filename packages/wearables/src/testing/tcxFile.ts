/**
 * TCX files for tests, as Garmin Connect exports them: one Activity, its points split into laps with their
 * totals (time, distance, calories, maxima, average heart rate, the LX extension), each Trackpoint with
 * Position, AltitudeMeters, DistanceMeters, HeartRateBpm, Cadence (cycling) or RunCadence, Speed and Watts.
 */
import { escapeXml } from "./gpxFile.ts";
import type { TrackPointFixture, WorkoutFixture } from "./workoutFixture.ts";

export interface TcxOptions {
  /** How many laps the points are split into (equal parts). */
  laps?: number;
  /** Calories per lap (the fixture's total split evenly when unset). */
  lapCalories?: number[];
  steps?: number[];
}

const iso = (ms: number): string => new Date(ms).toISOString();
const TCX_SPORT: Record<string, string> = { running: "Running", cycling: "Biking" };

/** The figures each lap of `workout` states (what the writer puts in the file). */
export function tcxLaps(workout: WorkoutFixture, options: TcxOptions = {}) {
  const n = Math.max(1, options.laps ?? 2);
  const size = Math.ceil(workout.points.length / n);
  const laps: { points: TrackPointFixture[]; start: number; seconds: number; distance: number; calories: number }[] =
    [];
  let previousDistance = 0;
  for (let i = 0; i < n; i++) {
    const points = workout.points.slice(i * size, (i + 1) * size);
    if (points.length === 0) break;
    const next = workout.points[(i + 1) * size];
    const lastDistance =
      next?.distance ?? (points[points.length - 1]?.distance ?? 0) + (points[points.length - 1]?.speed ?? 0);
    laps.push({
      points,
      start: points[0]?.at as number,
      seconds: points.length,
      distance: Math.round((lastDistance - previousDistance) * 100) / 100,
      calories: options.lapCalories?.[i] ?? Math.round((workout.calories ?? 0) / n),
    });
    previousDistance = lastDistance;
  }
  return laps;
}

/** The text of a TCX file holding `workout`. */
export function writeTcxFile(workout: WorkoutFixture, options: TcxOptions = {}): string {
  const running = workout.sport === "running";
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<TrainingCenterDatabase xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd" xmlns:ns5="http://www.garmin.com/xmlschemas/ActivityGoals/v1" xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2" xmlns:ns2="http://www.garmin.com/xmlschemas/UserProfile/v2" xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    "  <Activities>",
    `    <Activity Sport="${TCX_SPORT[workout.sport] ?? "Other"}">`,
    `      <Id>${iso(workout.start)}</Id>`,
  ];
  tcxLaps(workout, options).forEach((lap, i) => {
    const hr = lap.points.map((p) => p.hr).filter((x): x is number => x !== undefined);
    const speed = lap.points.map((p) => p.speed).filter((x): x is number => x !== undefined);
    const watts = lap.points.map((p) => p.power).filter((x): x is number => x !== undefined);
    const cad = lap.points.map((p) => p.cadence).filter((x): x is number => x !== undefined);
    const avg = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    out.push(
      `      <Lap StartTime="${iso(lap.start)}">`,
      `        <TotalTimeSeconds>${lap.seconds}.0</TotalTimeSeconds>`,
      `        <DistanceMeters>${lap.distance}</DistanceMeters>`,
      ...(speed.length ? [`        <MaximumSpeed>${Math.max(...speed)}</MaximumSpeed>`] : []),
      `        <Calories>${lap.calories}</Calories>`,
      ...(hr.length
        ? [
            `        <AverageHeartRateBpm><Value>${avg(hr)}</Value></AverageHeartRateBpm>`,
            `        <MaximumHeartRateBpm><Value>${Math.max(...hr)}</Value></MaximumHeartRateBpm>`,
          ]
        : []),
      "        <Intensity>Active</Intensity>",
      ...(!running && cad.length ? [`        <Cadence>${avg(cad)}</Cadence>`] : []),
      "        <TriggerMethod>Manual</TriggerMethod>",
      "        <Track>",
    );
    for (const p of lap.points) {
      const tpx: string[] = [];
      if (p.speed !== undefined) tpx.push(`<ns3:Speed>${p.speed}</ns3:Speed>`);
      if (running && p.cadence !== undefined) tpx.push(`<ns3:RunCadence>${p.cadence}</ns3:RunCadence>`);
      if (p.power !== undefined) tpx.push(`<ns3:Watts>${p.power}</ns3:Watts>`);
      out.push(
        "          <Trackpoint>" +
          `<Time>${iso(p.at)}</Time>` +
          (p.lat !== undefined && p.lon !== undefined
            ? `<Position><LatitudeDegrees>${p.lat}</LatitudeDegrees><LongitudeDegrees>${p.lon}</LongitudeDegrees></Position>`
            : "") +
          (p.ele !== undefined ? `<AltitudeMeters>${p.ele}</AltitudeMeters>` : "") +
          (p.distance !== undefined ? `<DistanceMeters>${p.distance}</DistanceMeters>` : "") +
          (p.hr !== undefined ? `<HeartRateBpm><Value>${p.hr}</Value></HeartRateBpm>` : "") +
          (!running && p.cadence !== undefined ? `<Cadence>${p.cadence}</Cadence>` : "") +
          (tpx.length ? `<Extensions><ns3:TPX>${tpx.join("")}</ns3:TPX></Extensions>` : "") +
          "</Trackpoint>",
      );
    }
    const lx: string[] = [];
    if (speed.length) lx.push(`<ns3:AvgSpeed>${avgExact(speed)}</ns3:AvgSpeed>`);
    if (running && cad.length) lx.push(`<ns3:AvgRunCadence>${avg(cad)}</ns3:AvgRunCadence>`);
    if (watts.length)
      lx.push(`<ns3:AvgWatts>${avg(watts)}</ns3:AvgWatts><ns3:MaxWatts>${Math.max(...watts)}</ns3:MaxWatts>`);
    if (options.steps?.[i] !== undefined) lx.push(`<ns3:Steps>${options.steps[i]}</ns3:Steps>`);
    out.push("        </Track>");
    if (lx.length) out.push(`        <Extensions><ns3:LX>${lx.join("")}</ns3:LX></Extensions>`);
    out.push("      </Lap>");
  });
  const d = workout.device;
  if (d) {
    out.push(
      '      <Creator xsi:type="Device_t">',
      `        <Name>${escapeXml(d.productName)}</Name>`,
      `        <UnitId>${d.serialNumber}</UnitId>`,
      `        <ProductID>${d.product}</ProductID>`,
      `        <Version><VersionMajor>${Math.floor(d.softwareVersion)}</VersionMajor><VersionMinor>${Math.round((d.softwareVersion % 1) * 10)}</VersionMinor><BuildMajor>0</BuildMajor><BuildMinor>0</BuildMinor></Version>`,
      "      </Creator>",
    );
  }
  out.push(
    "    </Activity>",
    "  </Activities>",
    '  <Author xsi:type="Application_t"><Name>Connect Api</Name><LangID>en</LangID><PartNumber>006-D2449-00</PartNumber></Author>',
    "</TrainingCenterDatabase>",
    "",
  );
  return out.join("\n");
}

const avgExact = (xs: number[]): number => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000;
