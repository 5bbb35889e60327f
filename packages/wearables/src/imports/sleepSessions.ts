/**
 * Sleep sessions from Apple Health's sleep analysis records (one record per stage interval), as the anchor's
 * SDK sleep builder does: per data source, records sorted by start join the current session while they start
 * at most `gapMinutes` (120, the anchor's SLEEP_END_GAP_MINUTES) after its end; a longer gap starts a new one.
 *
 * - Stages: InBed → in_bed, Awake → awake, AsleepCore → light, AsleepDeep → deep, AsleepREM → rem,
 *   Asleep/AsleepUnspecified → sleeping (the anchor's map).
 * - Minutes: asleep = union of the asleep intervals (so overlapping records count once); deep/rem/light/awake
 *   = union of each stage's intervals; time in bed = end − start of the session; efficiency = asleep / in bed
 *   × 100 (the anchor's).
 * - Nap rule (ours, the anchor leaves it to providers): a session shorter than `napMaxMinutes` (180) from its
 *   first to its last record is a nap; longer ones are the night's main sleep.
 */
import type { SleepInput, SleepStage } from "../store/healthDataWriter.ts";
import { formatZoneOffset, localDate } from "./appleDates.ts";

export interface SleepStageRecord {
  /** Groups records of one data source (its identity key). */
  sourceKey: string;
  /** Epoch ms. */
  start: number;
  end: number;
  stage: SleepStage;
  offsetMinutes: number;
}

export interface AssembledSleep {
  sourceKey: string;
  sleep: SleepInput;
  /** The local wake-up date (the night whose scores it changes). */
  night: string;
}

const APPLE_SLEEP_STAGES: Record<string, SleepStage> = {
  HKCategoryValueSleepAnalysisInBed: "in_bed",
  HKCategoryValueSleepAnalysisAwake: "awake",
  HKCategoryValueSleepAnalysisAsleepCore: "light",
  HKCategoryValueSleepAnalysisAsleepDeep: "deep",
  HKCategoryValueSleepAnalysisAsleepREM: "rem",
  HKCategoryValueSleepAnalysisAsleep: "sleeping",
  HKCategoryValueSleepAnalysisAsleepUnspecified: "sleeping",
};

/** The stage of an `HKCategoryValueSleepAnalysis…` value; `unknown` for one Apple adds later. */
export const appleSleepStage = (value: string | undefined): SleepStage =>
  (value && APPLE_SLEEP_STAGES[value]) || "unknown";

const ASLEEP: ReadonlySet<SleepStage> = new Set(["sleeping", "light", "deep", "rem"]);

export interface AssembleSleepOptions {
  gapMinutes?: number;
  napMaxMinutes?: number;
}

/** Groups stage records into sessions (see the module comment); sessions come out by source, then start. */
export function assembleSleepSessions(
  records: readonly SleepStageRecord[],
  { gapMinutes = 120, napMaxMinutes = 180 }: AssembleSleepOptions = {},
): AssembledSleep[] {
  const bySource = new Map<string, SleepStageRecord[]>();
  for (const r of records) {
    if (!(r.end >= r.start)) continue;
    const list = bySource.get(r.sourceKey) ?? [];
    list.push(r);
    bySource.set(r.sourceKey, list);
  }
  const sessions: AssembledSleep[] = [];
  for (const [sourceKey, list] of [...bySource].sort(([a], [b]) => a.localeCompare(b))) {
    list.sort((a, b) => a.start - b.start || a.end - b.end || a.stage.localeCompare(b.stage));
    let current: SleepStageRecord[] = [];
    let currentEnd = Number.NEGATIVE_INFINITY;
    for (const r of list) {
      if (current.length > 0 && r.start - currentEnd > gapMinutes * 60_000) {
        sessions.push(toSession(sourceKey, current, napMaxMinutes));
        current = [];
        currentEnd = Number.NEGATIVE_INFINITY;
      }
      current.push(r);
      currentEnd = Math.max(currentEnd, r.end);
    }
    if (current.length > 0) sessions.push(toSession(sourceKey, current, napMaxMinutes));
  }
  return sessions;
}

function toSession(sourceKey: string, records: SleepStageRecord[], napMaxMinutes: number): AssembledSleep {
  const first = records[0] as SleepStageRecord;
  const start = first.start;
  const end = records.reduce((m, r) => Math.max(m, r.end), start);
  const minutesOf = (keep: (s: SleepStage) => boolean) => unionMs(records.filter((r) => keep(r.stage))) / 60_000;
  const asleep = minutesOf((s) => ASLEEP.has(s));
  const inBed = (end - start) / 60_000;
  // Each figure is its exact length (ms) rounded once to whole minutes, and never more than the session's
  // whole minutes: a 750 s session is 12 min in bed and at most 12 min asleep, not 13 (780 s).
  const sessionMinutes = Math.floor(inBed);
  const round = (m: number) => Math.min(Math.round(m), sessionMinutes);
  return {
    sourceKey,
    night: localDate(end, first.offsetMinutes),
    sleep: {
      start,
      end,
      zoneOffset: formatZoneOffset(first.offsetMinutes),
      details: {
        isNap: inBed < napMaxMinutes,
        totalDurationMinutes: round(asleep),
        timeInBedMinutes: round(inBed),
        efficiencyScore: inBed > 0 ? Math.round((asleep / inBed) * 10_000) / 100 : null,
        deepMinutes: round(minutesOf((s) => s === "deep")),
        remMinutes: round(minutesOf((s) => s === "rem")),
        lightMinutes: round(minutesOf((s) => s === "light")),
        awakeMinutes: round(minutesOf((s) => s === "awake")),
        stages: records.map((r) => ({ stage: r.stage, start: r.start, end: r.end })),
      },
    },
  };
}

/** Total length of the union of the intervals. */
function unionMs(intervals: readonly { start: number; end: number }[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  let curStart = Number.NaN;
  let curEnd = Number.NaN;
  for (const { start, end } of sorted) {
    if (Number.isNaN(curStart) || start > curEnd) {
      if (!Number.isNaN(curStart)) total += curEnd - curStart;
      curStart = start;
      curEnd = end;
    } else curEnd = Math.max(curEnd, end);
  }
  if (!Number.isNaN(curStart)) total += curEnd - curStart;
  return total;
}
