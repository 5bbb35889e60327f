/**
 * The internal scores job against the real database: nights enqueued as importers enqueue them (kernel jobs
 * of `wearables.scores`, one per user and night), scores checked against hand-computed values, runs that die
 * mid-way (their night rolled back, its job queued again) and a new worker that redoes exactly what is left,
 * idempotent reruns, dependent nights recomputed, a night written while its job runs, and the SQL of the
 * nightly HRV checked against the domain's reference implementation.
 */
import type { Database, Queryable } from "@platform/kernel";
import { createJobWorker, createLogger, listJobs } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nightlyHrv, resilienceScore } from "../domain/resilienceScore.ts";
import { wearablesService } from "../index.ts";
import { createHealthDataWriter, type DataSourceRef } from "../store/healthDataWriter.ts";
import { drainQueue, queueDrained, waitFor } from "../testing/jobWorkers.ts";
import { type CreateScoresJobParameters, createScoresJob, SCORES_QUEUE } from "./scoresJob.ts";

let s: TestService;
let db: Database;
const writer = createHealthDataWriter();
const logger = createLogger({ level: "silent" });
const NOW = () => Date.parse("2026-03-20T12:00:00Z");
const HOUR = 3_600_000;
let userId: string;
let watch: DataSourceRef;
const at = (iso: string) => Date.parse(iso);
const WAKES = ["2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08"];
const RMSSD = [40, 50, 60, 50, 50, 50, 50];

/** The night waking on `wake` at 07:00 UTC, in bed from 23:00 the evening before (or `bedtime`). */
const addNight = (tx: Queryable, wake: string, bedtime = `${previousDay(wake)}T23:00:00Z`) =>
  writer.writeSleep(tx, userId, watch, {
    start: at(bedtime),
    end: at(`${wake}T07:00:00Z`),
    zoneOffset: "+00:00",
    details: { isNap: false, totalDurationMinutes: 450, deepMinutes: 90, remMinutes: 60, awakeMinutes: 0, stages: [] },
  });
const previousDay = (date: string) => new Date(at(`${date}T00:00:00Z`) - 24 * HOUR).toISOString().slice(0, 10);

const scores = async (category: string, user = userId) =>
  db.query<{
    recorded_at: Date;
    value: string;
    components: Record<string, { value: number | null; qualifier: string | null }>;
    zone_offset: string | null;
    sleep_event_id: string | null;
  }>(
    `SELECT recorded_at, value, components, zone_offset, sleep_event_id FROM wearables.health_scores
     WHERE user_id = $1 AND provider = 'internal' AND category = $2 ORDER BY recorded_at`,
    [user, category],
  );
const queue = (nights: string[], user = userId) => db.transaction((tx) => writer.queueScoreWork(tx, user, nights));
/** The nights whose scores job is queued or running. */
const pending = async () =>
  (
    await db.query<{ night: string }>(
      `SELECT payload->>'night' AS night FROM platform.jobs
       WHERE queue = $1 AND state IN ('queued', 'active') ORDER BY 1`,
      [SCORES_QUEUE],
    )
  ).map((r) => r.night);
/** Runs the queued scores jobs on a kernel worker until none is left (retries come quickly). */
const drain = (options: Partial<CreateScoresJobParameters> = {}) =>
  drainQueue(
    db,
    logger,
    SCORES_QUEUE,
    createScoresJob({ db, logger, now: NOW, backoff: { baseMs: 10, maxMs: 20 }, ...options }).queue,
  );
const completedRuns = async () => (await listJobs(db, { queue: SCORES_QUEUE, state: "completed", limit: 1000 })).length;

beforeAll(async () => {
  s = await startTestService(wearablesService);
  db = s.database.db;
  const [u] = await db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('scores@example.com') RETURNING id",
  );
  userId = u?.id as string;
  await db.transaction(async (tx) => {
    watch = await writer.ensureDataSource(tx, userId, {
      provider: "apple",
      deviceModel: "Watch6,12",
      deviceType: "watch",
    });
    for (const [i, wake] of WAKES.entries()) {
      // The third night starts at midnight: an hour later than the others.
      await addNight(tx, wake, i === 2 ? `${wake}T00:00:00Z` : undefined);
      await writer.writeSamples(tx, watch, [
        { seriesType: 7, recordedAt: at(`${wake}T03:00:00Z`), value: RMSSD[i] as number, zoneOffsetMinutes: 0 },
        { seriesType: 7, recordedAt: at(`${wake}T12:00:00Z`), value: 999, zoneOffsetMinutes: 0 }, // awake
      ]);
    }
  });
});
afterAll(() => s.close());

