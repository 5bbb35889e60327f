import { describe, expect, it } from "vitest";
import {
  activeMinutes,
  addDays,
  ageOn,
  floorsClimbed,
  localDate,
  parseZoneOffset,
  preferDailyTotal,
  roundHalfEven,
} from "./activityDay.ts";

describe("local day", () => {
  it("shifts the instant by the zone offset", () => {
    const lateUtc = Date.parse("2026-03-01T23:30:00Z");
    expect(localDate(lateUtc, null)).toBe("2026-03-01");
    expect(localDate(lateUtc, 60)).toBe("2026-03-02");
    expect(localDate(Date.parse("2026-03-02T03:00:00Z"), -300)).toBe("2026-03-01");
    expect(localDate(Date.parse("2026-03-02T05:00:00Z"), -300)).toBe("2026-03-02");
  });

  it("reads the anchor's zone offsets", () => {
    expect(parseZoneOffset("+01:00")).toBe(60);
    expect(parseZoneOffset("-05:30")).toBe(-330);
    expect(parseZoneOffset("+0530")).toBe(330);
    expect(parseZoneOffset("Z")).toBe(0);
    expect(parseZoneOffset(null)).toBeNull();
    expect(parseZoneOffset("1 hour")).toBeNull();
  });

  it("adds days across months and years", () => {
    expect(addDays("2026-02-28", 1)).toBe("2026-03-01");
    expect(addDays("2026-01-01", -1)).toBe("2025-12-31");
  });
});

describe("daily sums", () => {
  it("prefer the daily total over the intraday samples", () => {
    expect(preferDailyTotal(10_000, 9_500)).toBe(10_000);
    expect(preferDailyTotal(null, 9_500)).toBe(9_500);
    expect(preferDailyTotal(0, 9_500)).toBe(0);
    expect(preferDailyTotal(null, null)).toBeNull();
  });

  it("active minutes: the provider's active time, else step minutes; sedentary = tracked − active", () => {
    expect(activeMinutes({ providerActiveMinutes: 75, activeStepMinutes: 40, trackedStepMinutes: 600 })).toEqual({
      active: 75,
      sedentary: 560,
    });
    expect(activeMinutes({ providerActiveMinutes: null, activeStepMinutes: 40, trackedStepMinutes: 600 })).toEqual({
      active: 40,
      sedentary: 560,
    });
    expect(activeMinutes({ providerActiveMinutes: null, activeStepMinutes: null, trackedStepMinutes: null })).toEqual({
      active: null,
      sedentary: null,
    });
  });

  it("floors: flights climbed, else workout elevation / 3 m", () => {
    expect(floorsClimbed(12, 90)).toBe(12);
    expect(floorsClimbed(null, 47)).toBe(15);
    expect(floorsClimbed(null, 0)).toBeNull();
    expect(floorsClimbed(null, null)).toBeNull();
  });
});

describe("numbers as the anchor rounds them", () => {
  it("rounds halves to even like Python's round()", () => {
    expect(roundHalfEven(72.5)).toBe(72);
    expect(roundHalfEven(73.5)).toBe(74);
    expect(roundHalfEven(72.51)).toBe(73);
    expect(roundHalfEven(72.49)).toBe(72);
  });

  it("counts age in whole years, birthday included", () => {
    expect(ageOn("1990-06-15", "2026-06-14")).toBe(35);
    expect(ageOn("1990-06-15", "2026-06-15")).toBe(36);
    expect(ageOn("1990-06-15", "2026-03-01")).toBe(35);
  });
});
