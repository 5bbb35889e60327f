import { describe, expect, it } from "vitest";
import { parseUtcDate, utcDay } from "./dates.ts";

describe("dates", () => {
  it("accepts only real yyyy-MM-dd dates", () => {
    expect(parseUtcDate("2019-02-01")).toBe("2019-02-01");
    expect(parseUtcDate("2024-02-29")).toBe("2024-02-29");
    for (const bad of ["2023-02-29", "2019-2-1", "2019-02-01T00:00", "20190201", "", "2019-13-01", "x"]) {
      expect(parseUtcDate(bad), bad).toBeUndefined();
    }
  });

  it("maps timestamps to UTC days", () => {
    expect(utcDay(1548979200)).toBe("2019-02-01");
    expect(utcDay(1548979200 + 86_399)).toBe("2019-02-01");
  });
});
