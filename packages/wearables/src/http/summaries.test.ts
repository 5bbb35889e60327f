/**
 * The summaries over HTTP against the real database, seeded through the health data writer, every number
 * hand-computed: local days from zone offsets, "prefer the daily total", active and intensity minutes
 * (max HR 220 − 35 = 185: light 92–116, moderate 117–140, vigorous 141–172), source priority, sleep days by
 * wake-up date with naps apart, recovery from the night, the body summary's windows, data counts, pages
 * across inserts, and every bad parameter.
 */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHealthDataWriter, type DataSourceRef, type SampleInput } from "../store/healthDataWriter.ts";
import { summariesTestService } from "./summaries.testService.ts";

let s: TestService;
const writer = createHealthDataWriter();
let userId: string;
let emptyUserId: string;
let watch: DataSourceRef;
let phone: DataSourceRef;
let garmin: DataSourceRef;
const NOW = Date.parse("2026-03-10T12:00:00Z");
const at = (iso: string) => Date.parse(iso);

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any;
const get = async (path: string) => {
  const res = await fetch(`${s.url}/api/v1${path}`, { headers: { "X-Service-API-Key": s.apiKey } });
  return { status: res.status, body: (await res.json()) as Json };
};
const samples = (source: DataSourceRef, list: [string, number, string, boolean?][], offset = 60) =>
  s.database.db.transaction((tx) =>
    writer.writeSamples(
      tx,
      source,
      list.map(
        ([code, value, time, daily]): SampleInput => ({
          seriesType: SERIES[code] as number,
          recordedAt: at(time),
          value,
          zoneOffsetMinutes: offset,
          isDailyTotal: daily ?? null,
        }),
      ),
    ),
  );
const SERIES: Record<string, number> = {
  heart_rate: 1,
  resting_heart_rate: 2,
  sdnn: 3,
  spo2: 20,
  bp_sys: 22,
  bp_dia: 23,
  resp: 24,
  height: 40,
  weight: 41,
  body_fat: 42,
  body_temp: 45,
  skin_temp: 46,
  steps: 80,
  energy: 81,
  basal: 82,
  flights: 86,
  active_time: 88,
  distance: 100,
};

