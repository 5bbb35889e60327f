/**
 * The NYSE's non-regular days of a year, computed from the exchange's rules (NYSE Rule 7.2 and its
 * published holiday lists): full holidays with their weekend observance, the 13:00 early closes, and the
 * irregular days since 1993 (checked session by session, open and close, against exchange_calendars'
 * XNYS sessions 1993–2023). Also the two Federal Reserve holidays on which the exchange trades
 * but nothing settles (Columbus Day, Veterans Day), for settlement dates.
 */
import { dateOfDayNumber, lastWeekdayOfMonth, MS_PER_DAY, nthWeekdayOfMonth, weekdayOf } from "./newYorkTime.ts";

export type NyseDayKind = "holiday" | "early_close";

/** A day that is not a full regular session. */
export interface NyseSpecialDay {
  date: string;
  kind: NyseDayKind;
  name: string;
}

const [SUNDAY, MONDAY, THURSDAY, SATURDAY] = [0, 1, 4, 6];

/**
 * Days the rules get wrong since 1993: closures nobody could schedule (national days of mourning, 9/11,
 * storms) and early closes the exchange moved. Before 1993 early closes were at other hours.
 */
const IRREGULAR_DAYS: Record<string, { kind: NyseDayKind | "regular"; name: string }> = {
  "1994-04-27": { kind: "holiday", name: "National Day of Mourning for President Richard Nixon" },
  "1996-07-03": { kind: "regular", name: "Independence Day eve (early close moved to July 5)" },
  "1996-07-05": { kind: "early_close", name: "Day after Independence Day" },
  "1997-12-26": { kind: "early_close", name: "Day after Christmas" },
  "1999-12-31": { kind: "early_close", name: "New Year's Eve 1999" },
  "2001-09-11": { kind: "holiday", name: "September 11 attacks" },
  "2001-09-12": { kind: "holiday", name: "September 11 attacks" },
  "2001-09-13": { kind: "holiday", name: "September 11 attacks" },
  "2001-09-14": { kind: "holiday", name: "September 11 attacks" },
  "2002-07-03": { kind: "regular", name: "Independence Day eve (early close moved to July 5)" },
  "2002-07-05": { kind: "early_close", name: "Day after Independence Day" },
  "2003-12-26": { kind: "early_close", name: "Day after Christmas" },
  "2004-06-11": { kind: "holiday", name: "National Day of Mourning for President Ronald Reagan" },
  "2007-01-02": { kind: "holiday", name: "National Day of Mourning for President Gerald Ford" },
  "2012-10-29": { kind: "holiday", name: "Hurricane Sandy" },
  "2012-10-30": { kind: "holiday", name: "Hurricane Sandy" },
  "2018-12-05": { kind: "holiday", name: "National Day of Mourning for President George H.W. Bush" },
  "2025-01-09": { kind: "holiday", name: "National Day of Mourning for President Jimmy Carter" },
};

const dayOf = (year: number, month: number, day: number): number => Date.UTC(year, month - 1, day) / MS_PER_DAY;

/** Easter Sunday (Gregorian; the anonymous "Meeus/Jones/Butcher" algorithm) as a day number. */
export function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return dayOf(year, month, day);
}

/** A fixed-date holiday on a weekend is observed on Friday (Saturday) or Monday (Sunday). */
function observed(day: number): number {
  const weekday = weekdayOf(day);
  if (weekday === SATURDAY) return day - 1;
  if (weekday === SUNDAY) return day + 1;
  return day;
}

/**
 * Each year's special days by date, computed once: a memo of a pure function (the same answer for every
 * caller, one small entry per year asked about), which the session checks of every order read.
 */
const specialDaysByYear = new Map<number, ReadonlyMap<string, NyseSpecialDay>>();

