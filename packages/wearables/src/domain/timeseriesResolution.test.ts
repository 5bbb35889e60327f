import { describe, expect, it } from "vitest";
import {
  aggregateSql,
  BUCKET_MINUTES,
  bucketStart,
  bucketWindows,
  bucketWindowsBackward,
} from "./timeseriesResolution.ts";

const t = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("buckets", () => {
  it("start on the UTC grid", () => {
    expect(iso(bucketStart(t("2026-05-01T08:47:13Z"), 15))).toBe("2026-05-01T08:45:00.000Z");
    expect(iso(bucketStart(t("2026-05-01T08:47:13Z"), 60))).toBe("2026-05-01T08:00:00.000Z");
    expect(iso(bucketStart(t("1999-12-31T23:59:59Z"), 5))).toBe("1999-12-31T23:55:00.000Z");
    expect(BUCKET_MINUTES).toEqual({ "1min": 1, "5min": 5, "15min": 15, "1hour": 60 });
  });

  it("combine each aggregation in SQL, a sum preferring intraday samples to daily totals", () => {
    expect(aggregateSql("avg")).toBe("avg(s.value)");
    expect(aggregateSql("max")).toBe("max(s.value)");
    expect(aggregateSql("sum")).toContain("FILTER (WHERE s.is_daily_total IS NOT TRUE)");
  });
});

describe("bucket windows", () => {
  it("forward: a first window of `need` buckets, then doubling, ends on the grid, up to the end", () => {
    const windows = [...bucketWindows(t("2026-05-01T08:20:00Z"), t("2026-05-02T00:00:00Z"), 60, 3)];
    expect(windows.map((w) => [iso(w.start), iso(w.end)])).toEqual([
      ["2026-05-01T08:20:00.000Z", "2026-05-01T11:00:00.000Z"],
      ["2026-05-01T11:00:00.000Z", "2026-05-01T17:00:00.000Z"],
      ["2026-05-01T17:00:00.000Z", "2026-05-02T00:00:00.000Z"],
    ]);
  });

  it("backward: the same from the upper bound down to the start", () => {
    const windows = [...bucketWindowsBackward(t("2026-05-01T00:00:00Z"), t("2026-05-01T10:00:00Z"), 60, 2)];
    expect(windows.map((w) => [iso(w.start), iso(w.end)])).toEqual([
      ["2026-05-01T08:00:00.000Z", "2026-05-01T10:00:00.000Z"],
      ["2026-05-01T04:00:00.000Z", "2026-05-01T08:00:00.000Z"],
      ["2026-05-01T00:00:00.000Z", "2026-05-01T04:00:00.000Z"],
    ]);
  });

  it("yield nothing for an empty range", () => {
    expect([...bucketWindows(10, 10, 1, 5)]).toEqual([]);
    expect([...bucketWindowsBackward(10, 10, 1, 5)]).toEqual([]);
  });
});
