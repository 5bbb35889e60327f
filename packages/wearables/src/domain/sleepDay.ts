/**
 * The sleep day as the anchor builds it (`get_sleep_summaries`, reference §3): sessions are grouped by the
 * local date they END on (the wake-up date) and by source; naps are kept apart from the main sleep's totals
 * (counted in `nap_count` / `nap_duration_minutes`). A session's sleep is its net sleep minutes when the
 * source gave them, else its wall-clock duration; efficiency is the duration-weighted mean; the day's
 * start, end and zone are those of its longest main session.
 */
import { localDate, parseZoneOffset } from "./activityDay.ts";

export interface SleepSessionRow {
  id: string;
  sourceKey: number;
  /** Epoch ms. */
  start: number;
  end: number;
  /** "+01:00" or null. */
  zoneOffset: string | null;
  durationSeconds: number;
  isNap: boolean;
  totalSleepMinutes: number | null;
  timeInBedMinutes: number | null;
  efficiency: number | null;
  deepMinutes: number | null;
  remMinutes: number | null;
  lightMinutes: number | null;
  awakeMinutes: number | null;
}

export interface SleepSessionBrief {
  start: number;
  end: number;
  zoneOffset: string | null;
  durationMinutes: number;
  isNap: boolean;
}

export interface SleepDay {
  date: string;
  sourceKey: number;
  /** The smallest session id of the group (the anchor's `record_id`, its cursor's tiebreak). */
  recordId: string;
  /** Bounds of the main (non-nap) sessions, null when the day has only naps. */
  mainStart: number | null;
  mainEnd: number | null;
  durationMinutes: number;
  totalDurationMinutes: number;
  timeInBedMinutes: number | null;
  efficiencyPercent: number | null;
  stages: { awake: number | null; light: number | null; deep: number | null; rem: number | null } | null;
  napCount: number;
  napDurationMinutes: number;
  /** Every session of the day, by start. */
  sessions: SleepSessionBrief[];
  /** Start, end and zone of the longest main session (else the main bounds, no zone). */
  start: number | null;
  end: number | null;
  zoneOffset: string | null;
}

/** The local wake-up date of a session. */
export const wakeDate = (end: number, zoneOffset: string | null): string => localDate(end, parseZoneOffset(zoneOffset));

/** Seconds of sleep a session counts for: net sleep for a main session, wall clock for a nap. */
function sleepSeconds(s: SleepSessionRow): number {
  if (s.isNap) return s.durationSeconds;
  return s.totalSleepMinutes !== null ? s.totalSleepMinutes * 60 : s.durationSeconds;
}

const sumOrNull = (values: (number | null)[]): number | null => {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0);
};

/** Groups sessions into sleep days per (wake-up date, source), in (date, record id) order. */
export function summarizeSleepDays(rows: readonly SleepSessionRow[]): SleepDay[] {
  const groups = new Map<string, SleepSessionRow[]>();
  for (const row of rows) {
    const key = `${wakeDate(row.end, row.zoneOffset)}|${row.sourceKey}`;
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  const days: SleepDay[] = [];
  for (const [key, sessions] of groups) {
    const date = key.slice(0, 10);
    const main = sessions.filter((s) => !s.isNap);
    const naps = sessions.filter((s) => s.isNap);
    const durationMinutes = Math.floor(main.reduce((a, s) => a + sleepSeconds(s), 0) / 60);
    const napDurationMinutes = Math.floor(naps.reduce((a, s) => a + s.durationSeconds, 0) / 60);
    const rated = main.filter((s) => s.efficiency !== null);
    const ratedSeconds = rated.reduce((a, s) => a + s.durationSeconds, 0);
    const stageSums = {
      awake: sumOrNull(main.map((s) => s.awakeMinutes)),
      light: sumOrNull(main.map((s) => s.lightMinutes)),
      deep: sumOrNull(main.map((s) => s.deepMinutes)),
      rem: sumOrNull(main.map((s) => s.remMinutes)),
    };
    const briefs = [...sessions]
      .sort((a, b) => a.start - b.start)
      .map((s) => ({
        start: s.start,
        end: s.end,
        zoneOffset: s.zoneOffset,
        durationMinutes: Math.floor(sleepSeconds(s) / 60),
        isNap: s.isNap,
      }));
    let longest: SleepSessionBrief | undefined;
    for (const b of briefs) if (!b.isNap && (!longest || b.durationMinutes > longest.durationMinutes)) longest = b;
    const mainStart = main.length ? Math.min(...main.map((s) => s.start)) : null;
    const mainEnd = main.length ? Math.max(...main.map((s) => s.end)) : null;
    days.push({
      date,
      sourceKey: sessions[0]?.sourceKey as number,
      recordId: sessions.map((s) => s.id).sort()[0] as string,
      mainStart,
      mainEnd,
      durationMinutes,
      totalDurationMinutes: durationMinutes + napDurationMinutes,
      timeInBedMinutes: sumOrNull(main.map((s) => s.timeInBedMinutes)),
      efficiencyPercent:
        ratedSeconds > 0
          ? rated.reduce((a, s) => a + (s.efficiency as number) * s.durationSeconds, 0) / ratedSeconds
          : null,
      stages: Object.values(stageSums).some((v) => v !== null) ? stageSums : null,
      napCount: naps.length,
      napDurationMinutes,
      sessions: briefs,
      start: longest ? longest.start : mainStart,
      end: longest ? longest.end : mainEnd,
      zoneOffset: longest ? longest.zoneOffset : null,
    });
  }
  return days.sort((a, b) => (a.date !== b.date ? (a.date < b.date ? -1 : 1) : a.recordId < b.recordId ? -1 : 1));
}
