/**
 * The internal health scores (provider `internal`: sleep and resilience, domain/sleepScore.ts and
 * domain/resilienceScore.ts), recomputed when data arrives. Writers and importers enqueue one kernel job per
 * night their data touches (queue `SCORES_QUEUE`, singleton key `<user id>:<night>`, see scoreNights.ts) in
 * the transaction that writes the data; this job's handler computes one night in one transaction that also
 * completes its job: a worker killed mid-way leaves the job to be taken again (its lock expires) with nothing
 * of it written, and redoing a night writes the same rows again (upserts keyed by (user, provider, category,
 * recorded_at)). Failures are retried with the kernel's backoff, then the job is dead (listed by the
 * platform's job commands, retried from there).
 *
 * A night W changes more than its own scores: the sleep scores of the nights whose 14-night bedtime history
 * includes it (wake-up dates W … W+16) and the resilience scores whose 7-day HRV window includes its sleep
 * (reference dates W−1 … W+8, up to today). Of those, the ones keyed to another queued night are left to
 * that night's own job, so a year of imported nights costs one computation per night, not seventeen.
 *
 * What is stored, and how it differs from the anchor:
 * - sleep: one score per main (non-nap) session with net sleep > 0, `recorded_at` = the session's end (the
 *   anchor stores the local wall-clock end labelled UTC; ours is the true instant with the session's
 *   `zone_offset`), `components` {duration, stages, consistency, interruptions}, `sleep_event_id` = the session;
 * - resilience: `recorded_at` = the reference date's UTC midnight, `value` = HRV-CV (a fraction, 3 decimals),
 *   `components` {days_counted, metric_type, resilience_score}; removed again when the data no longer suffices.
 *
 * No recurring pass: every change enqueues its night in the writer's transaction, so nothing is left to sweep.
 *
 * @example
 * const scores = createScoresJob({ db, logger });
 * const worker = createJobWorker({ db, logger, queues: { [SCORES_QUEUE]: scores.queue } });
 * await worker.start();
 */
import type { BackoffOptions, Database, JobStatus, Logger, Queryable, QueueDefinition } from "@platform/kernel";
import { toJobStatus } from "@platform/kernel";
import { addDays, localDate, parseZoneOffset, utcDate } from "../domain/activityDay.ts";
import { resilienceScore } from "../domain/resilienceScore.ts";
import { historicalBedtimes, SLEEP_SCORE_CONFIG, SleepScoreInputError, sleepScore } from "../domain/sleepScore.ts";
import { createInternalScoresRepository, type ScoredSleepSession } from "../store/internalScoresRepository.ts";
import { lockUserScoresExclusive, queuedScoreNights, type ScoreNightPayload } from "./scoreNights.ts";

export { SCORES_QUEUE } from "./scoreNights.ts";

const DAY_MS = 86_400_000;
/** Nights after W whose sleep score reads W's bedtime (15 days of history, wake a day after bedtime at most). */
const SLEEP_DEPENDENTS_DAYS = SLEEP_SCORE_CONFIG.rollingWindowNights + 2;
/** Reference dates before and after W whose resilience window holds W's sleep. */
const RESILIENCE_BEFORE_DAYS = 1;
const RESILIENCE_AFTER_DAYS = 8;

export interface CreateScoresJobParameters {
  db: Database;
  logger: Logger;
  /** A night's computation longer than this fails (and is retried); default 2 minutes. */
  timeoutMs?: number;
  /** Nights computed at once by one worker; default 1. */
  concurrency?: number;
  /** Delays between attempts of a failed night (kernel backoff); default the kernel's. */
  backoff?: BackoffOptions;
  /** Epoch ms of now (resilience is computed up to today); injectable for tests. */
  now?: () => number;
}

export interface NightScored {
  sleepScores: number;
  resilienceScores: number;
}

export interface ScoresJob {
  /** The handler of `SCORES_QUEUE` for a job worker: one night per job. */
  readonly queue: QueueDefinition<ScoreNightPayload>;
  status(): JobStatus;
}

