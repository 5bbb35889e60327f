/**
 * `GET /users/{user_id}/timeseries` over HTTP against the real database, data seeded through the health data
 * writer: raw pages, every resolution's aggregation checked against hand-computed values, keyset pages that
 * stay right while samples are inserted, and every bad parameter.
 */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../domain/cursors.ts";
import { wearablesService } from "../index.ts";
import { createHealthDataWriter, type DataSourceRef, type SampleInput } from "../store/healthDataWriter.ts";

let s: TestService;
const writer = createHealthDataWriter();
let userId: string;
let otherUserId: string;
let watch: DataSourceRef;
let garmin: DataSourceRef;

const HR = 1;
const STEPS = 80;
const WALK_TEST = 61;
const WEIGHT = 41;
/** 2026-05-01T08:00:00Z */
const T0 = Date.UTC(2026, 4, 1, 8, 0, 0);
const MIN = 60_000;

interface Envelope {
  data: Record<string, unknown>[];
  pagination: { next_cursor: string | null; previous_cursor: string | null; has_more: boolean; total_count: number };
  metadata: { resolution: string | null; sample_count: number; start_time: string; end_time: string };
}

const get = async (path: string) => {
  const res = await fetch(`${s.url}/api/v1${path}`, { headers: { "X-Service-API-Key": s.apiKey } });
  return { status: res.status, body: (await res.json()) as Envelope & { detail?: string } };
};
const series = (user: string, query: string) => get(`/users/${user}/timeseries?${query}`);

const write = (source: DataSourceRef, samples: SampleInput[], user = userId) =>
  s.database.db.transaction((tx) => writer.writeSamples(tx, source, samples).then(() => user));

