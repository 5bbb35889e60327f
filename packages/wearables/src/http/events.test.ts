/**
 * Workouts and sleep sessions over HTTP against the real database, seeded through the health data writer:
 * the anchor's fields, newest first, the window rule (start ≥ start_date, end < end_date), the heart-rate
 * fallback, priority filtering, cursors across inserts, the deletes, and every bad parameter.
 */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wearablesService } from "../index.ts";
import { createHealthDataWriter, type DataSourceRef, type WorkoutInput } from "../store/healthDataWriter.ts";

let s: TestService;
const writer = createHealthDataWriter();
let userId: string;
let otherUserId: string;
let watch: DataSourceRef;
let garmin: DataSourceRef;
let otherSource: DataSourceRef;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2026-05-01T06:00:00Z */
const D0 = Date.UTC(2026, 4, 1, 6);

interface Envelope {
  data: Record<string, unknown>[];
  pagination: { next_cursor: string | null; previous_cursor: string | null; has_more: boolean; total_count: number };
  metadata: Record<string, unknown>;
  detail?: string;
}

const request = async (path: string, method = "GET") => {
  const res = await fetch(`${s.url}/api/v1${path}`, { method, headers: { "X-Service-API-Key": s.apiKey } });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Envelope };
};

const workout = (dayOffset: number, type: string, details: WorkoutInput["details"] = {}): WorkoutInput => ({
  type,
  start: D0 + dayOffset * DAY,
  end: D0 + dayOffset * DAY + HOUR,
  zoneOffset: "+02:00",
  details,
});

const addWorkout = (source: DataSourceRef, w: WorkoutInput, user = userId) =>
  s.database.db.transaction((tx) => writer.writeWorkout(tx, user, source, w));

/** A night of `source`; `laterMs` shifts its start (the garmin night of the same night starts after the watch's). */
const addSleep = (source: DataSourceRef, nightOffset: number, isNap = false, user = userId, laterMs = 0) =>
  s.database.db.transaction((tx) =>
    writer.writeSleep(tx, user, source, {
      start: D0 - 8 * HOUR + nightOffset * DAY + laterMs,
      end: D0 + nightOffset * DAY,
      zoneOffset: "+02:00",
      details: {
        isNap,
        totalDurationMinutes: 420,
        timeInBedMinutes: 480,
        efficiencyScore: 87.5,
        deepMinutes: 90,
        remMinutes: 100,
        lightMinutes: 230,
        awakeMinutes: 60,
        stages: [
          { stage: "light", start: D0 - 8 * HOUR + nightOffset * DAY, end: D0 - 4 * HOUR + nightOffset * DAY },
          { stage: "deep", start: D0 - 4 * HOUR + nightOffset * DAY, end: D0 + nightOffset * DAY },
        ],
      },
    }),
  );

const ids: Record<string, string> = {};

