/**
 * The sleep score computed by the service (provider `internal`), with the anchor's formulas, weights and
 * integer truncations (OW `algorithms/sleep.py`, `config_algorithms.py`, reference §3): four pillars of
 * 0–100 — duration 40 %, stages 20 %, bedtime consistency 20 %, interruptions 20 % — each truncated to an
 * integer, then the weighted mean truncated.
 */

export const SLEEP_SCORE_CONFIG = {
  durationImpact: 0.4,
  stagesImpact: 0.2,
  consistencyImpact: 0.2,
  interruptionsImpact: 0.2,
  optimalMinHours: 7,
  optimalMaxHours: 9,
  undersleepK: 1.5,
  undersleepMidpoint: 5,
  oversleepK: 0.8,
  oversleepMidpoint: 11,
  deepTargetMinutes: 90,
  remTargetMinutes: 90,
  deepWeight: 0.5,
  remWeight: 0.5,
  consistencyGraceMinutes: 15,
  maxLatePenaltyWindowMinutes: 105,
  maxEarlyPenaltyWindowMinutes: 105,
  maxEarlyPenaltyPoints: 20,
  /** Nights of bedtime history (the median's window). */
  rollingWindowNights: 14,
  durationWeightPoints: 80,
  frequencyWeightPoints: 20,
  frequencyFractions: [1.0, 1.0, 0.75, 0.5, 0.0],
  interruptionsGraceMinutes: 20,
  maxPenaltyWindowMinutes: 70,
  significantWakeMinutes: 5,
  /** More than a day of sleep is corrupt data: no score. */
  maxSleepMinutes: 24 * 60,
} as const;

const C = SLEEP_SCORE_CONFIG;
const MAX_EXP = 709;

/** A local wall-clock time: epoch ms of the instant plus the zone offset (minutes east of UTC). */
export interface LocalTime {
  instantMs: number;
  offsetMinutes: number | null;
}

export interface SleepStageInterval {
  stage: string;
  start: number;
  end: number;
}

export interface SleepScoreInput {
  /** Net sleep of the session (awake excluded), minutes; must be > 0 and ≤ 1440. */
  totalSleepMinutes: number;
  deepMinutes: number;
  remMinutes: number;
  /** The stored awake minutes, used when the session has no stages. */
  awakeMinutes: number;
  /** Bedtime of the session. */
  sessionStart: LocalTime;
  /** Bedtimes of up to 14 earlier nights (see {@link historicalBedtimes}). */
  historicalBedtimes: readonly LocalTime[];
  /** The stage intervals, when the session has them. */
  stages?: readonly SleepStageInterval[] | null;
}

export interface SleepScoreResult {
  overall: number;
  durationHours: number;
  components: { duration: number; stages: number; consistency: number; interruptions: number };
}

/** Why a session gets no score (the anchor skips it with a ValueError). */
export class SleepScoreInputError extends Error {
  override name = "SleepScoreInputError" as const;
}

const clamp = (x: number, min = 0, max = 100) => Math.max(min, Math.min(max, x));

/** A sigmoid scaled to equal `base` at `anchor` (the anchor's `score_sigmoid`). */
export function scoreSigmoid(x: number, k: number, base: number, midpoint: number, anchor: number): number {
  const numerator = 1 + Math.exp(Math.min(MAX_EXP, k * (anchor - midpoint)));
  const denominator = 1 + Math.exp(Math.min(MAX_EXP, k * (x - midpoint)));
  return (base * numerator) / denominator;
}

/** 100 within 7–9 h; a steep sigmoid below, a gentle one above with a floor of 50. */
export function durationScore(hours: number): number {
  if (hours >= C.optimalMinHours && hours <= C.optimalMaxHours) return 100;
  if (hours < C.optimalMinHours) {
    const raw = scoreSigmoid(hours, -C.undersleepK, 100, C.undersleepMidpoint, C.optimalMinHours);
    return clamp(Math.trunc(raw));
  }
  const raw = Math.min(100, Math.trunc(scoreSigmoid(hours, C.oversleepK, 100, C.oversleepMidpoint, C.optimalMaxHours)));
  return Math.max(50, raw);
}

function stageScore(minutes: number, target: number): number {
  if (minutes >= target) return 100;
  if (minutes <= 0) return 0;
  return Math.trunc((minutes / target) * 100);
}

/** Deep and REM, each linear up to 90 minutes, half and half. */
export function stagesScore(deepMinutes: number, remMinutes: number): number {
  const total =
    stageScore(deepMinutes, C.deepTargetMinutes) * C.deepWeight +
    stageScore(remMinutes, C.remTargetMinutes) * C.remWeight;
  return clamp(Math.trunc(total));
}

/** Hours past local noon (so that 23:00 → 11 and 01:00 → 13: bedtimes around midnight stay comparable). */
export function hoursPastNoon(time: LocalTime): number {
  const local = new Date(time.instantMs + (time.offsetMinutes ?? 0) * 60_000);
  let hours = local.getUTCHours() + local.getUTCMinutes() / 60 + local.getUTCSeconds() / 3600;
  if (hours < 12) hours += 24;
  return hours - 12;
}

/** Python's `statistics.median`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Bedtime against the median of earlier bedtimes: 15 minutes of grace, then a late bedtime loses 100 points
 * over 105 minutes, an early one at most 20. No history → 0.
 */
