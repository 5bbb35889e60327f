import { describe, expect, it } from "vitest";
import { bestPerDate, inferDeviceType, type PriorityOrder, priorityKey } from "./sourcePriority.ts";

// The anchor's default priorities (migration 0002).
const order: PriorityOrder = {
  providers: new Map([
    ["apple", 1],
    ["garmin", 2],
    ["polar", 3],
    ["suunto", 4],
    ["whoop", 5],
  ]),
  deviceTypes: new Map([
    ["watch", 1],
    ["band", 2],
    ["ring", 3],
    ["phone", 4],
    ["scale", 5],
    ["other", 6],
    ["unknown", 99],
  ]),
};

describe("device type from the model", () => {
  it("reads Apple product codes, keywords and brand families", () => {
    expect(inferDeviceType("Watch6,12")).toBe("watch");
    expect(inferDeviceType("iPhone15,2")).toBe("phone");
    expect(inferDeviceType("iPad13,1")).toBe("phone");
    expect(inferDeviceType("Forerunner 255")).toBe("watch");
    expect(inferDeviceType("vivosmart 5")).toBe("band");
    expect(inferDeviceType("Oura Gen3")).toBe("ring");
    expect(inferDeviceType("Body+ scale")).toBe("scale");
    expect(inferDeviceType("WHOOP 4.0")).toBe("band");
    expect(inferDeviceType("Edge 540")).toBe("other");
    expect(inferDeviceType(null)).toBe("unknown");
  });
});

describe("best source per date", () => {
  it("ranks by provider, then device type, then model; unlisted ranks 99", () => {
    expect(priorityKey({ date: "d", provider: "apple", deviceModel: "Watch6,12" }, order)).toEqual([1, 1, "Watch6,12"]);
    expect(priorityKey({ date: "d", provider: "internal", deviceModel: null }, order)).toEqual([99, 99, ""]);
  });

  it("keeps one entry per date: the Watch over the iPhone, Apple over Garmin", () => {
    const entries = [
      { date: "2026-03-02", provider: "apple", deviceModel: "iPhone15,2", id: "phone" },
      { date: "2026-03-02", provider: "apple", deviceModel: "Watch6,12", id: "watch" },
      { date: "2026-03-01", provider: "garmin", deviceModel: "Forerunner 255", id: "garmin" },
      { date: "2026-03-01", provider: "apple", deviceModel: "iPhone15,2", id: "apple-phone" },
      { date: "2026-03-03", provider: "fit_file", deviceModel: null, id: "alone" },
    ];
    expect(bestPerDate(entries, order).map((e) => e.id)).toEqual(["apple-phone", "watch", "alone"]);
  });

  it("keeps the first entry of equal rank", () => {
    const entries = [
      { date: "d", provider: "apple", deviceModel: "Watch6,12", id: "first" },
      { date: "d", provider: "apple", deviceModel: "Watch6,12", id: "second" },
    ];
    expect(bestPerDate(entries, order).map((e) => e.id)).toEqual(["first"]);
  });
});
