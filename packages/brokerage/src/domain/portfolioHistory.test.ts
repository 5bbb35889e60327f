import { describe, expect, it } from "vitest";
import { InvalidPortfolioHistoryQueryError } from "./accountHistoryErrors.ts";
import {
  defaultTimeframe,
  type HistoryQuery,
  historySeries,
  MAX_POINTS,
  parsePeriod,
  planHistory,
  shiftByPeriod,
} from "./portfolioHistory.ts";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const NOW = at("2026-03-10T15:07:30Z");

function refusal(query: HistoryQuery, now = NOW): InvalidPortfolioHistoryQueryError {
  try {
    planHistory(query, now);
  } catch (error) {
    if (error instanceof InvalidPortfolioHistoryQueryError) return error;
    throw error;
  }
  throw new Error("planHistory accepted the query");
}

describe("parsePeriod", () => {
  it.each([
    ["1D", { count: 1, unit: "D" }],
    ["2W", { count: 2, unit: "W" }],
    ["3M", { count: 3, unit: "M" }],
    ["9999A", { count: 9999, unit: "A" }],
  ])("%s", (text, period) => {
    expect(parsePeriod(text)).toEqual(period);
  });

  it.each(["0D", "1Y", "D", "10000D", "1d", "1.5M", "-1D", ""])("refuses %j", (text) => {
    expect(parsePeriod(text)).toBeUndefined();
  });
});

describe("shiftByPeriod", () => {
  it("moves days and weeks exactly, months and years on the calendar with the day clamped", () => {
    expect(iso(shiftByPeriod(at("2026-03-10T15:00:00Z"), { count: 2, unit: "D" }, -1))).toBe(
      "2026-03-08T15:00:00.000Z",
    );
    expect(iso(shiftByPeriod(at("2026-03-10T15:00:00Z"), { count: 1, unit: "W" }, 1))).toBe("2026-03-17T15:00:00.000Z");
    expect(iso(shiftByPeriod(at("2026-03-31T12:00:00Z"), { count: 1, unit: "M" }, -1))).toBe(
      "2026-02-28T12:00:00.000Z",
    );
    expect(iso(shiftByPeriod(at("2026-01-15T12:00:00Z"), { count: 3, unit: "M" }, -1))).toBe(
      "2025-10-15T12:00:00.000Z",
    );
    expect(iso(shiftByPeriod(at("2024-02-29T00:00:00Z"), { count: 1, unit: "A" }, 1))).toBe("2025-02-28T00:00:00.000Z");
  });
});

