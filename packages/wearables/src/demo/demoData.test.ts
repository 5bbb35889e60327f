/**
 * The demo export generator: a well-formed Apple Health export.xml in Apple's format (dates, type identifiers,
 * units, grouping), with plausible amounts per day, workouts whose statistics are those of their own records,
 * the same bytes for the same seed, streamed in bounded chunks with back-pressure.
 */
import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { SaxesParser } from "saxes";
import { beforeAll, describe, expect, it } from "vitest";
import { appleDate, demoExportChunks, writeDemoExport } from "./demoData.ts";
import { personFor, planDay } from "./demoPlan.ts";

interface Element {
  name: string;
  attributes: Record<string, string>;
  parent: string | null;
}

const APPLE_DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0100$/;
const DAYS = 14;
const END = "2026-06-15"; // a Monday
const options = { days: DAYS, seed: 7, endDate: END };

async function collect(opts: Parameters<typeof demoExportChunks>[0]) {
  const chunks: string[] = [];
  for await (const c of demoExportChunks(opts)) chunks.push(c);
  return chunks;
}

function parse(text: string): { elements: Element[]; doctype: string | null } {
  const elements: Element[] = [];
  const stack: string[] = [];
  let doctype: string | null = null;
  const parser = new SaxesParser();
  parser.on("doctype", (d) => {
    doctype = d;
  });
  parser.on("opentag", (tag) => {
    elements.push({
      name: tag.name,
      attributes: tag.attributes as Record<string, string>,
      parent: stack[stack.length - 1] ?? null,
    });
    stack.push(tag.name);
  });
  parser.on("closetag", () => stack.pop());
  parser.write(text).close();
  return { elements, doctype };
}

/** Local day "YYYY-MM-DD" of an Apple date. */
const dayOf = (d: string) => d.slice(0, 10);
const ms = (d: string) => Date.parse(`${d.slice(0, 10)}T${d.slice(11, 19)}+01:00`);

