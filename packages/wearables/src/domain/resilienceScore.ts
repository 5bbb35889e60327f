/**
 * The resilience score computed by the service (provider `internal`), as the anchor's (OW
 * `algorithms/resilience.py`, `services/scores/resilience_service.py`, reference §3): the coefficient of
 * variation of nightly HRV over the 7 UTC days before a reference date, using only samples taken while
 * asleep (asleep stages of the sleep sessions; a session without stages counts whole). It needs 5 days with
 * data; CV ≤ 7 % scores 100, ≥ 40 % scores 0, linear between (rounded half to even, as Python's `round`).
 *
 * HRV is the RMSSD samples (`heart_rate_variability_rmssd`), as at the anchor. Ours adds one fallback: when
 * no RMSSD sample is in the asleep windows of the whole lookback (an Apple Health export carries SDNN, not
 * RMSSD), each day's value is the overnight RMSSD derived from its heart rate samples (RR = 60000 / bpm,
 * √mean(ΔRR²), at least 20 samples a day) — the anchor's `calculate_rmssd_ow` — with metric type `RMSSD_HR`.
 */
import { roundHalfEven } from "./activityDay.ts";

export const RESILIENCE_CONFIG = {
  lookbackDays: 7,
  minDaysRequired: 5,
  minRrSamples: 20,
  cvCeilingPercent: 7,
  cvFloorPercent: 40,
} as const;

const DAY_MS = 86_400_000;
/** Stages during which the user is asleep. */
const ASLEEP_STAGES = new Set(["sleeping", "light", "deep", "rem"]);

export interface TimedValue {
  at: number;
  value: number;
}

export interface SleepWindowSource {
  start: number;
  end: number;
  stages: readonly { stage: string; start: number; end: number }[];
}

export type ResilienceMetric = "RMSSD" | "RMSSD_HR";

export interface ResilienceResult {
  /** std / mean of the daily values (a fraction: 0.123 = 12.3 %), or null without enough days. */
  hrvCv: number | null;
  score: number | null;
  metricType: ResilienceMetric | null;
  daysCounted: number;
  /** The daily values over the lookback, oldest first (null = no data that day). */
  daily: { date: string; value: number | null }[];
}

/** The asleep windows of sleep sessions: their asleep stages, or the whole session when it has none. */
export function asleepWindows(sessions: readonly SleepWindowSource[]): [number, number][] {
  const windows: [number, number][] = [];
  for (const s of sessions) {
    if (s.stages.length === 0) {
      windows.push([s.start, s.end]);
      continue;
    }
    for (const stage of s.stages) {
      if (ASLEEP_STAGES.has(stage.stage) && stage.start < stage.end) windows.push([stage.start, stage.end]);
    }
  }
  return windows;
}

/** The points inside any window (half-open [start, end)), each once. */
export function withinWindows<T extends { at: number }>(points: readonly T[], windows: readonly [number, number][]) {
  const merged: [number, number][] = [];
  for (const [s, e] of [...windows].sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return points.filter((p) => {
    let lo = 0;
    let hi = merged.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [s, e] = merged[mid] as [number, number];
      if (p.at < s) hi = mid - 1;
      else if (p.at >= e) lo = mid + 1;
      else return true;
    }
    return false;
  });
}

/** Sample standard deviation (ddof = 1) / mean of the finite, positive values; NaN under 2 values. */
export function hrvCoefficientOfVariation(values: readonly number[]): number {
  const v = values.filter((x) => Number.isFinite(x) && x > 0);
  if (v.length < 2) return Number.NaN;
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  if (mean === 0) return Number.NaN;
  const variance = v.reduce((a, x) => a + (x - mean) ** 2, 0) / (v.length - 1);
  return Math.sqrt(variance) / mean;
}

/** RMSSD (ms) of heart rate samples (bpm) through their RR intervals; NaN under 2 valid samples. */
export function rmssdFromHeartRate(bpm: readonly number[]): number {
  const rr = bpm.filter((x) => Number.isFinite(x) && x > 0).map((x) => 60_000 / x);
  if (rr.length < 2) return Number.NaN;
  let sum = 0;
  for (let i = 1; i < rr.length; i++) sum += ((rr[i] as number) - (rr[i - 1] as number)) ** 2;
  return Math.sqrt(sum / (rr.length - 1));
}

