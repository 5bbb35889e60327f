/**
 * The SQL of durable jobs (`platform.jobs`, `platform.job_schedules`): what the worker takes, completes,
 * fails and frees, and what operators list, retry and cancel. Every statement that ends a run names the
 * claim it belongs to (`claims`, counted at each take), so a worker whose claim was lost changes nothing.
 */
import type { Queryable } from "../db/database.ts";
import { JOBS_CHANNEL } from "./enqueue.ts";
import { JobLockLostError, JobNotFoundError, JobSingletonConflictError, JobStateError } from "./errors.ts";
import { periodStart } from "./schedule.ts";

export type JobState = "queued" | "active" | "completed" | "dead" | "cancelled";

/** A job as stored (ids and counters of type bigint are decimal strings, as every int8 is). */
export interface JobRecord {
  id: string;
  queue: string;
  payload: unknown;
  state: JobState;
  singleton_key: string | null;
  schedule: string | null;
  run_at: Date;
  attempts: number;
  max_attempts: number;
  claims: number;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

/** One take of a job by one worker: what its fenced statements name. */
export interface JobClaim {
  id: string;
  workerId: string;
  claims: number;
}

const COLUMNS = `id, queue, payload, state, singleton_key, schedule, run_at, attempts, max_attempts, claims,
  locked_by, locked_until, last_error, created_at, started_at, finished_at, updated_at`;

const OWNED = "id = $1 AND state = 'active' AND locked_by = $2 AND claims = $3";
const claimParams = (c: JobClaim) => [c.id, c.workerId, c.claims];

/** Takes up to `limit` due jobs of `queue` for `workerId`, locked for `lockMs`, oldest due first. */
export async function claimJobs(
  q: Queryable,
  queue: string,
  limit: number,
  workerId: string,
  lockMs: number,
): Promise<JobRecord[]> {
  return q.query<JobRecord>(
    `WITH next AS (
       SELECT id FROM platform.jobs
       WHERE state = 'queued' AND queue = $1 AND run_at <= now()
       ORDER BY run_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
     UPDATE platform.jobs j SET state = 'active', attempts = j.attempts + 1, claims = j.claims + 1,
       locked_by = $3, locked_until = now() + make_interval(secs => $4::double precision / 1000),
       started_at = now(), updated_at = now()
     FROM next WHERE j.id = next.id
     RETURNING ${COLUMNS.replace(/(\w+)/g, "j.$1")}`,
    [queue, limit, workerId, lockMs],
  );
}

/**
 * Extends the locks of this worker's running jobs by `lockMs` (the worker's heartbeat). Answers the ids still
 * this worker's: a job missing from the answer was lost (its lock expired and another worker took it, or it
 * was cancelled). Waits for a row its handler's transaction holds, so a handler's transactions must stay
 * shorter than the lock.
 */
export async function extendJobLocks(
  q: Queryable,
  workerId: string,
  claims: readonly JobClaim[],
  lockMs: number,
): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const rows = await q.query<{ id: string }>(
    `UPDATE platform.jobs j SET locked_until = now() + make_interval(secs => $4::double precision / 1000)
     FROM unnest($2::bigint[], $3::int[]) AS c(id, claims)
     WHERE j.id = c.id AND j.claims = c.claims AND j.state = 'active' AND j.locked_by = $1
     RETURNING j.id::text AS id`,
    [workerId, claims.map((c) => c.id), claims.map((c) => c.claims), lockMs],
  );
  return new Set(rows.map((r) => r.id));
}

/** In `tx`: the job is still this claim's (its row stays locked until `tx` ends), else `JobLockLostError`. */
export async function assertClaim(tx: Queryable, claim: JobClaim): Promise<void> {
  const rows = await tx.query(`SELECT 1 FROM platform.jobs WHERE ${OWNED} FOR UPDATE`, claimParams(claim));
  if (rows.length === 0) throw new JobLockLostError(claim.id);
}

/** Marks the claimed job completed; false when the claim was lost. */
export async function completeJob(q: Queryable, claim: JobClaim): Promise<boolean> {
  const rows = await q.query(
    `UPDATE platform.jobs SET state = 'completed', locked_by = NULL, locked_until = NULL, finished_at = now(),
       updated_at = now()
     WHERE ${OWNED} RETURNING 1`,
    claimParams(claim),
  );
  return rows.length > 0;
}

/**
 * Fails the claimed run: queued again after `retryDelayMs`, or `dead` when its attempts are spent. Answers the
 * new state, `undefined` when the claim was lost.
 */
export async function failJob(
  q: Queryable,
  claim: JobClaim,
  error: string,
  retryDelayMs: number,
): Promise<"queued" | "dead" | undefined> {
  const rows = await q.query<{ state: "queued" | "dead" }>(
    `UPDATE platform.jobs SET
       state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
       run_at = CASE WHEN attempts >= max_attempts THEN run_at
                ELSE now() + make_interval(secs => $5::double precision / 1000) END,
       finished_at = CASE WHEN attempts >= max_attempts THEN now() END,
       last_error = $4, locked_by = NULL, locked_until = NULL, updated_at = now()
     WHERE ${OWNED} RETURNING state`,
    [...claimParams(claim), error.slice(0, 2_000), retryDelayMs],
  );
  return rows[0]?.state;
}

