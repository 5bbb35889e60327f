/**
 * FIT files written with Garmin's SDK Encoder, read back value by value: the device, the workout and its
 * totals, every per-second sample; impossible values dropped and counted; damaged files refused whole.
 */
import { Decoder, Encoder, Stream } from "@garmin/fitsdk";
import { describe, expect, it } from "vitest";
import { putMesg, writeCompressedTimestampFitFile, writeFitFile } from "../testing/fitFile.ts";
import { makeWorkoutFixture } from "../testing/workoutFixture.ts";
import { parseFit, workoutTypeOfFitSport } from "./fit.ts";
import { expandCompressedTimestamps } from "./fitCompressedTimestamps.ts";
import { elevationGain, SERIES, WorkoutFileError, type WorkoutFileImport } from "./workoutFile.ts";

const series = (r: WorkoutFileImport, type: number) =>
  new Map(r.samples.filter((s) => s.seriesType === type).map((s) => [s.recordedAt, s.value]));

const errorOf = (f: () => unknown): WorkoutFileError => {
  try {
    f();
  } catch (e) {
    if (e instanceof WorkoutFileError) return e;
    throw e;
  }
  throw new Error("no error thrown");
};

describe("parseFit", () => {
  const fixture = makeWorkoutFixture({ seconds: 90, withPower: true });
  const bytes = writeFitFile(fixture, { totalAscent: 14, totalStrides: 640 });
  const result = parseFit(bytes);

  it("reads the device and the workout from file_id, device_info, session and activity", () => {
    expect(result.device).toEqual({
      provider: "garmin",
      deviceModel: "Forerunner 945",
      softwareVersion: "12.3",
      source: "fit_file",
      originalSourceName: "garmin",
    });
    expect(result.workout.type).toBe("running");
    expect(result.workout.start).toBe(fixture.start);
    expect(result.workout.end).toBe(fixture.start + 90_000);
    expect(result.workout.zoneOffset).toBe("+01:00");
    expect(result.warnings).toEqual([]);
  });

  it("takes the session's totals", () => {
    const pts = fixture.points;
    const hr = pts.map((p) => p.hr as number);
    const speed = pts.map((p) => p.speed as number);
    const power = pts.map((p) => p.power as number);
    const cadence = pts.map((p) => p.cadence as number);
    const ele = pts.map((p) => p.ele as number);
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const d = result.workout.details;
    expect(d.heartRateMin).toBe(Math.min(...hr));
    expect(d.heartRateMax).toBe(Math.max(...hr));
    expect(d.heartRateAvg).toBe(Math.round(avg(hr)));
    expect(d.energyBurned).toBe(fixture.calories);
    expect(d.distance).toBeCloseTo(pts[pts.length - 1]?.distance as number, 2);
    expect(d.stepsCount).toBe(1280);
    expect(d.averageSpeed).toBeCloseTo(avg(speed), 3);
    expect(d.maxSpeed).toBeCloseTo(Math.max(...speed), 3);
    expect(d.averageCadence).toBe(Math.round(avg(cadence)));
    expect(d.averageWatts).toBe(Math.round(avg(power)));
    expect(d.maxWatts).toBe(Math.max(...power));
    expect(d.movingTimeSeconds).toBe(90);
    expect(d.totalElevationGain).toBe(14);
    expect(d.elevHigh).toBeCloseTo(Math.max(...ele), 0);
    expect(d.elevLow).toBeCloseTo(Math.min(...ele), 0);
  });

  it("turns every record into heart rate, speed, cadence, power, elevation and position samples", () => {
    const hr = series(result, SERIES.heartRate);
    const speed = series(result, SERIES.speed);
    const cadence = series(result, SERIES.cadence);
    const power = series(result, SERIES.power);
    const ele = series(result, SERIES.elevation);
    const lat = series(result, SERIES.latitude);
    const lon = series(result, SERIES.longitude);
    for (const map of [hr, speed, cadence, power, ele, lat, lon]) expect(map.size).toBe(90);
    expect(result.samples).toHaveLength(90 * 7);
    for (const p of fixture.points) {
      expect(hr.get(p.at)).toBe(p.hr);
      expect(speed.get(p.at)).toBeCloseTo(p.speed as number, 3);
      expect(cadence.get(p.at)).toBe(p.cadence);
      expect(power.get(p.at)).toBe(p.power);
      // FIT altitude has a 0.2 m resolution, positions 180/2^31 degrees.
      expect(Math.abs((ele.get(p.at) as number) - (p.ele as number))).toBeLessThanOrEqual(0.1 + 1e-9);
      expect(lat.get(p.at)).toBeCloseTo(p.lat as number, 6);
      expect(lon.get(p.at)).toBeCloseTo(p.lon as number, 6);
    }
    expect(result.samples.every((s) => s.zoneOffsetMinutes === 60)).toBe(true);
  });

  it("derives from the records what the session lacks", () => {
    const f = makeWorkoutFixture({ seconds: 30 });
    const e = new Encoder();
    putMesg(e, "FILE_ID", {
      type: "activity",
      manufacturer: "wahooFitness",
      product: 31,
      timeCreated: new Date(f.start),
    });
    for (const p of f.points)
      putMesg(e, "RECORD", {
        timestamp: new Date(p.at),
        heartRate: p.hr,
        enhancedAltitude: p.ele,
        distance: p.distance,
      });
    const r = parseFit(e.close());
    const hr = f.points.map((p) => p.hr as number);
    expect(r.device.provider).toBe("unknown");
    expect(r.workout.type).toBe("other");
    expect(r.workout.start).toBe(f.start);
    expect(r.workout.end).toBe(f.points[29]?.at);
    expect(r.workout.zoneOffset).toBeNull();
    expect(r.workout.details.heartRateMin).toBe(Math.min(...hr));
    expect(r.workout.details.heartRateMax).toBe(Math.max(...hr));
    expect(r.workout.details.distance).toBe(f.points[29]?.distance);
    const ele = r.samples.filter((s) => s.seriesType === SERIES.elevation).map((s) => s.value);
    expect(r.workout.details.totalElevationGain).toBe(elevationGain(ele));
  });

  it("drops impossible values with a counted warning and stores none of them", () => {
    const f = makeWorkoutFixture({ seconds: 20 });
    (f.points[3] as { hr: number }).hr = 0;
    (f.points[4] as { hr: number }).hr = 252;
    (f.points[5] as { lat: number }).lat = 95;
    const r = parseFit(writeFitFile(f));
    expect(series(r, SERIES.heartRate).size).toBe(18);
    expect(series(r, SERIES.heartRate).has(f.points[3]?.at as number)).toBe(false);
    expect(series(r, SERIES.latitude).size).toBe(19);
    expect(r.samples.every((s) => s.seriesType !== SERIES.heartRate || (s.value >= 20 && s.value <= 250))).toBe(true);
    expect(r.warnings).toEqual([
      { code: "out_of_range:1", message: "heart rate values outside 20..250 bpm dropped", count: 2 },
      { code: "out_of_range:210", message: "latitude values outside -90..90 ° dropped", count: 1 },
      // The session's extremes, computed over the same impossible values, are dropped too: the samples' stand in.
      { code: "out_of_range:heartRateMin", message: "minimum heart rate outside 20..250 bpm dropped", count: 1 },
      { code: "out_of_range:heartRateMax", message: "maximum heart rate outside 20..250 bpm dropped", count: 1 },
    ]);
    const hr = [...series(r, SERIES.heartRate).values()];
    expect(r.workout.details).toMatchObject({ heartRateMin: Math.min(...hr), heartRateMax: Math.max(...hr) });
  });

  it("reports no heart rate (null, not 0) for a ride without a sensor (HR 0 in records and session)", () => {
    const f = makeWorkoutFixture({ seconds: 20, sport: "cycling", withPower: true });
    for (const p of f.points) (p as { hr: number }).hr = 0;
    const r = parseFit(writeFitFile(f));
    expect(series(r, SERIES.heartRate).size).toBe(0);
    expect(r.workout.details).toMatchObject({ heartRateMin: null, heartRateMax: null, heartRateAvg: null });
    expect(r.workout.details.averageWatts).toBeGreaterThan(0);
    expect(r.warnings.map((w) => [w.code, w.count])).toEqual([
      ["out_of_range:1", 20],
      ["out_of_range:heartRateMin", 1],
      ["out_of_range:heartRateMax", 1],
      ["out_of_range:heartRateAvg", 1],
    ]);
  });

  it("refuses a file with a bad CRC, a truncated file, garbage and a non-activity file", () => {
    const bad = bytes.slice();
    bad[200] = (bad[200] as number) ^ 0x5a;
    expect(errorOf(() => parseFit(bad))).toMatchObject({
      code: "bad_crc",
      message: "FIT file is damaged: its CRC does not match",
    });
    expect(errorOf(() => parseFit(bytes.slice(0, bytes.length - 40))).code).toBe("truncated");
    expect(errorOf(() => parseFit(bytes.slice(0, 5))).code).toBe("truncated");
    const garbage = new Uint8Array(500).map((_, i) => (i * 7919) % 251);
    expect(errorOf(() => parseFit(garbage))).toMatchObject({ name: "WorkoutFileError", code: "not_a_workout_file" });
    const e = new Encoder();
    putMesg(e, "FILE_ID", { type: "settings", manufacturer: "garmin", product: 1, timeCreated: new Date() });
    expect(errorOf(() => parseFit(e.close())).code).toBe("not_a_workout_file");
    const empty = new Encoder();
    putMesg(empty, "FILE_ID", { type: "activity", manufacturer: "garmin", product: 1, timeCreated: new Date() });
    expect(errorOf(() => parseFit(empty.close())).code).toBe("no_data");
  });

  it("decodes compressed-timestamp records (which Garmin's SDK refuses) at their full times", () => {
    const f = makeWorkoutFixture({ seconds: 100, start: Date.UTC(2026, 2, 1, 6, 30, 17) });
    const compressed = writeCompressedTimestampFitFile(f, 40);
    const sdk = new Decoder(Stream.fromByteArray(compressed)).read();
    expect(String(sdk.errors[0])).toMatch(/compressed timestamp messages are not currently supported/);
    const r = parseFit(compressed);
    expect(r.warnings).toEqual([]);
    expect(r.workout).toMatchObject({ type: "other", start: f.start, end: f.start + 99_000 });
    expect(r.device).toMatchObject({ provider: "garmin" });
    const hr = series(r, SERIES.heartRate);
    const speed = series(r, SERIES.speed);
    expect(hr.size).toBe(100);
    for (const p of f.points) {
      expect(hr.get(p.at)).toBe(p.hr);
      expect(speed.get(p.at)).toBe(Math.round((p.speed as number) * 1000) / 1000);
    }
    expect(r.workout.details.distance).toBe(f.points[99]?.distance);
    // A file without compressed records is left byte for byte.
    expect(expandCompressedTimestamps(bytes)).toBe(bytes);
    // Chained files (several FIT files in one), each counting from its own timestamps.
    const later = makeWorkoutFixture({ seconds: 50, start: f.start + 3_600_000 + 12_000 });
    const second = writeCompressedTimestampFitFile(later, 17);
    const chain = new Uint8Array(compressed.length + second.length);
    chain.set(compressed);
    chain.set(second, compressed.length);
    const both = series(parseFit(chain), SERIES.heartRate);
    expect([...both.keys()]).toEqual([...f.points, ...later.points].map((p) => p.at));
  });

  it("maps FIT sports to the anchor's workout types", () => {
    expect(workoutTypeOfFitSport("running", "trail")).toBe("trail_running");
    expect(workoutTypeOfFitSport("running", "treadmill")).toBe("treadmill");
    expect(workoutTypeOfFitSport("cycling", "indoorCycling")).toBe("indoor_cycling");
    expect(workoutTypeOfFitSport("cycling", "mountain")).toBe("mountain_biking");
    expect(workoutTypeOfFitSport("swimming", "lapSwimming")).toBe("pool_swimming");
    expect(workoutTypeOfFitSport("swimming", "openWater")).toBe("open_water_swimming");
    expect(workoutTypeOfFitSport("training", "strengthTraining")).toBe("strength_training");
    expect(workoutTypeOfFitSport("walking", undefined)).toBe("walking");
    expect(workoutTypeOfFitSport("hiking", undefined)).toBe("hiking");
    expect(workoutTypeOfFitSport("standUpPaddleboarding", undefined)).toBe("stand_up_paddleboarding");
    expect(workoutTypeOfFitSport("flying", undefined)).toBe("other");
  });
});