const EXPECTED_SLEEP = [
  // duration 100 (7.5 h), stages ½·100 + ½·int(66.7) = 83, interruptions 100; consistency varies.
  { wake: "2026-03-02", value: 76, consistency: 0 }, // no history: 0.4 + 0.166 + 0 + 0.2
  { wake: "2026-03-03", value: 96, consistency: 100 },
  { wake: "2026-03-04", value: 88, consistency: 57 }, // 00:00 vs median 23:00: 45 min late → 57
  { wake: "2026-03-05", value: 96, consistency: 100 },
  { wake: "2026-03-06", value: 96, consistency: 100 },
  { wake: "2026-03-07", value: 96, consistency: 100 },
  { wake: "2026-03-08", value: 96, consistency: 100 },
];
// Reference date → (CV to 3 decimals, score): nightly RMSSD of the 7 UTC days before it, ≥ 5 days.
const EXPECTED_RESILIENCE = [
  { date: "2026-03-07", cv: "0.141", score: 78, days: 5 }, // 40 50 60 50 50: sd √50 / 50
  { date: "2026-03-08", cv: "0.126", score: 83, days: 6 }, // + 50: sd √40 / 50
  { date: "2026-03-09", cv: "0.115", score: 86, days: 7 }, // sd √(200/6) / 50
  { date: "2026-03-10", cv: "0.079", score: 97, days: 6 }, // 50 60 50 50 50 50: sd √(83.3/5) / 51.67
  { date: "2026-03-11", cv: "0.086", score: 95, days: 5 }, // 60 50 50 50 50: sd √20 / 52
];

async function expectAllScores() {
  const sleep = await scores("sleep");
  expect(
    sleep.map((r) => ({
      wake: r.recorded_at.toISOString().slice(0, 10),
      value: Number(r.value),
      consistency: r.components.consistency?.value,
    })),
  ).toEqual(EXPECTED_SLEEP);
  expect(sleep[0]?.components).toEqual({
    duration: { value: 100, qualifier: null },
    stages: { value: 83, qualifier: null },
    consistency: { value: 0, qualifier: null },
    interruptions: { value: 100, qualifier: null },
  });
  expect(sleep[0]).toMatchObject({ zone_offset: "+00:00", sleep_event_id: expect.any(String) });
  const resilience = await scores("resilience");
  expect(
    resilience.map((r) => ({
      date: r.recorded_at.toISOString().slice(0, 10),
      cv: Number(r.value).toFixed(3),
      score: r.components.resilience_score?.value,
      days: r.components.days_counted?.value,
    })),
  ).toEqual(EXPECTED_RESILIENCE);
  expect(resilience[0]?.components.metric_type).toEqual({ value: null, qualifier: "RMSSD" });
}

