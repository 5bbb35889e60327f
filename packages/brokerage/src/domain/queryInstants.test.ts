import { describe, expect, it } from "vitest";
import { parseQueryInstant, QUERY_INSTANT_PATTERN, queryDate } from "./queryInstants.ts";

describe("parseQueryInstant", () => {
  it.each([
    ["2026-01-05", "2026-01-05T05:00:00.000Z"], // midnight EST
    ["2026-07-05", "2026-07-05T04:00:00.000Z"], // midnight EDT
    ["2026-01-05T14:30:00Z", "2026-01-05T14:30:00.000Z"],
    ["2026-01-05T14:30Z", "2026-01-05T14:30:00.000Z"],
    ["2026-01-05T09:30:00-05:00", "2026-01-05T14:30:00.000Z"],
    ["2026-01-05T20:00:00 05:30", "2026-01-05T14:30:00.000Z"], // "+" that arrived as a space
    ["2026-01-05T14:30:00.123456789Z", "2026-01-05T14:30:00.123Z"],
    ["2026-01-05T14:30:00", "2026-01-05T14:30:00.000Z"], // no offset: UTC
  ])("%s → %s", (input, expected) => {
    expect(new RegExp(QUERY_INSTANT_PATTERN).test(input)).toBe(true);
    expect(new Date(parseQueryInstant(input) as number).toISOString()).toBe(expected);
  });

  it.each([
    "2026-02-30",
    "2026-02-30T00:00:00Z",
    "2026-13-01",
    "2026-01-05T24:00:00Z",
    "2026-01-05T23:60:00Z",
    "2026-01-05T10:00:00+25:00",
    "yesterday",
    "2026-01-05T10",
  ])("refuses %s", (input) => {
    expect(parseQueryInstant(input)).toBeUndefined();
  });

  it("gives the date a query time is written with", () => {
    expect(queryDate("2026-01-06T00:00:00.000Z")).toBe("2026-01-06");
    expect(queryDate("2026-02-29")).toBeUndefined();
  });
});
