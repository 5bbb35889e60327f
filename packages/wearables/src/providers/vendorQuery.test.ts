import { describe, expect, it } from "vitest";
import { garmin } from "./adapters/garmin.ts";
import { polar } from "./adapters/polar.ts";
import { strava } from "./adapters/strava.ts";
import { suunto } from "./adapters/suunto.ts";
import { withings } from "./adapters/withings.ts";
import { VENDOR_ADAPTERS } from "./registry.ts";
import { parseSummaryTime, resolveVendorQuery, type VendorKnobsInput, VendorQueryError } from "./vendorQuery.ts";

const NOW = Date.parse("2026-11-27T12:00:00Z");
const defaults: VendorKnobsInput = {
  limit: 50,
  offset: 0,
  filter_by_modification_time: true,
  samples: false,
  zones: false,
  route: false,
};
const resolve = (adapter: typeof suunto, target: "sync" | "workouts", raw: Partial<VendorKnobsInput>) =>
  resolveVendorQuery({ adapter, target, raw: { ...defaults, ...raw }, adapters: VENDOR_ADAPTERS, now: NOW });
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(VendorQueryError);
    return (error as Error).message;
  }
  throw new Error("not refused");
};

describe("vendor knobs", () => {
  it("asks nothing of a vendor at the defaults, whatever it declares", () => {
    expect(resolve(strava, "sync", {})).toEqual({});
    expect(resolve(polar, "sync", {})).toEqual({});
    expect(resolve(garmin, "workouts", { summary_start_time: null, summary_end_time: "" })).toEqual({});
    // The filter is a choice of the anchor's own (true): a vendor that takes it always gets it.
    expect(resolve(suunto, "sync", {})).toEqual({ byModificationTime: true });
  });

  it("refuses a knob the vendor does not take, naming the providers that do", () => {
    expect(refusal(() => resolve(strava, "sync", { samples: true }))).toBe(
      "`samples` of a sync applies to polar only, not strava",
    );
    expect(refusal(() => resolve(strava, "workouts", { filter_by_modification_time: false }))).toBe(
      "`filter_by_modification_time` of the workout list applies to suunto, withings only, not strava",
    );
    expect(refusal(() => resolve(polar, "workouts", { limit: 10 }))).toBe(
      "`limit` of the workout list applies to fitbit, google_health, oura, strava, suunto, whoop only, not polar",
    );
    expect(refusal(() => resolve(polar, "sync", { zones: true }))).toBe(
      "`zones` is not taken by a sync of any provider (polar included)",
    );
    expect(refusal(() => resolve(suunto, "sync", { summary_start_time: "1764000000" }))).toBe(
      "`summary_start_time`/`summary_end_time` of a sync applies to garmin only, not suunto",
    );
    expect(refusal(() => resolve(strava, "sync", { offset: 5 }))).toBe(
      "`offset` of a sync applies to suunto only, not strava",
    );
  });

  it("hands each vendor the knobs it declares", () => {
    expect(resolve(suunto, "sync", { limit: 20, offset: 40, filter_by_modification_time: false })).toEqual({
      limit: 20,
      offset: 40,
      byModificationTime: false,
    });
    expect(resolve(polar, "sync", { samples: true })).toEqual({
      detail: { samples: true, zones: false, route: false },
    });
    expect(resolve(polar, "workouts", { zones: true, route: true })).toEqual({
      detail: { samples: false, zones: true, route: true },
    });
    expect(resolve(withings, "workouts", { filter_by_modification_time: false, offset: 3 })).toEqual({
      offset: 3,
      byModificationTime: false,
    });
  });

  it("reads Garmin's summary window as Unix seconds or ISO 8601, with Garmin's rules", () => {
    const start = Math.floor(Date.parse("2026-11-20T00:00:00Z") / 1000);
    expect(parseSummaryTime("summary_start_time", String(start))).toBe(start);
    expect(parseSummaryTime("summary_start_time", "2026-11-20T00:00:00Z")).toBe(start);
    expect(parseSummaryTime("summary_start_time", "2026-11-20T02:00:00+02:00")).toBe(start);
    expect(refusal(() => parseSummaryTime("summary_start_time", "yesterday"))).toMatch(
      /^`summary_start_time` must be Unix seconds or an ISO 8601 date-time/,
    );
    expect(refusal(() => parseSummaryTime("summary_end_time", "2026-11-20"))).toMatch(/^`summary_end_time` must be/);
    // One bound: Garmin's day from the start, or up to the end.
    expect(resolve(garmin, "workouts", { summary_start_time: String(start) }).summaryWindow).toEqual({
      start,
      end: start + 86_400,
    });
    expect(resolve(garmin, "workouts", { summary_end_time: String(start) }).summaryWindow).toEqual({
      start: start - 86_400,
      end: start,
    });
    expect(
      refusal(() =>
        resolve(garmin, "workouts", { summary_start_time: String(start), summary_end_time: String(start - 1) }),
      ),
    ).toBe("`summary_end_time` must be after `summary_start_time`");
    // A workout list is one Garmin call: at most a day; a sync walks a longer window a day a call, up to now.
    expect(
      refusal(() =>
        resolve(garmin, "workouts", {
          summary_start_time: String(start),
          summary_end_time: String(start + 86_401),
        }),
      ),
    ).toBe("The summary window is at most 86400 seconds (24 hours) per garmin request");
    expect(
      resolve(garmin, "sync", { summary_start_time: String(start), summary_end_time: "2026-12-30T00:00:00Z" })
        .summaryWindow,
    ).toEqual({ start, end: NOW / 1000 });
    expect(refusal(() => resolve(garmin, "sync", { summary_start_time: "2026-09-01T00:00:00Z" }))).toBe(
      "`summary_start_time` reaches back at most 30 days for garmin (the summaries it keeps)",
    );
    expect(refusal(() => resolve(garmin, "sync", { summary_start_time: "2026-12-01T00:00:00Z" }))).toBe(
      "`summary_start_time` must be in the past",
    );
  });
});
