import { describe, expect, it } from "vitest";
import { ACTIVITY_ID_PATTERN, activityId, activityIdPrefix } from "./activityIds.ts";
import { type ActivityRecord, isActivityType, toActivityObject } from "./activityObject.ts";

const EMPTY: ActivityRecord = {
  id: "",
  activity_type: "",
  transaction_time: new Date(0),
  order_id: null,
  symbol: null,
  side: null,
  type: null,
  qty: null,
  price: null,
  cum_qty: null,
  leaves_qty: null,
  order_status: null,
  net_amount: null,
  per_share_amount: null,
  description: null,
};

describe("activityId", () => {
  it("is <yyyymmddHHMMSSmmm>::<uuid v4> in UTC", () => {
    const id = activityId(new Date("2026-01-05T14:34:06.977Z"));
    expect(id).toMatch(/^20260105143406977::[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id).toMatch(new RegExp(ACTIVITY_ID_PATTERN));
    expect(activityId(new Date("2026-01-05T00:00:00Z"), "u")).toBe("20260105000000000::u");
  });

  it("sorts as its time does, across the end of daylight saving time (where New York time repeats an hour)", () => {
    const times = [
      "2026-11-01T05:30:00.000Z", // 01:30 EDT
      "2026-11-01T05:59:59.999Z",
      "2026-11-01T06:15:00.000Z", // 01:15 EST, earlier on the New York clock
      "2026-12-31T23:59:59.999Z",
      "2027-01-01T00:00:00.000Z",
    ].map((t) => new Date(t));
    const ids = times.map((t) => activityId(t));
    expect([...ids].sort()).toEqual(ids);
    expect(activityIdPrefix(times[0] as Date)).toBe("20261101053000000");
  });

  it("refuses a time that has no 4-digit year", () => {
    expect(() => activityId(new Date("+010000-01-01T00:00:00Z"))).toThrow(RangeError);
  });
});

describe("toActivityObject", () => {
  it("shapes a FILL with decimals without trailing zeros", () => {
    const row: ActivityRecord = {
      ...EMPTY,
      id: "20260105143406977::8efc7b9a-8b2b-4000-9955-d36e7db0df74",
      activity_type: "FILL",
      transaction_time: new Date("2026-01-05T14:34:06.977Z"),
      order_id: "61e69015-8549-4bfd-b9c3-01e75843f47d",
      symbol: "BTC/USD",
      side: "sell",
      type: "partial_fill",
      qty: "0.012500000",
      price: "97250.100000000",
      cum_qty: "0.012500000",
      leaves_qty: "0.987500000",
      order_status: "partially_filled",
    };
    expect(toActivityObject(row)).toEqual({
      activity_type: "FILL",
      id: row.id,
      transaction_time: "2026-01-05T14:34:06.977Z",
      type: "partial_fill",
      price: "97250.1",
      qty: "0.0125",
      side: "sell",
      symbol: "BTC/USD",
      leaves_qty: "0.9875",
      order_id: row.order_id,
      cum_qty: "0.0125",
      order_status: "partially_filled",
    });
  });

  it("shapes a non-trade activity with its New York date, and its optional fields only when present", () => {
    const deposit = toActivityObject({
      ...EMPTY,
      id: "20260106033000000::c3b4a0e6-5b9c-4bd9-9a51-0f3b06d3c1a2",
      activity_type: "CSD",
      // 22:30 on the 5th in New York
      transaction_time: new Date("2026-01-06T03:30:00Z"),
      net_amount: "100000.000000000",
      description: "Initial deposit",
    });
    expect(deposit).toEqual({
      activity_type: "CSD",
      id: "20260106033000000::c3b4a0e6-5b9c-4bd9-9a51-0f3b06d3c1a2",
      date: "2026-01-05",
      net_amount: "100000",
      description: "Initial deposit",
      status: "executed",
    });
    const dividend = toActivityObject({
      ...EMPTY,
      id: "x",
      activity_type: "DIV",
      transaction_time: new Date("2026-02-12T15:00:00Z"),
      symbol: "AAPL",
      qty: "10.000000000",
      per_share_amount: "0.250000000",
      net_amount: "2.500000000",
    });
    expect(dividend).toMatchObject({ symbol: "AAPL", qty: "10", per_share_amount: "0.25", net_amount: "2.5" });
    expect(dividend).toHaveProperty("description", "");
  });

  it("knows the anchor's activity types, exactly spelled", () => {
    expect(isActivityType("FILL")).toBe(true);
    expect(isActivityType("CSD")).toBe(true);
    expect(isActivityType("fill")).toBe(false);
    expect(isActivityType("BOGUS")).toBe(false);
  });
});