/** Gives a claimed job back untouched (a worker stopping): queued at once, the attempt not counted. */
export async function releaseJob(q: Queryable, claim: JobClaim): Promise<boolean> {
  const rows = await q.query(
    `UPDATE platform.jobs SET state = 'queued', attempts = attempts - 1, run_at = now(), locked_by = NULL,
       locked_until = NULL, updated_at = now()
     WHERE ${OWNED} RETURNING 1`,
    claimParams(claim),
  );
  if (rows.length > 0)
    await q.query("SELECT pg_notify($1, queue) FROM platform.jobs WHERE id = $2", [JOBS_CHANNEL, claim.id]);
  return rows.length > 0;
}

/**
 * Frees the jobs of workers that stopped answering (their lock expired: killed, or paused past it): queued
 * again at once, or dead when their attempts are spent. Answers how many were freed.
 */
export async function reapExpiredJobs(q: Queryable): Promise<number> {
  const rows = await q.query<{ queue: string; state: string }>(
    `UPDATE platform.jobs SET
       state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
       finished_at = CASE WHEN attempts >= max_attempts THEN now() END,
       run_at = now(), locked_by = NULL, locked_until = NULL, updated_at = now(),
       last_error = 'the worker running it stopped answering (its lock expired)'
     WHERE state = 'active' AND locked_until < now()
     RETURNING queue, state`,
  );
  for (const queue of new Set(rows.filter((r) => r.state === "queued").map((r) => r.queue))) {
    await q.query("SELECT pg_notify($1, $2)", [JOBS_CHANNEL, queue]);
  }
  return rows.length;
}

/**
 * Deletes completed and cancelled jobs finished more than `keepCompletedMs` ago and dead ones finished more than
 * `keepDeadMs` ago, at most `limit` per call (the next call goes on). Answers how many were deleted.
 */
export async function pruneFinishedJobs(
  q: Queryable,
  { keepCompletedMs, keepDeadMs, limit = 1_000 }: { keepCompletedMs: number; keepDeadMs: number; limit?: number },
): Promise<number> {
  const rows = await q.query(
    `DELETE FROM platform.jobs WHERE id IN (
       SELECT id FROM platform.jobs
       WHERE (state IN ('completed', 'cancelled') AND finished_at < now() - make_interval(secs => $1::double precision / 1000))
          OR (state = 'dead' AND finished_at < now() - make_interval(secs => $2::double precision / 1000))
       LIMIT $3)
     RETURNING 1`,
    [keepCompletedMs, keepDeadMs, limit],
  );
  return rows.length;
}

/** Milliseconds until the next queued job of `queues` is due (0 when one is due), undefined when none waits. */
export async function msUntilNextJob(q: Queryable, queues: readonly string[]): Promise<number | undefined> {
  const [row] = await q.query<{ ms: number | null }>(
    `SELECT greatest(0, extract(epoch FROM min(next) - now()) * 1000)::float8 AS ms FROM (
       SELECT min(run_at) AS next FROM platform.jobs WHERE state = 'queued' AND queue = ANY($1::text[])
       UNION ALL
       SELECT min(next_run_at) FROM platform.job_schedules WHERE queue = ANY($1::text[])) t`,
    [queues],
  );
  return row?.ms ?? undefined;
}

/** A recurring job: its occurrences are enqueued on `queue`, one per period (see `schedule.ts`). */
export interface ScheduleDefinition {
  /** Unique across the platform, e.g. `wearables.scores`. */
  name: string;
  queue: string;
  everyMs: number;
  offsetMs?: number;
  payload?: unknown;
  /** Attempts of each occurrence (default 1: a failed occurrence is dead, the next period runs anyway). */
  maxAttempts?: number;
}

/**
 * Creates or updates the schedules. A new one (or one whose period changed) is due at once: its first
 * occurrence is the current period's.
 */
export async function upsertSchedules(q: Queryable, schedules: readonly ScheduleDefinition[]): Promise<void> {
  for (const s of schedules) {
    await q.query(
      `INSERT INTO platform.job_schedules (name, queue, payload, every_ms, offset_ms, max_attempts, next_run_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (name) DO UPDATE SET queue = EXCLUDED.queue, payload = EXCLUDED.payload,
         max_attempts = EXCLUDED.max_attempts,
         every_ms = EXCLUDED.every_ms, offset_ms = EXCLUDED.offset_ms, updated_at = now(),
         next_run_at = CASE WHEN platform.job_schedules.every_ms = EXCLUDED.every_ms
           AND platform.job_schedules.offset_ms = EXCLUDED.offset_ms
           THEN platform.job_schedules.next_run_at ELSE now() END`,
      [s.name, s.queue, JSON.stringify(s.payload ?? {}), s.everyMs, s.offsetMs ?? 0, s.maxAttempts ?? 1],
    );
  }
}

