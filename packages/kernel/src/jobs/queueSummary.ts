/**
 * One line per job queue for operators (`platform status`): how many jobs wait, run, died; how long the
 * oldest due job has waited (a worker missing, or too slow, shows here first); the newest error.
 *
 * @example
 * for (const q of await summarizeQueues(db)) console.log(q.queue, q.queued, q.oldest_due_ms);
 */
import type { Queryable } from "../db/database.ts";

export interface QueueSummary {
  queue: string;
  queued: number;
  /** Queued jobs whose `run_at` has come (the rest are scheduled or backing off). */
  due: number;
  active: number;
  dead: number;
  completed: number;
  /** How long the oldest due job has waited, in milliseconds; null when none is due. */
  oldest_due_ms: number | null;
  /** The last error of the most recently updated job that has one. */
  last_error: string | null;
}

export async function summarizeQueues(q: Queryable): Promise<QueueSummary[]> {
  const rows = await q.query<{
    queue: string;
    queued: string;
    due: string;
    active: string;
    dead: string;
    completed: string;
    oldest_due_ms: string | null;
    last_error: string | null;
  }>(
    `SELECT queue,
       count(*) FILTER (WHERE state = 'queued') AS queued,
       count(*) FILTER (WHERE state = 'queued' AND run_at <= now()) AS due,
       count(*) FILTER (WHERE state = 'active') AS active,
       count(*) FILTER (WHERE state = 'dead') AS dead,
       count(*) FILTER (WHERE state = 'completed') AS completed,
       floor(extract(epoch FROM now() - min(run_at) FILTER (WHERE state = 'queued' AND run_at <= now())) * 1000)
         AS oldest_due_ms,
       (array_agg(last_error ORDER BY updated_at DESC) FILTER (WHERE last_error IS NOT NULL))[1] AS last_error
     FROM platform.jobs GROUP BY queue ORDER BY queue`,
  );
  return rows.map((r) => ({
    queue: r.queue,
    queued: Number(r.queued),
    due: Number(r.due),
    active: Number(r.active),
    dead: Number(r.dead),
    completed: Number(r.completed),
    oldest_due_ms: r.oldest_due_ms === null ? null : Number(r.oldest_due_ms),
    last_error: r.last_error,
  }));
}