beforeAll(async () => {
  s = await startTestService(wearablesService);
  const [a, b] = await s.database.db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('ev@example.com'), ('ev2@example.com') RETURNING id",
  );
  userId = a?.id as string;
  otherUserId = b?.id as string;
  await s.database.db.transaction(async (tx) => {
    watch = await writer.ensureDataSource(tx, userId, {
      provider: "apple",
      deviceModel: "Watch7,5",
      deviceType: "watch",
    });
    garmin = await writer.ensureDataSource(tx, userId, {
      provider: "garmin",
      deviceModel: "Forerunner 255",
      deviceType: "watch",
    });
    otherSource = await writer.ensureDataSource(tx, otherUserId, { provider: "apple", deviceModel: "Watch7,5" });
  });
  ids.run = await addWorkout(
    watch,
    workout(0, "running", {
      heartRateAvg: 147.6,
      heartRateMax: 176,
      energyBurned: 512.4,
      distance: 8040,
      totalElevationGain: 64,
      heartRateMin: 92,
      stepsCount: 7480,
      averageSpeed: 2.98,
      maxSpeed: 4.1,
      averageCadence: 166,
      averageWatts: 250,
      maxWatts: 410,
      movingTimeSeconds: 2700,
      elevHigh: 212.4,
      elevLow: 148.6,
    }),
  );
  ids.ride = await addWorkout(garmin, workout(1, "cycling", {}));
  ids.trail = await addWorkout(watch, workout(2, "trail_running", { heartRateMax: 160 }));
  ids.yoga = await addWorkout(watch, workout(3, "yoga"));
  ids.walk = await addWorkout(watch, workout(4, "walking"));
  ids.foreign = await addWorkout(otherSource, workout(0, "running"), otherUserId);
  // Heart rate of the ride's source in its window (100, 110, 120 → 110) and outside it (ignored).
  await s.database.db.transaction((tx) =>
    writer.writeSamples(tx, garmin, [
      { seriesType: 1, recordedAt: D0 + DAY + 60_000, value: 100 },
      { seriesType: 1, recordedAt: D0 + DAY + 120_000, value: 110 },
      { seriesType: 1, recordedAt: D0 + DAY + 180_000, value: 120 },
      { seriesType: 1, recordedAt: D0 + DAY + 2 * HOUR, value: 200 },
    ]),
  );
  ids.night0 = await addSleep(watch, 0);
  ids.night1 = await addSleep(watch, 1);
  // Starts a minute after the watch's night: "newest first" is then one order, not a tie broken by random ids.
  ids.garminNight1 = await addSleep(garmin, 1, false, userId, 60_000);
  ids.garminNight2 = await addSleep(garmin, 2);
});
afterAll(() => s.close());

const RANGE = "start_date=2026-04-30&end_date=2026-05-10";

