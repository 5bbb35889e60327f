/**
 * The internal health scores (provider `internal`: sleep and resilience, domain/sleepScore.ts and
 * domain/resilienceScore.ts), recomputed when data arrives. Importers queue the local wake-up dates of the
 * nights their data touches in `wearables.score_work`, in the transaction that writes the data; this job
 * drains that queue, one night per transaction: the night's scores are written and its queue row deleted
 * together, so a job killed mid-way redoes exactly what is left in the queue, and redoing a night writes the
 * same rows again (upserts keyed by (user, provider, category, recorded_at)).
 *
 * A night W changes more than its own scores: the sleep scores of the nights whose 14-night bedtime history
 * includes it (wake-up dates W … W+16) and the resilience scores whose 7-day HRV window includes its sleep
 * (reference dates W−1 … W+8, up to today). Of those, the ones keyed to another queued night are left to
 * that night's own turn, so a year of imported nights costs one pass per night, not seventeen.
 *
 * What is stored, and how it differs from the anchor:
 * - sleep: one score per main (non-nap) session with net sleep > 0, `recorded_at` = the session's end (the
 *   anchor stores the local wall-clock end labelled UTC; ours is the true instant with the session's
 *   `zone_offset`), `components` {duration, stages, consistency, interruptions}, `sleep_event_id` = the session;
 * - resilience: `recorded_at` = the reference date's UTC midnight, `value` = HRV-CV (a fraction, 3 decimals),
 *   `components` {days_counted, metric_type, resilience_score}; removed again when the data no longer suffices.
 *
 * The passes run on kernel's job layer: a recurring job (`SCORES_QUEUE`, every `intervalMs`) whose occurrences
 * never overlap and, with several instances, run once per period on one of them. A pass stops between nights
 * when its job's signal is aborted (the worker stopping, or the pass outliving its timeout).
 *
 * @example
 * const scores = createScoresJob({ db, logger });
 * const worker = createJobWorker({ db, logger, queues: { [SCORES_QUEUE]: scores.queue }, schedules: [scores.schedule] });
 * await worker.start();
 */
import type { Database, JobStatus, Logger, Queryable, QueueDefinition, ScheduleDefinition } from "@platform/kernel";
import { toJobStatus } from "@platform/kernel";
import { addDays, localDate, parseZoneOffset, utcDate } from "../domain/activityDay.ts";
import { resilienceScore } from "../domain/resilienceScore.ts";
import { historicalBedtimes, SLEEP_SCORE_CONFIG, SleepScoreInputError, sleepScore } from "../domain/sleepScore.ts";
import { createScoreWorkRepository, type QueuedNight, type ScoredSleepSession } from "../store/scoreWorkRepository.ts";

const DAY_MS = 86_400_000;
/** Nights after W whose sleep score reads W's bedtime (15 days of history, wake a day after bedtime at most). */
const SLEEP_DEPENDENTS_DAYS = SLEEP_SCORE_CONFIG.rollingWindowNights + 2;
/** Reference dates before and after W whose resilience window holds W's sleep. */
const RESILIENCE_BEFORE_DAYS = 1;
const RESILIENCE_AFTER_DAYS = 8;

/** The queue (and recurring schedule) of the scores passes in `platform.jobs`. */
export const SCORES_QUEUE = "wearables.scores";

export interface CreateScoresJobParameters {
  db: Database;
  logger: Logger;
  /** Period of the recurring pass over the queue; default 5 s. */
  intervalMs?: number;
  /** A pass longer than this is stopped between nights (and the rest left to the next); default 10 minutes. */
  timeoutMs?: number;
  /** Epoch ms of now (resilience is computed up to today); injectable for tests. */
  now?: () => number;
}

export interface ScoresPass {
  nights: number;
  sleepScores: number;
  resilienceScores: number;
  failed: number;
}

export interface ScoresJob {
  /** The handler of `SCORES_QUEUE` for a job worker: one pass per job. */
  readonly queue: QueueDefinition;
  /** The recurring schedule of the passes (every `intervalMs`). */
  readonly schedule: ScheduleDefinition;
  status(): JobStatus;
  /**
   * Drains the queue once (nights that fail are left queued for the next pass); stops between nights once
   * `signal` is aborted.
   */
  runOnce(signal?: AbortSignal): Promise<ScoresPass>;
}

export function createScoresJob({
  db,
  logger,
  intervalMs = 5_000,
  timeoutMs = 600_000,
  now = Date.now,
}: CreateScoresJobParameters): ScoresJob {
  const log = logger.child({ job: "wearables-scores" });
  const repo = createScoreWorkRepository();
  let running: Promise<ScoresPass> | undefined;
  const totals = { passes: 0, nights: 0, sleepScores: 0, resilienceScores: 0, failed: 0 };
  let lastPassAt: string | null = null;
  let lastError: unknown = null;

  /** Recomputes what night `w` of `userId` changes; answers how many scores were written. */
  async function scoreNight(
    tx: Queryable,
    w: QueuedNight,
  ): Promise<{ sleep: number; resilience: number; requeued: boolean; userId: string; night: string }> {
    const { user_id: userId, night } = w;
    const queued = await repo.queuedNights(
      tx,
      userId,
      addDays(night, -RESILIENCE_BEFORE_DAYS),
      addDays(night, SLEEP_DEPENDENTS_DAYS),
    );
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
    const removed = await repo.finish(tx, w);
    return { sleep: scored.length, resilience, requeued: !removed, userId, night };
  }

  async function pass(signal: AbortSignal | undefined): Promise<ScoresPass> {
    const result: ScoresPass = { nights: 0, sleepScores: 0, resilienceScores: 0, failed: 0 };
    /** Nights not to take again in this pass: failed, or queued again while being scored (next pass). */
    const skip: string[] = [];
    while (!signal?.aborted) {
      let taken: QueuedNight | undefined;
      try {
        const done = await db.transaction(async (tx) => {
          taken = await repo.takeNext(tx, skip);
          return taken ? await scoreNight(tx, taken) : undefined;
        });
        if (!done) break;
        if (done.requeued) skip.push(`${done.userId}|${done.night}`);
        result.nights += 1;
        result.sleepScores += done.sleep;
        result.resilienceScores += done.resilience;
      } catch (error) {
        // Left queued: the next pass tries again. Skipped for the rest of this one.
        if (!taken) throw error;
        skip.push(`${taken.user_id}|${taken.night}`);
        result.failed += 1;
        lastError = error;
        log.error({ err: error, userId: taken.user_id, night: taken.night }, "scoring a night failed");
      }
    }
    totals.passes += 1;
    totals.nights += result.nights;
    totals.sleepScores += result.sleepScores;
    totals.resilienceScores += result.resilienceScores;
    totals.failed += result.failed;
    lastPassAt = new Date(now()).toISOString();
    if (result.nights > 0) log.info(result, "internal scores recomputed");
    return result;
  }

  /** One pass at a time in this process: a second caller shares the pass in progress. */
  const runOnce = (signal?: AbortSignal): Promise<ScoresPass> => {
    if (!running) {
      running = pass(signal).finally(() => {
        running = undefined;
      });
    }
    return running;
  };

  return {
    queue: {
      timeoutMs,
      handler: async (job) => {
        try {
          await runOnce(job.signal);
        } catch (error) {
          lastError = error;
          throw error;
        }
      },
    },
    schedule: { name: SCORES_QUEUE, queue: SCORES_QUEUE, everyMs: intervalMs },
    status: () => toJobStatus({ ...totals, running: running !== undefined, lastPassAt, lastError }),
    runOnce,
  };
}
