import { describe, expect, it } from "vitest";
import {
  DatetimeParseError,
  eventWindow,
  formatZoneOffset,
  InvalidRangeError,
  optionalWindow,
  parseQueryDatetime,
  timeseriesWindow,
} from "./queryDates.ts";

const iso = (v: string) => parseQueryDatetime(v).toISOString();

describe("parseQueryDatetime", () => {
  it("reads ISO 8601 with a zone, without one (UTC), a date alone, and Unix seconds", () => {
    expect(iso("2026-05-01T08:30:00Z")).toBe("2026-05-01T08:30:00.000Z");
    expect(iso("2026-05-01T10:30:00+02:00")).toBe("2026-05-01T08:30:00.000Z");
    expect(iso("2026-05-01T03:00:00-0530")).toBe("2026-05-01T08:30:00.000Z");
    expect(iso("2026-05-01T08:30:00.123456Z")).toBe("2026-05-01T08:30:00.123Z");
    expect(iso("2026-05-01 08:30")).toBe("2026-05-01T08:30:00.000Z");
    expect(iso("2026-05-01")).toBe("2026-05-01T00:00:00.000Z");
    expect(iso("1777624200")).toBe("2026-05-01T08:30:00.000Z");
    expect(iso("1777624200.5")).toBe("2026-05-01T08:30:00.500Z");
  });

  it("refuses what is not a date, with the anchor's message", () => {
    for (const bad of [
      "",
      "tomorrow",
      "2026-13-01",
      "2026-02-30",
      "2026-05-01T24:00:00Z",
      "2026-05-01T08:60Z",
      "2026-05-01T08:00:00+25:00",
      "1e999",
      "01/05/2026",
      "2026-5-1",
    ]) {
      expect(() => parseQueryDatetime(bad), bad).toThrow(DatetimeParseError);
    }
    expect(() => parseQueryDatetime("x")).toThrow(
      "Invalid datetime format: 'x'. Expected ISO 8601 format or Unix timestamp.",
    );
  });
});

describe("windows", () => {
  it("timeseries: an end at midnight includes that day; empty or inverted windows are refused", () => {
    const w = timeseriesWindow("2026-05-01", "2026-05-01");
    expect([w.start.toISOString(), w.end.toISOString()]).toEqual([
      "2026-05-01T00:00:00.000Z",
      "2026-05-02T00:00:00.000Z",
    ]);
    expect(timeseriesWindow("2026-05-01T06:00:00Z", "2026-05-01T07:00:00Z").end.toISOString()).toBe(
      "2026-05-01T07:00:00.000Z",
    );
    expect(() => timeseriesWindow("2026-05-03", "2026-05-01")).toThrow(InvalidRangeError);
    expect(() => timeseriesWindow("2026-05-01T07:00:00Z", "2026-05-01T07:00:00Z")).toThrow(
      "start_time must be before end_time",
    );
  });

  it("events take the bounds as given", () => {
    expect(eventWindow("2026-05-01", "2026-05-02").end.toISOString()).toBe("2026-05-02T00:00:00.000Z");
    expect(() => eventWindow("2026-05-01", "2026-05-01")).toThrow("start_date must be before end_date");
  });

  it("optional bounds", () => {
    expect(optionalWindow(undefined, undefined)).toEqual({ start: null, end: null });
    expect(optionalWindow("2026-05-01", undefined).start?.toISOString()).toBe("2026-05-01T00:00:00.000Z");
    expect(() => optionalWindow("2026-05-02", "2026-05-01")).toThrow(InvalidRangeError);
  });
});

describe("formatZoneOffset", () => {
  it("writes minutes east of UTC as ±HH:MM", () => {
    expect(formatZoneOffset(60)).toBe("+01:00");
    expect(formatZoneOffset(0)).toBe("+00:00");
    expect(formatZoneOffset(-330)).toBe("-05:30");
    expect(formatZoneOffset(345)).toBe("+05:45");
    expect(formatZoneOffset(null)).toBeNull();
  });
});
