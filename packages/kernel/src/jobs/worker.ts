/**
 * A worker runs the handlers of some queues of durable jobs (`platform.jobs`). Any number of workers, in any
 * number of processes, may serve the same queues: each job is taken by one of them (`FOR UPDATE SKIP LOCKED`).
 *
 * It looks for due jobs when one is enqueued (NOTIFY on `JOBS_CHANNEL`, heard by every instance), when one
 * of its handlers finishes, when the next queued job or recurring period it knows of comes due, and every
 * `pollIntervalMs` in case a notification was lost. At most `concurrency` handlers of a queue run at once.
 *
 * A taken job is locked for `lockMs`, and the worker extends the locks of its running jobs every third of that
 * (a heartbeat), so a job whose worker died is run again by another `lockMs` after the last heartbeat, however
 * long its queue's `timeoutMs`. A heartbeat that finds a job lost (cancelled, or taken over after a pause
 * longer than the lock) aborts its handler's signal with `JobLockLostError`. Its handler:
 * - resolves: the job is completed (unless the handler completed it itself in its own transaction);
 * - throws or outlives `timeoutMs` (its `signal` is aborted): the job is queued again after a backoff, or
 *   `dead` once `maxAttempts` are spent;
 * - never ends because the process died: once the lock expires any worker queues it again (or marks it dead).
 * For exactly-once effects a handler writes them in a transaction that calls `job.complete(tx)`: the effects
 * and the completion commit together, and a worker whose claim was lost (the lock expired and another took
 * the job) has its transaction refused with `JobLockLostError`.
 *
 * @example
 * const worker = createJobWorker({
 *   db, logger,
 *   queues: {
 *     "wearables.webhooks": {
 *       concurrency: 4, timeoutMs: 30_000, backoff: { baseMs: 5_000 },
 *       handler: async (job) => {
 *         await deliver(job.payload, job.signal);
 *         await db.transaction(async (tx) => { await markDelivered(tx, job.payload); await job.complete(tx); });
 *       },
 *     },
 *   },
 *   schedules: [{ name: "wearables.provider-sync", queue: "wearables.provider-sync", everyMs: 900_000 }],
 * });
 * worker.start();
 * …
 * await worker.stop();
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Database, Queryable } from "../db/database.ts";
import { toJobStatus } from "../jobStatus.ts";
import type { Logger } from "../log/logger.ts";
import type { BackgroundJob, JobStatus } from "../service.ts";
import { type BackoffOptions, retryDelayMs } from "./backoff.ts";
import { checkQueueName, JOBS_CHANNEL } from "./enqueue.ts";
import { JobLockLostError, JobTimeoutError } from "./errors.ts";
import {
  assertClaim,
  claimJobs,
  completeJob,
  enqueueDueOccurrences,
  extendJobLocks,
  failJob,
  type JobClaim,
  type JobRecord,
  msUntilNextJob,
  pruneFinishedJobs,
  reapExpiredJobs,
  releaseJob,
  type ScheduleDefinition,
  upsertSchedules,
} from "./jobStore.ts";
import { checkRecurrence } from "./schedule.ts";

/** What a handler is given for one run of one job. */
export interface JobContext<P = unknown> {
  id: string;
  queue: string;
  payload: P;
  /** 1 on the first run, 2 on the first retry, … */
  attempt: number;
  maxAttempts: number;
  /**
   * Aborted when the run outlives its `timeoutMs` (reason `JobTimeoutError`) or when the worker stops (reason
   * `WorkerStoppingError`: a handler that then throws has its job given back, one that resolves completes it).
   */
  signal: AbortSignal;
  /**
   * In the handler's transaction `tx`: asserts this run still holds the job (and keeps its row locked until
   * `tx` ends), else throws `JobLockLostError`, so nothing of a lost run is committed.
   */
  assertHeld(tx: Queryable): Promise<void>;
  /** In `tx`: `assertHeld`, then marks the job completed when `tx` commits (effects and completion together). */
  complete(tx: Queryable): Promise<void>;
}

export type JobHandler<P = unknown> = (job: JobContext<P>) => Promise<void>;