describe("planHistory", () => {
  it("defaults to a month of New York days, each ending at the next midnight (across the switch to daylight time)", () => {
    const plan = planHistory({}, NOW);
    expect(plan.timeframe).toBe("1D");
    expect(plan.labels.length).toBe(29); // Feb 10 … Mar 10
    expect(iso(plan.labels[0] as number)).toBe("2026-02-10T05:00:00.000Z");
    const march7 = plan.labels.indexOf(at("2026-03-07T05:00:00Z"));
    expect(iso(plan.ends[march7] as number)).toBe("2026-03-08T05:00:00.000Z");
    expect(iso(plan.labels[march7 + 2] as number)).toBe("2026-03-09T04:00:00.000Z"); // EDT from Mar 8
    expect(iso(plan.labels.at(-1) as number)).toBe("2026-03-10T04:00:00.000Z");
    expect(iso(plan.ends.at(-1) as number)).toBe("2026-03-11T04:00:00.000Z");
  });

  it("chooses the anchor's default timeframe from the period's nominal length or the range", () => {
    expect([1, 6.99, 7, 29.9, 30, 365].map(defaultTimeframe)).toEqual(["1Min", "1Min", "15Min", "15Min", "1D", "1D"]);
    expect(planHistory({ period: { count: 1, unit: "D" } }, NOW).timeframe).toBe("1Min");
    expect(planHistory({ period: { count: 1, unit: "W" } }, NOW).timeframe).toBe("15Min");
    expect(planHistory({ period: { count: 1, unit: "M" } }, at("2026-03-01T12:00:00Z")).timeframe).toBe("1D");
    const range = { start: at("2026-03-01T00:00:00Z"), end: at("2026-03-04T00:00:00Z") };
    expect(planHistory(range, NOW).timeframe).toBe("1Min");
  });

  it("aligns intraday buckets to their length and stops at now", () => {
    const plan = planHistory({ period: { count: 1, unit: "D" } }, NOW);
    expect(plan.labels.length).toBe(1441);
    expect(iso(plan.labels[0] as number)).toBe("2026-03-09T15:07:00.000Z");
    expect(iso(plan.labels.at(-1) as number)).toBe("2026-03-10T15:07:00.000Z");
    expect((plan.ends[0] as number) - (plan.labels[0] as number)).toBe(60_000);
    const hours = planHistory({ period: { count: 2, unit: "D" }, timeframe: "1H" }, NOW);
    expect(iso(hours.labels[0] as number)).toBe("2026-03-08T15:00:00.000Z");
    const future = planHistory(
      { start: at("2026-03-10T14:00:00Z"), end: at("2026-03-11T00:00:00Z"), timeframe: "15Min" },
      NOW,
    );
    expect(future.labels.map(iso)).toEqual([
      "2026-03-10T14:00:00.000Z",
      "2026-03-10T14:15:00.000Z",
      "2026-03-10T14:30:00.000Z",
      "2026-03-10T14:45:00.000Z",
      "2026-03-10T15:00:00.000Z",
    ]);
  });

  it("takes end = start + period when both are given", () => {
    const plan = planHistory(
      { start: at("2026-01-05T05:00:00Z"), period: { count: 3, unit: "D" }, timeframe: "1D" },
      NOW,
    );
    expect(plan.labels.map(iso)).toEqual([
      "2026-01-05T05:00:00.000Z",
      "2026-01-06T05:00:00.000Z",
      "2026-01-07T05:00:00.000Z",
    ]);
  });

  it.each<[string, HistoryQuery, string]>([
    ["start, end and period together", { start: 0, end: NOW, period: { count: 1, unit: "D" } }, "period"],
    ["start after end", { start: NOW, end: NOW - 1 }, "start"],
    ["start equal to end", { start: NOW, end: NOW }, "start"],
    ["an intraday timeframe over two months", { period: { count: 2, unit: "M" }, timeframe: "1H" }, "timeframe"],
    ["a week of minutes (10,080 points)", { period: { count: 1, unit: "W" }, timeframe: "1Min" }, "timeframe"],
    ["30 years of days", { period: { count: 30, unit: "A" } }, "period"],
    ["9999 years of days", { period: { count: 9999, unit: "A" } }, "period"],
  ])("refuses %s", (_label, query, parameter) => {
    expect(refusal(query).parameter).toBe(parameter);
  });

  it("answers up to the point limit", () => {
    expect(planHistory({ period: { count: 20, unit: "A" } }, NOW).labels.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(planHistory({ period: { count: 6, unit: "D" }, timeframe: "1Min" }, NOW).labels.length).toBe(8641);
  });
});

describe("historySeries", () => {
  const plan = {
    timeframe: "1D" as const,
    labels: [1767589200000, 1767675600000, 1767762000000, 1767848400000],
    ends: [1767675600000, 1767762000000, 1767848400000, 1767934800000],
  };

  it("leaves out points before the first snapshot; profit/loss is exact and relative to the first point", () => {
    expect(historySeries(plan, [undefined, "100000.000000000", "100250.5", "99800.25"])).toEqual({
      timestamp: [1767675600, 1767762000, 1767848400],
      equity: [100000, 100250.5, 99800.25],
      profit_loss: [0, 250.5, -199.75],
      profit_loss_pct: [0, 0.002505, -0.0019975],
      base_value: 100000,
      timeframe: "1D",
      cashflow: {},
    });
  });

  it("answers empty series without snapshots, and a 0 % change from a zero base", () => {
    expect(historySeries(plan, [])).toMatchObject({ timestamp: [], equity: [], base_value: 0 });
    expect(historySeries(plan, ["0", "10", "0", "0"]).profit_loss_pct).toEqual([0, 0, 0, 0]);
  });
});