beforeAll(async () => {
  s = await startTestService(summariesTestService(() => NOW));
  const [a, b] = await s.database.db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('sum@example.com'), ('none@example.com') RETURNING id",
  );
  userId = a?.id as string;
  emptyUserId = b?.id as string;
  await s.database.db.query("INSERT INTO wearables.personal_records (user_id, birth_date) VALUES ($1, '1990-06-15')", [
    userId,
  ]);
  await s.database.db.transaction(async (tx) => {
    watch = await writer.ensureDataSource(tx, userId, {
      provider: "apple",
      deviceModel: "Watch6,12",
      source: "com.apple.health",
      deviceType: "watch",
    });
    phone = await writer.ensureDataSource(tx, userId, {
      provider: "apple",
      deviceModel: "iPhone15,2",
      source: "com.apple.health.phone",
      deviceType: "phone",
    });
    garmin = await writer.ensureDataSource(tx, userId, { provider: "garmin", deviceModel: "Forerunner 255" });
  });

  // 2026-03-01 (+01:00), the watch: intraday steps in three minutes, heart rate in six.
  await samples(watch, [
    ["steps", 20, "2026-03-01T09:00:10Z"],
    ["steps", 15, "2026-03-01T09:00:40Z"], // 35 in 09:00 → active
    ["steps", 10, "2026-03-01T09:01:00Z"], // sedentary
    ["steps", 40, "2026-03-01T09:02:00Z"], // active
    ["steps", 7, "2026-03-01T23:30:00Z"], // 00:30 local on 03-02
    ["heart_rate", 100, "2026-03-01T10:00:00Z"],
    ["heart_rate", 110, "2026-03-01T10:00:30Z"], // minute mean 105: light
    ["heart_rate", 130, "2026-03-01T10:01:00Z"], // moderate
    ["heart_rate", 150, "2026-03-01T10:02:00Z"], // vigorous
    ["heart_rate", 60, "2026-03-01T10:03:00Z"], // below 50 %
    ["heart_rate", 180, "2026-03-01T10:04:00Z"], // above 93 %
    ["energy", 100.5, "2026-03-01T10:00:00Z"],
    ["energy", 50.25, "2026-03-01T11:00:00Z"],
    ["basal", 1600, "2026-03-01T12:00:00Z", true],
    ["basal", 70, "2026-03-01T12:05:00Z"], // an intraday sample: the daily total wins
    ["distance", 1200, "2026-03-01T09:00:00Z"],
    ["distance", 300.5, "2026-03-01T09:30:00Z"],
  ]);
  // The phone counted more steps that day, but a watch outranks a phone.
  await samples(phone, [
    ["steps", 5000, "2026-03-01T12:00:00Z", true],
    ["steps", 3000, "2026-03-01T13:00:00Z"],
  ]);
  // Garmin: daily totals on 03-02 (Apple outranks it) and 03-03 (alone).
  await samples(
    garmin,
    [
      ["steps", 9000, "2026-03-02T12:00:00Z", true],
      ["steps", 8000, "2026-03-03T12:00:00Z", true],
      ["steps", 500, "2026-03-03T12:01:00Z"],
      ["flights", 12, "2026-03-03T12:00:00Z", true],
      ["active_time", 45, "2026-03-03T12:00:00Z", true],
    ],
    0,
  );
  await s.database.db.transaction(async (tx) => {
    await writer.writeWorkout(tx, userId, watch, {
      type: "hiking",
      start: at("2026-03-01T14:00:00Z"),
      end: at("2026-03-01T16:00:00Z"),
      zoneOffset: "+01:00",
      details: { totalElevationGain: 31, distance: 5000 },
    });
    // The night to 2026-03-02 (+01:00): the watch's main sleep and nap, the phone's (outranked) sleep.
    await writer.writeSleep(tx, userId, watch, {
      start: at("2026-03-01T22:00:00Z"),
      end: at("2026-03-02T05:00:00Z"),
      zoneOffset: "+01:00",
      details: {
        isNap: false,
        totalDurationMinutes: 390,
        timeInBedMinutes: 420,
        efficiencyScore: 90,
        deepMinutes: 80,
        remMinutes: 90,
        lightMinutes: 220,
        awakeMinutes: 30,
        stages: [],
      },
    });
    await writer.writeSleep(tx, userId, watch, {
      start: at("2026-03-02T12:00:00Z"),
      end: at("2026-03-02T12:30:00Z"),
      zoneOffset: "+01:00",
      details: { isNap: true, totalDurationMinutes: 25, stages: [] },
    });
    await writer.writeSleep(tx, userId, phone, {
      start: at("2026-03-01T21:00:00Z"),
      end: at("2026-03-02T06:00:00Z"),
      zoneOffset: "+01:00",
      details: { isNap: false, totalDurationMinutes: 500, stages: [] },
    });
    // The night to 2026-03-03: Garmin only, no details (wall clock counts).
    await writer.writeSleep(tx, userId, garmin, {
      start: at("2026-03-02T23:00:00Z"),
      end: at("2026-03-03T06:00:00Z"),
      zoneOffset: "+00:00",
      details: { isNap: false, stages: [] },
    });
  });
  // During the 03-02 main sleep (and one heart rate sample after it).
  await samples(watch, [
    ["heart_rate", 50, "2026-03-02T01:00:00Z"],
    ["heart_rate", 56, "2026-03-02T02:00:00Z"],
    ["heart_rate", 90, "2026-03-02T05:00:00Z"],
    ["sdnn", 45, "2026-03-02T03:00:00Z"],
    ["spo2", 97, "2026-03-02T03:00:00Z"],
    ["resp", 14, "2026-03-02T03:00:00Z"],
    ["resting_heart_rate", 52, "2026-03-02T08:00:00Z"],
    ["resting_heart_rate", 55, "2026-03-02T20:00:00Z"], // 21:00 local, same day: mean 53.5 → 54
  ]);
  // A provider recovery score on 03-03 (no data source).
  await s.database.db.query(
    `INSERT INTO wearables.health_scores (user_id, provider, category, value, recorded_at, components)
     VALUES ($1, 'whoop', 'recovery', 67, '2026-03-03T08:00:00Z', $2)`,
    [
      userId,
      JSON.stringify({
        resting_heart_rate: { value: 48 },
        hrv_rmssd_milli: { value: 80.5 },
        spo2_percentage: { value: 95 },
      }),
    ],
  );
  // Body: weights, height, body fat (phone); vitals of the last week; readings of the last hours.
  await samples(
    phone,
    [
      ["height", 180, "2026-01-01T08:00:00Z"],
      ["weight", 72.5, "2026-03-05T08:00:00Z"],
      ["weight", 73, "2026-03-09T08:00:00Z"],
      ["body_fat", 18.5, "2026-03-08T08:00:00Z"],
      ["resting_heart_rate", 60, "2026-03-05T08:00:00Z"],
      ["resting_heart_rate", 61, "2026-03-06T08:00:00Z"],
      ["sdnn", 40, "2026-03-05T08:00:00Z"],
      ["sdnn", 51, "2026-03-06T08:00:00Z"],
      ["body_temp", 36.6, "2026-03-10T10:00:00Z"],
      ["skin_temp", 33.1, "2026-03-10T06:00:00Z"],
      ["bp_sys", 120, "2026-03-10T11:00:00Z"],
      ["bp_dia", 80, "2026-03-10T11:00:03Z"],
    ],
    0,
  );
});
afterAll(() => s.close());

