import { describe, expect, it } from "vitest";
import {
  asleepWindows,
  hrvCoefficientOfVariation,
  type NightlyHrv,
  nightlyHrv,
  resilienceFromCv,
  resilienceScore,
  rmssdFromHeartRate,
  withinWindows,
} from "./resilienceScore.ts";

const t = (day: number, hh: number, mm = 0) => Date.UTC(2026, 2, day, hh, mm);
const night = (date: string, rmssd: number | null, hr: { n: number; ss: number } = { n: 0, ss: 0 }): NightlyHrv => ({
  date,
  rmssdMean: rmssd,
  rmssdCount: rmssd === null ? 0 : 1,
  heartRateCount: hr.n,
  rrSquaredDiffSum: hr.ss,
});

describe("HRV statistics", () => {
  it("CV = sample standard deviation / mean", () => {
    expect(hrvCoefficientOfVariation([40, 50, 60])).toBeCloseTo(0.2, 12); // sd 10, mean 50
    expect(hrvCoefficientOfVariation([50, 0, -1, Number.NaN])).toBeNaN(); // one valid value
  });

  it("RMSSD from heart rate through RR intervals", () => {
    expect(rmssdFromHeartRate([60, 50, 60])).toBeCloseTo(200, 9); // RR 1000, 1200, 1000
    expect(rmssdFromHeartRate([60])).toBeNaN();
  });

  it("maps CV to 0–100: ≤ 7 % → 100, ≥ 40 % → 0, linear between, half to even", () => {
    expect(resilienceFromCv(0.05)).toBe(100);
    expect(resilienceFromCv(0.07)).toBe(100);
    expect(resilienceFromCv(0.2)).toBe(61); // 100·20/33 = 60.6
    expect(resilienceFromCv(0.235)).toBe(50); // 100·16.5/33
    expect(resilienceFromCv(0.4)).toBe(0);
  });
});

describe("asleep windows", () => {
  it("takes the asleep stages, or the whole session without stages", () => {
    const sessions = [
      {
        start: t(1, 22),
        end: t(2, 6),
        stages: [
          { stage: "awake", start: t(1, 22), end: t(1, 23) },
          { stage: "light", start: t(1, 23), end: t(2, 2) },
          { stage: "in_bed", start: t(2, 2), end: t(2, 3) },
          { stage: "deep", start: t(2, 3), end: t(2, 6) },
        ],
      },
      { start: t(2, 13), end: t(2, 14), stages: [] },
    ];
    const windows = asleepWindows(sessions);
    expect(windows).toEqual([
      [t(1, 23), t(2, 2)],
      [t(2, 3), t(2, 6)],
      [t(2, 13), t(2, 14)],
    ]);
    const points = [t(1, 22, 30), t(1, 23), t(2, 1, 59), t(2, 2), t(2, 2, 30), t(2, 5), t(2, 6), t(2, 13, 30)].map(
      (at) => ({ at, value: 1 }),
    );
    expect(withinWindows(points, windows).map((p) => p.at)).toEqual([t(1, 23), t(2, 1, 59), t(2, 5), t(2, 13, 30)]);
  });

  it("gives nightly inputs per UTC day", () => {
    const sessions = [{ start: t(1, 22), end: t(2, 6), stages: [] }];
    const nightly = nightlyHrv({
      sessions,
      rmssd: [
        { at: t(1, 23), value: 40 },
        { at: t(2, 1), value: 50 },
        { at: t(2, 3), value: 70 },
        { at: t(2, 12), value: 999 }, // awake
      ],
      heartRate: [
        { at: t(2, 1), value: 60 },
        { at: t(2, 2), value: 50 },
        { at: t(2, 3), value: 60 },
      ],
    });
    expect(nightly).toEqual([
      { date: "2026-03-01", rmssdMean: 40, rmssdCount: 1, heartRateCount: 0, rrSquaredDiffSum: 0 },
      {
        date: "2026-03-02",
        rmssdMean: 60,
        rmssdCount: 2,
        heartRateCount: 3,
        rrSquaredDiffSum: expect.closeTo(80_000, 6),
      },
    ]);
  });
});

describe("resilience of a reference date", () => {
  it("needs 5 of the 7 UTC days before it", () => {
    const nights = ["2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05"].map((d) => night(d, 50));
    const result = resilienceScore("2026-03-08", nights);
    expect(result).toMatchObject({ hrvCv: null, score: null, metricType: "RMSSD", daysCounted: 4 });
    expect(result.daily.map((d) => d.date)).toEqual([
      "2026-03-01",
      "2026-03-02",
      "2026-03-03",
      "2026-03-04",
      "2026-03-05",
      "2026-03-06",
      "2026-03-07",
    ]);
  });

  it("scores the CV of the nightly means", () => {
    const nights = [
      night("2026-03-01", 40),
      night("2026-03-02", 50),
      night("2026-03-03", 60),
      night("2026-03-05", 50),
      night("2026-03-07", 50),
      night("2026-03-08", 500), // the reference date itself is not in its window
    ];
    const result = resilienceScore("2026-03-08", nights);
    // mean 50, sd = √(200 / 4) = 7.071 → CV 0.14142 → 100·(40 − 14.142)/33 = 78.36
    expect(result.hrvCv).toBeCloseTo(Math.SQRT2 / 10, 12);
    expect(result).toMatchObject({ score: 78, metricType: "RMSSD", daysCounted: 5 });
  });

  it("falls back to RMSSD from heart rate (≥ 20 samples a day) when no RMSSD sample is in the window", () => {
    // √(ss / (n − 1)) per day: 40, 50, 60, 50, 50 ms; a day of 19 samples does not count.
    const hr = (rmssd: number, n = 21) => ({ n, ss: rmssd * rmssd * (n - 1) });
    const nights = [
      night("2026-03-01", null, hr(40)),
      night("2026-03-02", null, hr(50)),
      night("2026-03-03", null, hr(60)),
      night("2026-03-04", null, hr(90, 19)),
      night("2026-03-05", null, hr(50)),
      night("2026-03-06", null, hr(50)),
    ];
    const result = resilienceScore("2026-03-08", nights);
    expect(result).toMatchObject({ score: 78, metricType: "RMSSD_HR", daysCounted: 5 });
  });
});
