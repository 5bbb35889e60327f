import { describe, expect, it } from "vitest";
import { dataSourceDisplayName, deviceName, sourceMetadata } from "./sourceMetadata.ts";

describe("source metadata", () => {
  it("names known Apple models and echoes others", () => {
    expect(deviceName("Watch7,5")).toBe("Apple Watch Ultra 2");
    expect(deviceName("iPhone15,2")).toBe("iPhone 14 Pro");
    expect(deviceName("Forerunner 255")).toBe("Forerunner 255");
    expect(deviceName(null)).toBeNull();
    expect(deviceName("")).toBeNull();
  });

  it("builds the anchor's source object", () => {
    expect(
      sourceMetadata({ provider: "apple", source: "com.apple.health", device_model: "Watch7,5", device_type: "watch" }),
    ).toEqual({
      provider: "apple",
      source: "com.apple.health",
      device: "Watch7,5",
      device_type: "watch",
      device_name: "Apple Watch Ultra 2",
    });
    expect(sourceMetadata({ provider: "", source: null, device_model: null, device_type: null }).provider).toBe(
      "unknown",
    );
  });

  it("display names: provider, then model or original source name", () => {
    const base = { source: null, device_type: null };
    expect(dataSourceDisplayName({ ...base, provider: "garmin", device_model: "Forerunner 255" })).toBe(
      "Garmin - Forerunner 255",
    );
    expect(
      dataSourceDisplayName({ ...base, provider: "apple", device_model: null, original_source_name: "Scale" }),
    ).toBe("Apple - Scale");
    expect(dataSourceDisplayName({ ...base, provider: "polar", device_model: null })).toBe("Polar");
    expect(dataSourceDisplayName({ ...base, provider: "", device_model: null })).toBe("Unknown Source");
  });
});
