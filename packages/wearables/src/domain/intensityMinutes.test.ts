import { describe, expect, it } from "vitest";
import { countIntensityMinutes, heartRateZones, intensityZoneOf, maxHeartRate } from "./intensityMinutes.ts";

describe("max heart rate", () => {
  it("is 220 − age on the reference date, 190 without a birth date, at least 100", () => {
    expect(maxHeartRate("1990-06-15", "2026-03-01")).toBe(185); // 35 years
    expect(maxHeartRate("1990-06-15", "2026-06-15")).toBe(184); // 36 on the day
    expect(maxHeartRate(null, "2026-03-01")).toBe(190);
    expect(maxHeartRate("1900-01-01", "2026-03-01")).toBe(100); // 220 − 126 = 94
  });
});

describe("zones", () => {
  it("truncates 50 / 63 / 76 / 93 % of the max to whole bpm", () => {
    // 185 × 0.5 = 92.5, × 0.63 = 116.55, × 0.76 = 140.6, × 0.93 = 172.05
    expect(heartRateZones(185)).toEqual({ lightMin: 92, lightMax: 116, moderateMax: 140, vigorousMax: 172 });
    // 190 × 0.5 = 95, × 0.63 = 119.7, × 0.76 = 144.4, × 0.93 = 176.7
    expect(heartRateZones(190)).toEqual({ lightMin: 95, lightMax: 119, moderateMax: 144, vigorousMax: 176 });
  });

  it("puts each minute's mean in light [min, lightMax], moderate (lightMax, moderateMax], vigorous (…, vigorousMax]", () => {
    const z = heartRateZones(185);
    expect(intensityZoneOf(91.9, z)).toBeNull();
    expect(intensityZoneOf(92, z)).toBe("light");
    expect(intensityZoneOf(116, z)).toBe("light");
    expect(intensityZoneOf(116.5, z)).toBe("moderate");
    expect(intensityZoneOf(140, z)).toBe("moderate");
    expect(intensityZoneOf(140.2, z)).toBe("vigorous");
    expect(intensityZoneOf(172, z)).toBe("vigorous");
    expect(intensityZoneOf(172.5, z)).toBeNull();
  });

  it("counts minutes per zone", () => {
    const z = heartRateZones(190);
    expect(countIntensityMinutes([60, 95, 100, 119, 120, 144, 150, 176, 180], z)).toEqual({
      light: 3,
      moderate: 2,
      vigorous: 2,
    });
  });
});
