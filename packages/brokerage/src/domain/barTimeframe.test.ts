import { describe, expect, it } from "vitest";
import { type BarValues, mergeBars, parseBarTimeframe, vwapOf } from "./barTimeframe.ts";
import { InvalidTimeframeError } from "./marketDataErrors.ts";

const at = (iso: string) => Date.parse(iso);

describe("parseBarTimeframe", () => {
  it.each([
    ["1Min", "1Min", false],
    ["1T", "1Min", false],
    ["5Min", "1Min", true],
    ["59T", "1Min", true],
    ["1Hour", "1Hour", false],
    ["4H", "1Hour", true],
    ["23Hour", "1Hour", true],
    ["1Day", "1Day", false],
    ["1D", "1Day", false],
    ["1Week", "1Day", true],
    ["1W", "1Day", true],
    ["1Month", "1Day", true],
    ["3M", "1Day", true],
    ["12Month", "1Day", true],
  ])("%s reads %s bars (merged: %s)", (input, source, merged) => {
    const timeframe = parseBarTimeframe(input);
    expect(timeframe.source).toBe(source);
    expect(timeframe.merged).toBe(merged);
  });

  it.each([
    "",
    "0Min",
    "60Min",
    "24Hour",
    "2Day",
    "2Week",
    "5Month",
    "1Sec",
    "1min",
    "01Min",
    "1 Min",
    "100Min",
    "Min",
  ])("refuses %j with the anchor's message", (input) => {
    expect(() => parseBarTimeframe(input)).toThrow(InvalidTimeframeError);
    expect(() => parseBarTimeframe(input)).toThrow("invalid timeframe");
  });
});

describe("buckets", () => {
  it("counts minutes and hours from UTC midnight", () => {
    expect(parseBarTimeframe("5Min").bucketOf(at("2026-11-25T15:04:00Z"))).toBe(at("2026-11-25T15:00:00Z"));
    expect(parseBarTimeframe("5Min").bucketOf(at("2026-11-25T15:05:00Z"))).toBe(at("2026-11-25T15:05:00Z"));
    // 7 does not divide 60: buckets restart each UTC day, never spanning midnight.
    expect(parseBarTimeframe("7Min").bucketOf(at("2026-11-25T00:13:00Z"))).toBe(at("2026-11-25T00:07:00Z"));
    expect(parseBarTimeframe("7Min").bucketOf(at("2026-11-25T23:59:00Z"))).toBe(at("2026-11-25T23:55:00Z"));
    expect(parseBarTimeframe("4Hour").bucketOf(at("2026-11-25T15:00:00Z"))).toBe(at("2026-11-25T12:00:00Z"));
  });

  it("starts weeks on Monday, New York midnight, across daylight saving changes", () => {
    const week = parseBarTimeframe("1Week");
    // Wednesday 2026-11-25 (EST): Monday 2026-11-23 00:00 New York = 05:00Z.
    expect(week.bucketOf(at("2026-11-25T05:00:00Z"))).toBe(at("2026-11-23T05:00:00Z"));
    // Monday itself.
    expect(week.bucketOf(at("2026-11-23T05:00:00Z"))).toBe(at("2026-11-23T05:00:00Z"));
    // Sunday 2026-11-01 (EST, the day DST ended): Monday 2026-10-26 (EDT) = 04:00Z.
    expect(week.bucketOf(at("2026-11-01T05:00:00Z"))).toBe(at("2026-10-26T04:00:00Z"));
  });

  it("starts months on the first, New York midnight, N-month buckets counted from January", () => {
    expect(parseBarTimeframe("1Month").bucketOf(at("2026-11-25T05:00:00Z"))).toBe(at("2026-11-01T04:00:00Z"));
    expect(parseBarTimeframe("3Month").bucketOf(at("2026-11-25T05:00:00Z"))).toBe(at("2026-10-01T04:00:00Z"));
    expect(parseBarTimeframe("12Month").bucketOf(at("2026-11-25T05:00:00Z"))).toBe(at("2026-01-01T05:00:00Z"));
    expect(parseBarTimeframe("6M").bucketOf(at("2026-03-02T05:00:00Z"))).toBe(at("2026-01-01T05:00:00Z"));
  });
});

describe("mergeBars", () => {
  const bar = (t: number, o: number, h: number, l: number, c: number, v: number, n: number): BarValues => ({
    t,
    o,
    h,
    l,
    c,
    v,
    n,
    notional: ((o + c) / 2) * v,
  });

  it("takes the first bar's open and the last bar's close, the extremes and the sums", () => {
    const a = bar(1, 10, 12, 9, 11, 100, 3);
    const b = bar(2, 11, 15, 10, 14, 50, 2);
    const merged = mergeBars(a, b, 0);
    expect(merged).toEqual({ t: 0, o: 10, h: 15, l: 9, c: 14, v: 150, n: 5, notional: 1050 + 625 });
    expect(vwapOf(merged)).toBeCloseTo((1050 + 625) / 150, 12);
    expect(mergeBars(b, a, 0)).toMatchObject({ o: 11, c: 11, h: 15, l: 9 });
  });

  it("gives a volume-less bar a vwap of 0", () => {
    expect(vwapOf({ v: 0, notional: 0 })).toBe(0);
  });
});