/** A database whose transactions die after `alive` of them: the dying one is rolled back, later ones fail. */
function dyingDatabase(alive: number): Database {
  let count = 0;
  return new Proxy(db, {
    get(target, key, receiver) {
      if (key === "transaction") {
        return async <T>(fn: (tx: Queryable) => Promise<T>) => {
          count += 1;
          if (count > alive + 1) throw new Error("process gone");
          return target.transaction(async (tx) => {
            const result = await fn(tx);
            if (count === alive + 1) throw new Error("killed before commit");
            return result;
          });
        };
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

describe("scores job", () => {
  it("dies mid-way without a trace of the half-done night, and a new worker redoes exactly the rest", async () => {
    await queue(WAKES);
    expect(await pending()).toEqual(WAKES);
    const dying = createScoresJob({ db: dyingDatabase(2), logger, now: NOW, backoff: { baseMs: 60_000 } });
    const worker = createJobWorker({ db, logger, queues: { [SCORES_QUEUE]: dying.queue } });
    await worker.start();
    try {
      await waitFor("every night to be tried", async () => dying.status().failed === WAKES.length - 2);
    } finally {
      await worker.stop();
    }
    // The failed nights' jobs are queued again (after a backoff), the two committed ones are completed.
    expect(await pending()).toEqual(WAKES.slice(2));
    expect((await scores("sleep")).map((r) => r.recorded_at.toISOString().slice(0, 10))).toEqual(WAKES.slice(0, 2));

    await db.query("UPDATE platform.jobs SET run_at = now() WHERE queue = $1 AND state = 'queued'", [SCORES_QUEUE]);
    const job = createScoresJob({ db, logger, now: NOW });
    await drainQueue(db, logger, SCORES_QUEUE, job.queue);
    expect(await pending()).toEqual([]);
    await expectAllScores();
    expect(job.status()).toMatchObject({ nights: 5, failed: 0, running: 0, lastError: null });
  });

  it("is idempotent: the same nights again give the same rows", async () => {
    const before = await db.query("SELECT id, value, components FROM wearables.health_scores ORDER BY id");
    const runs = await completedRuns();
    await queue(WAKES);
    await drain();
    expect((await completedRuns()) - runs).toBe(7);
    expect(await db.query("SELECT id, value, components FROM wearables.health_scores ORDER BY id")).toEqual(before);
  });

  it("enqueues a night once while it waits, whatever writes it again", async () => {
    await queue(["2026-03-05"]);
    await queue(["2026-03-05", "2026-03-06"]);
    await db.transaction((tx) => writer.queueScoreWork(tx, userId, ["2026-03-06", "2026-03-05"]));
    expect(await pending()).toEqual(["2026-03-05", "2026-03-06"]);
    await drain();
    expect(await pending()).toEqual([]);
  });

  it("recomputes the following nights whose history a new night joins", async () => {
    // A night waking 03-01 gives the 03-02 night a bedtime history: its consistency goes from 0 to 100.
    await db.transaction(async (tx) => {
      await addNight(tx, "2026-03-01");
      await writer.queueScoreWork(tx, userId, ["2026-03-01"]);
    });
    const runs = await completedRuns();
    await drain();
    expect((await completedRuns()) - runs).toBe(1);
    const sleep = await scores("sleep");
    expect(sleep.map((r) => [r.recorded_at.toISOString().slice(0, 10), Number(r.value)]).slice(0, 3)).toEqual([
      ["2026-03-01", 76],
      ["2026-03-02", 96],
      ["2026-03-03", 96],
    ]);
  });

  it("runs on kernel's job layer: two instances' workers score each queued night once", async () => {
    await db.transaction(async (tx) => {
      await addNight(tx, "2026-03-09");
      await writer.queueScoreWork(tx, userId, ["2026-03-09"]);
    });
    const job = createScoresJob({ db, logger, now: NOW });
    const workers = ["a", "b"].map((workerId) =>
      createJobWorker({ db, logger, workerId, queues: { [SCORES_QUEUE]: job.queue } }),
    );
    for (const w of workers) await w.start();
    try {
      await waitFor("the queued night to be scored", () => queueDrained(db, SCORES_QUEUE));
    } finally {
      for (const w of workers) await w.stop();
    }
    expect((await scores("sleep")).at(-1)?.recorded_at.toISOString()).toBe("2026-03-09T07:00:00.000Z");
    const [run] = await listJobs(db, { queue: SCORES_QUEUE, limit: 1 });
    expect(run).toMatchObject({ state: "completed", attempts: 1, singleton_key: `${userId}:2026-03-09` });
    expect(job.status()).toMatchObject({ nights: 1, lastError: null });
  });

  it("a night written while its job runs is scored again (the writer waits for the job, then enqueues)", async () => {
    await queue(["2026-03-10"]);
    // The job holds the user's scores lock while it computes; a writer of the same night comes meanwhile.
    let resume: () => void = () => {};
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let entered = false;
    const slowDb = new Proxy(db, {
      get(target, key, receiver) {
        if (key !== "transaction") return Reflect.get(target, key, receiver);
        return <T>(fn: (tx: Queryable) => Promise<T>) =>
          target.transaction(async (tx) => {
            const result = await fn(tx);
            if (!entered) {
              entered = true;
              await paused; // computed, not yet committed
            }
            return result;
          });
      },
    });
    const job = createScoresJob({ db: slowDb, logger, now: NOW });
    const worker = createJobWorker({ db, logger, queues: { [SCORES_QUEUE]: job.queue } });
    await worker.start();
    try {
      await waitFor("the job to compute its night", () => entered);
      if (db.driver === "postgres") {
        // The writer's enqueue waits for the job's commit, then finds its key free: a second job.
        const writing = db.transaction(async (tx) => {
          await addNight(tx, "2026-03-10", "2026-03-09T22:00:00Z");
          await writer.queueScoreWork(tx, userId, ["2026-03-10"]);
        });
        await waitFor("the writer to wait for the job's lock", async () => {
          const rows = await db.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
          return rows.length > 0;
        });
        resume();
        await writing;
      } else {
        resume(); // PGlite runs one transaction at a time: the writer comes after the job's commit
        await db.transaction(async (tx) => {
          await addNight(tx, "2026-03-10", "2026-03-09T22:00:00Z");
          await writer.queueScoreWork(tx, userId, ["2026-03-10"]);
        });
      }
      await waitFor("the night's second job to run", () => queueDrained(db, SCORES_QUEUE));
    } finally {
      resume();
      await worker.stop();
    }
    expect(job.status()).toMatchObject({ nights: 2, lastError: null });
    const runs = await listJobs(db, { queue: SCORES_QUEUE, limit: 2 });
    expect(runs.map((r) => [r.singleton_key, r.state])).toEqual([
      [`${userId}:2026-03-10`, "completed"],
      [`${userId}:2026-03-10`, "completed"],
    ]);
  });

  it("ignores a job without a night (an occurrence of the recurring pass of earlier versions)", async () => {
    await db.query("INSERT INTO platform.jobs (queue, payload, schedule, singleton_key) VALUES ($1, '{}', $1, $1)", [
      SCORES_QUEUE,
    ]);
    await drain();
    const [run] = await listJobs(db, { queue: SCORES_QUEUE, limit: 1 });
    expect(run).toMatchObject({ state: "completed", schedule: SCORES_QUEUE });
  });

  it("derives RMSSD from heart rate without RMSSD samples, as the domain's reference implementation does", async () => {
    const [u] = await db.query<{ id: string }>(
      "INSERT INTO wearables.users (email) VALUES ('hr@example.com') RETURNING id",
    );
    const other = u?.id as string;
    const sessions: { start: number; end: number; stages: { stage: string; start: number; end: number }[] }[] = [];
    const heartRate: { at: number; value: number }[] = [];
    await db.transaction(async (tx) => {
      const band = await writer.ensureDataSource(tx, other, { provider: "garmin", deviceModel: "vivosmart 5" });
      for (let n = 0; n < 6; n++) {
        const start = at("2026-03-01T23:00:00Z") + n * 24 * HOUR;
        const stages = [
          { stage: "awake" as const, start, end: start + HOUR },
          { stage: "light" as const, start: start + HOUR, end: start + 4 * HOUR },
          { stage: "deep" as const, start: start + 4 * HOUR, end: start + 8 * HOUR },
        ];
        sessions.push({ start, end: start + 8 * HOUR, stages });
        await writer.writeSleep(tx, other, band, {
          start,
          end: start + 8 * HOUR,
          zoneOffset: "+00:00",
          details: { isNap: false, totalDurationMinutes: 420, stages },
        });
        // A heart rate sample every 10 minutes, swinging more on some nights.
        const samples = Array.from({ length: 48 }, (_, i) => ({
          seriesType: 1,
          recordedAt: start + i * 10 * 60_000,
          value: 55 + ((i * (n + 2)) % 7) - (i % 2) * (n % 3),
          zoneOffsetMinutes: 0,
        }));
        heartRate.push(...samples.map((p) => ({ at: p.recordedAt, value: p.value })));
        await writer.writeSamples(tx, band, samples);
      }
      await writer.queueScoreWork(tx, other, ["2026-03-07"]);
    });
    await drain();
    const expected = resilienceScore("2026-03-08", nightlyHrv({ rmssd: [], heartRate, sessions }));
    expect(expected).toMatchObject({ metricType: "RMSSD_HR", daysCounted: 6 });
    const [row] = (await scores("resilience", other)).filter((r) =>
      r.recorded_at.toISOString().startsWith("2026-03-08"),
    );
    expect(Number(row?.value)).toBeCloseTo(expected.hrvCv as number, 3);
    expect(row?.components).toMatchObject({
      resilience_score: { value: expected.score },
      days_counted: { value: 6 },
      metric_type: { qualifier: "RMSSD_HR" },
    });
  });
});