const WATCH_SOURCE = {
  provider: "apple",
  source: "com.apple.health",
  device: "Watch6,12",
  device_type: "watch",
  device_name: expect.stringContaining("Apple Watch"),
};

describe("GET /summaries/activity", () => {
  it("sums each local day of the preferred source, with the anchor's rules", async () => {
    const { status, body } = await get(`/users/${userId}/summaries/activity?start_date=2026-03-01&end_date=2026-03-04`);
    expect(status).toBe(200);
    expect(body.data.map((d: Json) => [d.date, d.source.provider, d.source.device])).toEqual([
      ["2026-03-01", "apple", "Watch6,12"],
      ["2026-03-02", "apple", "Watch6,12"],
      ["2026-03-03", "garmin", "Forerunner 255"],
    ]);
    expect(body.data[0]).toEqual({
      date: "2026-03-01",
      source: WATCH_SOURCE,
      steps: 85,
      distance_meters: 1500.5,
      floors_climbed: 10, // no flights: 31 m of hiking / 3
      elevation_meters: 31,
      active_calories_kcal: 150.75,
      total_calories_kcal: 1750.75, // + 1600 basal (the daily total wins)
      active_minutes: 2,
      sedentary_minutes: 1,
      intensity_minutes: { light: 1, moderate: 1, vigorous: 1 },
      heart_rate: { avg_bpm: 122, max_bpm: 180, min_bpm: 60 }, // 730 / 6 = 121.7
    });
    expect(body.data[1]).toMatchObject({ date: "2026-03-02", steps: 7, heart_rate: { avg_bpm: 65 } });
    expect(body.data[2]).toEqual({
      date: "2026-03-03",
      source: {
        provider: "garmin",
        source: null,
        device: "Forerunner 255",
        device_type: null,
        device_name: "Forerunner 255",
      },
      steps: 8000, // the daily total, not + 500
      distance_meters: null,
      floors_climbed: 12,
      elevation_meters: null,
      active_calories_kcal: 0,
      total_calories_kcal: 0,
      active_minutes: 45, // the provider's active time, not the one minute of ≥ 30 steps
      sedentary_minutes: 0,
      intensity_minutes: null,
      heart_rate: null,
    });
    expect(body.pagination).toEqual({ next_cursor: null, previous_cursor: null, has_more: false, total_count: null });
    expect(body.metadata).toEqual({
      resolution: null,
      sample_count: 3,
      start_time: "2026-03-01T00:00:00.000Z",
      end_time: "2026-03-04T00:00:00.000Z",
    });
  });

  it("pages by date both ways, in either order, and stays put while days are added", async () => {
    const base = `/users/${userId}/summaries/activity?start_date=2026-02-01&end_date=2026-03-04`;
    const first = await get(`${base}&limit=2&sort_order=desc`);
    expect(first.body.data.map((d: Json) => d.date)).toEqual(["2026-03-03", "2026-03-02"]);
    expect(first.body.pagination.has_more).toBe(true);
    await samples(watch, [["steps", 1234, "2026-02-20T12:00:00Z"]]);
    const second = await get(`${base}&limit=2&sort_order=desc&cursor=${first.body.pagination.next_cursor}`);
    expect(second.body.data.map((d: Json) => d.date)).toEqual(["2026-03-01", "2026-02-20"]);
    expect(second.body.pagination.has_more).toBe(false);
    const back = await get(`${base}&limit=2&sort_order=desc&cursor=${second.body.pagination.previous_cursor}`);
    expect(back.body.data.map((d: Json) => d.date)).toEqual(["2026-03-03", "2026-03-02"]);
    const asc = await get(`${base}&limit=1`);
    expect(asc.body.data.map((d: Json) => d.date)).toEqual(["2026-02-20"]);
  });

  it("answers an unknown user with no data", async () => {
    const { status, body } = await get(
      `/users/00000000-0000-4000-8000-000000000000/summaries/activity?start_date=2026-03-01&end_date=2026-03-04`,
    );
    expect(status).toBe(200);
    expect(body.data).toEqual([]);
  });
});

