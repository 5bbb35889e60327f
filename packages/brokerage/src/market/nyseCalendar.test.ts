import { describe, expect, it } from "vitest";
import { dayNumber, InvalidDateError } from "./newYorkTime.ts";
import {
  auctionOrderAccepted,
  calendarDays,
  clockAt,
  isMarketOpen,
  nextTradingDay,
  nyseTradingDay,
  sessionPhaseAt,
  settlementDate,
} from "./nyseCalendar.ts";

const at = (iso: string): number => Date.parse(iso);

describe("calendarDays", () => {
  it("lists the trading days of Thanksgiving week 2026 as the anchor does", () => {
    expect(calendarDays("2026-11-23", "2026-11-30")).toEqual([
      {
        date: "2026-11-23",
        open: "09:30",
        close: "16:00",
        session_open: "0400",
        session_close: "2000",
        settlement_date: "2026-11-24",
      },
      {
        date: "2026-11-24",
        open: "09:30",
        close: "16:00",
        session_open: "0400",
        session_close: "2000",
        settlement_date: "2026-11-25",
      },
      {
        date: "2026-11-25",
        open: "09:30",
        close: "16:00",
        session_open: "0400",
        session_close: "2000",
        settlement_date: "2026-11-27",
      },
      {
        date: "2026-11-27",
        open: "09:30",
        close: "13:00",
        session_open: "0400",
        session_close: "1700",
        settlement_date: "2026-11-30",
      },
      {
        date: "2026-11-30",
        open: "09:30",
        close: "16:00",
        session_open: "0400",
        session_close: "2000",
        settlement_date: "2026-12-01",
      },
    ]);
  });

  it("has 261 weekdays less 10 holidays in 2026 and in 2027", () => {
    expect(calendarDays("2026-01-01", "2026-12-31")).toHaveLength(251);
    expect(calendarDays("2027-01-01", "2027-12-31")).toHaveLength(251);
  });

  it("is empty for a reversed range and refuses malformed dates", () => {
    expect(calendarDays("2026-01-10", "2026-01-01")).toEqual([]);
    expect(() => calendarDays("2026-1-1", "2026-01-10")).toThrow(InvalidDateError);
  });

  it("keeps New Year's Eve 2027 a full day (New Year's Day 2028 is a Saturday)", () => {
    expect(calendarDays("2027-12-31", "2028-01-03").map((d) => d.date)).toEqual(["2027-12-31", "2028-01-03"]);
  });
});

describe("settlementDate", () => {
  it("settles T+1 on the next day the exchange trades and the banks are open", () => {
    expect(settlementDate(dayNumber("2026-04-02"))).toBe("2026-04-06"); // over Good Friday and the weekend
    expect(settlementDate(dayNumber("2026-10-09"))).toBe("2026-10-13"); // over Columbus Day
    expect(settlementDate(dayNumber("2026-11-10"))).toBe("2026-11-12"); // over Veterans Day
  });

  it("settles T+2 before 2024-05-28", () => {
    expect(settlementDate(dayNumber("2024-05-24"))).toBe("2024-05-29"); // Memorial Day in between
    expect(settlementDate(dayNumber("2024-05-28"))).toBe("2024-05-29");
  });
});

describe("trading days and phases", () => {
  it("gives session boundaries with the right offset after each DST switch", () => {
    const beforeSwitch = nyseTradingDay("2026-03-06")!;
    const afterSwitch = nyseTradingDay("2026-03-09")!;
    expect(new Date(beforeSwitch.open).toISOString()).toBe("2026-03-06T14:30:00.000Z");
    expect(new Date(afterSwitch.open).toISOString()).toBe("2026-03-09T13:30:00.000Z");
    expect(new Date(nyseTradingDay("2026-11-02")!.close).toISOString()).toBe("2026-11-02T21:00:00.000Z");
    expect(nyseTradingDay("2026-04-03")).toBeUndefined();
    expect(nyseTradingDay("2026-03-07")).toBeUndefined();
    expect(nextTradingDay(dayNumber("2026-04-02")).date).toBe("2026-04-06");
  });

  it.each([
    ["2026-11-25T08:59:59Z", "closed"], // 03:59:59 EST
    ["2026-11-25T09:00:00Z", "pre_market"],
    ["2026-11-25T14:30:00Z", "regular"],
    ["2026-11-25T21:00:00Z", "after_hours"],
    ["2026-11-26T01:00:00Z", "closed"], // 20:00 EST
    ["2026-11-26T15:00:00Z", "closed"], // Thanksgiving
    ["2026-11-27T17:59:59Z", "regular"], // 12:59:59 on the early close
    ["2026-11-27T18:00:00Z", "after_hours"],
    ["2026-11-27T22:00:00Z", "closed"], // 17:00: after-hours end early too
    ["2026-07-01T13:29:59Z", "pre_market"], // 09:29:59 EDT
    ["2026-07-01T13:30:00Z", "regular"],
  ])("%s is %s", (iso, phase) => {
    expect(sessionPhaseAt(at(iso))).toBe(phase);
  });
});