/**
 * Enqueues the current period's occurrence of every due schedule of `names`, and moves each to its next
 * period, in one transaction per call: a schedule row locked by another worker is skipped (that worker
 * enqueues it), and the unique (schedule, run_at) index makes a second occurrence of one period impossible.
 * Periods missed while nothing ran are not made up: only the current one runs. An occurrence whose previous
 * one is still queued or active is skipped too (its singleton key is the schedule's name).
 */
export async function enqueueDueOccurrences(
  tx: Queryable,
  names: readonly string[],
): Promise<{ schedule: string; queue: string; runAt: Date; enqueued: boolean }[]> {
  const due = await tx.query<{
    name: string;
    queue: string;
    payload: unknown;
    every_ms: string;
    offset_ms: string;
    max_attempts: number;
    now_ms: number;
  }>(
    `SELECT name, queue, payload, every_ms, offset_ms, max_attempts, (extract(epoch FROM now()) * 1000)::float8 AS now_ms
     FROM platform.job_schedules WHERE name = ANY($1::text[]) AND next_run_at <= now()
     ORDER BY name FOR UPDATE SKIP LOCKED`,
    [names],
  );
  const result = [];
  for (const s of due) {
    const recurrence = { everyMs: Number(s.every_ms), offsetMs: Number(s.offset_ms) };
    const start = periodStart(Math.floor(s.now_ms), recurrence);
    const runAt = new Date(start);
    const inserted = await tx.query(
      `INSERT INTO platform.jobs (queue, payload, schedule, singleton_key, run_at, max_attempts)
       VALUES ($1, $2, $3, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING id`,
      [s.queue, JSON.stringify(s.payload), s.name, runAt, s.max_attempts],
    );
    await tx.query(
      `UPDATE platform.job_schedules SET next_run_at = $2, last_run_at = $3, updated_at = now() WHERE name = $1`,
      [s.name, new Date(start + recurrence.everyMs), runAt],
    );
    if (inserted.length > 0) await tx.query("SELECT pg_notify($1, $2)", [JOBS_CHANNEL, s.queue]);
    result.push({ schedule: s.name, queue: s.queue, runAt, enqueued: inserted.length > 0 });
  }
  return result;
}

export interface ListJobsParameters {
  queue?: string;
  state?: JobState;
  /** Newest first; default 100, at most 1,000. */
  limit?: number;
}

/** Jobs with their state, holder (`locked_by`), attempts and last error, newest first. */
export async function listJobs(q: Queryable, { queue, state, limit = 100 }: ListJobsParameters = {}) {
  return q.query<JobRecord>(
    `SELECT ${COLUMNS} FROM platform.jobs
     WHERE ($1::text IS NULL OR queue = $1) AND ($2::text IS NULL OR state = $2)
     ORDER BY id DESC LIMIT $3`,
    [queue ?? null, state ?? null, Math.min(Math.max(1, limit), 1_000)],
  );
}

export async function getJob(q: Queryable, id: string): Promise<JobRecord | undefined> {
  if (!/^\d{1,19}$/.test(id)) return undefined;
  const [row] = await q.query<JobRecord>(`SELECT ${COLUMNS} FROM platform.jobs WHERE id = $1`, [id]);
  return row;
}

/**
 * Queues a dead, cancelled or completed job again now, with its attempts counted from zero.
 * `JobNotFoundError`, `JobStateError` (queued or active), `JobSingletonConflictError`.
 */
export async function retryJob(q: Queryable, id: string): Promise<JobRecord> {
  const job = await getJob(q, id);
  if (!job) throw new JobNotFoundError(id);
  let rows: JobRecord[];
  try {
    rows = await q.query<JobRecord>(
      `UPDATE platform.jobs SET state = 'queued', attempts = 0, run_at = now(), finished_at = NULL,
         updated_at = now()
       WHERE id = $1 AND state IN ('dead', 'cancelled', 'completed') RETURNING ${COLUMNS}`,
      [id],
    );
  } catch (error) {
    if ((error as { code?: string }).code === "23505" && job.singleton_key) {
      throw new JobSingletonConflictError(id, job.singleton_key);
    }
    throw error;
  }
  const row = rows[0];
  if (!row) throw new JobStateError(id, job.state, "retried");
  await q.query("SELECT pg_notify($1, $2)", [JOBS_CHANNEL, row.queue]);
  return row;
}

/**
 * Cancels a queued or active job. An active one's worker is not interrupted, but its claim is gone: what it
 * writes through `complete`/`assertHeld` is refused. `JobNotFoundError`, `JobStateError`.
 */
export async function cancelJob(q: Queryable, id: string): Promise<JobRecord> {
  const job = await getJob(q, id);
  if (!job) throw new JobNotFoundError(id);
  const [row] = await q.query<JobRecord>(
    `UPDATE platform.jobs SET state = 'cancelled', locked_by = NULL, locked_until = NULL, finished_at = now(),
       updated_at = now(), last_error = coalesce(last_error, 'cancelled by an operator')
     WHERE id = $1 AND state IN ('queued', 'active') RETURNING ${COLUMNS}`,
    [id],
  );
  if (!row) throw new JobStateError(id, job.state, "cancelled");
  return row;
}
