/**
 * Kill test of the job worker: a worker in a child process (killChild.ts) runs jobs whose handlers write an
 * effect and complete the job in one transaction; the test SIGKILLs it at a random instant while it runs
 * them, then a worker of its own (another process) takes what is left once the killed worker's locks expire.
 * Every job must end completed with exactly one effect: none lost, none done twice. The draws (handler
 * delays, the kill instant) come from a seed that is printed; `KILL_TEST_SEED=<seed>` replays them.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Migration } from "../db/migrate.ts";
import { kernelMigrations } from "../kernelMigrations.ts";
import { createKillTestDatabase, type KillTestDatabase, killTestChildren } from "../testing/killTest.ts";
import { replayableRandom } from "../testing/replayableRandom.ts";
import { enqueueJob } from "./enqueue.ts";
import { listJobs } from "./jobStore.ts";
import type { JobsKillChildConfig } from "./killChild.ts";
import { silentLogger as logger, waitFor } from "./testing.ts";
import { createJobWorker } from "./worker.ts";

const JOBS = 6;
const effects: Migration = {
  service: "jobs_kill_test",
  id: "0001_effects",
  sql: "CREATE TABLE public.kill_effects (job_id bigint NOT NULL, worker text NOT NULL)",
};

let database: KillTestDatabase;
const children = killTestChildren();

beforeAll(async () => {
  database = await createKillTestDatabase({ name: "jobs", migrations: [...kernelMigrations(), effects] });
}, 120_000);

afterAll(async () => {
  children.killAll();
  await database?.drop();
});

it("a worker SIGKILLed mid-job: another completes every job, each exactly once", async () => {
  const { seed, next: random } = replayableRandom();
  console.log(`worker kill test: KILL_TEST_SEED=${seed}`);

  let db = await database.open();
  const ids: string[] = [];
  for (let i = 0; i < JOBS; i++) ids.push((await enqueueJob(db, "kill.test", { i }, { maxAttempts: 3 })) as string);
  await database.close(db);

  // Each run takes 200–600 ms and the child runs two at a time, so it is mid-job for at least 600 ms.
  const delays = Object.fromEntries(ids.map((id) => [id, 200 + Math.floor(random() * 400)]));
  const killAfterMs = Math.floor(random() * 500);
  const config: JobsKillChildConfig = { url: database.url, dataDir: database.dataDir, delays };
  let killTimer: NodeJS.Timeout | undefined;
  const child = children.spawn({
    script: new URL("./killChild.ts", import.meta.url),
    env: { JOBS_KILL_CHILD_CONFIG: JSON.stringify(config) },
    onStdout: (out) => {
      if (!killTimer && out.includes("STARTED")) killTimer = setTimeout(() => child.kill(), killAfterMs);
    },
  });
  await waitFor("the child to load", () => child.out.includes("LOADED"), 60_000);
  const end = await child.go(60_000);
  expect(end, child.err).toBe("SIGKILL");
  const started = [...child.out.matchAll(/STARTED (\d+)/g)].map((m) => m[1]);
  const done = [...child.out.matchAll(/DONE (\d+)/g)].map((m) => m[1]);
  const interrupted = started.filter((id) => !done.includes(id));
  expect(interrupted.length, child.out).toBeGreaterThan(0);

  // Another worker (this process) finishes the work once the child's locks expire.
  db = await database.open();
  try {
    const survivor = createJobWorker({
      db,
      logger,
      workerId: "survivor",
      pollIntervalMs: 200,
      queues: {
        "kill.test": {
          concurrency: 2,
          handler: async (job) => {
            await db.transaction(async (tx) => {
              await tx.query("INSERT INTO public.kill_effects (job_id, worker) VALUES ($1, 'survivor')", [job.id]);
              await job.complete(tx);
            });
          },
        },
      },
    });
    await survivor.start();
    try {
      await waitFor("every job completed", async () => {
        const jobs = await listJobs(db, { queue: "kill.test" });
        return jobs.every((j) => j.state === "completed");
      });
    } finally {
      await survivor.stop();
    }
    const rows = await db.query<{ job_id: string; worker: string }>(
      "SELECT job_id, worker FROM public.kill_effects ORDER BY job_id",
    );
    // Exactly one effect per job: none lost, none twice.
    expect(rows.map((r) => r.job_id).sort()).toEqual([...ids].sort());
    // An interrupted job either committed in the child before the kill (its DONE line unprinted), or was
    // taken again by the survivor after the child's lock expired.
    const jobs = await listJobs(db, { queue: "kill.test" });
    for (const id of interrupted) {
      const effect = rows.find((r) => r.job_id === id);
      const job = jobs.find((j) => j.id === id);
      if (effect?.worker === "child") continue;
      expect(effect?.worker).toBe("survivor");
      expect(job?.claims).toBeGreaterThanOrEqual(2);
    }
    expect(rows.some((r) => r.worker === "survivor")).toBe(true);
  } finally {
    await database.close(db);
  }
}, 120_000);
