import { describe, expect, it } from "vitest";
import { expiryOfDayOrder, expiryOfGtcOrder, mayExecute } from "./sessions.ts";

// 2026-11-25 is a Wednesday (a trading day); New York is UTC−5 in November.
const at = (iso: string) => Date.parse(iso);
const equity = (timeInForce = "day", extendedHours = false) => ({
  asset_class: "us_equity",
  time_in_force: timeInForce,
  extended_hours: extendedHours,
});

describe("sessions", () => {
  it("always: a day order ends at the next New York midnight and everything may execute", () => {
    expect(expiryOfDayOrder(at("2026-11-25T15:00:00Z"), "always", false).toISOString()).toBe(
      "2026-11-26T05:00:00.000Z",
    );
    expect(mayExecute(equity("opg"), at("2026-11-25T03:00:00Z"), "always")).toBe(true);
  });

  it("nyse: regular hours, extended sessions for extended-hours orders, and the next session's close", () => {
    expect(mayExecute(equity(), at("2026-11-25T15:00:00Z"), "nyse")).toBe(true);
    expect(mayExecute(equity(), at("2026-11-25T12:00:00Z"), "nyse")).toBe(false);
    expect(mayExecute(equity("day", true), at("2026-11-25T12:00:00Z"), "nyse")).toBe(true);
    expect(mayExecute({ ...equity(), asset_class: "crypto" }, at("2026-11-25T03:00:00Z"), "nyse")).toBe(true);
    expect(expiryOfDayOrder(at("2026-11-25T15:00:00Z"), "nyse", false).toISOString()).toBe("2026-11-25T21:00:00.000Z");
    // After the close, a day order lives through the next session (Thanksgiving 2026-11-26 is a holiday;
    // 2026-11-27 closes early at 13:00).
    expect(expiryOfDayOrder(at("2026-11-25T22:00:00Z"), "nyse", false).toISOString()).toBe("2026-11-27T18:00:00.000Z");
  });

  it("nyse: opg only at the open, cls only in the closing seconds", () => {
    expect(mayExecute(equity("opg"), at("2026-11-25T14:30:10Z"), "nyse")).toBe(true);
    expect(mayExecute(equity("opg"), at("2026-11-25T15:00:00Z"), "nyse")).toBe(false);
    expect(mayExecute(equity("cls"), at("2026-11-25T20:59:55Z"), "nyse")).toBe(true);
    expect(mayExecute(equity("cls"), at("2026-11-25T20:00:00Z"), "nyse")).toBe(false);
  });

  it("gtc: 90 days later, at the close of the last trading day on or before the 90th day; crypto to the instant", () => {
    // 2026-11-25 + 90 days = 2027-02-23, a Tuesday (EST: close 21:00Z).
    expect(expiryOfGtcOrder(at("2026-11-25T15:00:00Z"), "us_equity").toISOString()).toBe("2027-02-23T21:00:00.000Z");
    // 2026-11-29 + 90 days = Saturday 2027-02-27: the Friday before.
    expect(expiryOfGtcOrder(at("2026-11-29T15:00:00Z"), "us_equity").toISOString()).toBe("2027-02-26T21:00:00.000Z");
    // Placed at 23:00 New York time on 2026-06-01 (03:00Z the 2nd): New York's date counts, + 90 days is
    // Sunday 2026-08-30, so Friday's close (EDT: 20:00Z).
    expect(expiryOfGtcOrder(at("2026-06-02T03:00:00Z"), "us_equity").toISOString()).toBe("2026-08-28T20:00:00.000Z");
    expect(expiryOfGtcOrder(at("2026-11-25T15:00:00Z"), "crypto").toISOString()).toBe("2027-02-23T15:00:00.000Z");
  });
});