describe("GET /summaries/sleep", () => {
  it("groups by wake-up date, keeps naps apart, averages vitals over the main sleep", async () => {
    const { status, body } = await get(`/users/${userId}/summaries/sleep?start_date=2026-03-01&end_date=2026-03-04`);
    expect(status).toBe(200);
    expect(body.data).toHaveLength(2);
    expect(body.data[0]).toEqual({
      date: "2026-03-02",
      source: WATCH_SOURCE, // the watch outranks the phone's longer night
      start_time: "2026-03-01T22:00:00.000Z",
      end_time: "2026-03-02T05:00:00.000Z",
      zone_offset: "+01:00",
      duration_minutes: 390,
      total_duration_minutes: 420, // + the 30-minute nap (its wall clock)
      time_in_bed_minutes: 420,
      efficiency_percent: 90,
      stages: { awake_minutes: 30, light_minutes: 220, deep_minutes: 80, rem_minutes: 90 },
      interruptions_count: null,
      nap_count: 1,
      nap_duration_minutes: 30,
      sessions: [
        {
          start_time: "2026-03-01T22:00:00.000Z",
          end_time: "2026-03-02T05:00:00.000Z",
          zone_offset: "+01:00",
          duration_minutes: 390,
          is_nap: false,
        },
        {
          start_time: "2026-03-02T12:00:00.000Z",
          end_time: "2026-03-02T12:30:00.000Z",
          zone_offset: "+01:00",
          duration_minutes: 30,
          is_nap: true,
        },
      ],
      avg_heart_rate_bpm: 53, // 50 and 56; 90 at 05:00 is after the end
      avg_hrv_sdnn_ms: 45,
      avg_hrv_rmssd_ms: null,
      avg_respiratory_rate: 14,
      avg_spo2_percent: 97,
    });
    expect(body.data[1]).toMatchObject({
      date: "2026-03-03",
      source: { provider: "garmin" },
      duration_minutes: 420,
      stages: null,
      efficiency_percent: null,
      nap_count: 0,
    });
  });

  it("pages with the anchor's timestamp|id cursors", async () => {
    const base = `/users/${userId}/summaries/sleep?start_date=2026-03-01&end_date=2026-03-04&limit=1`;
    const first = await get(base);
    expect(first.body.data.map((d: Json) => d.date)).toEqual(["2026-03-02"]);
    const cursor = first.body.pagination.next_cursor as string;
    expect(Buffer.from(cursor, "base64url").toString()).toMatch(/^2026-03-02T00:00:00\+00:00\|[0-9a-f-]{36}$/);
    const second = await get(`${base}&cursor=${cursor}`);
    expect(second.body.data.map((d: Json) => d.date)).toEqual(["2026-03-03"]);
    expect(second.body.pagination).toMatchObject({ has_more: false, next_cursor: null });
  });
});

describe("GET /summaries/recovery", () => {
  it("answers from the night, and from the provider's recovery score when there is one", async () => {
    const { status, body } = await get(`/users/${userId}/summaries/recovery?start_date=2026-03-01&end_date=2026-03-04`);
    expect(status).toBe(200);
    expect(body.data).toEqual([
      {
        date: "2026-03-02",
        source: WATCH_SOURCE,
        sleep_duration_seconds: 23_400,
        sleep_efficiency_percent: 90,
        resting_heart_rate_bpm: 54, // 53.5, half to even
        avg_hrv_sdnn_ms: 45,
        avg_hrv_rmssd_ms: null, // the watch records SDNN only
        avg_spo2_percent: 97,
        recovery_score: null,
      },
      {
        date: "2026-03-03",
        source: { provider: "whoop", source: null, device: null, device_type: null, device_name: null },
        sleep_duration_seconds: 25_200,
        sleep_efficiency_percent: null,
        resting_heart_rate_bpm: 48,
        avg_hrv_sdnn_ms: 80.5,
        avg_hrv_rmssd_ms: 80.5, // the score's RMSSD component, which the anchor also puts in the SDNN field
        avg_spo2_percent: 95,
        recovery_score: 67,
      },
    ]);
  });
});