describe("GET /events/workouts", () => {
  it("answers the anchor's workout fields, newest first", async () => {
    const { status, body } = await request(`/users/${userId}/events/workouts?${RANGE}`);
    expect(status).toBe(200);
    expect(body.data.map((w) => w.type)).toEqual(["walking", "yoga", "trail_running", "cycling", "running"]);
    expect(body.data.at(-1)).toEqual({
      id: ids.run,
      type: "running",
      name: null,
      start_time: "2026-05-01T06:00:00.000Z",
      end_time: "2026-05-01T07:00:00.000Z",
      zone_offset: "+02:00",
      duration_seconds: 3600,
      source: {
        provider: "apple",
        source: null,
        device: "Watch7,5",
        device_type: "watch",
        device_name: "Apple Watch Ultra 2",
      },
      calories_kcal: 512.4,
      distance_meters: 8040,
      avg_heart_rate_bpm: 148,
      max_heart_rate_bpm: 176,
      // 2700 s moving over 8.04 km
      avg_pace_sec_per_km: 336,
      elevation_gain_meters: 64,
      entry_source: null,
      intensity: null,
      heart_rate_min: 92,
      steps_count: 7480,
      average_speed: 2.98,
      max_speed: 4.1,
      average_cadence: 166,
      average_watts: 250,
      max_watts: 410,
      moving_time_seconds: 2700,
      elev_high: 212.4,
      elev_low: 148.6,
      hr_zones: null,
      power_zones: null,
      segments: null,
    });
    expect(body.pagination).toEqual({ next_cursor: null, previous_cursor: null, has_more: false, total_count: 5 });
    expect(body.metadata).toEqual({
      resolution: null,
      sample_count: 5,
      start_time: "2026-04-30T00:00:00.000Z",
      end_time: "2026-05-10T00:00:00.000Z",
    });
  });

  it("averages the source's heart-rate samples in the window when no average is stored", async () => {
    const { body } = await request(`/users/${userId}/events/workouts?${RANGE}&record_type=cycl`);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ id: ids.ride, avg_heart_rate_bpm: 110, max_heart_rate_bpm: null });
    const trail = await request(`/users/${userId}/events/workouts?${RANGE}&record_type=trail`);
    expect(trail.body.data[0]).toMatchObject({ avg_heart_rate_bpm: null, max_heart_rate_bpm: 160 });
  });

  it("filters by type substring, case-insensitively; % is literal", async () => {
    const running = await request(`/users/${userId}/events/workouts?${RANGE}&record_type=RUNNING`);
    expect(running.body.data.map((w) => w.type)).toEqual(["trail_running", "running"]);
    expect(running.body.pagination.total_count).toBe(2);
    expect((await request(`/users/${userId}/events/workouts?${RANGE}&record_type=%25`)).body.data).toEqual([]);
  });

  it("filters by exact type, provider (0.9 names, `google` taken), source, device model and data source", async () => {
    const types = async (query: string) => {
      const { status, body } = await request(`/users/${userId}/events/workouts?${RANGE}&${query}`);
      expect(status, query).toBe(200);
      return [body.data.map((w) => w.type), body.pagination.total_count];
    };
    expect(await types("type=running")).toEqual([["running"], 1]);
    expect(await types("type=trail_running")).toEqual([["trail_running"], 1]);
    expect(await types("provider=garmin")).toEqual([["cycling"], 1]);
    expect(await types("provider=apple&type=yoga")).toEqual([["yoga"], 1]);
    expect(await types("provider=google")).toEqual([[], 0]);
    expect(await types("provider=google_health")).toEqual([[], 0]);
    expect(await types("device_model=Forerunner%20255")).toEqual([["cycling"], 1]);
    expect(await types("source=com.apple.health")).toEqual([[], 0]);
    expect(await types(`data_source_id=${garmin.id}`)).toEqual([["cycling"], 1]);
    expect(await types("include=zones&include=segments&type=running")).toEqual([["running"], 1]);
  });

  it("400 on an unknown type, provider or include, with the detail", async () => {
    for (const [query, detail] of [
      ["type=jogging", /query\.type/],
      ["provider=fitbit2", /query\.provider/],
      ["include=laps", /query\.include/],
      ["data_source_id=abc", /query\.data_source_id/],
    ] as const) {
      const { status, body } = await request(`/users/${userId}/events/workouts?${RANGE}&${query}`);
      expect(status, query).toBe(400);
      expect((body as unknown as { detail: string }).detail, query).toMatch(detail);
    }
  });

  it("lists the user's workout types", async () => {
    const { status, body } = await request(`/users/${userId}/events/workouts/types`);
    expect(status).toBe(200);
    expect(body).toEqual(["cycling", "running", "trail_running", "walking", "yoga"]);
    expect((await request("/users/00000000-0000-4000-8000-000000000000/events/workouts/types")).body).toEqual([]);
  });

  it("keeps workouts that start at start_date and drops those ending at end_date", async () => {
    const from = "2026-05-02T06:00:00Z";
    const to = "2026-05-04T07:00:00Z";
    const { body } = await request(`/users/${userId}/events/workouts?start_date=${from}&end_date=${to}`);
    expect(body.data.map((w) => w.type)).toEqual(["trail_running", "cycling"]);
  });

  it("an unknown user, and another user, see none of them", async () => {
    const unknown = await request(`/users/00000000-0000-4000-8000-000000000000/events/workouts?${RANGE}`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual([]);
    const other = await request(`/users/${otherUserId}/events/workouts?${RANGE}`);
    expect(other.body.data.map((w) => w.id)).toEqual([ids.foreign]);
  });

  it("pages with cursors that stay right while workouts are inserted, and back", async () => {
    const q = `/users/${userId}/events/workouts?${RANGE}&limit=2`;
    const one = await request(q);
    expect(one.body.data.map((w) => w.type)).toEqual(["walking", "yoga"]);
    expect(one.body.pagination.has_more).toBe(true);
    // A newer workout (before the cursor: not shown), one between pages (shown next), one at the end.
    await addWorkout(watch, workout(5, "rowing"));
    await addWorkout(watch, workout(2.5, "hiking"));
    await addWorkout(garmin, workout(-0.5, "swimming"));
    const seen = [...one.body.data];
    let cursor = one.body.pagination.next_cursor;
    let two: Envelope | undefined;
    while (cursor) {
      const page = await request(`${q}&cursor=${cursor}`);
      two ??= page.body;
      seen.push(...page.body.data);
      cursor = page.body.pagination.next_cursor;
    }
    expect(seen.map((w) => w.type)).toEqual([
      "walking",
      "yoga",
      "hiking",
      "trail_running",
      "cycling",
      "running",
      "swimming",
    ]);
    const back = await request(`${q}&cursor=${two?.pagination.previous_cursor}`);
    expect(back.body.data.map((w) => w.type)).toEqual(["walking", "yoga"]);
    expect(back.body.pagination.has_more).toBe(true); // rowing is newer still
  });
});