/** CV (fraction) → 0–100. */
export function resilienceFromCv(hrvCv: number): number {
  const pct = hrvCv * 100;
  if (pct <= RESILIENCE_CONFIG.cvCeilingPercent) return 100;
  if (pct >= RESILIENCE_CONFIG.cvFloorPercent) return 0;
  const { cvFloorPercent: floor, cvCeilingPercent: ceiling } = RESILIENCE_CONFIG;
  return Math.max(0, Math.min(100, roundHalfEven((100 * (floor - pct)) / (floor - ceiling))));
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * One UTC day's HRV inputs from samples taken while asleep: the RMSSD samples' mean and count, and the heart
 * rate samples' count with the sum of squared successive RR differences (in time order) — what the scores
 * job's SQL computes, and {@link nightlyHrv} computes from raw samples.
 */
export interface NightlyHrv {
  date: string;
  rmssdMean: number | null;
  rmssdCount: number;
  heartRateCount: number;
  /** Σ (RRᵢ − RRᵢ₋₁)² over the day's asleep heart rate samples (ms²), RR = 60000 / bpm. */
  rrSquaredDiffSum: number;
}

/** The nightly HRV inputs of raw samples (the reference implementation of the job's SQL). */
export function nightlyHrv(parameters: {
  rmssd: readonly TimedValue[];
  heartRate: readonly TimedValue[];
  sessions: readonly SleepWindowSource[];
}): NightlyHrv[] {
  const windows = asleepWindows(parameters.sessions);
  const days = new Map<string, NightlyHrv>();
  const dayOf = (date: string) => {
    let d = days.get(date);
    if (!d) {
      d = { date, rmssdMean: null, rmssdCount: 0, heartRateCount: 0, rrSquaredDiffSum: 0 };
      days.set(date, d);
    }
    return d;
  };
  for (const [date, values] of groupByUtcDay(withinWindows(parameters.rmssd, windows))) {
    const d = dayOf(date);
    d.rmssdCount = values.length;
    d.rmssdMean = values.reduce((a, b) => a + b, 0) / values.length;
  }
  const hr = withinWindows(parameters.heartRate, windows).filter((p) => Number.isFinite(p.value) && p.value > 0);
  for (const [date, values] of groupByUtcDay([...hr].sort((a, b) => a.at - b.at))) {
    const d = dayOf(date);
    d.heartRateCount = values.length;
    const rmssd = rmssdFromHeartRate(values);
    d.rrSquaredDiffSum = Number.isFinite(rmssd) ? rmssd ** 2 * (values.length - 1) : 0;
  }
  return [...days.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
}

/**
 * The resilience of `referenceDate` ("YYYY-MM-DD") from nightly HRV inputs: days [reference − 7, reference)
 * in UTC. RMSSD samples when any day of the window has some, else RMSSD derived from heart rate (days with
 * at least 20 samples).
 */
export function resilienceScore(referenceDate: string, nightly: readonly NightlyHrv[]): ResilienceResult {
  const end = Date.parse(`${referenceDate}T00:00:00Z`);
  const start = end - RESILIENCE_CONFIG.lookbackDays * DAY_MS;
  const days = Array.from({ length: RESILIENCE_CONFIG.lookbackDays }, (_, i) => utcDay(start + i * DAY_MS));
  const byDate = new Map(nightly.map((n) => [n.date, n]));
  const inWindow = days.flatMap((d) => {
    const n = byDate.get(d);
    return n ? [n] : [];
  });
  const byDay = new Map<string, number>();
  let metricType: ResilienceMetric | null = null;
  if (inWindow.some((n) => n.rmssdCount > 0)) {
    metricType = "RMSSD";
    for (const n of inWindow) if (n.rmssdCount > 0 && n.rmssdMean !== null) byDay.set(n.date, n.rmssdMean);
  } else {
    for (const n of inWindow) {
      if (n.heartRateCount < RESILIENCE_CONFIG.minRrSamples) continue;
      byDay.set(n.date, Math.sqrt(n.rrSquaredDiffSum / (n.heartRateCount - 1)));
    }
    if (byDay.size > 0) metricType = "RMSSD_HR";
  }

  const daily = days.map((date) => ({ date, value: byDay.get(date) ?? null }));
  const present = daily.flatMap((d) => (d.value === null ? [] : [d.value]));
  let hrvCv: number | null = null;
  let score: number | null = null;
  if (present.length >= RESILIENCE_CONFIG.minDaysRequired) {
    const cv = hrvCoefficientOfVariation(present);
    if (!Number.isNaN(cv)) {
      hrvCv = cv;
      score = resilienceFromCv(cv);
    }
  }
  return { hrvCv, score, metricType, daysCounted: present.length, daily };
}

function groupByUtcDay(points: readonly TimedValue[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const p of points) {
    const day = utcDay(p.at);
    const list = groups.get(day);
    if (list) list.push(p.value);
    else groups.set(day, [p.value]);
  }
  return groups;
}