describe("GET /summaries/body", () => {
  it("gives the latest values, the week's averages and the recent readings", async () => {
    const { status, body } = await get(`/users/${userId}/summaries/body`);
    expect(status).toBe(200);
    expect(body).toEqual({
      source: {
        provider: "apple",
        source: "com.apple.health.phone",
        device: "iPhone15,2",
        device_type: "phone",
        device_name: expect.stringContaining("iPhone"),
      },
      slow_changing: {
        weight_kg: 73,
        height_cm: 180,
        body_fat_percent: 18.5,
        muscle_mass_kg: null,
        bmi: 22.5,
        age: 35,
      },
      averaged: {
        period_days: 7,
        resting_heart_rate_bpm: 60, // 60.5, half to even
        avg_hrv_sdnn_ms: 45.5,
        avg_hrv_rmssd_ms: null,
        period_start: "2026-03-03T12:00:00.000Z",
        period_end: "2026-03-10T12:00:00.000Z",
      },
      latest: {
        body_temperature_celsius: 36.6,
        body_temperature_measured_at: "2026-03-10T10:00:00.000Z",
        skin_temperature_celsius: null, // 6 hours ago
        skin_temperature_measured_at: null,
        blood_pressure: {
          avg_systolic_mmhg: 120,
          avg_diastolic_mmhg: 80,
          max_systolic_mmhg: null,
          max_diastolic_mmhg: null,
          min_systolic_mmhg: null,
          min_diastolic_mmhg: null,
          reading_count: 1,
        },
        blood_pressure_measured_at: "2026-03-10T11:00:03.000Z",
      },
    });
  });

  it("follows average_period and latest_window_hours", async () => {
    const { body } = await get(`/users/${userId}/summaries/body?average_period=1&latest_window_hours=8`);
    expect(body.averaged).toMatchObject({ period_days: 1, resting_heart_rate_bpm: null, avg_hrv_sdnn_ms: null });
    expect(body.latest).toMatchObject({ skin_temperature_celsius: 33.1 });
  });

  it("is null for a user without body data", async () => {
    const { status, body } = await get(`/users/${emptyUserId}/summaries/body`);
    expect(status).toBe(200);
    expect(body).toBeNull();
  });
});

describe("GET /summaries/data", () => {
  it("counts samples and events per type and provider, optionally within a window", async () => {
    const all = await get(`/users/${userId}/summaries/data`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      user_id: userId,
      total_workouts: 1,
      total_sleep_events: 4,
      workout_type_counts: { hiking: 1 },
      has_womens_health_data: false,
    });
    expect(all.body.series_type_counts.heart_rate).toBe(9);
    expect(all.body.by_provider.map((p: Json) => p.provider)).toEqual(["apple", "garmin"]);
    expect(all.body.by_provider[1]).toEqual({
      provider: "garmin",
      data_points: 5,
      series_counts: { steps: 3, active_time: 1, flights_climbed: 1 },
      workout_count: 0,
      sleep_count: 1,
    });
    const window = await get(`/users/${userId}/summaries/data?start_date=2026-03-03&end_date=2026-03-04`);
    expect(window.body.by_provider).toEqual([
      { provider: "garmin", data_points: 4, series_counts: expect.any(Object), workout_count: 0, sleep_count: 0 },
    ]);
    const none = await get(`/users/${emptyUserId}/summaries/data`);
    expect(none.body).toMatchObject({ total_data_points: 0, by_provider: [], series_type_counts: {} });
  });
});