describe("GET /events/sleep", () => {
  it("answers the anchor's sleep fields, newest first, naps included", async () => {
    const { status, body } = await request(`/users/${userId}/events/sleep?${RANGE}`);
    expect(status).toBe(200);
    expect(body.data.map((x) => x.id)).toEqual([ids.garminNight2, ids.garminNight1, ids.night1, ids.night0]);
    expect(body.data.at(-1)).toEqual({
      id: ids.night0,
      start_time: "2026-04-30T22:00:00.000Z",
      end_time: "2026-05-01T06:00:00.000Z",
      zone_offset: "+02:00",
      source: {
        provider: "apple",
        source: null,
        device: "Watch7,5",
        device_type: "watch",
        device_name: "Apple Watch Ultra 2",
      },
      duration_seconds: 28800,
      sleep_duration_seconds: 25200,
      time_in_bed_seconds: 28800,
      efficiency_percent: 87.5,
      stages: { awake_minutes: 60, light_minutes: 230, deep_minutes: 90, rem_minutes: 100 },
      sleep_stage_intervals: [
        { stage: "light", start_time: "2026-04-30T22:00:00.000Z", end_time: "2026-05-01T02:00:00.000Z" },
        { stage: "deep", start_time: "2026-05-01T02:00:00.000Z", end_time: "2026-05-01T06:00:00.000Z" },
      ],
      is_nap: false,
    });
  });

  it("filters by is_nap, provider, device model and data source; include=stages is taken", async () => {
    const nights = async (query: string) => {
      const { status, body } = await request(`/users/${userId}/events/sleep?${RANGE}&${query}`);
      expect(status, query).toBe(200);
      return [body.data.map((x) => x.id), body.pagination.total_count];
    };
    expect(await nights("is_nap=false")).toEqual([[ids.garminNight2, ids.garminNight1, ids.night1, ids.night0], 4]);
    expect(await nights("is_nap=true")).toEqual([[], 0]);
    expect(await nights("provider=garmin")).toEqual([[ids.garminNight2, ids.garminNight1], 2]);
    expect(await nights("device_model=Watch7,5")).toEqual([[ids.night1, ids.night0], 2]);
    expect(await nights(`data_source_id=${watch.id}&include=stages`)).toEqual([[ids.night1, ids.night0], 2]);
    expect(await nights("provider=garmin&filter_by_priority=true")).toEqual([[ids.garminNight2], 1]);
    const bad = await request(`/users/${userId}/events/sleep?${RANGE}&include=zones`);
    expect(bad.status).toBe(400);
  });

  it("filter_by_priority keeps the preferred source of each night", async () => {
    const { body } = await request(`/users/${userId}/events/sleep?${RANGE}&filter_by_priority=true`);
    // Night 1 has both: apple (priority 1) wins over garmin; night 2 only has garmin.
    expect(body.data.map((x) => x.id)).toEqual([ids.garminNight2, ids.night1, ids.night0]);
    expect(body.pagination.total_count).toBe(3);
  });

  it("pages with cursors", async () => {
    const q = `/users/${userId}/events/sleep?${RANGE}&limit=3`;
    const one = await request(q);
    const two = await request(`${q}&cursor=${one.body.pagination.next_cursor}`);
    expect([...one.body.data, ...two.body.data].map((x) => x.id)).toEqual([
      ids.garminNight2,
      ids.garminNight1,
      ids.night1,
      ids.night0,
    ]);
    expect(two.body.pagination).toMatchObject({ has_more: false, next_cursor: null });
  });
});

