/**
 * TCX files as Garmin Connect exports them, read back value by value: the activity's sport, the laps' totals
 * (summed, time-weighted, extremes), every trackpoint's samples; damaged and hostile files refused.
 */
import { describe, expect, it } from "vitest";
import { tcxLaps, writeTcxFile } from "../testing/tcxFile.ts";
import { makeWorkoutFixture } from "../testing/workoutFixture.ts";
import { parseTcx } from "./tcx.ts";
import { elevationGain, SERIES, WorkoutFileError, type WorkoutFileImport } from "./workoutFile.ts";

const series = (r: WorkoutFileImport, type: number) =>
  new Map(r.samples.filter((s) => s.seriesType === type).map((s) => [s.recordedAt, s.value]));

const errorOf = async (p: Promise<unknown>): Promise<WorkoutFileError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof WorkoutFileError) return e;
    throw e;
  }
  throw new Error("no error thrown");
};

describe("parseTcx", () => {
  const fixture = makeWorkoutFixture({ seconds: 90, withPower: true });
  const options = { laps: 3, lapCalories: [10, 12, 14], steps: [140, 150, 160] };
  const text = writeTcxFile(fixture, options);

  it("reads the device, the activity and its laps' totals", async () => {
    const r = await parseTcx(text);
    expect(r.device).toEqual({
      provider: "garmin",
      deviceModel: "Forerunner 945",
      softwareVersion: "12.3",
      source: "tcx_file",
      originalSourceName: "Forerunner 945",
    });
    expect(r.workout).toMatchObject({
      type: "running",
      start: fixture.start,
      end: fixture.start + 90_000,
      zoneOffset: null,
    });
    expect(r.warnings).toEqual([]);
    const laps = tcxLaps(fixture, options);
    const pts = fixture.points;
    const hr = pts.map((p) => p.hr as number);
    const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;
    const lapAvg = (f: (xs: number[]) => number) =>
      round(laps.reduce((a, l) => a + f(l.points.map((p) => p.hr as number)) * l.seconds, 0) / 90, 3);
    const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    const lapMean = (get: (p: (typeof pts)[number]) => number) =>
      round(laps.reduce((a, l) => a + mean(l.points.map(get)) * l.seconds, 0) / 90, 3);
    const exactMean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000;
    expect(r.workout.details).toEqual({
      heartRateAvg: lapAvg(mean),
      heartRateMax: Math.max(...hr),
      heartRateMin: Math.min(...hr),
      energyBurned: 36,
      distance: round(
        laps.reduce((a, l) => a + l.distance, 0),
        3,
      ),
      stepsCount: 450,
      maxSpeed: Math.max(...pts.map((p) => p.speed as number)),
      averageSpeed: round(
        laps.reduce((a, l) => a + exactMean(l.points.map((p) => p.speed as number)) * l.seconds, 0) / 90,
        3,
      ),
      averageCadence: lapMean((p) => p.cadence as number),
      averageWatts: lapMean((p) => p.power as number),
      maxWatts: Math.max(...pts.map((p) => p.power as number)),
      movingTimeSeconds: 90,
      elevHigh: Math.max(...pts.map((p) => p.ele as number)),
      elevLow: Math.min(...pts.map((p) => p.ele as number)),
      totalElevationGain: elevationGain(pts.map((p) => p.ele as number)),
    });
  });

  it("turns every trackpoint into samples", async () => {
    const r = await parseTcx(text);
    const types = [
      SERIES.heartRate,
      SERIES.cadence,
      SERIES.speed,
      SERIES.power,
      SERIES.elevation,
      SERIES.latitude,
      SERIES.longitude,
    ];
    const [hr, cad, speed, power, ele, lat, lon] = types.map((t) => series(r, t));
    for (const m of [hr, cad, speed, power, ele, lat, lon]) expect(m?.size).toBe(90);
    for (const p of fixture.points) {
      expect(hr?.get(p.at)).toBe(p.hr);
      expect(cad?.get(p.at)).toBe(p.cadence);
      expect(speed?.get(p.at)).toBe(p.speed);
      expect(power?.get(p.at)).toBe(p.power);
      expect(ele?.get(p.at)).toBe(p.ele);
      expect(lat?.get(p.at)).toBe(p.lat);
      expect(lon?.get(p.at)).toBe(p.lon);
    }
  });

  it("reads cycling cadence from <Cadence> and Biking as cycling", async () => {
    const f = makeWorkoutFixture({ seconds: 20, sport: "cycling", speed: 8 });
    const r = await parseTcx(writeTcxFile(f, { laps: 1 }));
    expect(r.workout.type).toBe("cycling");
    expect([...series(r, SERIES.cadence).values()]).toEqual(f.points.map((p) => p.cadence));
  });

  it("drops impossible values with a counted warning, imports the first activity only", async () => {
    const f = makeWorkoutFixture({ seconds: 10 });
    (f.points[2] as { hr: number }).hr = 0;
    (f.points[3] as { lat: number }).lat = -100;
    const doc = writeTcxFile(f, { laps: 1 });
    const second = doc.slice(doc.indexOf("    <Activity "), doc.indexOf("  </Activities>"));
    const r = await parseTcx(doc.replace("  </Activities>", `${second}  </Activities>`));
    expect(series(r, SERIES.heartRate).size).toBe(9);
    expect(series(r, SERIES.latitude).size).toBe(9);
    expect(series(r, SERIES.longitude).size).toBe(9);
    expect(r.warnings).toEqual([
      { code: "extra_activity", message: "activities after the first one ignored", count: 1 },
      { code: "out_of_range:1", message: "heart rate values outside 20..250 bpm dropped", count: 1 },
      { code: "out_of_range:210", message: "latitude values outside -90..90 ° dropped", count: 1 },
    ]);
  });

  it("drops impossible lap figures (Movescount's MaximumSpeed 18720) with a counted warning, the samples' stand in", async () => {
    const f = makeWorkoutFixture({ seconds: 20 });
    const doc = writeTcxFile(f, { laps: 2 }).replace(
      /<MaximumSpeed>[^<]*<\/MaximumSpeed>/,
      "<MaximumSpeed>18720</MaximumSpeed>",
    );
    const huge = doc.replace(/<DistanceMeters>([^<]*)<\/DistanceMeters>/, "<DistanceMeters>99999999</DistanceMeters>");
    const r = await parseTcx(huge);
    expect(r.workout.details.maxSpeed).toBe(Math.max(...f.points.map((p) => p.speed as number)));
    expect(r.workout.details.distance).toBe(f.points[19]?.distance);
    expect(r.warnings).toEqual([
      { code: "out_of_range:distance", message: "distance outside 0..5000000 m dropped", count: 1 },
      { code: "out_of_range:maxSpeed", message: "maximum speed outside 0..100 m/s dropped", count: 1 },
    ]);
  });

  it("reads a file with blank space or a BOM before its XML declaration (Polar V800 via Strava)", async () => {
    const f = makeWorkoutFixture({ seconds: 10 });
    const doc = writeTcxFile(f, { laps: 1 });
    for (const prefixed of [`          ${doc}`, `\uFEFF${doc}`, `\uFEFF \r\n\t${doc}`]) {
      const r = await parseTcx(prefixed);
      expect(r.samples.length).toBeGreaterThan(0);
      const bytes = await parseTcx(new TextEncoder().encode(prefixed));
      expect(bytes.workout).toEqual(r.workout);
    }
    expect((await errorOf(parseTcx(`x${doc}`))).code).toBe("malformed");
  });

  it("starts with the first lap, not at an earlier <Id>, and knows vívoactive as Garmin", async () => {
    const f = makeWorkoutFixture({ seconds: 10 });
    const doc = writeTcxFile(f, { laps: 1 })
      .replace(/<Id>[^<]*<\/Id>/, `<Id>${new Date(f.start - 600_000).toISOString()}</Id>`)
      .replace(
        /<Creator xsi:type="Device_t">\s*<Name>[^<]*<\/Name>/,
        '<Creator xsi:type="Device_t"><Name>vívoactive HR</Name>',
      )
      .replace("<Name>Connect Api</Name>", "<Name>Some App</Name>");
    const r = await parseTcx(doc);
    expect(r.workout.start).toBe(f.start);
    expect(r.workout.end).toBe(f.start + 10_000);
    expect(r.device.provider).toBe("garmin");
    expect(r.device.deviceModel).toBe("vívoactive HR");
  });

  it("refuses malformed, truncated, hostile and foreign files", async () => {
    expect((await errorOf(parseTcx(text.slice(0, 3000)))).code).toBe("malformed");
    expect((await errorOf(parseTcx(new Uint8Array([0xff, 0xfe, 0x00, 0x41])))).code).toBe("malformed");
    const external = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><TrainingCenterDatabase>&e;</TrainingCenterDatabase>`;
    expect((await errorOf(parseTcx(external))).message).toContain("DOCTYPE");
    expect((await errorOf(parseTcx("<gpx></gpx>"))).code).toBe("not_a_workout_file");
    expect((await errorOf(parseTcx("<TrainingCenterDatabase><Activities/></TrainingCenterDatabase>"))).code).toBe(
      "no_data",
    );
  });
});
