/**
 * What the writers of health data and the internal scores job (scoresJob.ts) share: the kernel queue of the
 * scores, one job per (user, night) to compute again, and the per-user lock that keeps a night's new data from
 * slipping past a job already computing that night.
 *
 * A night's job is enqueued in the transaction that writes the data changing it (`enqueueScoreNights`), with
 * the singleton key `<user id>:<night>`: while it waits, more writes of that night add nothing. While it runs,
 * the kernel's singleton also holds (it covers active jobs), so a write committed after the job read the night
 * would be lost; the lock closes that gap. The writer takes it shared before enqueueing, the job exclusive
 * before reading: a writer that comes first is committed before the job reads; one that comes while the job
 * runs waits for its commit, and then the finished job no longer holds the key and a new one is enqueued.
 *
 * @example
 * await db.transaction(async (tx) => {
 *   await writer.writeSleep(tx, userId, source, session);
 *   await enqueueScoreNights(tx, userId, ["2026-03-02"]);
 * });
 */
import { enqueueJob, type Queryable } from "@platform/kernel";

/** The kernel queue of the internal scores: payload `{userId, night}` (night = local wake-up date). */
export const SCORES_QUEUE = "wearables.scores";

export interface ScoreNightPayload {
  userId: string;
  /** "YYYY-MM-DD": the local wake-up date of the night. */
  night: string;
}

/** The singleton key of a night's job. */
export const scoreJobKey = (userId: string, night: string) => `${userId}:${night}`;

const LOCK_KEY = "hashtextextended('wearables.scores:' || $1::text, 0)";

/** In `tx`: the user's scores lock, shared (writers), held until `tx` ends. */
export async function lockUserScoresShared(tx: Queryable, userId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock_shared(${LOCK_KEY})`, [userId]);
}

/** In `tx`: the user's scores lock, exclusive (the scores job), held until `tx` ends. */
export async function lockUserScoresExclusive(tx: Queryable, userId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`, [userId]);
}

/**
 * In the writer's transaction `tx`: queues the nights ("YYYY-MM-DD") whose internal scores must be computed
 * again, oldest first (one job per night; a night already queued is left as it is).
 */
export async function enqueueScoreNights(tx: Queryable, userId: string, nights: Iterable<string>): Promise<void> {
  const list = [...new Set(nights)].sort();
  if (list.length === 0) return;
  await lockUserScoresShared(tx, userId);
  for (const night of list) {
    await enqueueJob(tx, SCORES_QUEUE, { userId, night } satisfies ScoreNightPayload, {
      singletonKey: scoreJobKey(userId, night),
    });
  }
}

/** The nights of `nights` whose job waits (queued, not running) for `userId`. */
export async function queuedScoreNights(q: Queryable, userId: string, nights: readonly string[]): Promise<Set<string>> {
  const rows = await q.query<{ night: string }>(
    `SELECT payload->>'night' AS night FROM platform.jobs
     WHERE queue = $1 AND state = 'queued' AND singleton_key = ANY($2::text[])`,
    [SCORES_QUEUE, nights.map((n) => scoreJobKey(userId, n))],
  );
  return new Set(rows.map((r) => r.night));
}