describe("DELETE /events/…", () => {
  it("deletes a workout (204), then answers 404 with the anchor's detail", async () => {
    const gone = await request(`/users/${userId}/events/workouts/${ids.yoga}`, "DELETE");
    expect(gone.status).toBe(204);
    expect(gone.body).toBeNull();
    const again = await request(`/users/${userId}/events/workouts/${ids.yoga}`, "DELETE");
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: "Workout not found" });
    const [details] = await s.database.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM wearables.workout_details WHERE event_id = $1",
      [ids.yoga],
    );
    expect(details?.n).toBe(0);
  });

  it("does not delete another user's workout, nor a sleep session by the workouts path", async () => {
    expect((await request(`/users/${userId}/events/workouts/${ids.foreign}`, "DELETE")).status).toBe(404);
    expect((await request(`/users/${userId}/events/workouts/${ids.night0}`, "DELETE")).status).toBe(404);
    const still = await request(`/users/${otherUserId}/events/workouts?${RANGE}`);
    expect(still.body.data).toHaveLength(1);
  });

  it("deletes a sleep session and queues its night for the scores job", async () => {
    await s.database.db.query("DELETE FROM platform.jobs WHERE queue = 'wearables.scores'");
    expect((await request(`/users/${userId}/events/sleep/${ids.night0}`, "DELETE")).status).toBe(204);
    const missing = await request(`/users/${userId}/events/sleep/${ids.night0}`, "DELETE");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: "Sleep session not found" });
    const work = await s.database.db.query<{ night: string }>(
      `SELECT payload->>'night' AS night FROM platform.jobs
       WHERE queue = 'wearables.scores' AND state = 'queued' AND payload->>'userId' = $1`,
      [userId],
    );
    // Woke at 06:00Z = 08:00 local on May 1st.
    expect(work.map((w) => w.night)).toEqual(["2026-05-01"]);
  });

  it("400 on a malformed id", async () => {
    const bad = await request(`/users/${userId}/events/workouts/42`, "DELETE");
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/path\.workout_id/);
    expect((await request(`/users/nope/events/sleep/${ids.night1}`, "DELETE")).status).toBe(400);
  });
});

describe("bad input", () => {
  it("answers 400 with a detail, never 500", async () => {
    const cases: [string, RegExp][] = [
      [`/users/123/events/workouts?${RANGE}`, /path\.user_id/],
      [`/users/${userId}/events/workouts?start_date=2026-05-01`, /end_date: field required/],
      [`/users/${userId}/events/sleep?end_date=2026-05-01`, /start_date: field required/],
      [
        `/users/${userId}/events/workouts?start_date=1st%20May&end_date=2026-05-02`,
        /Invalid datetime format: '1st May'/,
      ],
      [
        `/users/${userId}/events/workouts?start_date=2026-05-02&end_date=2026-05-01`,
        /start_date must be before end_date/,
      ],
      [`/users/${userId}/events/sleep?start_date=2026-05-01&end_date=2026-05-01`, /start_date must be before end_date/],
      [
        `/users/${userId}/events/workouts?${RANGE}&cursor=abc`,
        /^Invalid cursor format: 'abc'\. Expected 'timestamp\|id'\.$/,
      ],
      [`/users/${userId}/events/sleep?${RANGE}&cursor=prev_!!`, /Invalid cursor format: 'prev_!!'/],
      [`/users/${userId}/events/workouts?${RANGE}&limit=0`, /query\.limit/],
      [`/users/${userId}/events/workouts?${RANGE}&limit=101`, /query\.limit/],
      [`/users/${userId}/events/sleep?${RANGE}&filter_by_priority=maybe`, /query\.filter_by_priority/],
    ];
    for (const [path, detail] of cases) {
      const { status, body } = await request(path);
      expect(status, path).toBe(400);
      expect(body.detail, path).toMatch(detail);
    }
  });
});
