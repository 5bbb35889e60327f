/**
 * The job layer against a bare `SELECT … FOR UPDATE SKIP LOCKED` loop on the same database and driver
 * (`BENCH_DRIVER`: pglite on a fresh folder, postgres on a fresh `bench_platform_jobs`), with no-op handlers:
 * - throughput: BENCH_JOBS jobs queued beforehand, then taken and completed by `concurrency` runners;
 * - latency: BENCH_LATENCY_JOBS jobs enqueued one at a time (every 10 ms, each its own transaction with its
 *   NOTIFY) while the runners idle: enqueue (before its INSERT) → handler start, p50/p99.
 * The kernel's worker (`createJobWorker`, one queue of `concurrency` handlers, its 5 s safety poll, its claims
 * of up to the free handlers at a time, each job completed by its own UPDATE) against `concurrency` loops of
 * claim-one (`WITH next AS (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1) UPDATE … RETURNING`) then complete-one,
 * waking on the same NOTIFY when the table is empty. Prints one JSON line.
 * Usage: BENCH_DRIVER=pglite npx tsx bench/platform/jobs.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDatabase,
  createJobWorker,
  createLogger,
  type Database,
  enqueueJob,
  enqueueJobs,
  kernelMigrations,
  migrate,
} from "@platform/kernel";
import { benchDatabase } from "../lib/benchDatabase.ts";
import { type LatencySummary, summarize, waitUntil } from "../lib/latency.ts";

const driver = (process.env.BENCH_DRIVER ?? "pglite") as "pglite" | "postgres";
const jobCount = Number(process.env.BENCH_JOBS ?? 1000);
const latencyJobs = Number(process.env.BENCH_LATENCY_JOBS ?? 200);
const concurrency = Number(process.env.BENCH_JOB_CONCURRENCY ?? 4);
const QUEUE = "bench.noop";
const CHANNEL = "bench_jobs";
const now = () => performance.timeOrigin + performance.now();

async function openDatabase(): Promise<{ db: Database; remove(): Promise<void> }> {
  if (driver === "postgres") {
    const bench = benchDatabase("platform_jobs");
    if (!(await bench.preparePostgres({ fresh: true }))) throw new Error("no PostgreSQL server");
    const db = await createDatabase({ url: bench.url(), dataDir: "memory" });
    return { db, remove: async () => db.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), "bench-platform-jobs-"));
  const db = await createDatabase({ dataDir: dir });
  return {
    db,
    remove: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const { db, remove } = await openDatabase();
await migrate(db, kernelMigrations());
await db.exec(`
  CREATE TABLE bench_jobs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payload jsonb NOT NULL,
    state text NOT NULL DEFAULT 'queued',
    run_at timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz
  );
  CREATE INDEX bench_jobs_due ON bench_jobs (run_at, id) WHERE state = 'queued';`);
const logger = createLogger({ level: "warn" });

interface Runner {
  start(onStart: (payload: { t?: number }) => void): Promise<void>;
  stop(): Promise<void>;
  /** Queues `payloads` beforehand (throughput) — in batches, one transaction each. */
  fill(payloads: { t?: number }[]): Promise<void>;
  enqueueOne(payload: { t: number }): Promise<void>;
  completed(): Promise<number>;
  reset(): Promise<void>;
}

function kernelRunner(): Runner {
  let worker: ReturnType<typeof createJobWorker> | undefined;
  return {
    async start(onStart) {
      worker = createJobWorker({
        db,
        logger,
        queues: {
          [QUEUE]: {
            concurrency,
            handler: async (job) => onStart(job.payload as { t?: number }),
          },
        },
      });
      await worker.start();
    },
    stop: async () => worker?.stop(),
    async fill(payloads) {
      for (let i = 0; i < payloads.length; i += 500) {
        await db.transaction((tx) => enqueueJobs(tx, QUEUE, payloads.slice(i, i + 500)));
      }
    },
    enqueueOne: async (payload) => {
      await db.transaction((tx) => enqueueJob(tx, QUEUE, payload));
    },
    completed: async () =>
      Number(
        (
          await db.query<{ n: string }>(
            "SELECT count(*) AS n FROM platform.jobs WHERE queue = $1 AND state = 'completed'",
            [QUEUE],
          )
        )[0]?.n,
      ),
    reset: async () => {
      await db.query("DELETE FROM platform.jobs WHERE queue = $1", [QUEUE]);
    },
  };
}

