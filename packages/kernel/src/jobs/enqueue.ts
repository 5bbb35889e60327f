/**
 * Enqueueing a durable job, in the caller's transaction: the job exists if and only if the caller's
 * transaction commits, and the workers hear of it (NOTIFY on `JOBS_CHANNEL`, sent at that commit).
 *
 * @example
 * await db.transaction(async (tx) => {
 *   await ordersRepository.insert(tx, order);
 *   await enqueueJob(tx, "brokerage.order-webhook", { orderId: order.id }, { singletonKey: order.id });
 * });
 */
import type { Queryable } from "../db/database.ts";

/** The NOTIFY channel of new due jobs; the payload is the job's queue. */
export const JOBS_CHANNEL = "platform_jobs";

export interface EnqueueOptions {
  /** When to run it, at the earliest (default: now). */
  runAt?: Date;
  /** Or: how long from now, by the database's clock. */
  delayMs?: number;
  /**
   * At most one queued or active job of this queue carries this key (a unique partial index says so): while
   * one exists, enqueueing another answers `undefined` and writes nothing.
   */
  singletonKey?: string;
  /** Attempts before the job is dead (default 5; 1 = never retried). */
  maxAttempts?: number;
}

/** A queue name: letters, digits, `.`, `_`, `-`, `:` (e.g. `wearables.scores`). */
const QUEUE_NAME = /^[A-Za-z][A-Za-z0-9._:-]{0,99}$/;

/** A queue name or enqueue option that cannot be. */
export class InvalidJobError extends Error {
  override name = "InvalidJobError" as const;
}
export type InvalidJobErrorType = InvalidJobError & { name: "InvalidJobError" };

export function checkQueueName(queue: string): void {
  if (!QUEUE_NAME.test(queue)) throw new InvalidJobError(`invalid queue name "${queue}"`);
}

/**
 * Adds a job to `queue` through `q` (a transaction's `tx`, or the database itself) and answers its id, or
 * `undefined` when a queued or active job of the same `singletonKey` exists already.
 */
export async function enqueueJob(
  q: Queryable,
  queue: string,
  payload: unknown = {},
  options: EnqueueOptions = {},
): Promise<string | undefined> {
  checkQueueName(queue);
  const { runAt, delayMs, singletonKey, maxAttempts = 5 } = options;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw new InvalidJobError(`maxAttempts must be a whole number ≥ 1, not ${maxAttempts}`);
  }
  const rows = await q.query<{ id: string; due: boolean }>(
    `INSERT INTO platform.jobs (queue, payload, singleton_key, max_attempts, run_at)
     VALUES ($1, $2, $3, $4, coalesce($5::timestamptz, now() + make_interval(secs => $6::double precision / 1000)))
     ON CONFLICT (queue, singleton_key) WHERE singleton_key IS NOT NULL AND state IN ('queued', 'active') DO NOTHING
     RETURNING id, run_at <= now() AS due`,
    [queue, JSON.stringify(payload ?? {}), singletonKey ?? null, maxAttempts, runAt ?? null, delayMs ?? 0],
  );
  const row = rows[0];
  if (!row) return undefined;
  // A job for later is found by the workers' timers and polls; a due one wakes them at commit.
  if (row.due) await q.query("SELECT pg_notify($1, $2)", [JOBS_CHANNEL, queue]);
  return row.id;
}

/** Options of `enqueueJobs`: those of `enqueueJob` but the singleton key (one key is one job). */
export type EnqueueManyOptions = Omit<EnqueueOptions, "singletonKey">;

/**
 * Adds one job per payload to `queue` in one statement (bulk work: a day of imports, a batch of webhooks) and
 * answers their ids in payload order.
 *
 * @example
 * await enqueueJobs(tx, "wearables.webhooks", deliveries.map((d) => ({ deliveryId: d.id })));
 */
export async function enqueueJobs(
  q: Queryable,
  queue: string,
  payloads: readonly unknown[],
  options: EnqueueManyOptions = {},
): Promise<string[]> {
  checkQueueName(queue);
  const { runAt, delayMs, maxAttempts = 5 } = options;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw new InvalidJobError(`maxAttempts must be a whole number ≥ 1, not ${maxAttempts}`);
  }
  if (payloads.length === 0) return [];
  const rows = await q.query<{ id: string; due: boolean }>(
    `INSERT INTO platform.jobs (queue, payload, max_attempts, run_at)
     SELECT $1, p.payload, $3, coalesce($4::timestamptz, now() + make_interval(secs => $5::double precision / 1000))
     FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS p(payload, n) ORDER BY p.n
     RETURNING id, run_at <= now() AS due`,
    [queue, JSON.stringify(payloads.map((p) => p ?? {})), maxAttempts, runAt ?? null, delayMs ?? 0],
  );
  if (rows.some((r) => r.due)) await q.query("SELECT pg_notify($1, $2)", [JOBS_CHANNEL, queue]);
  // Identity values are handed out in insertion order, which follows the payloads' order.
  return rows.map((r) => r.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
}
