import { describe, expect, it } from "vitest";
import { checkRecurrence, InvalidRecurrenceError, nextPeriodStart, periodStart } from "./schedule.ts";

const at = (iso: string) => Date.parse(iso);

describe("periodStart / nextPeriodStart", () => {
  it("aligns periods to multiples of everyMs since the epoch", () => {
    const minute = { everyMs: 60_000 };
    expect(periodStart(at("2026-01-01T10:17:42.500Z"), minute)).toBe(at("2026-01-01T10:17:00Z"));
    expect(nextPeriodStart(at("2026-01-01T10:17:42.500Z"), minute)).toBe(at("2026-01-01T10:18:00Z"));
  });

  it("a period's own start belongs to it", () => {
    const hour = { everyMs: 3_600_000 };
    expect(periodStart(at("2026-01-01T10:00:00Z"), hour)).toBe(at("2026-01-01T10:00:00Z"));
    expect(nextPeriodStart(at("2026-01-01T10:00:00Z"), hour)).toBe(at("2026-01-01T11:00:00Z"));
  });

  it("shifts periods by offsetMs (every day at 03:00 UTC)", () => {
    const daily = { everyMs: 86_400_000, offsetMs: 3 * 3_600_000 };
    expect(periodStart(at("2026-01-02T02:59:59Z"), daily)).toBe(at("2026-01-01T03:00:00Z"));
    expect(periodStart(at("2026-01-02T03:00:00Z"), daily)).toBe(at("2026-01-02T03:00:00Z"));
    expect(nextPeriodStart(at("2026-01-02T02:59:59Z"), daily)).toBe(at("2026-01-02T03:00:00Z"));
  });

  it("every instant lies in [start, next)", () => {
    const r = { everyMs: 7_000, offsetMs: 1_234 };
    for (let t = 1_700_000_000_000; t < 1_700_000_050_000; t += 997) {
      expect(periodStart(t, r)).toBeLessThanOrEqual(t);
      expect(nextPeriodStart(t, r)).toBeGreaterThan(t);
      expect(nextPeriodStart(t, r) - periodStart(t, r)).toBe(7_000);
    }
  });

  it("refuses periods that cannot be", () => {
    expect(() => checkRecurrence({ everyMs: 0 })).toThrow(InvalidRecurrenceError);
    expect(() => checkRecurrence({ everyMs: 1.5 })).toThrow(InvalidRecurrenceError);
    expect(() => checkRecurrence({ everyMs: 1_000, offsetMs: 1_000 })).toThrow(InvalidRecurrenceError);
    expect(() => checkRecurrence({ everyMs: 1_000, offsetMs: -1 })).toThrow(InvalidRecurrenceError);
    expect(() => checkRecurrence({ everyMs: 1_000, offsetMs: 999 })).not.toThrow();
  });
});
