import { describe, expect, it } from "vitest";
import {
  consistencyScore,
  durationScore,
  historicalBedtimes,
  hoursPastNoon,
  interruptionsScore,
  type LocalTime,
  median,
  SleepScoreInputError,
  sleepScore,
  stagesScore,
  wakeAfterSleepOnset,
} from "./sleepScore.ts";

/** A bedtime at local hh:mm, in a zone `offset` minutes east of UTC. */
const at = (hh: number, mm: number, offset = 0, day = 1): LocalTime => ({
  instantMs: Date.UTC(2026, 2, day, hh, mm) - offset * 60_000,
  offsetMinutes: offset,
});
const min = (hh: number, mm: number) => Date.UTC(2026, 2, 1, hh, mm);

describe("duration pillar", () => {
  it("is 100 from 7 to 9 hours", () => {
    expect(durationScore(7)).toBe(100);
    expect(durationScore(8)).toBe(100);
    expect(durationScore(9)).toBe(100);
  });

  it("falls on a steep sigmoid below 7 h: 100·(1+e^−3)/(1+e^(−1.5·(h−5))), truncated", () => {
    expect(durationScore(6)).toBe(85); // 1.049787 / 1.223130 = 0.8583
    expect(durationScore(5)).toBe(52); // 1.049787 / 2
    expect(durationScore(4)).toBe(19); // 1.049787 / 5.481689
  });

  it("falls gently above 9 h with a floor of 50: 100·(1+e^−1.6)/(1+e^(0.8·(h−11)))", () => {
    expect(durationScore(10)).toBe(82); // 1.201897 / 1.449329
    expect(durationScore(11)).toBe(60); // 1.201897 / 2
    expect(durationScore(12)).toBe(50); // 37.26 → floor
  });
});

describe("stages pillar", () => {
  it("scores deep and REM linearly to 90 minutes, half each, truncated", () => {
    expect(stagesScore(90, 90)).toBe(100);
    expect(stagesScore(90, 45)).toBe(75);
    expect(stagesScore(30, 60)).toBe(49); // 33·½ + 66·½ = 49.5
    expect(stagesScore(0, 0)).toBe(0);
  });
});

describe("consistency pillar", () => {
  it("measures hours past local noon", () => {
    expect(hoursPastNoon(at(23, 0))).toBe(11);
    expect(hoursPastNoon(at(0, 30))).toBe(12.5);
    expect(hoursPastNoon(at(23, 0, 60))).toBe(11); // the local clock, not UTC
  });

  it("takes Python's median", () => {
    expect(median([11, 11, 11.5])).toBe(11);
    expect(median([11, 12])).toBe(11.5);
  });

  it("penalises late bedtimes after 15 min of grace, 100 points over 105 min", () => {
    const history = [at(23, 0), at(23, 0), at(23, 30)]; // median 11 h past noon
    expect(consistencyScore(history, at(23, 10))).toBe(100);
    expect(consistencyScore(history, at(0, 0))).toBe(57); // 60 − 15 = 45 min → 42.86
    expect(consistencyScore(history, at(2, 0))).toBe(0);
  });

  it("caps the early penalty at 20 points, and scores 0 without history", () => {
    const history = [at(23, 0), at(23, 0), at(23, 30)];
    expect(consistencyScore(history, at(22, 30))).toBe(85); // 30 − 15 = 15 min → 100 − 14.29
    expect(consistencyScore(history, at(21, 0))).toBe(80);
    expect(consistencyScore([], at(23, 0))).toBe(0);
  });
});