describe("demo export", () => {
  let chunks: string[];
  let text: string;
  let elements: Element[];
  let records: Element[];
  const byType = (type: string) => records.filter((r) => r.attributes.type === type);
  const perDay = (rs: Element[], attr = "startDate") => {
    const m = new Map<string, Element[]>();
    for (const r of rs)
      m.set(dayOf(r.attributes[attr] as string), [...(m.get(dayOf(r.attributes[attr] as string)) ?? []), r]);
    return m;
  };
  const days = Array.from({ length: DAYS }, (_, i) =>
    new Date(Date.parse(`${END}T00:00:00Z`) - (DAYS - i) * 86_400_000).toISOString().slice(0, 10),
  );

  beforeAll(async () => {
    chunks = await collect(options);
    text = chunks.join("");
    const parsed = parse(text);
    elements = parsed.elements;
    records = elements.filter((e) => e.name === "Record" && e.parent === "HealthData");
    expect(parsed.doctype).toContain("HealthKit Export Version: 14");
  });

  it("is well-formed Apple export XML: HealthData, ExportDate, Me, then records, workouts, summaries", () => {
    const top = elements.filter((e) => e.parent === "HealthData").map((e) => e.name);
    expect(elements[0]?.name).toBe("HealthData");
    expect(top.slice(0, 2)).toEqual(["ExportDate", "Me"]);
    const firstWorkout = top.indexOf("Workout");
    const firstSummary = top.indexOf("ActivitySummary");
    expect(top.lastIndexOf("Record")).toBeLessThan(firstWorkout);
    expect(top.lastIndexOf("Workout")).toBeLessThan(firstSummary);
    const me = elements.find((e) => e.name === "Me")?.attributes ?? {};
    expect(me.HKCharacteristicTypeIdentifierDateOfBirth).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(["HKBiologicalSexFemale", "HKBiologicalSexMale"]).toContain(me.HKCharacteristicTypeIdentifierBiologicalSex);
    expect(elements.find((e) => e.name === "ExportDate")?.attributes.value).toBe(`${END} 08:00:00 +0100`);
  });

  it("writes every date as Apple does and groups records by type, each group in time order", () => {
    for (const e of elements) {
      for (const k of ["startDate", "endDate", "creationDate", "date"]) {
        const v = e.attributes[k];
        if (v !== undefined) expect(v).toMatch(APPLE_DATE);
      }
    }
    const seen: string[] = [];
    for (const r of records) if (seen[seen.length - 1] !== r.attributes.type) seen.push(r.attributes.type as string);
    expect(new Set(seen).size).toBe(seen.length);
    for (const type of seen) {
      const starts = byType(type).map((r) => ms(r.attributes.startDate as string));
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    }
    const units = Object.fromEntries(records.map((r) => [r.attributes.type, r.attributes.unit]));
    expect(units).toMatchObject({
      HKQuantityTypeIdentifierHeartRate: "count/min",
      HKQuantityTypeIdentifierStepCount: "count",
      HKQuantityTypeIdentifierDistanceWalkingRunning: "km",
      HKQuantityTypeIdentifierActiveEnergyBurned: "kcal",
      HKQuantityTypeIdentifierBasalEnergyBurned: "kcal",
      HKQuantityTypeIdentifierRestingHeartRate: "count/min",
      HKQuantityTypeIdentifierHeartRateVariabilitySDNN: "ms",
      HKQuantityTypeIdentifierOxygenSaturation: "%",
      HKQuantityTypeIdentifierBodyMass: "kg",
      HKQuantityTypeIdentifierHeight: "cm",
      HKCategoryTypeIdentifierSleepAnalysis: undefined,
    });
  });

  it("has plausible amounts every day", () => {
    const hr = perDay(byType("HKQuantityTypeIdentifierHeartRate"));
    const steps = perDay(
      byType("HKQuantityTypeIdentifierStepCount").filter((r) => r.attributes.sourceName?.endsWith("Apple Watch")),
    );
    const active = perDay(byType("HKQuantityTypeIdentifierActiveEnergyBurned"));
    const basal = perDay(byType("HKQuantityTypeIdentifierBasalEnergyBurned"));
    const resting = perDay(byType("HKQuantityTypeIdentifierRestingHeartRate"));
    const hrv = perDay(byType("HKQuantityTypeIdentifierHeartRateVariabilitySDNN"));
    const summaries = elements.filter((e) => e.name === "ActivitySummary");
    expect(summaries.map((s) => s.attributes.dateComponents)).toEqual(days);
    const sum = (rs: Element[] | undefined) => (rs ?? []).reduce((a, r) => a + Number(r.attributes.value), 0);
    for (const day of days) {
      expect(hr.get(day)?.length).toBeGreaterThan(500);
      expect(hr.get(day)?.length).toBeLessThan(2500);
      for (const r of hr.get(day) ?? []) expect(Number(r.attributes.value)).toBeGreaterThanOrEqual(38);
      expect(sum(steps.get(day))).toBeGreaterThan(2500);
      expect(sum(steps.get(day))).toBeLessThan(30_000);
      expect(sum(active.get(day))).toBeGreaterThan(80);
      expect(sum(active.get(day))).toBeLessThan(2000);
      expect(basal.get(day)).toHaveLength(24);
      expect(sum(basal.get(day))).toBeGreaterThan(1200);
      expect(resting.get(day)).toHaveLength(1);
      expect(Number(resting.get(day)?.[0]?.attributes.value)).toBeGreaterThan(45);
      expect(hrv.get(day)).toHaveLength(3);
      const summary = summaries.find((s) => s.attributes.dateComponents === day);
      expect(Number(summary?.attributes.activeEnergyBurned)).toBeCloseTo(sum(active.get(day)), 1);
    }
    const mondays = perDay(byType("HKQuantityTypeIdentifierBodyMass"));
    expect([...mondays.keys()]).toEqual(days.filter((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 1));
  });

  it("has a night of staged sleep ending each morning, and naps apart", () => {
    const stages = byType("HKCategoryTypeIdentifierSleepAnalysis");
    const noon = (day: string) => ms(`${day} 12:00:00 +0100`);
    for (const day of days) {
      const night = stages.filter((s) => {
        const end = ms(s.attributes.endDate as string);
        return end > noon(day) - 18 * 3_600_000 && end <= noon(day);
      });
      const kinds = new Set(night.map((s) => s.attributes.value));
      expect(kinds).toEqual(
        new Set(["Awake", "AsleepCore", "AsleepDeep", "AsleepREM"].map((k) => `HKCategoryValueSleepAnalysis${k}`)),
      );
      const asleep = night
        .filter((s) => s.attributes.value !== "HKCategoryValueSleepAnalysisAwake")
        .reduce((a, s) => a + ms(s.attributes.endDate as string) - ms(s.attributes.startDate as string), 0);
      expect(asleep / 3_600_000).toBeGreaterThan(5);
      expect(asleep / 3_600_000).toBeLessThan(10.5);
      for (let i = 1; i < night.length; i++) {
        expect(night[i]?.attributes.startDate).toBe(night[i - 1]?.attributes.endDate);
      }
    }
  });

  it("writes workouts whose statistics are those of the records inside them", () => {
    const workouts = elements.filter((e) => e.name === "Workout");
    expect(workouts.length).toBeGreaterThanOrEqual(4);
    const kinds = new Set(workouts.map((w) => w.attributes.workoutActivityType));
    expect(kinds.size).toBeGreaterThanOrEqual(3);
    const stats = elements.filter((e) => e.name === "WorkoutStatistics");
    const hr = byType("HKQuantityTypeIdentifierHeartRate");
    for (const w of workouts) {
      const start = ms(w.attributes.startDate as string);
      const end = ms(w.attributes.endDate as string);
      const inside = hr.filter((r) => {
        const t = ms(r.attributes.startDate as string);
        return t >= start && t < end;
      });
      const values = inside.map((r) => Number(r.attributes.value));
      const stat = stats.find(
        (s) =>
          s.attributes.type === "HKQuantityTypeIdentifierHeartRate" &&
          s.attributes.startDate === w.attributes.startDate,
      )?.attributes;
      expect(Number(stat?.average)).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 3);
      expect(Number(stat?.maximum)).toBe(Math.max(...values));
      expect(Number(stat?.minimum)).toBe(Math.min(...values));
      const energy = byType("HKQuantityTypeIdentifierActiveEnergyBurned").filter((r) => {
        const t = ms(r.attributes.startDate as string);
        return t >= start && t < end;
      });
      expect(Number(w.attributes.totalEnergyBurned)).toBeCloseTo(
        energy.reduce((a, r) => a + Number(r.attributes.value), 0),
        1,
      );
    }
  });

  it("is the same file for the same seed, another for another seed", async () => {
    const hash = (s: string) => createHash("sha256").update(s).digest("hex");
    expect(hash((await collect(options)).join(""))).toBe(hash(text));
    expect(hash((await collect({ ...options, seed: 8 })).join(""))).not.toBe(hash(text));
    // A longer export only adds days: the last week is the same.
    const longer = (await collect({ ...options, days: DAYS + 3 })).join("");
    const lastDay = days[DAYS - 1] as string;
    const line = text.split("\n").find((l) => l.includes(`startDate="${lastDay} 12:`) && l.includes('HeartRate"'));
    expect(line).toBeDefined();
    expect(longer.includes(line as string)).toBe(true);
  });

  it("streams in bounded chunks and honours back-pressure", async () => {
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(70 * 1024);
    let written = 0;
    let writes = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, done) {
        written += chunk.length;
        writes += 1;
        setImmediate(done);
      },
    });
    const stats = await writeDemoExport({ ...options, days: 2, out: slow });
    expect(written).toBe(stats.bytes);
    expect(writes).toBeGreaterThan(1);
    expect(stats.records).toBeGreaterThan(1000);
    expect(stats.activitySummaries).toBe(2);
    expect(slow.writableFinished).toBe(true);
  });

  it("refuses a bad day count or end date", async () => {
    await expect(collect({ days: 0, seed: 1 })).rejects.toThrow(RangeError);
    await expect(collect({ days: 1, seed: 1, endDate: "2026-13-01x" })).rejects.toThrow(RangeError);
  });

  it("plans a plausible year: naps now and then, all four workout kinds, nothing overlapping sleep", () => {
    const person = personFor(7);
    const first = Math.round(Date.parse("2025-06-15T00:00:00Z") / 86_400_000);
    let naps = 0;
    const kinds = new Map<string, number>();
    for (let day = first; day < first + 365; day++) {
      const plan = planDay(7, person, day, 60);
      const tonight = planDay(7, person, day + 1, 60).sleep[0]?.start as number;
      const wake = plan.sleep[plan.sleep.length - 1]?.end as number;
      if (plan.nap.length > 0) {
        naps += 1;
        const minutes = ((plan.nap[0]?.end as number) - (plan.nap[0]?.start as number)) / 60_000;
        expect(minutes).toBeGreaterThanOrEqual(20);
        expect(minutes).toBeLessThanOrEqual(45);
      }
      for (const w of plan.workouts) {
        kinds.set(w.kind, (kinds.get(w.kind) ?? 0) + 1);
        expect(w.start).toBeGreaterThan(wake);
        expect(w.end).toBeLessThan(tonight);
      }
      for (const b of plan.bouts) {
        expect(b.start).toBeGreaterThan(wake);
        expect(b.end).toBeLessThan(tonight);
        expect(plan.workouts.some((w) => w.start < b.end && w.end > b.start)).toBe(false);
      }
    }
    expect(naps).toBeGreaterThan(10);
    expect(naps).toBeLessThan(50);
    expect([...kinds.keys()].sort()).toEqual(["cycling", "running", "strength", "walking"]);
    const total = [...kinds.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(150);
    expect(total).toBeLessThan(300);
  });

  it("formats dates in the person's zone", () => {
    expect(appleDate(Date.UTC(2026, 0, 1, 23, 30, 5), 60)).toBe("2026-01-02 00:30:05 +0100");
    expect(appleDate(Date.UTC(2026, 0, 1, 3, 0, 0), -300)).toBe("2025-12-31 22:00:00 -0500");
  });
});
