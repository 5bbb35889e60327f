import { describe, expect, it } from "vitest";
import {
  dateOfDayNumber,
  dayNumber,
  formatNewYorkTime,
  InvalidDateError,
  lastWeekdayOfMonth,
  newYorkInstant,
  newYorkOffsetMinutes,
  newYorkWallTime,
  nthWeekdayOfMonth,
  weekdayOf,
} from "./newYorkTime.ts";

const icuFormat = new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", timeZoneName: "longOffset" });

/** New York's offset in minutes as the ICU time-zone database gives it (the independent oracle). */
function icuOffsetMinutes(ms: number): number {
  const parts = icuFormat.formatToParts(new Date(ms));
  const name = parts.find((p) => p.type === "timeZoneName")?.value ?? "";
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) throw new Error(`unexpected zone name ${name}`);
  return (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

describe("civil dates", () => {
  it("round-trips dates and knows weekdays", () => {
    expect(dayNumber("1970-01-01")).toBe(0);
    expect(dateOfDayNumber(dayNumber("2026-11-25"))).toBe("2026-11-25");
    expect(weekdayOf(dayNumber("2026-11-25"))).toBe(3); // a Wednesday
    expect(weekdayOf(dayNumber("1969-12-31"))).toBe(3);
  });

  it.each(["2026-02-30", "2026-13-01", "26-01-01", "2026-1-1", "", "2026-01-01T00:00:00Z"])("refuses %j", (text) => {
    expect(() => dayNumber(text)).toThrow(InvalidDateError);
  });

  it("finds the n-th and the last weekday of a month", () => {
    expect(dateOfDayNumber(nthWeekdayOfMonth(2026, 3, 0, 2))).toBe("2026-03-08");
    expect(dateOfDayNumber(nthWeekdayOfMonth(2026, 11, 4, 4))).toBe("2026-11-26");
    expect(dateOfDayNumber(lastWeekdayOfMonth(2026, 5, 1))).toBe("2026-05-25");
    expect(dateOfDayNumber(lastWeekdayOfMonth(2027, 5, 1))).toBe("2027-05-31");
  });
});

describe("New York offset", () => {
  it.each([
    ["2026-03-08T06:59:59.999Z", -300],
    ["2026-03-08T07:00:00.000Z", -240], // 02:00 EST → 03:00 EDT
    ["2026-11-01T05:59:59.999Z", -240],
    ["2026-11-01T06:00:00.000Z", -300], // 02:00 EDT → 01:00 EST
    ["2027-03-14T07:00:00.000Z", -240],
    ["2027-11-07T06:00:00.000Z", -300],
    ["2006-04-02T07:00:00.000Z", -240], // the 1987–2006 rule: first Sunday of April
    ["2006-10-29T06:00:00.000Z", -300], // … to the last Sunday of October
  ])("%s is %i", (iso, offset) => {
    expect(newYorkOffsetMinutes(Date.parse(iso))).toBe(offset);
  });

  it("agrees with the ICU time-zone data at every hour around each switch from 2000 to 2035", () => {
    const disagreements: string[] = [];
    for (let year = 2000; year <= 2035; year++) {
      for (const month of [2, 3, 9, 10]) {
        const from = Date.UTC(year, month, 1);
        for (let ms = from; ms < from + 31 * 86_400_000; ms += 3_600_000) {
          if (newYorkOffsetMinutes(ms) !== icuOffsetMinutes(ms)) disagreements.push(new Date(ms).toISOString());
        }
      }
    }
    expect(disagreements).toEqual([]);
  });
});

describe("wall time", () => {
  it("maps session times to instants on both sides of the switches", () => {
    expect(new Date(newYorkInstant(dayNumber("2026-03-06"), 570)).toISOString()).toBe("2026-03-06T14:30:00.000Z");
    expect(new Date(newYorkInstant(dayNumber("2026-03-09"), 570)).toISOString()).toBe("2026-03-09T13:30:00.000Z");
    expect(new Date(newYorkInstant(dayNumber("2026-10-30"), 960)).toISOString()).toBe("2026-10-30T20:00:00.000Z");
    expect(new Date(newYorkInstant(dayNumber("2026-11-02"), 960)).toISOString()).toBe("2026-11-02T21:00:00.000Z");
  });

  it("reads the local date and minute, across UTC midnight", () => {
    expect(newYorkWallTime(Date.parse("2026-11-26T03:30:00Z"))).toEqual({
      date: "2026-11-25",
      day: dayNumber("2026-11-25"),
      minuteOfDay: 22 * 60 + 30,
    });
  });

  it("formats RFC 3339 with the New York offset", () => {
    expect(formatNewYorkTime(Date.parse("2026-11-25T15:15:00Z"))).toBe("2026-11-25T10:15:00.000-05:00");
    expect(formatNewYorkTime(Date.parse("2026-07-01T13:30:00.123Z"))).toBe("2026-07-01T09:30:00.123-04:00");
    expect(formatNewYorkTime(Date.parse("2026-07-01T13:30:00.123Z"), 0)).toBe("2026-07-01T09:30:00-04:00");
    expect(formatNewYorkTime(Date.parse("2027-01-01T04:59:59Z"), 0)).toBe("2026-12-31T23:59:59-05:00");
  });
});