export interface QueueDefinition<P = unknown> {
  handler: JobHandler<P>;
  /** Handlers of this queue running at once in this worker; default 1. */
  concurrency?: number;
  /** A run longer than this fails (its signal is aborted, the job retried); default 5 minutes. */
  timeoutMs?: number;
  /** Delays between attempts (see `backoff.ts`); default 1 s doubling up to 10 minutes, with jitter. */
  backoff?: BackoffOptions;
}

export interface CreateJobWorkerParameters {
  db: Database;
  logger: Logger;
  /** The queues this worker serves, by name. */
  queues: Readonly<Record<string, QueueDefinition<never>>>;
  /** Recurring jobs this worker enqueues (one occurrence per period across every worker); their queues must be served somewhere. */
  schedules?: readonly ScheduleDefinition[];
  /** The safety poll (also frees expired locks); default 5 s. */
  pollIntervalMs?: number;
  /**
   * How long a taken job stays locked after the worker's last heartbeat (sent every third of it): how long
   * after a worker died (or paused) its jobs wait before another worker may run them again; default 30 s.
   * A handler's transactions must stay shorter than this (a heartbeat waits for the job's row).
   */
  lockMs?: number;
  /** How long `stop()` waits for running handlers before it gives their jobs back; default 10 s. */
  stopTimeoutMs?: number;
  /** Names this worker in `locked_by` (default host:pid:random). */
  workerId?: string;
  /** How long completed and cancelled jobs stay listed before the workers delete them; default 1 day. */
  keepCompletedMs?: number;
  /** How long dead jobs stay (to be looked at and retried); default 14 days. */
  keepDeadMs?: number;
  /** For the jitter of retry delays; default `Math.random`. */
  random?: () => number;
}

export interface JobWorker extends BackgroundJob {
  /** Starts listening and polling (idempotent). */
  start(): Promise<void>;
  /** Looks for due jobs now. */
  wake(): void;
  /**
   * Stops taking jobs, aborts the running handlers' signals and waits up to `stopTimeoutMs` for them; the jobs of
   * those that threw or still run are given back (queued at once, the attempt not counted).
   */
  stop(): Promise<void>;
  status(): JobStatus;
  readonly workerId: string;
}

/** The reason of a handler's signal when its worker stops. */
export class WorkerStoppingError extends Error {
  override name = "WorkerStoppingError" as const;
  constructor() {
    super("the job worker is stopping");
  }
}
export type WorkerStoppingErrorType = WorkerStoppingError & { name: "WorkerStoppingError" };

/** Identifies a process in `locked_by` and `platform.leases.holder`. */
export const processHolderId = () => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

interface Running {
  claim: JobClaim;
  abort: AbortController;
  /** Set once the handler's transaction completed the job (a heartbeat then no longer finds it active). */
  completed: () => boolean;
  done: Promise<void>;
  queue: string;
}