function specialDaysOf(year: number): ReadonlyMap<string, NyseSpecialDay> {
  let days = specialDaysByYear.get(year);
  if (!days) {
    days = new Map(computeSpecialDays(year).map((d) => [d.date, Object.freeze(d)]));
    specialDaysByYear.set(year, days);
  }
  return days;
}

/**
 * The full holidays and early closes of a year, sorted by date. New Year's Day on a Saturday is not
 * observed (the exchange does not close on the last trading day of the previous year); Juneteenth counts
 * from 2022, Martin Luther King Jr. Day from 1998.
 */
export const nyseSpecialDays = (year: number): NyseSpecialDay[] => [...specialDaysOf(year).values()];

/** The special day on a date "YYYY-MM-DD", if it is one. */
export const nyseSpecialDayOn = (date: string): NyseSpecialDay | undefined =>
  specialDaysOf(Number(date.slice(0, 4))).get(date);

function computeSpecialDays(year: number): NyseSpecialDay[] {
  const days: Array<[number, NyseDayKind, string]> = [];
  const holiday = (day: number, name: string) => days.push([day, "holiday", name]);
  const earlyClose = (day: number, name: string) => days.push([day, "early_close", name]);

  const newYear = dayOf(year, 1, 1);
  if (weekdayOf(newYear) !== SATURDAY) holiday(observed(newYear), "New Year's Day");
  if (year >= 1998) holiday(nthWeekdayOfMonth(year, 1, MONDAY, 3), "Martin Luther King Jr. Day");
  holiday(nthWeekdayOfMonth(year, 2, MONDAY, 3), "Washington's Birthday");
  holiday(easterSunday(year) - 2, "Good Friday");
  holiday(lastWeekdayOfMonth(year, 5, MONDAY), "Memorial Day");
  if (year >= 2022) holiday(observed(dayOf(year, 6, 19)), "Juneteenth National Independence Day");
  holiday(observed(dayOf(year, 7, 4)), "Independence Day");
  holiday(nthWeekdayOfMonth(year, 9, MONDAY, 1), "Labor Day");
  const thanksgiving = nthWeekdayOfMonth(year, 11, THURSDAY, 4);
  holiday(thanksgiving, "Thanksgiving Day");
  holiday(observed(dayOf(year, 12, 25)), "Christmas Day");

  // Early closes only fall on Monday–Thursday eves: a Friday July 3 or December 24 is the observed holiday.
  const july3 = dayOf(year, 7, 3);
  if (weekdayOf(july3) >= MONDAY && weekdayOf(july3) <= THURSDAY) earlyClose(july3, "Independence Day eve");
  earlyClose(thanksgiving + 1, "Day after Thanksgiving");
  const christmasEve = dayOf(year, 12, 24);
  if (weekdayOf(christmasEve) >= MONDAY && weekdayOf(christmasEve) <= THURSDAY) {
    earlyClose(christmasEve, "Christmas Eve");
  }

  const special = days
    .map(([day, kind, name]) => ({ date: dateOfDayNumber(day), kind, name }))
    .filter((d) => !IRREGULAR_DAYS[d.date]);
  for (const [date, { kind, name }] of Object.entries(IRREGULAR_DAYS)) {
    if (kind !== "regular" && date.startsWith(`${year}-`)) special.push({ date, kind, name });
  }
  return special.sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : 0));
}

/**
 * Whether the Federal Reserve (and so DTC settlement) is closed on a weekday the NYSE trades: Columbus Day
 * and Veterans Day (observed on Monday when on a Sunday; not observed when on a Saturday).
 */
export function isBankOnlyHoliday(day: number): boolean {
  const year = new Date(day * MS_PER_DAY).getUTCFullYear();
  if (day === nthWeekdayOfMonth(year, 10, MONDAY, 2)) return true;
  const veterans = dayOf(year, 11, 11);
  const weekday = weekdayOf(veterans);
  return weekday === SATURDAY ? false : day === (weekday === SUNDAY ? veterans + 1 : veterans);
}
