/**
 * GPX files as Garmin Connect and Strava write them, read back value by value: the workout, every track point's
 * samples, distance, moving time and climb computed from the track; impossible values dropped and counted;
 * malformed or hostile XML refused with a clear error.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { writeGpxFile } from "../testing/gpxFile.ts";
import { makeWorkoutFixture } from "../testing/workoutFixture.ts";
import { parseGpx } from "./gpx.ts";
import { elevationGain, haversineMeters, SERIES, WorkoutFileError, type WorkoutFileImport } from "./workoutFile.ts";

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

describe("parseGpx", () => {
  const fixture = makeWorkoutFixture({ seconds: 60, withPower: true });
  const text = writeGpxFile(fixture);

  it("reads the workout and every track point's samples", async () => {
    const r = await parseGpx(text);
    expect(r.device).toEqual({
      provider: "garmin",
      deviceModel: "Garmin Connect",
      source: "gpx_file",
      originalSourceName: "Garmin Connect",
    });
    expect(r.workout).toMatchObject({
      type: "running",
      start: fixture.start,
      end: fixture.points[59]?.at,
      zoneOffset: null,
    });
    expect(r.warnings).toEqual([]);
    const maps = [
      SERIES.heartRate,
      SERIES.cadence,
      SERIES.speed,
      SERIES.power,
      SERIES.elevation,
      SERIES.latitude,
      SERIES.longitude,
    ].map((t) => series(r, t));
    for (const m of maps) expect(m.size).toBe(60);
    const [hr, cad, speed, power, ele, lat, lon] = maps;
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

  it("computes distance, moving time, speed and climb from the track", async () => {
    const r = await parseGpx(text);
    const pts = fixture.points;
    let distance = 0;
    for (let i = 1; i < pts.length; i++) {
      const a = pts[i - 1] as { lat: number; lon: number };
      const b = pts[i] as { lat: number; lon: number };
      distance += haversineMeters(a.lat, a.lon, b.lat, b.lon);
    }
    const hr = pts.map((p) => p.hr as number);
    const power = pts.map((p) => p.power as number);
    const avg = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100;
    expect(r.workout.details).toEqual({
      distance: Math.round(distance * 10) / 10,
      movingTimeSeconds: 59,
      averageSpeed: Math.round((distance / 59) * 1000) / 1000,
      heartRateMin: Math.min(...hr),
      heartRateMax: Math.max(...hr),
      heartRateAvg: avg(hr),
      averageCadence: avg(pts.map((p) => p.cadence as number)),
      averageWatts: avg(power),
      maxWatts: Math.max(...power),
      maxSpeed: Math.max(...pts.map((p) => p.speed as number)),
      elevHigh: Math.max(...pts.map((p) => p.ele as number)),
      elevLow: Math.min(...pts.map((p) => p.ele as number)),
      totalElevationGain: elevationGain(pts.map((p) => p.ele as number)),
    });
    expect(r.workout.details.totalElevationGain).toBeGreaterThan(0);
  });

  it("reads a byte stream split anywhere, even inside a multi-byte character", async () => {
    const bytes = Buffer.from(writeGpxFile(fixture, { name: "Zürich Seerunde — 🏃" }));
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7));
    const r = await parseGpx(Readable.from(chunks));
    expect(r.samples).toHaveLength(60 * 7);
  });

  it("drops impossible values with a counted warning", async () => {
    const f = makeWorkoutFixture({ seconds: 10 });
    (f.points[1] as { hr: number }).hr = 0;
    (f.points[2] as { hr: number }).hr = 300;
    (f.points[3] as { lat: number }).lat = 91;
    (f.points[4] as { lon: number }).lon = -181;
    const r = await parseGpx(
      writeGpxFile(f).replace(
        `<time>${new Date(f.points[9]?.at as number).toISOString()}</time>`,
        "<time>yesterday</time>",
      ),
    );
    expect(series(r, SERIES.heartRate).size).toBe(7);
    expect(series(r, SERIES.latitude).size).toBe(7);
    expect(series(r, SERIES.longitude).size).toBe(7);
    expect(r.warnings).toEqual([
      { code: "out_of_range:1", message: "heart rate values outside 20..250 bpm dropped", count: 2 },
      { code: "out_of_range:210", message: "latitude values outside -90..90 ° dropped", count: 1 },
      { code: "out_of_range:211", message: "longitude values outside -180..180 ° dropped", count: 1 },
      { code: "point_without_time", message: "track points without a valid <time> dropped", count: 1 },
      // The fixture's loop (2.4 km) in 9 s: the track's average speed is impossible too.
      { code: "out_of_range:averageSpeed", message: "average speed outside 0..100 m/s dropped", count: 1 },
    ]);
    expect(r.workout.details.averageSpeed).toBeLessThan(5); // the samples' mean stands in
    expect(r.workout.end).toBe(f.points[8]?.at);
  });

  it("takes the sport from <type>, the provider from the creator, the zone from written offsets", async () => {
    const f = makeWorkoutFixture({ seconds: 5, sport: "cycling" });
    const r = await parseGpx(
      writeGpxFile(f, { creator: "StravaGPX", type: "Ride" }).replace(/Z<\/time>/g, "+02:00</time>"),
    );
    expect(r.device.provider).toBe("strava");
    expect(r.workout.type).toBe("cycling");
    expect(r.workout.zoneOffset).toBe("+02:00");
    expect(r.workout.start).toBe(f.start - 2 * 3600_000);
    expect(r.samples[0]?.zoneOffsetMinutes).toBe(120);
  });

  it("maps Strava's numeric <type> codes and its words", async () => {
    const f = makeWorkoutFixture({ seconds: 5 });
    const typeOf = async (type: string, name?: string) =>
      (await parseGpx(writeGpxFile(f, { creator: "StravaGPX", type, ...(name ? { name } : {}) }))).workout.type;
    expect(await typeOf("16")).toBe("swimming");
    expect(await typeOf("1")).toBe("cycling");
    expect(await typeOf("9")).toBe("running");
    expect(await typeOf("10")).toBe("walking");
    expect(await typeOf("4")).toBe("hiking");
    expect(await typeOf("cycling")).toBe("cycling");
    expect(await typeOf("running")).toBe("running");
    expect(await typeOf("999", "Morning Swim")).toBe("swimming");
    expect(await typeOf("999", "Lunch")).toBe("other");
  });

  it("refuses malformed, truncated, hostile and foreign XML with a clear error", async () => {
    expect(await errorOf(parseGpx(text.slice(0, text.length / 2)))).toMatchObject({ code: "malformed" });
    expect((await errorOf(parseGpx("garbage \u0000 not xml"))).code).toBe("malformed");
    const bomb = `<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><gpx>&b;</gpx>`;
    const e = await errorOf(parseGpx(bomb));
    expect(e.code).toBe("malformed");
    expect(e.message).toContain("DOCTYPE");
    expect((await errorOf(parseGpx('<?xml version="1.0"?><kml></kml>'))).code).toBe("not_a_workout_file");
    expect((await errorOf(parseGpx('<gpx version="1.1"><trk><trkseg></trkseg></trk></gpx>'))).code).toBe("no_data");
  });
});