export function consistencyScore(history: readonly LocalTime[], tonight: LocalTime): number {
  if (history.length === 0) return 0;
  const medianHours = median(history.map(hoursPastNoon));
  const diffMinutes = (hoursPastNoon(tonight) - medianHours) * 60;
  let penalty = 0;
  if (diffMinutes > C.consistencyGraceMinutes) {
    penalty = ((diffMinutes - C.consistencyGraceMinutes) / C.maxLatePenaltyWindowMinutes) * 100;
  } else if (diffMinutes < -C.consistencyGraceMinutes) {
    const early = Math.abs(diffMinutes) - C.consistencyGraceMinutes;
    penalty = Math.min(C.maxEarlyPenaltyPoints, (early / C.maxEarlyPenaltyWindowMinutes) * 100);
  }
  return Math.max(0, Math.trunc(100 - penalty));
}

/**
 * Wake after sleep onset: 80 points lost linearly over 70 minutes past 20 minutes of grace, plus 20 points
 * by the number of awakenings longer than 5 minutes (0–1: all, 2: ¾, 3: ½, 4+: none).
 */
export function interruptionsScore(totalAwakeMinutes: number, awakeningDurations: readonly number[]): number {
  let duration: number = C.durationWeightPoints;
  if (totalAwakeMinutes > C.interruptionsGraceMinutes) {
    const penalty =
      ((totalAwakeMinutes - C.interruptionsGraceMinutes) / C.maxPenaltyWindowMinutes) * C.durationWeightPoints;
    duration = Math.max(0, C.durationWeightPoints - penalty);
  }
  const n = awakeningDurations.filter((d) => d > C.significantWakeMinutes).length;
  const fraction = C.frequencyFractions[Math.min(n, C.frequencyFractions.length - 1)] as number;
  return clamp(Math.trunc(duration + C.frequencyWeightPoints * fraction));
}

/**
 * True WASO from stages: awake blocks between the first and the last non-awake block (sleep latency and the
 * morning lie-in are not interruptions). Stages are taken in time order.
 */
export function wakeAfterSleepOnset(stages: readonly SleepStageInterval[]): {
  totalAwakeMinutes: number;
  awakeningDurations: number[];
} {
  const ordered = [...stages].sort((a, b) => a.start - b.start);
  const first = ordered.findIndex((s) => s.stage !== "awake");
  if (first < 0) return { totalAwakeMinutes: 0, awakeningDurations: [] };
  let last = first;
  for (let i = ordered.length - 1; i >= 0; i--) {
    if (ordered[i]?.stage !== "awake") {
      last = i;
      break;
    }
  }
  const awakenings = ordered
    .slice(first, last + 1)
    .filter((s) => s.stage === "awake")
    .map((s) => (s.end - s.start) / 60_000);
  return { totalAwakeMinutes: awakenings.reduce((a, b) => a + b, 0), awakeningDurations: awakenings };
}

/** The four pillars and the overall score of one night. @throws {SleepScoreInputError} */
export function sleepScore(input: SleepScoreInput): SleepScoreResult {
  if (!(input.totalSleepMinutes > 0)) {
    throw new SleepScoreInputError(`total_sleep_minutes must be > 0, got ${input.totalSleepMinutes}`);
  }
  if (input.totalSleepMinutes > C.maxSleepMinutes) {
    throw new SleepScoreInputError(`total_sleep_minutes=${input.totalSleepMinutes} exceeds 24 hours`);
  }
  const waso =
    input.stages && input.stages.length > 0
      ? wakeAfterSleepOnset(input.stages)
      : { totalAwakeMinutes: input.awakeMinutes, awakeningDurations: [] };
  const durationHours = input.totalSleepMinutes / 60;
  const components = {
    duration: durationScore(durationHours),
    stages: stagesScore(input.deepMinutes, input.remMinutes),
    consistency: consistencyScore(input.historicalBedtimes, input.sessionStart),
    interruptions: interruptionsScore(waso.totalAwakeMinutes, waso.awakeningDurations),
  };
  const weighted =
    (components.duration / 100) * C.durationImpact +
    (components.stages / 100) * C.stagesImpact +
    (components.consistency / 100) * C.consistencyImpact +
    (components.interruptions / 100) * C.interruptionsImpact;
  return {
    overall: clamp(Math.trunc(100 * weighted)),
    durationHours: Math.round(durationHours * 100) / 100,
    components,
  };
}

/** A main (non-nap) sleep session, for the bedtime history. */
export interface BedtimeCandidate {
  /** Local date of the bedtime ("YYYY-MM-DD"). */
  night: string;
  start: LocalTime;
}

/**
 * The bedtime history of a night starting on `night` (local date): one bedtime per earlier local start date
 * within the 15 days before it — the latest-starting session of that date — at most 14, newest first
 * (the anchor's `get_sleep_scores_for_records`).
 */
export function historicalBedtimes(
  candidates: readonly BedtimeCandidate[],
  night: string,
  cutoffNight: string,
): LocalTime[] {
  const earlier = candidates
    .filter((c) => c.night < night && c.night >= cutoffNight)
    .sort((a, b) => (a.night !== b.night ? (a.night < b.night ? 1 : -1) : b.start.instantMs - a.start.instantMs));
  const seen = new Set<string>();
  const out: LocalTime[] = [];
  for (const c of earlier) {
    if (seen.has(c.night)) continue;
    seen.add(c.night);
    out.push(c.start);
    if (out.length >= C.rollingWindowNights) break;
  }
  return out;
}