describe("clockAt", () => {
  it("is open during the session, with today's close and the next day's open", () => {
    expect(clockAt(at("2026-11-25T15:15:00Z"), "nyse")).toEqual({
      timestamp: "2026-11-25T10:15:00.000-05:00",
      is_open: true,
      next_open: "2026-11-27T09:30:00-05:00",
      next_close: "2026-11-25T16:00:00-05:00",
    });
  });

  it("is closed before the open, pointing at today's session", () => {
    expect(clockAt(at("2026-11-25T12:00:00Z"), "nyse")).toMatchObject({
      is_open: false,
      next_open: "2026-11-25T09:30:00-05:00",
      next_close: "2026-11-25T16:00:00-05:00",
    });
  });

  it("points across a weekend and a DST switch to Monday's session", () => {
    expect(clockAt(at("2026-03-06T22:00:00Z"), "nyse")).toEqual({
      timestamp: "2026-03-06T17:00:00.000-05:00",
      is_open: false,
      next_open: "2026-03-09T09:30:00-04:00",
      next_close: "2026-03-09T16:00:00-04:00",
    });
  });

  it("closes at 13:00 on an early close", () => {
    expect(clockAt(at("2026-12-24T17:00:00Z"), "nyse")).toMatchObject({
      is_open: true,
      next_close: "2026-12-24T13:00:00-05:00",
      next_open: "2026-12-28T09:30:00-05:00",
    });
    expect(clockAt(at("2026-12-24T18:00:00Z"), "nyse").is_open).toBe(false);
  });

  it("is always open in mode always, still telling the exchange's next times", () => {
    expect(clockAt(at("2026-11-26T15:00:00Z"), "always")).toEqual({
      timestamp: "2026-11-26T10:00:00.000-05:00",
      is_open: true,
      next_open: "2026-11-27T09:30:00-05:00",
      next_close: "2026-11-27T13:00:00-05:00",
    });
  });
});

describe("isMarketOpen", () => {
  const preMarket = at("2026-11-25T12:00:00Z");
  const sunday = at("2026-11-29T15:00:00Z");

  it("opens extended hours only for extended-hours orders", () => {
    expect(isMarketOpen(preMarket, { mode: "nyse" })).toBe(false);
    expect(isMarketOpen(preMarket, { mode: "nyse", extendedHours: true })).toBe(true);
    expect(isMarketOpen(sunday, { mode: "nyse", extendedHours: true })).toBe(false);
  });

  it("trades crypto around the clock and everything in mode always", () => {
    expect(isMarketOpen(sunday, { mode: "nyse", assetClass: "crypto" })).toBe(true);
    expect(isMarketOpen(sunday, { mode: "always" })).toBe(true);
  });
});

describe("auctionOrderAccepted", () => {
  it.each([
    ["opg", "2026-11-25T14:27:59Z", true], // 09:27:59
    ["opg", "2026-11-25T14:28:00Z", false],
    ["opg", "2026-11-25T23:59:59Z", false], // 18:59:59
    ["opg", "2026-11-26T00:00:00Z", true], // 19:00
    ["cls", "2026-11-25T20:49:59Z", true], // 15:49:59
    ["cls", "2026-11-25T20:50:00Z", false],
    ["cls", "2026-11-27T17:50:00Z", false], // 12:50 on the early close
    ["cls", "2026-11-26T21:00:00Z", true], // Thanksgiving: no session, queued for the next
  ] as const)("%s at %s: %s", (tif, iso, accepted) => {
    expect(auctionOrderAccepted(tif, at(iso), "nyse")).toBe(accepted);
    expect(auctionOrderAccepted(tif, at(iso), "always")).toBe(true);
  });
});
