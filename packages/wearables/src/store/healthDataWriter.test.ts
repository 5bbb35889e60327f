/**
 * The one write path of the health data: data sources by identity, samples deduplicated by (source, type,
 * instant) with the anchor's upsert, events by (source, start, end) with their details replaced, score work
 * queued once per night. On a real database with the service's migrations.
 */
import { kernelMigrations, loadMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHealthDataWriter } from "./healthDataWriter.ts";

let database: TestDatabase;
let userId: string;
const writer = createHealthDataWriter();
const T0 = Date.UTC(2026, 5, 1, 8, 0, 0);

beforeAll(async () => {
  database = await createTestDatabase();
  await migrate(database.db, [
    ...kernelMigrations(),
    ...loadMigrations("wearables", new URL("../../migrations", import.meta.url).pathname),
  ]);
  const [user] = await database.db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('w@example.com') RETURNING id",
  );
  userId = user?.id as string;
});
afterAll(() => database.drop());

describe("health data writer", () => {
  it("finds a data source by its identity, and makes another for another device or app", async () => {
    const watch = { provider: "apple", deviceModel: "Watch", source: "com.apple.health" };
    const first = await database.db.transaction((tx) => writer.ensureDataSource(tx, userId, watch));
    const again = await database.db.transaction((tx) =>
      writer.ensureDataSource(tx, userId, { ...watch, softwareVersion: "26.2" }),
    );
    const phone = await database.db.transaction((tx) =>
      writer.ensureDataSource(tx, userId, { ...watch, deviceModel: "iPhone" }),
    );
    expect(again).toEqual(first);
    expect(phone.id).not.toBe(first.id);
    const [row] = await database.db.query<{ software_version: string }>(
      "SELECT software_version FROM wearables.data_sources WHERE id = $1",
      [first.id],
    );
    expect(row?.software_version).toBe("26.2");
  });

  it("deduplicates samples by (source, type, instant): the last value wins, a replay changes nothing", async () => {
    const source = await database.db.transaction((tx) => writer.ensureDataSource(tx, userId, { provider: "garmin" }));
    const samples = [
      { seriesType: 1, recordedAt: T0, value: 60, zoneOffsetMinutes: 120 },
      { seriesType: 1, recordedAt: T0 + 1_000, value: 61 },
      { seriesType: 1, recordedAt: T0, value: 62, zoneOffsetMinutes: 120 }, // same instant in one batch: kept last
      { seriesType: 80, recordedAt: T0, value: 1_200, isDailyTotal: true },
    ];
    expect(await database.db.transaction((tx) => writer.writeSamples(tx, source, samples))).toBe(3);
    expect(await database.db.transaction((tx) => writer.writeSamples(tx, source, samples))).toBe(0);
    expect(
      await database.db.transaction((tx) =>
        writer.writeSamples(tx, source, [{ seriesType: 1, recordedAt: T0 + 1_000, value: 70 }]),
      ),
    ).toBe(1);
    const rows = await database.db.query<{ series_type: number; value: number; zone_offset: number | null }>(
      "SELECT series_type, value, zone_offset FROM wearables.samples WHERE source_key = $1 ORDER BY series_type, recorded_at",
      [source.key],
    );
    expect(rows).toEqual([
      { series_type: 1, value: 62, zone_offset: 120 },
      { series_type: 1, value: 70, zone_offset: null },
      { series_type: 80, value: 1_200, zone_offset: null },
    ]);
  });

  it("writes large batches through COPY with the same rule: new rows counted, a replay writes nothing", async () => {
    const source = await database.db.transaction((tx) =>
      writer.ensureDataSource(tx, userId, { provider: "garmin", deviceModel: "Forerunner 255" }),
    );
    const second = (i: number) => ({
      seriesType: 1,
      recordedAt: T0 + i * 1_000,
      value: 60 + (i % 40) + 0.5,
      zoneOffsetMinutes: i % 2 ? -300 : null,
      isDailyTotal: i % 3 === 0 ? false : null,
    });
    const batch = [...Array.from({ length: 1_000 }, (_, i) => second(i)), second(10), second(11)];
    expect(await database.db.transaction((tx) => writer.writeSamples(tx, source, batch))).toBe(1_000);
    expect(await database.db.transaction((tx) => writer.writeSamples(tx, source, batch))).toBe(0);
    const changed = batch.slice(0, 300).map((s, i) => (i < 5 ? { ...s, value: 200 } : s));
    expect(await database.db.transaction((tx) => writer.writeSamples(tx, source, changed))).toBe(5);
    const [sum] = await database.db.query<{ n: string; total: number; nulls: string }>(
      `SELECT count(*)::text AS n, sum(value)::float8 AS total, count(*) FILTER (WHERE zone_offset IS NULL)::text AS nulls
       FROM wearables.samples WHERE source_key = $1`,
      [source.key],
    );
    const expected = batch.slice(0, 1_000).reduce((a, s, i) => a + (i < 5 ? 200 : s.value), 0);
    expect(sum).toEqual({ n: "1000", total: expected, nulls: "500" });
  });

  it("writes a large batch overlapping stored rows by the upsert: its new and changed rows counted, a replay none", async () => {
    const source = await database.db.transaction((tx) =>
      writer.ensureDataSource(tx, userId, { provider: "garmin", deviceModel: "Fenix 8" }),
    );
    const sample = (type: number, i: number, value = i) => ({ seriesType: type, recordedAt: T0 + i * 60_000, value });
    const first = Array.from({ length: 400 }, (_, i) => sample(1, i * 2)); // even minutes of type 1
    expect(await database.db.transaction((tx) => writer.writeSamples(tx, source, first))).toBe(400);
    // Unsorted, two types: 400 odd minutes (new), 400 even ones of which 10 change, 300 of another type (new).
    const second = [
      ...Array.from({ length: 300 }, (_, i) => sample(5, 299 - i)),
      ...Array.from({ length: 800 }, (_, i) => 799 - i).map((m) => sample(1, m, m % 2 === 0 && m < 20 ? -1 : m)),
    ];
    expect(await database.db.transaction((tx) => writer.writeSamples(tx, source, second))).toBe(400 + 10 + 300);
    expect(await database.db.transaction((tx) => writer.writeSamples(tx, source, second))).toBe(0);
    const [sum] = await database.db.query<{ n: string; changed: string }>(
      `SELECT count(*)::text AS n, count(*) FILTER (WHERE value = -1)::text AS changed
       FROM wearables.samples WHERE source_key = $1`,
      [source.key],
    );
    expect(sum).toEqual({ n: "1100", changed: "10" });
  });

  it("writes a workout and a sleep session once per (source, start, end), replacing their details", async () => {
    const source = await database.db.transaction((tx) => writer.ensureDataSource(tx, userId, { provider: "polar" }));
    const workout = {
      type: "running",
      start: T0,
      end: T0 + 1_800_000,
      zoneOffset: "+02:00",
      details: { heartRateAvg: 151.5, distance: 5_012.4, energyBurned: 402 },
    };
    const id = await database.db.transaction((tx) => writer.writeWorkout(tx, userId, source, workout));
    const again = await database.db.transaction((tx) =>
      writer.writeWorkout(tx, userId, source, { ...workout, details: { ...workout.details, distance: 5_100 } }),
    );
    expect(again).toBe(id);
    const [w] = await database.db.query<{ duration_seconds: number; distance: string; n: string }>(
      `SELECT e.duration_seconds, d.distance::text, (SELECT count(*) FROM wearables.events)::text AS n
       FROM wearables.events e JOIN wearables.workout_details d ON d.event_id = e.id WHERE e.id = $1`,
      [id],
    );
    expect(w).toEqual({ duration_seconds: 1_800, distance: "5100.000", n: "1" });

    const night = { start: T0 - 8 * 3_600_000, end: T0 - 600_000, zoneOffset: "+02:00" };
    const sleepId = await database.db.transaction((tx) =>
      writer.writeSleep(tx, userId, source, {
        ...night,
        details: {
          isNap: false,
          deepMinutes: 90,
          stages: [{ stage: "deep", start: night.start, end: night.start + 5_400_000 }],
        },
      }),
    );
    const [s] = await database.db.query<{ sleep_stages: unknown; is_nap: boolean }>(
      "SELECT sleep_stages, is_nap FROM wearables.sleep_details WHERE event_id = $1",
      [sleepId],
    );
    expect(s).toEqual({
      is_nap: false,
      sleep_stages: [
        {
          stage: "deep",
          start_time: new Date(night.start).toISOString(),
          end_time: new Date(night.start + 5_400_000).toISOString(),
        },
      ],
    });
  });

  it("enqueues a night's scores job once (kernel queue wearables.scores, one job per user and night)", async () => {
    await database.db.transaction((tx) =>
      writer.queueScoreWork(tx, userId, ["2026-06-01", "2026-06-01", "2026-06-02"]),
    );
    await database.db.transaction((tx) => writer.queueScoreWork(tx, userId, ["2026-06-02"]));
    const rows = await database.db.query<{ night: string; singleton_key: string }>(
      `SELECT payload->>'night' AS night, singleton_key FROM platform.jobs
       WHERE queue = 'wearables.scores' AND payload->>'userId' = $1 ORDER BY 1`,
      [userId],
    );
    expect(rows).toEqual([
      { night: "2026-06-01", singleton_key: `${userId}:2026-06-01` },
      { night: "2026-06-02", singleton_key: `${userId}:2026-06-02` },
    ]);
  });
});