describe("GET /summaries/data/timeline", () => {
  it("counts per day or week, grouped by provider, series type or workout type, as /summaries/data does", async () => {
    const total = (await get(`/users/${userId}/summaries/data`)).body;
    const sum = (series: Json[]) =>
      series.reduce((n: number, x: Json) => n + x.buckets.reduce((m: number, b: [string, number]) => m + b[1], 0), 0);
    const byProvider = await get(`/users/${userId}/summaries/data/timeline`);
    expect(byProvider.status).toBe(200);
    expect(byProvider.body.bucket).toBe("day");
    expect(byProvider.body.group_by).toBe("provider");
    const points = byProvider.body.series.filter((x: Json) => x.metric === "data_points");
    expect(points.map((x: Json) => x.key)).toEqual(["apple", "garmin"]);
    expect(sum(points)).toBe(total.total_data_points);
    expect(sum(byProvider.body.series.filter((x: Json) => x.metric === "workouts"))).toBe(total.total_workouts);
    for (const x of byProvider.body.series) {
      const days = x.buckets.map((b: [string, number]) => b[0]);
      expect(days).toEqual([...days].sort());
      for (const d of days) expect(d).toMatch(/^\d{4}-\d\d-\d\d$/);
    }
    const byType = await get(`/users/${userId}/summaries/data/timeline?group_by=series_type&bucket=week`);
    const heartRate = byType.body.series.find((x: Json) => x.key === "heart_rate");
    expect(sum([heartRate])).toBe(total.series_type_counts.heart_rate);
    for (const [week] of heartRate.buckets) expect(new Date(`${week}T00:00:00Z`).getUTCDay()).toBe(1);
    const workouts = await get(`/users/${userId}/summaries/data/timeline?group_by=workout_type`);
    expect(workouts.body.series.map((x: Json) => [x.key, x.metric, sum([x])])).toEqual([["hiking", "workouts", 1]]);
    const garmin = await get(`/users/${userId}/summaries/data/timeline?provider=garmin`);
    expect(garmin.body.series.map((x: Json) => x.key)).toEqual(["garmin"]);
    expect((await get(`/users/${userId}/summaries/data/timeline?provider=google`)).body.series).toEqual([]);
    for (const bad of ["bucket=month", "group_by=device", "provider=fitbit2", "start_date=soon"]) {
      expect((await get(`/users/${userId}/summaries/data/timeline?${bad}`)).status, bad).toBe(400);
    }
  });
});

describe("bad input", () => {
  it("answers 400 with the anchor's messages, never 500", async () => {
    const u = `/users/${userId}/summaries`;
    const cases: [string, RegExp][] = [
      [
        `${u}/activity?start_date=yesterday&end_date=2026-03-04`,
        /^Invalid datetime format: 'yesterday'\. Expected ISO/,
      ],
      [`${u}/activity?start_date=2026-02-30&end_date=2026-03-04`, /Invalid datetime format/],
      [`${u}/activity?start_date=2026-03-04&end_date=2026-03-01`, /start_date must be before end_date/],
      [`${u}/activity?end_date=2026-03-04`, /start_date/],
      [`${u}/activity?start_date=2026-03-01&end_date=2026-03-04&limit=401`, /limit/],
      [`${u}/activity?start_date=2026-03-01&end_date=2026-03-04&limit=0`, /limit/],
      [`${u}/activity?start_date=2026-03-01&end_date=2026-03-04&sort_order=up`, /sort_order/],
      [`${u}/activity?start_date=2026-03-01&end_date=2026-03-04&cursor=!!!`, /^Invalid cursor format: '!!!'/],
      [`${u}/activity?start_date=2026-03-01&end_date=2026-03-04&cursor=bm90LWEtZGF0ZQ`, /Invalid cursor format/],
      [`${u}/sleep?start_date=2026-03-01&end_date=2026-03-04&limit=101`, /limit/],
      [`${u}/sleep?start_date=2026-03-01&end_date=2026-03-04&cursor=MjAyNi0wMy0wMg`, /Invalid cursor format/],
      [`${u}/recovery?start_date=1e400&end_date=2026-03-04`, /Invalid datetime format/],
      [`${u}/body?average_period=8`, /average_period/],
      [`${u}/body?latest_window_hours=0`, /latest_window_hours/],
      [`${u}/data?start_date=2026-03-04&end_date=2026-03-01`, /start_date must be before end_date/],
      [`/users/not-a-uuid/summaries/body`, /user_id/],
      [`/users/not-a-uuid/summaries/activity?start_date=2026-03-01&end_date=2026-03-04`, /user_id/],
    ];
    for (const [path, detail] of cases) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(body.detail, path).toMatch(detail);
    }
  });

  it("accepts Unix seconds and full datetimes", async () => {
    const start = Date.parse("2026-03-01T00:00:00Z") / 1000;
    const { status, body } = await get(
      `/users/${userId}/summaries/activity?start_date=${start}&end_date=2026-03-02T10:00:00%2B01:00`,
    );
    expect(status).toBe(200);
    expect(body.data.map((d: Json) => d.date)).toEqual(["2026-03-01"]);
  });

  it("documents every route in the OpenAPI document", async () => {
    const spec = await (await fetch(`${s.url}/openapi.json`)).json();
    for (const path of ["activity", "sleep", "recovery", "body", "data"]) {
      const op = spec.paths[`/api/v1/users/{user_id}/summaries/${path}`]?.get;
      expect(op, path).toMatchObject({ tags: ["Summaries"], operationId: expect.any(String) });
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(["200", "400", "401"]));
    }
  });
});
