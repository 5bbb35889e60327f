/**
 * The child process of worker.kill.test.ts: a job worker on the queue `kill.test` whose handler writes its
 * effect and completes the job in one transaction, after a delay the test chose. It prints `STARTED <id>`
 * when a run begins and `DONE <id>` after its transaction committed; the test SIGKILLs it in between.
 */
import { createLogger } from "../log/logger.ts";
import { startKillTestChild } from "../testing/killTest.ts";
import { createJobWorker } from "./worker.ts";

export interface JobsKillChildConfig {
  url?: string | undefined;
  dataDir: string;
  /** How long each job's handler waits before its transaction, by job id. */
  delays: Record<string, number>;
}

const { config, db } = await startKillTestChild<JobsKillChildConfig>("JOBS_KILL_CHILD_CONFIG");
const worker = createJobWorker({
  db,
  logger: createLogger({ level: "silent" }),
  workerId: "child",
  lockMs: 1_000,
  queues: {
    "kill.test": {
      concurrency: 2,
      timeoutMs: 1_000,
      handler: async (job) => {
        process.stdout.write(`STARTED ${job.id}\n`);
        await new Promise((resolve) => setTimeout(resolve, config.delays[job.id] ?? 0));
        await db.transaction(async (tx) => {
          await tx.query("INSERT INTO public.kill_effects (job_id, worker) VALUES ($1, 'child')", [job.id]);
          await job.complete(tx);
        });
        process.stdout.write(`DONE ${job.id}\n`);
      },
    },
  },
});
await worker.start();