export function createScoresJob({
  db,
  logger,
  timeoutMs = 120_000,
  concurrency = 1,
  backoff,
  now = Date.now,
}: CreateScoresJobParameters): ScoresJob {
  const log = logger.child({ job: "wearables-scores" });
  const repo = createInternalScoresRepository();
  let running = 0;
  const totals = { nights: 0, sleepScores: 0, resilienceScores: 0, failed: 0 };
  let lastNightAt: string | null = null;
  let lastError: unknown = null;

  /** Recomputes what night `night` of `userId` changes; answers how many scores were written. */
  async function scoreNight(tx: Queryable, { userId, night }: ScoreNightPayload): Promise<NightScored> {
    const range = Array.from({ length: RESILIENCE_BEFORE_DAYS + SLEEP_DEPENDENTS_DAYS + 1 }, (_, i) =>
      addDays(night, i - RESILIENCE_BEFORE_DAYS),
    );
    const queued = await queuedScoreNights(tx, userId, range);
    queued.delete(night);
    const mine = (n: string) => !queued.has(n);

    // Sleep: sessions waking on W … W+16 (not another queued night's), with 15 days of bedtime history.
    const sleepNights = new Set(
      Array.from({ length: SLEEP_DEPENDENTS_DAYS + 1 }, (_, i) => addDays(night, i)).filter(mine),
    );
    const from = Date.parse(`${night}T00:00:00Z`);
    const sessions = await repo.sleepSessions(
      tx,
      userId,
      from - (SLEEP_SCORE_CONFIG.rollingWindowNights + 3) * DAY_MS,
      from + (SLEEP_DEPENDENTS_DAYS + 2) * DAY_MS,
    );
    const localStart = (s: ScoredSleepSession) => localDate(s.start, parseZoneOffset(s.zoneOffset));
    const wake = (s: ScoredSleepSession) => localDate(s.end, parseZoneOffset(s.zoneOffset));
    const bedtimes = sessions
      .filter((s) => !s.isNap)
      .map((s) => ({
        night: localStart(s),
        start: { instantMs: s.start, offsetMinutes: parseZoneOffset(s.zoneOffset) },
      }));
    const targets = sessions.filter((s) => sleepNights.has(wake(s)));
    const scored: string[] = [];
    for (const s of targets) {
      if (s.isNap || !(s.totalMinutes && s.totalMinutes > 0)) continue;
      const bedNight = localStart(s);
      try {
        const result = sleepScore({
          totalSleepMinutes: s.totalMinutes,
          deepMinutes: s.deepMinutes ?? 0,
          remMinutes: s.remMinutes ?? 0,
          awakeMinutes: s.awakeMinutes ?? 0,
          sessionStart: { instantMs: s.start, offsetMinutes: parseZoneOffset(s.zoneOffset) },
          historicalBedtimes: historicalBedtimes(
            bedtimes,
            bedNight,
            addDays(bedNight, -(SLEEP_SCORE_CONFIG.rollingWindowNights + 1)),
          ),
          stages: s.stages,
        });
        await repo.upsertScore(tx, {
          userId,
          category: "sleep",
          value: result.overall,
          recordedAt: s.end,
          zoneOffset: s.zoneOffset,
          dataSourceId: s.data_source_id,
          sleepEventId: s.id,
          components: {
            duration: { value: result.components.duration, qualifier: null },
            stages: { value: result.components.stages, qualifier: null },
            consistency: { value: result.components.consistency, qualifier: null },
            interruptions: { value: result.components.interruptions, qualifier: null },
          },
        });
        scored.push(s.id);
      } catch (error) {
        if (!(error instanceof SleepScoreInputError)) throw error;
      }
    }
    await repo.deleteSleepScores(
      tx,
      userId,
      targets.map((s) => s.id),
      scored,
    );

    // Resilience: reference dates W−1 … W+8 up to today (not another queued night's).
    const today = utcDate(now());
    const references = Array.from({ length: RESILIENCE_BEFORE_DAYS + RESILIENCE_AFTER_DAYS + 1 }, (_, i) =>
      addDays(night, i - RESILIENCE_BEFORE_DAYS),
    ).filter((r) => r <= today && mine(r));
    let resilience = 0;
    if (references.length > 0) {
      const first = Date.parse(`${references[0]}T00:00:00Z`) - 7 * DAY_MS;
      const last = Date.parse(`${references.at(-1)}T00:00:00Z`);
      const nightly = await repo.nightlyHrv(tx, userId, first, last);
      for (const reference of references) {
        const result = resilienceScore(reference, nightly);
        const recordedAt = Date.parse(`${reference}T00:00:00Z`);
        if (result.hrvCv === null) {
          await repo.deleteResilienceScore(tx, userId, recordedAt);
          continue;
        }
        await repo.upsertScore(tx, {
          userId,
          category: "resilience",
          value: result.hrvCv,
          recordedAt,
          zoneOffset: null,
          dataSourceId: null,
          sleepEventId: null,
          components: {
            days_counted: { value: result.daysCounted, qualifier: null },
            metric_type: { value: null, qualifier: result.metricType },
            resilience_score: { value: result.score, qualifier: null },
          },
        });
        resilience += 1;
      }
    }
    return { sleepScores: scored.length, resilienceScores: resilience };
  }

  const isNight = (p: Partial<ScoreNightPayload>): p is ScoreNightPayload =>
    typeof p.userId === "string" && typeof p.night === "string" && /^\d{4}-\d{2}-\d{2}$/.test(p.night);

  return {
    queue: {
      timeoutMs,
      concurrency,
      backoff,
      handler: async (job) => {
        const payload = job.payload as Partial<ScoreNightPayload>;
        if (!isNight(payload)) {
          // An occurrence of the recurring pass of earlier versions: nothing to compute.
          log.warn({ job: job.id, payload }, "scores job without a night: ignored");
          return;
        }
        if (job.signal.aborted) throw job.signal.reason;
        running += 1;
        try {
          const done = await db.transaction(async (tx) => {
            await lockUserScoresExclusive(tx, payload.userId);
            // The user may be gone (its data went with it): nothing to compute.
            const [user] = await tx.query("SELECT 1 FROM wearables.users WHERE id = $1", [payload.userId]);
            const result = user ? await scoreNight(tx, payload) : { sleepScores: 0, resilienceScores: 0 };
            await job.complete(tx);
            return result;
          });
          totals.nights += 1;
          totals.sleepScores += done.sleepScores;
          totals.resilienceScores += done.resilienceScores;
          lastNightAt = new Date(now()).toISOString();
          log.debug({ ...payload, ...done }, "internal scores recomputed");
        } catch (error) {
          totals.failed += 1;
          lastError = error;
          log.warn({ err: error, ...payload, attempt: job.attempt }, "scoring a night failed");
          throw error;
        } finally {
          running -= 1;
        }
      },
    },
    status: () => toJobStatus({ ...totals, running, lastNightAt, lastError }),
  };
}
