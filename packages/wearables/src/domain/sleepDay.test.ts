import { describe, expect, it } from "vitest";
import { type SleepSessionRow, summarizeSleepDays, wakeDate } from "./sleepDay.ts";

const t = (day: number, hh: number, mm = 0) => Date.UTC(2026, 2, day, hh, mm);
const session = (over: Partial<SleepSessionRow>): SleepSessionRow => ({
  id: "00000000-0000-4000-8000-000000000001",
  sourceKey: 1,
  start: t(1, 22),
  end: t(2, 6),
  zoneOffset: "+01:00",
  durationSeconds: 8 * 3600,
  isNap: false,
  totalSleepMinutes: null,
  timeInBedMinutes: null,
  efficiency: null,
  deepMinutes: null,
  remMinutes: null,
  lightMinutes: null,
  awakeMinutes: null,
  ...over,
});

describe("sleep days", () => {
  it("date a session by its local wake-up", () => {
    expect(wakeDate(t(1, 23, 30), "+01:00")).toBe("2026-03-02");
    expect(wakeDate(t(2, 3), "-05:00")).toBe("2026-03-01");
  });

  it("sum main sessions apart from naps, prefer net sleep, weight efficiency by duration", () => {
    const [day, ...rest] = summarizeSleepDays([
      session({
        id: "00000000-0000-4000-8000-00000000000b",
        start: t(1, 22),
        end: t(2, 4),
        durationSeconds: 6 * 3600,
        totalSleepMinutes: 330,
        timeInBedMinutes: 360,
        efficiency: 90,
        deepMinutes: 60,
        remMinutes: 80,
        lightMinutes: 190,
        awakeMinutes: 30,
      }),
      session({
        id: "00000000-0000-4000-8000-00000000000a",
        start: t(2, 4, 30),
        end: t(2, 6, 30),
        durationSeconds: 2 * 3600,
        efficiency: 80,
        deepMinutes: 10,
      }),
      session({
        id: "00000000-0000-4000-8000-00000000000c",
        start: t(2, 13),
        end: t(2, 13, 45),
        durationSeconds: 45 * 60,
        isNap: true,
        totalSleepMinutes: 40,
        deepMinutes: 999,
      }),
    ]);
    expect(rest).toEqual([]);
    expect(day).toMatchObject({
      date: "2026-03-02",
      recordId: "00000000-0000-4000-8000-00000000000a",
      mainStart: t(1, 22),
      mainEnd: t(2, 6, 30),
      durationMinutes: 450, // 330 + 120
      napCount: 1,
      napDurationMinutes: 45, // a nap counts its wall clock
      totalDurationMinutes: 495,
      timeInBedMinutes: 360,
      efficiencyPercent: 87.5, // (90·6 h + 80·2 h) / 8 h
      stages: { awake: 30, light: 190, deep: 70, rem: 80 },
      start: t(1, 22), // the longest main session
      end: t(2, 4),
      zoneOffset: "+01:00",
    });
    expect(day?.sessions.map((s) => [s.durationMinutes, s.isNap])).toEqual([
      [330, false],
      [120, false],
      [45, true],
    ]);
  });

  it("keep sources apart and order by date", () => {
    const days = summarizeSleepDays([
      session({ id: "00000000-0000-4000-8000-000000000003", sourceKey: 2, end: t(3, 6) }),
      session({ id: "00000000-0000-4000-8000-000000000002", sourceKey: 1 }),
      session({ id: "00000000-0000-4000-8000-000000000001", sourceKey: 2 }),
    ]);
    expect(days.map((d) => [d.date, d.sourceKey])).toEqual([
      ["2026-03-02", 2],
      ["2026-03-02", 1],
      ["2026-03-03", 2],
    ]);
  });

  it("a day of naps only has no main bounds and no stages", () => {
    const [day] = summarizeSleepDays([session({ isNap: true, durationSeconds: 1800 })]);
    expect(day).toMatchObject({ mainStart: null, start: null, zoneOffset: null, durationMinutes: 0, stages: null });
  });
});
