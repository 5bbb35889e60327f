import { describe, expect, it } from "vitest";
import { dateOfDayNumber, dayNumber } from "./newYorkTime.ts";
import { easterSunday, isBankOnlyHoliday, nyseSpecialDays } from "./nyseHolidays.ts";

const holidays = (year: number) =>
  nyseSpecialDays(year)
    .filter((d) => d.kind === "holiday")
    .map((d) => d.date);
const earlyCloses = (year: number) =>
  nyseSpecialDays(year)
    .filter((d) => d.kind === "early_close")
    .map((d) => d.date);

describe("easterSunday", () => {
  it.each([
    [2024, "2024-03-31"],
    [2025, "2025-04-20"],
    [2026, "2026-04-05"],
    [2027, "2027-03-28"],
    [2038, "2038-04-25"],
    [2285, "2285-03-22"],
  ])("%i: %s", (year, date) => {
    expect(dateOfDayNumber(easterSunday(year))).toBe(date);
  });
});

describe("nyseSpecialDays", () => {
  it("lists the exchange's published 2026 holidays and early closes", () => {
    expect(holidays(2026)).toEqual([
      "2026-01-01",
      "2026-01-19",
      "2026-02-16",
      "2026-04-03", // Good Friday
      "2026-05-25",
      "2026-06-19",
      "2026-07-03", // Independence Day on a Saturday → Friday
      "2026-09-07",
      "2026-11-26",
      "2026-12-25",
    ]);
    expect(earlyCloses(2026)).toEqual(["2026-11-27", "2026-12-24"]);
  });

  it("lists the exchange's published 2027 holidays and early closes", () => {
    expect(holidays(2027)).toEqual([
      "2027-01-01",
      "2027-01-18",
      "2027-02-15",
      "2027-03-26",
      "2027-05-31",
      "2027-06-18", // Juneteenth on a Saturday → Friday
      "2027-07-05", // Independence Day on a Sunday → Monday
      "2027-09-06",
      "2027-11-25",
      "2027-12-24", // Christmas on a Saturday → Friday, so no Christmas Eve early close
    ]);
    expect(earlyCloses(2027)).toEqual(["2027-11-26"]);
  });

  it("observes New Year's Day on Monday when it is a Sunday, and not at all when a Saturday", () => {
    expect(holidays(2023)).toContain("2023-01-02");
    expect(holidays(2022)).not.toContain("2021-12-31");
    expect(holidays(2021)).not.toContain("2021-12-31");
    expect(holidays(2028).some((d) => d.startsWith("2028-01-0"))).toBe(false); // Jan 1 2028 is a Saturday
    expect(holidays(2027)).not.toContain("2027-12-31");
  });

  it("closes early on July 3 only from Monday to Thursday", () => {
    expect(earlyCloses(2025)).toContain("2025-07-03"); // Thursday
    expect(earlyCloses(2024)).toContain("2024-07-03"); // Wednesday
    expect(earlyCloses(2022).some((d) => d.startsWith("2022-07"))).toBe(false); // July 4 on a Monday
    expect(earlyCloses(2023)).toEqual(["2023-07-03", "2023-11-24"]); // Christmas on a Monday: no eve close
  });

  it("knows the irregular days: closures and moved early closes", () => {
    expect(holidays(2001)).toEqual(expect.arrayContaining(["2001-09-11", "2001-09-14"]));
    expect(holidays(2007)).toContain("2007-01-02");
    expect(earlyCloses(2002)).toContain("2002-07-05");
    expect(earlyCloses(2002)).not.toContain("2002-07-03");
    expect(holidays(2012)).toEqual(expect.arrayContaining(["2012-10-29", "2012-10-30"]));
  });

  it("counts Juneteenth from 2022 and knows the unscheduled closures", () => {
    expect(holidays(2021)).not.toContain("2021-06-18");
    expect(holidays(2022)).toContain("2022-06-20"); // a Sunday → Monday
    expect(holidays(2025)).toContain("2025-01-09");
    expect(holidays(2018)).toContain("2018-12-05");
  });
});

describe("isBankOnlyHoliday", () => {
  it("is Columbus Day and Veterans Day with the Federal Reserve's observance", () => {
    expect(isBankOnlyHoliday(dayNumber("2026-10-12"))).toBe(true);
    expect(isBankOnlyHoliday(dayNumber("2026-11-11"))).toBe(true);
    expect(isBankOnlyHoliday(dayNumber("2029-11-12"))).toBe(true); // Nov 11 2029 is a Sunday
    expect(isBankOnlyHoliday(dayNumber("2028-11-10"))).toBe(false); // Nov 11 2028 is a Saturday: not observed
    expect(isBankOnlyHoliday(dayNumber("2026-10-13"))).toBe(false);
  });
});