describe("interruptions pillar", () => {
  it("loses 80 points over 70 minutes of WASO past 20, and 20 by awakenings > 5 min", () => {
    expect(interruptionsScore(10, [])).toBe(100);
    expect(interruptionsScore(30, [10, 6, 3])).toBe(83); // 80 − 11.43 + 20·0.75
    expect(interruptionsScore(20, [6, 6, 6])).toBe(90); // 80 + 20·0.5
    expect(interruptionsScore(100, [6, 6, 6, 6])).toBe(0);
  });

  it("counts only awake blocks between the first and the last sleep (no latency, no lie-in)", () => {
    const stages = [
      { stage: "awake", start: min(22, 0), end: min(22, 20) },
      { stage: "light", start: min(22, 20), end: min(23, 0) },
      { stage: "awake", start: min(23, 0), end: min(23, 10) },
      { stage: "deep", start: min(23, 10), end: min(23, 50) },
      { stage: "awake", start: min(23, 50), end: min(23, 54) },
      { stage: "rem", start: min(23, 54), end: min(23, 58) },
      { stage: "awake", start: min(23, 58), end: min(23, 59) },
    ];
    expect(wakeAfterSleepOnset(stages)).toEqual({ totalAwakeMinutes: 14, awakeningDurations: [10, 4] });
    expect(wakeAfterSleepOnset([{ stage: "awake", start: 0, end: 60_000 }])).toEqual({
      totalAwakeMinutes: 0,
      awakeningDurations: [],
    });
  });
});

describe("overall", () => {
  it("weights 40/20/20/20 and truncates", () => {
    const result = sleepScore({
      totalSleepMinutes: 450,
      deepMinutes: 90,
      remMinutes: 60,
      awakeMinutes: 0,
      sessionStart: at(0, 0),
      historicalBedtimes: [at(23, 0), at(23, 0), at(23, 30)],
    });
    // 1·0.4 + 0.83·0.2 + 0.57·0.2 + 1·0.2 = 0.88
    expect(result).toEqual({
      overall: 88,
      durationHours: 7.5,
      components: { duration: 100, stages: 83, consistency: 57, interruptions: 100 },
    });
  });

  it("uses the stored awake minutes when the session has no stages", () => {
    const result = sleepScore({
      totalSleepMinutes: 360,
      deepMinutes: 45,
      remMinutes: 90,
      awakeMinutes: 55,
      sessionStart: at(23, 0),
      historicalBedtimes: [],
    });
    // duration 85, stages 75, consistency 0, interruptions 80 − 40 + 20 = 60
    // 0.85·0.4 + 0.75·0.2 + 0 + 0.6·0.2 = 0.61
    expect(result.components).toEqual({ duration: 85, stages: 75, consistency: 0, interruptions: 60 });
    expect(result.overall).toBe(61);
  });

  it("refuses no sleep and more than a day of it", () => {
    const input = { deepMinutes: 0, remMinutes: 0, awakeMinutes: 0, sessionStart: at(23, 0), historicalBedtimes: [] };
    expect(() => sleepScore({ ...input, totalSleepMinutes: 0 })).toThrow(SleepScoreInputError);
    expect(() => sleepScore({ ...input, totalSleepMinutes: 1441 })).toThrow(SleepScoreInputError);
  });
});

describe("bedtime history", () => {
  it("keeps one bedtime per earlier night (the latest), within 15 days, at most 14", () => {
    const candidates = [
      { night: "2026-03-10", start: at(23, 0, 0, 10) },
      { night: "2026-03-09", start: at(22, 0, 0, 9) },
      { night: "2026-03-09", start: at(23, 30, 0, 9) }, // the later of that night
      { night: "2026-02-20", start: at(23, 0, 0, 20) }, // before the cutoff
      { night: "2026-03-11", start: at(23, 0, 0, 11) }, // tonight: not history
    ];
    expect(historicalBedtimes(candidates, "2026-03-11", "2026-02-24")).toEqual([at(23, 0, 0, 10), at(23, 30, 0, 9)]);
    const many = Array.from({ length: 20 }, (_, i) => ({
      night: `2026-03-${String(i + 1).padStart(2, "0")}`,
      start: at(23, 0, 0, i + 1),
    }));
    expect(historicalBedtimes(many, "2026-03-21", "2026-03-06")).toHaveLength(14);
  });
});