function bareRunner(): Runner {
  let stopping = false;
  let loops: Promise<void>[] = [];
  let unlisten: (() => Promise<void>) | undefined;
  const waiting = new Set<() => void>();
  const wakeAll = () => {
    for (const w of [...waiting]) w();
  };
  async function loop(onStart: (payload: { t?: number }) => void): Promise<void> {
    while (!stopping) {
      const rows = await db.query<{ id: string; payload: { t?: number } }>(
        `WITH next AS (
           SELECT id FROM bench_jobs WHERE state = 'queued' AND run_at <= now()
           ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
         UPDATE bench_jobs j SET state = 'active', locked_until = now() + interval '5 minutes'
         FROM next WHERE j.id = next.id RETURNING j.id, j.payload`,
      );
      const row = rows[0];
      if (!row) {
        // Empty: sleep until a NOTIFY (or the same 5 s poll as the worker's).
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiting.delete(done);
            resolve();
          };
          const timer = setTimeout(done, 5_000);
          waiting.add(done);
        });
        continue;
      }
      onStart(row.payload);
      await db.query("UPDATE bench_jobs SET state = 'completed', locked_until = NULL WHERE id = $1", [row.id]);
    }
  }
  return {
    async start(onStart) {
      stopping = false;
      unlisten = await db.listen(CHANNEL, wakeAll);
      loops = Array.from({ length: concurrency }, () => loop(onStart));
    },
    async stop() {
      stopping = true;
      wakeAll();
      await Promise.all(loops);
      await unlisten?.();
    },
    async fill(payloads) {
      for (let i = 0; i < payloads.length; i += 500) {
        await db.transaction(async (tx) => {
          await tx.query("INSERT INTO bench_jobs (payload) SELECT p FROM jsonb_array_elements($1::jsonb) AS p", [
            JSON.stringify(payloads.slice(i, i + 500)),
          ]);
          await tx.query("SELECT pg_notify($1, 'x')", [CHANNEL]);
        });
      }
    },
    enqueueOne: async (payload) => {
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO bench_jobs (payload) VALUES ($1)", [JSON.stringify(payload)]);
        await tx.query("SELECT pg_notify($1, 'x')", [CHANNEL]);
      });
    },
    completed: async () =>
      Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM bench_jobs WHERE state = 'completed'"))[0]?.n),
    reset: async () => {
      await db.query("DELETE FROM bench_jobs");
    },
  };
}

interface JobResult {
  jobsPerSec: number;
  throughputSec: number;
  latency: LatencySummary;
}

async function measure(runner: Runner): Promise<JobResult> {
  // Throughput: everything queued before the runners start.
  let started = 0;
  await runner.fill(Array.from({ length: jobCount }, () => ({})));
  const t0 = performance.now();
  await runner.start(() => {
    started++;
  });
  await waitUntil(() => started >= jobCount, 600_000);
  let done = 0;
  while (done < jobCount) {
    done = await runner.completed();
    if (done < jobCount) await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - t0) / 1000;
  await runner.stop();
  await runner.reset();
  // Latency: one job every 10 ms, the runners idle between.
  const latencies: number[] = [];
  await runner.start((p) => {
    if (p.t !== undefined) latencies.push(now() - p.t);
  });
  for (let i = 0; i < latencyJobs; i++) {
    await runner.enqueueOne({ t: now() });
    await new Promise((r) => setTimeout(r, 10));
  }
  await waitUntil(() => latencies.length >= latencyJobs, 60_000);
  await runner.stop();
  await runner.reset();
  return {
    jobsPerSec: Math.round(jobCount / seconds),
    throughputSec: Math.round(seconds * 100) / 100,
    latency: summarize(latencies),
  };
}

// Twice each, alternating, so that neither always runs on a warmer database.
const rounds: { kernel: JobResult; bare: JobResult }[] = [];
for (let round = 0; round < Number(process.env.BENCH_JOB_ROUNDS ?? 2); round++) {
  const bare = await measure(bareRunner());
  const kernel = await measure(kernelRunner());
  rounds.push({ kernel, bare });
}
await remove();
process.stdout.write(`${JSON.stringify({ driver, jobCount, latencyJobs, concurrency, rounds })}\n`);
process.exit(0);
