/**
 * Durable jobs on either database: enqueue in the caller's transaction, retries then dead, singleton keys,
 * jobs for later, recurring jobs with two workers, timeouts, concurrency, cancel and retry by id, and a
 * graceful stop that gives running jobs back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../db/testDatabase.ts";
import { enqueueJob, enqueueJobs, JOBS_CHANNEL } from "./enqueue.ts";
import { JobLockLostError, JobSingletonConflictError, JobStateError } from "./errors.ts";
import { cancelJob, enqueueDueOccurrences, getJob, listJobs, retryJob, upsertSchedules } from "./jobStore.ts";
import { createJobsTestDatabase, silentLogger as logger, waitFor } from "./testing.ts";
import { createJobWorker, type JobWorker, WorkerStoppingError } from "./worker.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createJobsTestDatabase();
});
afterAll(() => t.drop());

const jobCount = async (queue: string) =>
  (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM platform.jobs WHERE queue = $1", [queue]))[0]?.n;

async function withWorkers<T>(workers: JobWorker[], fn: () => Promise<T>): Promise<T> {
  try {
    for (const w of workers) await w.start();
    return await fn();
  } finally {
    for (const w of workers) await w.stop();
  }
}

describe("enqueue", () => {
  it("in a rolled-back transaction leaves nothing; in a committed one, one job and a notification", async () => {
    const heard: string[] = [];
    const stop = await t.db.listen(JOBS_CHANNEL, (queue) => heard.push(queue));
    try {
      await expect(
        t.db.transaction(async (tx) => {
          expect(await enqueueJob(tx, "test.rollback", { n: 1 })).toMatch(/^\d+$/);
          throw new Error("the caller's work failed");
        }),
      ).rejects.toThrow("the caller's work failed");
      expect(await jobCount("test.rollback")).toBe(0);

      const id = await t.db.transaction((tx) => enqueueJob(tx, "test.rollback", { n: 2 }));
      expect(await jobCount("test.rollback")).toBe(1);
      const job = await getJob(t.db, id as string);
      expect(job).toMatchObject({ state: "queued", payload: { n: 2 }, attempts: 0, max_attempts: 5 });
      await waitFor("the notification", () => heard.includes("test.rollback"));
      expect(heard.filter((q) => q === "test.rollback")).toHaveLength(1);
    } finally {
      await stop();
    }
  });

  it("enqueues many in one statement, in payload order, and nothing when the transaction rolls back", async () => {
    const ids = await enqueueJobs(t.db, "test.many", [{ n: 0 }, { n: 1 }, { n: 2 }], { maxAttempts: 2 });
    expect(ids).toHaveLength(3);
    const jobs = await listJobs(t.db, { queue: "test.many" });
    expect(jobs.map((j) => [j.id, j.payload, j.max_attempts]).reverse()).toEqual(ids.map((id, n) => [id, { n }, 2]));
    await t.db
      .transaction(async (tx) => {
        await enqueueJobs(tx, "test.many", [{ n: 3 }]);
        throw new Error("rolled back");
      })
      .catch(() => undefined);
    expect(await jobCount("test.many")).toBe(3);
    expect(await enqueueJobs(t.db, "test.many", [])).toEqual([]);
  });

  it("refuses a second queued or active job of one singleton key, by the unique index", async () => {
    const first = await enqueueJob(t.db, "test.singleton", {}, { singletonKey: "user-1" });
    expect(first).toBeDefined();
    expect(await enqueueJob(t.db, "test.singleton", {}, { singletonKey: "user-1" })).toBeUndefined();
    // Another key, or another queue, is another job.
    expect(await enqueueJob(t.db, "test.singleton", {}, { singletonKey: "user-2" })).toBeDefined();
    expect(await enqueueJob(t.db, "test.singleton-other", {}, { singletonKey: "user-1" })).toBeDefined();
    // The index itself refuses a second row, whoever writes it.
    await expect(
      t.db.query("INSERT INTO platform.jobs (queue, singleton_key) VALUES ('test.singleton', 'user-1')"),
    ).rejects.toThrow(/jobs_singleton_idx/);

    // While it runs, still refused; once completed, a new one is allowed.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = false;
    const worker = createJobWorker({
      db: t.db,
      logger,
      queues: {
        "test.singleton": {
          concurrency: 2,
          handler: async () => {
            started = true;
            await held;
          },
        },
      },
    });
    await withWorkers([worker], async () => {
      await waitFor("the job to start", () => started);
      expect((await getJob(t.db, first as string))?.state).toBe("active");
      expect(await enqueueJob(t.db, "test.singleton", {}, { singletonKey: "user-1" })).toBeUndefined();
      release();
      await waitFor("completion", async () => (await getJob(t.db, first as string))?.state === "completed");
      expect(await enqueueJob(t.db, "test.singleton", {}, { singletonKey: "user-1" })).toBeDefined();
    });
  });
});

describe("worker", () => {
  it("retries a failing job with backoff, then marks it dead with its last error", async () => {
    const id = (await enqueueJob(t.db, "test.failing", { x: 1 }, { maxAttempts: 3 })) as string;
    const runs: { attempt: number; at: number }[] = [];
    const worker = createJobWorker({
      db: t.db,
      logger,
      random: () => 0,
      queues: {
        "test.failing": {
          backoff: { baseMs: 200, maxMs: 1_000 },
          handler: async (job) => {
            runs.push({ attempt: job.attempt, at: Date.now() });
            throw new Error(`boom ${job.attempt}`);
          },
        },
      },
    });
    await withWorkers([worker], () =>
      waitFor("the job to be dead", async () => (await getJob(t.db, id))?.state === "dead"),
    );
    expect(runs.map((r) => r.attempt)).toEqual([1, 2, 3]);
    // Backoff with random() = 0: 100 ms, then 200 ms (half of 200 · 2^(attempt−1)), by the database's clock.
    expect((runs[1]?.at ?? 0) - (runs[0]?.at ?? 0)).toBeGreaterThanOrEqual(90);
    expect((runs[2]?.at ?? 0) - (runs[1]?.at ?? 0)).toBeGreaterThanOrEqual(190);
    const job = await getJob(t.db, id);
    expect(job).toMatchObject({ state: "dead", attempts: 3, last_error: "Error: boom 3", locked_by: null });
    expect(worker.status()).toMatchObject({ failed: 2, dead: 1 });

    // Retried by id: queued again with its attempts from zero, and run.
    let ran = false;
    const second = createJobWorker({
      db: t.db,
      logger,
      queues: {
        "test.failing": {
          handler: async () => {
            ran = true;
          },
        },
      },
    });
    expect((await retryJob(t.db, id)).state).toBe("queued");
    await withWorkers([second], () =>
      waitFor("the retried job to complete", async () => (await getJob(t.db, id))?.state === "completed"),
    );
    expect(ran).toBe(true);
    expect((await getJob(t.db, id))?.attempts).toBe(1);
  });

  it("runs a job for later no sooner than its time", async () => {
    const id = (await enqueueJob(t.db, "test.later", {}, { delayMs: 400 })) as string;
    const runAt = (await getJob(t.db, id))?.run_at as Date;
    let startedAt: Date | undefined;
    const worker = createJobWorker({
      db: t.db,
      logger,
      pollIntervalMs: 60_000, // the worker's own timer must find it, not the poll
      queues: {
        "test.later": {
          handler: async () => {
            const [row] = await t.db.query<{ now: Date }>("SELECT clock_timestamp() AS now");
            startedAt = row?.now;
          },
        },
      },
    });
    await withWorkers([worker], () =>
      waitFor("the job to complete", async () => (await getJob(t.db, id))?.state === "completed"),
    );
    expect(startedAt?.getTime()).toBeGreaterThanOrEqual(runAt.getTime());
  });

  it("fails a run that outlives its timeout (its signal aborted) and retries it", async () => {
    const id = (await enqueueJob(t.db, "test.timeout", {}, { maxAttempts: 2 })) as string;
    const aborted: boolean[] = [];
    const worker = createJobWorker({
      db: t.db,
      logger,
      queues: {
        "test.timeout": {
          timeoutMs: 200,
          backoff: { baseMs: 10 },
          handler: (job) =>
            new Promise<void>((resolve) => {
              if (job.attempt === 2) return resolve();
              job.signal.addEventListener("abort", () => aborted.push(true));
            }),
        },
      },
    });
    await withWorkers([worker], () =>
      waitFor("the retry to complete", async () => (await getJob(t.db, id))?.state === "completed"),
    );
    expect(aborted).toEqual([true]);
    expect(await getJob(t.db, id)).toMatchObject({ attempts: 2, last_error: expect.stringMatching(/JobTimeoutError/) });
  });

  it("keeps a long run's lock by heartbeats (another worker never takes it), and aborts a run whose job was lost", async () => {
    const id = (await enqueueJob(t.db, "test.heartbeat", {})) as string;
    const lost = (await enqueueJob(t.db, "test.heartbeat", { cancel: true })) as string;
    const runs: string[] = [];
    const reasons: unknown[] = [];
    const handler = async (job: { id: string; payload: unknown; signal: AbortSignal }) => {
      runs.push(job.id);
      if ((job.payload as { cancel?: boolean }).cancel) {
        await cancelJob(t.db, job.id);
        // Ends only when the heartbeat finds the job gone and aborts the signal.
        await new Promise<void>((resolve) => job.signal.addEventListener("abort", () => resolve()));
        reasons.push(job.signal.reason);
        return;
      }
      // Lasts many locks: only the heartbeats keep the job this run's.
      const until = Date.now() + 1_500;
      while (Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    const workers = [0, 1].map(() =>
      createJobWorker({
        db: t.db,
        logger,
        lockMs: 300,
        pollIntervalMs: 50,
        queues: { "test.heartbeat": { concurrency: 2, timeoutMs: 10_000, handler } },
      }),
    );
    await withWorkers(workers, () =>
      waitFor("the long run to complete and the lost one to be aborted", async () => {
        return (await getJob(t.db, id))?.state === "completed" && reasons.length === 1;
      }),
    );
    expect(runs.filter((r) => r === id)).toEqual([id]);
    expect(await getJob(t.db, id)).toMatchObject({ attempts: 1, claims: 1 });
    expect(reasons[0]).toBeInstanceOf(JobLockLostError);
    expect((await getJob(t.db, lost))?.state).toBe("cancelled");
  });

  it("runs at most `concurrency` handlers of a queue at once", async () => {
    for (let i = 0; i < 8; i++) await enqueueJob(t.db, "test.bounded", { i });
    let now = 0;
    let most = 0;
    let done = 0;
    const worker = createJobWorker({
      db: t.db,
      logger,
      queues: {
        "test.bounded": {
          concurrency: 3,
          handler: async () => {
            now += 1;
            most = Math.max(most, now);
            await new Promise((resolve) => setTimeout(resolve, 30));
            now -= 1;
            done += 1;
          },
        },
      },
    });
    await withWorkers([worker], () => waitFor("8 jobs", () => done === 8));
    expect(most).toBe(3);
  });

  it("completes a job in the handler's own transaction, exactly once; a cancelled job's completion is refused", async () => {
    await t.db.exec("CREATE TABLE IF NOT EXISTS public.effects (job_id bigint NOT NULL)");
    const id = (await enqueueJob(t.db, "test.effects", {})) as string;
    const cancelMe = (await enqueueJob(t.db, "test.effects", { cancel: true })) as string;
    const refused: unknown[] = [];
    const worker = createJobWorker({
      db: t.db,
      logger,
      queues: {
        "test.effects": {
          handler: async (job) => {
            if ((job.payload as { cancel?: boolean }).cancel) await cancelJob(t.db, job.id);
            await t.db
              .transaction(async (tx) => {
                await tx.query("INSERT INTO public.effects (job_id) VALUES ($1)", [job.id]);
                await job.complete(tx);
              })
              .catch((error) => {
                refused.push(error);
                throw error;
              });
          },
        },
      },
    });
    await withWorkers([worker], () =>
      waitFor("both runs", async () => (await getJob(t.db, id))?.state === "completed" && refused.length === 1),
    );
    const effects = await t.db.query<{ job_id: string }>("SELECT job_id FROM public.effects ORDER BY job_id");
    expect(effects.map((e) => e.job_id)).toEqual([id]);
    expect(refused[0]).toBeInstanceOf(JobLockLostError);
    expect((await getJob(t.db, cancelMe))?.state).toBe("cancelled");
  });

  it("cancels and retries by id, with typed refusals", async () => {
    const id = (await enqueueJob(t.db, "test.ops", {}, { singletonKey: "k" })) as string;
    await expect(retryJob(t.db, id)).rejects.toBeInstanceOf(JobStateError);
    expect((await cancelJob(t.db, id)).state).toBe("cancelled");
    await expect(cancelJob(t.db, id)).rejects.toBeInstanceOf(JobStateError);
    const other = await enqueueJob(t.db, "test.ops", {}, { singletonKey: "k" });
    expect(other).toBeDefined();
    await expect(retryJob(t.db, id)).rejects.toBeInstanceOf(JobSingletonConflictError);
    await cancelJob(t.db, other as string);
    expect((await retryJob(t.db, id)).state).toBe("queued");
    await expect(retryJob(t.db, "999999999")).rejects.toMatchObject({ name: "JobNotFoundError" });
  });

  it("on stop, asks handlers to stop: one that gives up has its job given back, one that finishes completes it", async () => {
    const givesUp = (await enqueueJob(t.db, "test.stop", { finish: false })) as string;
    const finishes = (await enqueueJob(t.db, "test.stop", { finish: true })) as string;
    const hangs = (await enqueueJob(t.db, "test.stop-hang", {})) as string;
    let started = 0;
    const reasons: unknown[] = [];
    const worker = createJobWorker({
      db: t.db,
      logger,
      stopTimeoutMs: 100,
      queues: {
        "test.stop": {
          concurrency: 2,
          handler: (job) =>
            new Promise<void>((resolve, reject) => {
              started += 1;
              job.signal.addEventListener("abort", () => {
                reasons.push(job.signal.reason);
                if ((job.payload as { finish: boolean }).finish) resolve();
                else reject(job.signal.reason);
              });
            }),
        },
        // Ignores its signal: given back once stopTimeoutMs has passed.
        "test.stop-hang": {
          handler: () =>
            new Promise<void>(() => {
              started += 1;
            }),
        },
      },
    });
    await worker.start();
    await waitFor("the jobs to start", () => started === 3);
    await worker.stop();
    expect(reasons).toHaveLength(2);
    for (const reason of reasons) expect(reason).toBeInstanceOf(WorkerStoppingError);
    expect(await getJob(t.db, givesUp)).toMatchObject({ state: "queued", attempts: 0, locked_by: null });
    expect(await getJob(t.db, finishes)).toMatchObject({ state: "completed", attempts: 1 });
    expect(await getJob(t.db, hangs)).toMatchObject({ state: "queued", attempts: 0, locked_by: null });
  });
});

describe("retention", () => {
  it("deletes completed and cancelled jobs after keepCompletedMs, dead ones after keepDeadMs", async () => {
    const ids: Record<string, string> = {};
    for (const name of ["oldDone", "newDone", "oldCancelled", "oldDead", "newerDead", "queued"]) {
      ids[name] = (await enqueueJob(t.db, "test.prune", { name })) as string;
    }
    const finish = (name: string, state: string, ago: string) =>
      t.db.query(
        `UPDATE platform.jobs SET state = $2, finished_at = now() - $3::interval, run_at = now() - interval '1 year'
         WHERE id = $1`,
        [ids[name], state, ago],
      );
    await finish("oldDone", "completed", "2 days");
    await finish("newDone", "completed", "1 hour");
    await finish("oldCancelled", "cancelled", "2 days");
    await finish("oldDead", "dead", "15 days");
    await finish("newerDead", "dead", "2 days");
    // A worker prunes in its first housekeeping, whatever its queues.
    const worker = createJobWorker({ db: t.db, logger, queues: {} });
    await withWorkers([worker], () =>
      waitFor("the old jobs to be deleted", async () => (await jobCount("test.prune")) === 3),
    );
    const left = (await listJobs(t.db, { queue: "test.prune" })).map((j) => j.id).sort();
    expect(left).toEqual([ids.newDone, ids.newerDead, ids.queued].sort());
  });
});

describe("recurring jobs", () => {
  it("enqueue one occurrence per period however many workers look at once", async () => {
    await upsertSchedules(t.db, [{ name: "test.race", queue: "test.race", everyMs: 60_000 }]);
    const results = await Promise.all(
      Array.from({ length: 4 }, () => t.db.transaction((tx) => enqueueDueOccurrences(tx, ["test.race"]))),
    );
    expect(results.flat().filter((r) => r.enqueued)).toHaveLength(1);
    expect(await jobCount("test.race")).toBe(1);
    // Due again only at the next minute.
    const [row] = await t.db.query<{ next_run_at: Date; last_run_at: Date }>(
      "SELECT next_run_at, last_run_at FROM platform.job_schedules WHERE name = 'test.race'",
    );
    expect(row && row.next_run_at.getTime() - row.last_run_at.getTime()).toBe(60_000);
    expect((row?.last_run_at.getTime() ?? 1) % 60_000).toBe(0);
  });

  it("with two workers, runs once per period", async () => {
    const runs: { worker: string; runAt: number }[] = [];
    const make = (name: string) =>
      createJobWorker({
        db: t.db,
        logger,
        workerId: name,
        pollIntervalMs: 2_000,
        schedules: [{ name: "test.every", queue: "test.every", everyMs: 250 }],
        queues: {
          "test.every": {
            handler: async (job) => {
              const [row] = await t.db.query<{ run_at: Date }>("SELECT run_at FROM platform.jobs WHERE id = $1", [
                job.id,
              ]);
              runs.push({ worker: name, runAt: row?.run_at.getTime() ?? 0 });
            },
          },
        },
      });
    await withWorkers([make("a"), make("b")], () => waitFor("five periods", () => runs.length >= 5));
    const periods = runs.map((r) => r.runAt);
    expect(new Set(periods).size).toBe(periods.length);
    for (const p of periods) expect(p % 250).toBe(0);
  });
});
