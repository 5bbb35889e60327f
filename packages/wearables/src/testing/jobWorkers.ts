/**
 * For the import and scores tests: a wait for a condition (never a sleep against the clock), and kernel job
 * workers run until their queue is drained.
 */
import { createJobWorker, type Database, type Logger, type QueueDefinition } from "@platform/kernel";

/** Resolves once `condition()` holds (checked every 20 ms), or fails after `timeoutMs` naming `what`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether no job of `queue` is queued or active (one statement: a job failing between two would slip by). */
export async function queueDrained(db: Database, queue: string): Promise<boolean> {
  const open = await db.query(
    "SELECT 1 FROM platform.jobs WHERE queue = $1 AND state IN ('queued', 'active') LIMIT 1",
    [queue],
  );
  return open.length === 0;
}

/** Runs a kernel worker of `queue` until no job of it is queued or active, then stops it. */
export async function drainQueue(
  db: Database,
  logger: Logger,
  queue: string,
  definition: QueueDefinition<never>,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const worker = createJobWorker({ db, logger, pollIntervalMs: 50, lockMs: 1_000, queues: { [queue]: definition } });
  await worker.start();
  try {
    await waitFor(`the jobs of ${queue} to end`, () => queueDrained(db, queue), options.timeoutMs);
  } finally {
    await worker.stop();
  }
}