/** Every page of a query, following next_cursor. */
async function allPages(user: string, query: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const { status, body } = await series(user, `${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(status).toBe(200);
    rows.push(...body.data);
    cursor = body.pagination.next_cursor;
    expect(body.pagination.has_more).toBe(cursor !== null);
    if (!cursor) return rows;
  }
  throw new Error("too many pages");
}

const key = (r: Record<string, unknown>) => `${r.timestamp}|${(r.source as { provider: string }).provider}|${r.type}`;

beforeAll(async () => {
  s = await startTestService(wearablesService);
  const [a, b] = await s.database.db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('ts@example.com'), ('other@example.com') RETURNING id",
  );
  userId = a?.id as string;
  otherUserId = b?.id as string;
  await s.database.db.transaction(async (tx) => {
    watch = await writer.ensureDataSource(tx, userId, {
      provider: "apple",
      deviceModel: "Watch6,15",
      source: "com.apple.health",
      deviceType: "watch",
    });
    garmin = await writer.ensureDataSource(tx, userId, {
      provider: "garmin",
      deviceModel: "Forerunner 255",
      source: "fit_file",
      deviceType: "watch",
    });
  });
  // Heart rate every 10 s for 2 h from the watch (value = 60 + minute), every 30 s for 1 h from the Garmin.
  const watchHr: SampleInput[] = [];
  for (let t = 0; t < 120 * MIN; t += 10_000) {
    watchHr.push({ seriesType: HR, recordedAt: T0 + t, value: 60 + Math.floor(t / MIN), zoneOffsetMinutes: 120 });
  }
  const garminHr: SampleInput[] = [];
  for (let t = 0; t < 60 * MIN; t += 30_000) garminHr.push({ seriesType: HR, recordedAt: T0 + t, value: 100 });
  // Steps: 10 a minute for 2 h, plus a daily total at midnight that must not double them.
  const steps: SampleInput[] = [];
  for (let m = 0; m < 120; m++) steps.push({ seriesType: STEPS, recordedAt: T0 + m * MIN, value: 10 });
  steps.push({ seriesType: STEPS, recordedAt: Date.UTC(2026, 4, 1), value: 5000, isDailyTotal: true });
  // A test measured twice in one hour: its bucket keeps the best.
  const walkTests: SampleInput[] = [
    { seriesType: WALK_TEST, recordedAt: T0 + 5 * MIN, value: 480 },
    { seriesType: WALK_TEST, recordedAt: T0 + 35 * MIN, value: 510 },
  ];
  await write(watch, [...watchHr, ...steps, ...walkTests]);
  await write(garmin, garminHr);
  // A sparse year: weight every 3 days from 2025-01-01.
  const weights: SampleInput[] = [];
  for (let d = 0; d < 365; d += 3) {
    weights.push({ seriesType: WEIGHT, recordedAt: Date.UTC(2025, 0, 1 + d, 7), value: 70 + (d % 5) });
  }
  await write(watch, weights);
});
afterAll(() => s.close());

const WINDOW = "start_time=2026-05-01T08:00:00Z&end_time=2026-05-01T10:00:00Z";

describe("raw samples", () => {
  it("answers the anchor's sample fields, ordered by time, with the raw count", async () => {
    const { status, body } = await series(userId, `${WINDOW}&types=heart_rate&limit=3`);
    expect(status).toBe(200);
    expect(body.data[0]).toEqual({
      timestamp: "2026-05-01T08:00:00.000Z",
      zone_offset: "+02:00",
      type: "heart_rate",
      value: 60,
      unit: "bpm",
      source: {
        provider: "apple",
        source: "com.apple.health",
        device: "Watch6,15",
        device_type: "watch",
        device_name: "Apple Watch Series 8 45mm (GPS)",
      },
      is_daily_total: null,
    });
    // Same instant: the watch (created first, smaller key) before the Garmin.
    expect(body.data.map((r) => (r.source as { provider: string }).provider)).toEqual(["apple", "garmin", "apple"]);
    expect(body.data.map((r) => r.zone_offset)).toEqual(["+02:00", null, "+02:00"]);
    expect(body.pagination).toMatchObject({ has_more: true, previous_cursor: null, total_count: 720 + 120 });
    expect(body.metadata).toEqual({
      resolution: "raw",
      sample_count: 3,
      start_time: "2026-05-01T08:00:00.000Z",
      end_time: "2026-05-01T10:00:00.000Z",
    });
  });

  it("pages through every sample once, in order", async () => {
    const rows = await allPages(userId, `${WINDOW}&types=heart_rate&limit=100`);
    expect(rows).toHaveLength(840);
    expect(new Set(rows.map(key)).size).toBe(840);
    const times = rows.map((r) => Date.parse(r.timestamp as string));
    expect(times).toEqual([...times].sort((x, y) => x - y));
  });

  it("takes repeated types, and every type when none is given", async () => {
    const both = await series(userId, `${WINDOW}&types=heart_rate&types=steps&limit=1`);
    expect(both.body.pagination.total_count).toBe(840 + 120);
    const all = await series(userId, `${WINDOW}&limit=1`);
    expect(all.body.pagination.total_count).toBe(840 + 120 + 2);
  });

  it("reads a date-only end as through that day, and accepts Unix seconds", async () => {
    const day = await series(userId, "start_time=2026-05-01&end_time=2026-05-01&types=steps&limit=1");
    expect(day.status).toBe(200);
    expect(day.body.pagination.total_count).toBe(121);
    expect(day.body.metadata.end_time).toBe("2026-05-02T00:00:00.000Z");
    const unix = await series(userId, `start_time=${T0 / 1000}&end_time=${T0 / 1000 + 60}&types=steps`);
    expect(unix.body.data).toHaveLength(1);
  });

  it("an unknown user, or one without data, has no samples", async () => {
    const unknown = await series("00000000-0000-4000-8000-000000000000", WINDOW);
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual([]);
    expect(unknown.body.pagination).toEqual({
      next_cursor: null,
      previous_cursor: null,
      has_more: false,
      total_count: 0,
    });
    expect((await series(otherUserId, WINDOW)).body.data).toEqual([]);
  });

  it("keeps pages right while samples are inserted: no gap, no duplicate", async () => {
    const window = "start_time=2026-05-03T00:00:00Z&end_time=2026-05-03T01:00:00Z&types=heart_rate&limit=10";
    const base = Date.UTC(2026, 4, 3);
    const initial = Array.from({ length: 30 }, (_, i) => ({ seriesType: HR, recordedAt: base + i * MIN, value: 50 }));
    await write(watch, initial);
    const first = await series(userId, window);
    expect(first.body.data).toHaveLength(10);
    // Inserted before the cursor (not shown again), at the cursor's instant from the other source (after it in
    // the order, so shown), and after it (shown).
    await write(watch, [{ seriesType: HR, recordedAt: base + 30_000, value: 51 }]);
    await write(garmin, [{ seriesType: HR, recordedAt: base + 9 * MIN, value: 52 }]);
    await write(watch, [{ seriesType: HR, recordedAt: base + 15 * MIN + 30_000, value: 53 }]);
    const rest: Record<string, unknown>[] = [];
    let cursor = first.body.pagination.next_cursor;
    while (cursor) {
      const page = await series(userId, `${window}&cursor=${cursor}`);
      rest.push(...page.body.data);
      cursor = page.body.pagination.next_cursor;
    }
    const seen = [...first.body.data, ...rest];
    expect(new Set(seen.map(key)).size).toBe(seen.length);
    expect(seen).toHaveLength(32);
    expect(rest.map((r) => r.value)).toContain(52);
    expect(rest.map((r) => r.value)).toContain(53);
    expect(seen.map((r) => r.value)).not.toContain(51);
  });

  it("pages back with previous_cursor to exactly the page before", async () => {
    const query = `${WINDOW}&types=heart_rate&limit=7`;
    const one = await series(userId, query);
    const two = await series(userId, `${query}&cursor=${one.body.pagination.next_cursor}`);
    expect(two.body.pagination.previous_cursor).toMatch(/^prev_/);
    const back = await series(userId, `${query}&cursor=${two.body.pagination.previous_cursor}`);
    expect(back.body.data).toEqual(one.body.data);
    // The first page has nothing before it; its way forward leads to page two again.
    expect(back.body.pagination.has_more).toBe(false);
    expect(back.body.pagination.previous_cursor).toBeNull();
    const again = await series(userId, `${query}&cursor=${back.body.pagination.next_cursor}`);
    expect(again.body.data).toEqual(two.body.data);
  });
});

describe("resolution", () => {
  it("1min averages heart rate per minute and per source", async () => {
    const { body } = await series(userId, `${WINDOW}&types=heart_rate&resolution=1min&limit=4`);
    expect(body.metadata.resolution).toBe("1min");
    expect(body.pagination.total_count).toBeNull();
    expect(body.data.map((r) => [r.timestamp, (r.source as { provider: string }).provider, r.value])).toEqual([
      ["2026-05-01T08:00:00.000Z", "apple", 60],
      ["2026-05-01T08:00:00.000Z", "garmin", 100],
      ["2026-05-01T08:01:00.000Z", "apple", 61],
      ["2026-05-01T08:01:00.000Z", "garmin", 100],
    ]);
    expect(body.data[0]).toMatchObject({ unit: "bpm", zone_offset: "+02:00", is_daily_total: null });
  });

  it("1hour: averages rates, sums counts without the daily total, keeps the best test", async () => {
    const rows = await allPages(
      userId,
      `${WINDOW}&types=heart_rate&types=steps&types=six_minute_walk_test_distance&resolution=1hour`,
    );
    const at = (ts: string, provider: string, type: string) =>
      rows.find(
        (r) => r.timestamp === ts && (r.source as { provider: string }).provider === provider && r.type === type,
      )?.value;
    // Minutes 0–59 → mean of 60..119 = 89.5; minutes 60–119 → 149.5.
    expect(at("2026-05-01T08:00:00.000Z", "apple", "heart_rate")).toBeCloseTo(89.5, 5);
    expect(at("2026-05-01T09:00:00.000Z", "apple", "heart_rate")).toBeCloseTo(149.5, 5);
    expect(at("2026-05-01T08:00:00.000Z", "garmin", "heart_rate")).toBe(100);
    expect(at("2026-05-01T08:00:00.000Z", "apple", "steps")).toBe(600);
    expect(at("2026-05-01T08:00:00.000Z", "apple", "six_minute_walk_test_distance")).toBe(510);
    expect(rows).toHaveLength(2 + 1 + 2 + 1);
    const steps = rows.find((r) => r.type === "steps");
    expect(steps).toMatchObject({ unit: "count", is_daily_total: false });
  });

  it("a bucket with only the daily total shows it, marked as one", async () => {
    const { body } = await series(
      userId,
      "start_time=2026-05-01&end_time=2026-05-01T01:00:00Z&types=steps&resolution=1hour",
    );
    expect(body.data).toEqual([
      expect.objectContaining({ timestamp: "2026-05-01T00:00:00.000Z", value: 5000, is_daily_total: true }),
    ]);
  });

  it("5min and 15min buckets sum what they hold", async () => {
    const five = await series(userId, `${WINDOW}&types=steps&resolution=5min&limit=2`);
    expect(five.body.data.map((r) => r.value)).toEqual([50, 50]);
    const fifteen = await series(userId, `${WINDOW}&types=steps&resolution=15min&limit=1000`);
    expect(fifteen.body.data.map((r) => r.value)).toEqual(Array(8).fill(150));
  });

  it("pages a sparse year of hourly buckets without gap or duplicate, forward and back", async () => {
    const query = "start_time=2025-01-01&end_time=2025-12-31&types=weight&resolution=1hour&limit=50";
    const rows = await allPages(userId, query);
    expect(rows).toHaveLength(122);
    expect(new Set(rows.map(key)).size).toBe(122);
    expect(rows[0]).toMatchObject({ timestamp: "2025-01-01T07:00:00.000Z", value: 70, unit: "kg" });
    const one = await series(userId, query);
    const two = await series(userId, `${query}&cursor=${one.body.pagination.next_cursor}`);
    const back = await series(userId, `${query}&cursor=${two.body.pagination.previous_cursor}`);
    expect(back.body.data).toEqual(one.body.data);
  });

  it("takes up to 1000 buckets a page, raw samples up to 100", async () => {
    expect((await series(userId, `${WINDOW}&resolution=1min&limit=1000`)).status).toBe(200);
    const raw = await series(userId, `${WINDOW}&limit=101`);
    expect(raw.status).toBe(400);
    expect(raw.body.detail).toBe("query.limit: must be <= 100 when resolution is raw");
  });
});

describe("the anchor's 0.9 series type names", () => {
  it("answers `active_energy` (stored id 81) and takes the retired `energy` for it", async () => {
    const at = Date.UTC(2026, 5, 1, 8);
    await write(watch, [
      { seriesType: 81, recordedAt: at, value: 12.5 },
      { seriesType: 81, recordedAt: at + MIN, value: 7.5 },
    ]);
    const window = "start_time=2026-06-01T00:00:00Z&end_time=2026-06-02T00:00:00Z";
    const current = await series(userId, `${window}&types=active_energy`);
    expect(current.status).toBe(200);
    expect(current.body.data.map((r) => [r.type, r.value, r.unit])).toEqual([
      ["active_energy", 12.5, "kcal"],
      ["active_energy", 7.5, "kcal"],
    ]);
    const retired = await series(userId, `${window}&types=energy`);
    expect(retired.status).toBe(200);
    expect(retired.body.data).toEqual(current.body.data);
    const hourly = await series(userId, `${window}&types=energy&types=active_energy&resolution=1hour`);
    expect(hourly.body.data.map((r) => [r.type, r.value])).toEqual([["active_energy", 20]]);
  });
});

describe("data source filters", () => {
  it("filters by provider (0.9 names, `google` taken), source, device model and data source, counts included", async () => {
    const pick = async (query: string) => {
      const { status, body } = await series(userId, `${WINDOW}&types=heart_rate&limit=100&${query}`);
      expect(status, query).toBe(200);
      return [new Set(body.data.map((r) => (r.source as { provider: string }).provider)), body.pagination.total_count];
    };
    expect(await pick("provider=garmin")).toEqual([new Set(["garmin"]), 120]);
    expect(await pick("provider=apple")).toEqual([new Set(["apple"]), 720]);
    expect(await pick("device_model=Forerunner%20255")).toEqual([new Set(["garmin"]), 120]);
    expect(await pick("source=com.apple.health")).toEqual([new Set(["apple"]), 720]);
    expect(await pick(`data_source_id=${garmin.id}`)).toEqual([new Set(["garmin"]), 120]);
    expect(await pick("provider=google")).toEqual([new Set(), 0]);
    const hourly = await series(userId, `${WINDOW}&types=heart_rate&resolution=1hour&provider=garmin`);
    expect(hourly.body.data.map((r) => [r.timestamp, r.value])).toEqual([["2026-05-01T08:00:00.000Z", 100]]);
    for (const bad of ["provider=fitbit2", "data_source_id=x"]) {
      expect((await series(userId, `${WINDOW}&${bad}`)).status, bad).toBe(400);
    }
  });
});

describe("filter_by_priority", () => {
  const providers = async (query: string) => {
    const { status, body } = await series(userId, `${WINDOW}&limit=100&${query}`);
    expect(status, query).toBe(200);
    return [
      [...new Set(body.data.map((r) => (r.source as { provider: string }).provider))],
      body.pagination.total_count,
    ];
  };

  it("keeps each type's top-priority source with samples in the window, raw and bucketed, counts included", async () => {
    // Default priorities: apple 1, garmin 2; both recorded heart rate in the window.
    expect(await providers("types=heart_rate")).toEqual([["apple", "garmin"], 840]);
    expect(await providers("types=heart_rate&filter_by_priority=false")).toEqual([["apple", "garmin"], 840]);
    expect(await providers("types=heart_rate&filter_by_priority=true")).toEqual([["apple"], 720]);
    const hourly = await series(userId, `${WINDOW}&types=heart_rate&resolution=1hour&filter_by_priority=true`);
    expect(hourly.body.data.map((r) => (r.source as { provider: string }).provider)).toEqual(["apple", "apple"]);
    // The only candidate left by a source filter wins.
    expect(await providers("types=heart_rate&filter_by_priority=true&provider=garmin")).toEqual([["garmin"], 120]);
  });

  it("follows the priority table, and ranks per type: a type the winner lacks comes from the next source", async () => {
    await s.database.db.query("UPDATE wearables.provider_priorities SET priority = 0 WHERE provider = 'garmin'");
    try {
      expect(await providers("types=heart_rate&filter_by_priority=true")).toEqual([["garmin"], 120]);
      // Garmin has no steps: they still come, from the watch.
      const { body } = await series(userId, `${WINDOW}&types=heart_rate&types=steps&filter_by_priority=true`);
      const byType = new Map<unknown, Set<string>>();
      for (const r of body.data) {
        const set = byType.get(r.type) ?? new Set();
        set.add((r.source as { provider: string }).provider);
        byType.set(r.type, set);
      }
      expect(byType.get("heart_rate")).toEqual(new Set(["garmin"]));
      expect(body.pagination.total_count).toBe(120 + 120);
    } finally {
      await s.database.db.query("UPDATE wearables.provider_priorities SET priority = 2 WHERE provider = 'garmin'");
    }
  });
});

describe("bad input", () => {
  it("answers 400 with a detail, never 500", async () => {
    const cursorOf = (text: string) => encodeCursor([text]);
    const cases: [string, string, RegExp][] = [
      ["/users/123/timeseries", WINDOW, /path\.user_id/],
      [`/users/${userId}/timeseries`, "end_time=2026-05-01", /start_time: field required/],
      [`/users/${userId}/timeseries`, "start_time=2026-05-01", /end_time: field required/],
      [
        `/users/${userId}/timeseries`,
        "start_time=yesterday&end_time=2026-05-01",
        /^Invalid datetime format: 'yesterday'\. Expected ISO 8601 format or Unix timestamp\.$/,
      ],
      [`/users/${userId}/timeseries`, "start_time=2026-02-30&end_time=2026-05-01", /Invalid datetime format/],
      [`/users/${userId}/timeseries`, "start_time=2026-05-01T25:00:00Z&end_time=2026-05-02", /Invalid datetime/],
      [
        `/users/${userId}/timeseries`,
        "start_time=2026-05-02&end_time=2026-05-01T12:00:00Z",
        /start_time must be before end_time/,
      ],
      [`/users/${userId}/timeseries`, "start_time=2026-05-01T10:00:00Z&end_time=2026-05-01T10:00:00Z", /before/],
      [
        `/users/${userId}/timeseries`,
        `${WINDOW}&cursor=%%%`,
        /^Invalid cursor format: '%%%'\. Expected 'timestamp\|id'\.$/,
      ],
      [`/users/${userId}/timeseries`, `${WINDOW}&cursor=${cursorOf("2026-05-01T08:00:00Z")}`, /Invalid cursor format/],
      [`/users/${userId}/timeseries`, `${WINDOW}&cursor=${encodeCursor(["nope", "1", "1"])}`, /Invalid cursor format/],
      [
        `/users/${userId}/timeseries`,
        `${WINDOW}&cursor=prev_${encodeCursor(["2026-05-01T08:00:00Z", "x", "1"])}`,
        /Invalid cursor/,
      ],
      [`/users/${userId}/timeseries`, `${WINDOW}&limit=0`, /query\.limit/],
      [`/users/${userId}/timeseries`, `${WINDOW}&limit=1001&resolution=1hour`, /query\.limit/],
      [`/users/${userId}/timeseries`, `${WINDOW}&limit=abc`, /query\.limit/],
      [`/users/${userId}/timeseries`, `${WINDOW}&resolution=2min`, /query\.resolution/],
      [`/users/${userId}/timeseries`, `${WINDOW}&types=heartbeat`, /query\.types/],
    ];
    for (const [path, query, detail] of cases) {
      const { status, body } = await get(`${path}?${query}`);
      expect(status, query).toBe(400);
      expect(body.detail, query).toMatch(detail);
    }
  });
});
