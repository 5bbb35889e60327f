import { describe, expect, it } from "vitest";
import { appleSleepStage, assembleSleepSessions, type SleepStageRecord } from "./sleepSessions.ts";

const H = 3_600_000;
const M = 60_000;
const night = Date.UTC(2026, 2, 1, 22); // 23:00 at +01:00
const rec = (from: number, to: number, stage: SleepStageRecord["stage"], sourceKey = "watch"): SleepStageRecord => ({
  sourceKey,
  start: night + from * M,
  end: night + to * M,
  stage,
  offsetMinutes: 60,
});

describe("assembleSleepSessions", () => {
  it("builds one night with its stage minutes, efficiency and wake-up date", () => {
    const [s, ...rest] = assembleSleepSessions([
      rec(0, 480, "in_bed"),
      rec(10, 120, "light"),
      rec(120, 200, "deep"),
      rec(200, 210, "awake"),
      rec(210, 300, "rem"),
      rec(300, 470, "light"),
    ]);
    expect(rest).toEqual([]);
    expect(s?.night).toBe("2026-03-02");
    expect(s?.sleep).toMatchObject({ start: night, end: night + 8 * H, zoneOffset: "+01:00" });
    expect(s?.sleep.details).toMatchObject({
      isNap: false,
      totalDurationMinutes: 450,
      timeInBedMinutes: 480,
      efficiencyScore: 93.75,
      deepMinutes: 80,
      remMinutes: 90,
      lightMinutes: 280,
      awakeMinutes: 10,
    });
    expect(s?.sleep.details.stages).toHaveLength(6);
  });

  it("splits on a gap over 120 minutes, keeps sources apart, and marks short sessions as naps", () => {
    const sessions = assembleSleepSessions([
      rec(0, 60, "light"),
      rec(180, 300, "deep"), // 120 min after: same session
      rec(421, 500, "sleeping"), // 121 min after: a new one (79 min: a nap)
      rec(0, 400, "sleeping", "phone"),
    ]);
    expect(sessions.map((s) => [s.sourceKey, (s.sleep.end - s.sleep.start) / M, s.sleep.details.isNap])).toEqual([
      ["phone", 400, false],
      ["watch", 300, false],
      ["watch", 79, true],
    ]);
  });

  it("counts overlapping asleep records once", () => {
    const [s] = assembleSleepSessions([rec(0, 300, "sleeping"), rec(100, 200, "deep")]);
    expect(s?.sleep.details.totalDurationMinutes).toBe(300);
  });

  it("never reports more minutes asleep than the session lasts (750 s: 12 min, not 13)", () => {
    const [one] = assembleSleepSessions([rec(0, 12.5, "light")]);
    expect((one?.sleep.end ?? 0) - (one?.sleep.start ?? 0)).toBe(750_000);
    expect(one?.sleep.details).toMatchObject({ totalDurationMinutes: 12, timeInBedMinutes: 12, lightMinutes: 12 });
    const [split] = assembleSleepSessions([rec(0, 6.25, "light"), rec(6.25, 12.5, "deep")]);
    const d = split?.sleep.details;
    expect(d).toMatchObject({ totalDurationMinutes: 12, timeInBedMinutes: 12, lightMinutes: 6, deepMinutes: 6 });
    expect((d?.totalDurationMinutes ?? 0) * 60).toBeLessThanOrEqual(750);
  });

  it("maps Apple's sleep values to the anchor's stages", () => {
    expect(appleSleepStage("HKCategoryValueSleepAnalysisAsleepCore")).toBe("light");
    expect(appleSleepStage("HKCategoryValueSleepAnalysisAsleepUnspecified")).toBe("sleeping");
    expect(appleSleepStage("HKCategoryValueSleepAnalysisInBed")).toBe("in_bed");
    expect(appleSleepStage("HKCategoryValueSleepAnalysisSomethingNew")).toBe("unknown");
  });
});