export function createJobWorker({
  db,
  logger,
  queues,
  schedules = [],
  pollIntervalMs = 5_000,
  lockMs = 30_000,
  stopTimeoutMs = 10_000,
  workerId = processHolderId(),
  keepCompletedMs = 86_400_000,
  keepDeadMs = 14 * 86_400_000,
  random = Math.random,
}: CreateJobWorkerParameters): JobWorker {
  const log = logger.child({ worker: workerId });
  const names = Object.keys(queues);
  for (const name of names) checkQueueName(name);
  for (const s of schedules) checkRecurrence(s);
  const scheduleNames = schedules.map((s) => s.name);
  const watched = [...new Set([...names, ...schedules.map((s) => s.queue)])];
  const running = new Map<string, Running>();
  const counts = { completed: 0, failed: 0, dead: 0, lost: 0 };
  let lastError: unknown = null;
  let started = false;
  let stopping = false;
  let draining: Promise<void> | undefined;
  let again = false;
  let poll: NodeJS.Timeout | undefined;
  let nextTimer: NodeJS.Timeout | undefined;
  let stopListening: (() => Promise<void>) | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  /** Set by the poll (and at start): the next drain frees expired locks and enqueues recurring occurrences. */
  let housekeepingDue = true;

  const runningOf = (queue: string) => [...running.values()].filter((r) => r.queue === queue).length;

  function run(queue: string, job: JobRecord): void {
    const definition = queues[queue] as QueueDefinition<unknown>;
    const timeoutMs = definition.timeoutMs ?? 300_000;
    const claim: JobClaim = { id: job.id, workerId, claims: job.claims };
    const abort = new AbortController();
    let completedInTx = false;
    const context: JobContext<unknown> = {
      id: job.id,
      queue,
      payload: job.payload,
      attempt: job.attempts,
      maxAttempts: job.max_attempts,
      signal: abort.signal,
      assertHeld: (tx) => assertClaim(tx, claim),
      async complete(tx) {
        await assertClaim(tx, claim);
        if (!(await completeJob(tx, claim))) throw new JobLockLostError(claim.id);
        completedInTx = true;
      },
    };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort(new JobTimeoutError(job.id, timeoutMs));
        reject(new JobTimeoutError(job.id, timeoutMs));
      }, timeoutMs);
    });
    const done = (async () => {
      try {
        await Promise.race([definition.handler(context), timedOut]);
        if (completedInTx || (await completeJob(db, claim))) counts.completed += 1;
        else {
          counts.lost += 1;
          log.warn({ job: job.id, queue }, "job finished after its claim was lost; its completion was refused");
        }
      } catch (error) {
        if (abort.signal.reason instanceof WorkerStoppingError) {
          // Interrupted by stop(), not failed: given back, the attempt not counted.
          await releaseJob(db, claim).catch((e) => log.warn({ err: e, job: job.id }, "giving a job back failed"));
          return;
        }
        await settleFailure(queue, claim, job, error, definition.backoff);
      } finally {
        clearTimeout(timer);
        running.delete(job.id);
        wake();
      }
    })();
    running.set(job.id, { claim, abort, done, queue, completed: () => completedInTx });
  }

  async function settleFailure(
    queue: string,
    claim: JobClaim,
    job: JobRecord,
    error: unknown,
    backoff: BackoffOptions | undefined,
  ): Promise<void> {
    lastError = error;
    if (error instanceof JobLockLostError) {
      counts.lost += 1;
      log.warn({ job: job.id, queue }, "job's claim was lost while it ran; its writes were refused");
      return;
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    try {
      const state = await failJob(db, claim, message, retryDelayMs(job.attempts, backoff, random));
      if (state === "dead") counts.dead += 1;
      else if (state === "queued") counts.failed += 1;
      else counts.lost += 1; // cancelled, or its lock expired and another worker has it
      log.warn(
        { err: error, job: job.id, queue, attempt: job.attempts, state: state ?? "lost" },
        state === "dead" ? "job failed for the last time: dead" : "job failed",
      );
    } catch (failError) {
      // Its lock expires and the reaper queues it again.
      log.error({ err: failError, job: job.id, queue }, "recording a job's failure failed");
    }
  }

  let prunedAt = 0;

  /**
   * What the poll does besides taking jobs: free expired locks, enqueue due recurring occurrences, and (at most
   * once a minute) delete old finished jobs.
   */
  async function housekeeping(): Promise<void> {
    await reapExpiredJobs(db);
    if (Date.now() - prunedAt >= 60_000) {
      prunedAt = Date.now();
      await pruneFinishedJobs(db, { keepCompletedMs, keepDeadMs });
    }
    if (scheduleNames.length > 0) {
      await db.transaction((tx) => enqueueDueOccurrences(tx, scheduleNames));
    }
  }

  /** Extends the locks of the running jobs; aborts the handlers of jobs found lost. Re-arms itself. */
  async function beat(): Promise<void> {
    const all = [...running.values()];
    try {
      const held = await extendJobLocks(
        db,
        workerId,
        all.map((r) => r.claim),
        lockMs,
      );
      for (const r of all) {
        // Finished in between (completed or failed by its own run): not lost.
        if (held.has(r.claim.id) || r.completed() || !running.has(r.claim.id)) continue;
        log.warn({ job: r.claim.id, queue: r.queue }, "job's lock was lost while it ran: aborting its handler");
        r.abort.abort(new JobLockLostError(r.claim.id));
      }
    } catch (error) {
      lastError = error;
      log.warn({ err: error }, "extending the running jobs' locks failed; the next heartbeat tries again");
    }
    if (!stopping) {
      heartbeat = setTimeout(beat, lockMs / 3);
      heartbeat.unref();
    }
  }

  async function drainOnce(): Promise<void> {
    if (housekeepingDue) {
      housekeepingDue = false;
      await housekeeping();
    }
    let spare = false;
    for (const queue of names) {
      const definition = queues[queue] as QueueDefinition<unknown>;
      const concurrency = definition.concurrency ?? 1;
      const free = concurrency - runningOf(queue);
      if (free <= 0 || stopping) continue;
      const jobs = await claimJobs(db, queue, free, workerId, lockMs);
      for (const job of jobs) run(queue, job);
      if (jobs.length < free) spare = true;
    }
    // Only a worker with room for more needs to know when the next job comes due.
    if (spare || names.length === 0) await armNextTimer();
  }

  /** Wakes the worker when the earliest queued job or schedule it knows of comes due (before the next poll). */
  async function armNextTimer(): Promise<void> {
    clearTimeout(nextTimer);
    nextTimer = undefined;
    if (stopping) return;
    const ms = await msUntilNextJob(db, watched);
    if (ms === undefined || ms >= pollIntervalMs) return;
    nextTimer = setTimeout(
      () => {
        // A recurring period may be what comes due.
        housekeepingDue = scheduleNames.length > 0 || housekeepingDue;
        wake();
      },
      Math.max(ms, 10),
    );
    nextTimer.unref();
  }

  async function drain(): Promise<void> {
    for (;;) {
      again = false;
      try {
        await drainOnce();
      } catch (error) {
        lastError = error;
        log.warn({ err: error }, "taking jobs failed; the next wake-up or poll tries again");
      }
      if (!again || stopping) {
        draining = undefined;
        return;
      }
    }
  }

  function wake(): void {
    if (!started || stopping) return;
    if (draining) {
      again = true;
      return;
    }
    draining = drain();
  }

  return {
    workerId,
    async start() {
      if (started) return;
      started = true;
      stopping = false;
      housekeepingDue = true;
      if (schedules.length > 0) await upsertSchedules(db, schedules);
      try {
        stopListening = await db.listen(JOBS_CHANNEL, (queue) => {
          if (watched.includes(queue)) wake();
        });
      } catch (error) {
        log.warn({ err: error }, "listening for jobs failed; polling only");
      }
      heartbeat = setTimeout(beat, lockMs / 3);
      heartbeat.unref();
      poll = setInterval(() => {
        housekeepingDue = true;
        wake();
      }, pollIntervalMs);
      poll.unref();
      wake();
    },
    wake,
    async stop() {
      if (!started) return;
      stopping = true;
      clearInterval(poll);
      clearTimeout(nextTimer);
      clearTimeout(heartbeat);
      await stopListening?.().catch((error) => log.warn({ err: error }, "unlisten failed"));
      stopListening = undefined;
      await draining;
      // Handlers are asked to stop (their signal), then given `stopTimeoutMs` to end: one that finishes its job
      // completes it, one that gives up has its job given back; a job whose handler is still running after
      // that is given back anyway (its claim is gone, so whatever it writes later through the job is refused).
      const all = [...running.values()];
      for (const r of all) r.abort.abort(new WorkerStoppingError());
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, stopTimeoutMs);
      });
      await Promise.race([Promise.all(all.map((r) => r.done)), grace]);
      clearTimeout(timer);
      for (const r of running.values()) {
        await releaseJob(db, r.claim).catch((error) => log.warn({ err: error, job: r.claim.id }, "giving back failed"));
      }
      started = false;
    },
    status: () =>
      toJobStatus({
        workerId,
        queues: names,
        schedules: scheduleNames,
        running: [...running.values()].map((r) => ({ id: r.claim.id, queue: r.queue })),
        ...counts,
        lastError,
      }),
  };
}
