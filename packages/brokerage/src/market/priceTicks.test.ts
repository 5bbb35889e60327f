import { describe, expect, it } from "vitest";
import { equityTick, formatPrice, isOnTick, roundToTick, tickFor, tickOf } from "./priceTicks.ts";

describe("ticks", () => {
  it("reads increments and refuses nonsense", () => {
    expect(tickOf("0.01")).toEqual({ size: 0.01, decimals: 2 });
    expect(tickOf("1")).toEqual({ size: 1, decimals: 0 });
    expect(tickOf("0.00001")).toEqual({ size: 0.00001, decimals: 5 });
    for (const bad of ["0", "-1", "abc", ""]) expect(() => tickOf(bad)).toThrow(RangeError);
  });

  it("uses cents at $1 and above, hundredths of a cent below, and the pair's increment for crypto", () => {
    expect(equityTick(1)).toEqual(tickOf("0.01"));
    expect(equityTick(0.9999)).toEqual(tickOf("0.0001"));
    expect(tickFor({ class: "crypto", price_increment: "0.1" }, 3300)).toEqual(tickOf("0.1"));
    expect(tickFor({ class: "us_equity" }, 0.5)).toEqual(tickOf("0.0001"));
  });

  it("rounds without binary noise, in the asked direction", () => {
    const dime = tickOf("0.1");
    expect(roundToTick(0.1 + 0.2, dime)).toBe(0.3);
    expect(roundToTick(0.3, dime, "down")).toBe(0.3); // 0.3 / 0.1 = 2.9999999999999996
    expect(roundToTick(0.3, dime, "up")).toBe(0.3);
    expect(roundToTick(187.456, tickOf("0.01"), "down")).toBe(187.45);
    expect(roundToTick(187.451, tickOf("0.01"), "up")).toBe(187.46);
    expect(roundToTick(95_123.6, tickOf("1"))).toBe(95_124);
  });

  it("tells sub-penny prices apart (the anchor's 42210000 check)", () => {
    const cent = tickOf("0.01");
    expect(isOnTick(187.45, cent)).toBe(true);
    expect(isOnTick(1.1, cent)).toBe(true);
    expect(isOnTick(187.455, cent)).toBe(false);
    expect(isOnTick(0.1234, tickOf("0.0001"))).toBe(true);
    expect(isOnTick(0.12345, tickOf("0.0001"))).toBe(false);
  });

  it("formats prices with no trailing zeros", () => {
    expect(formatPrice(187.5, tickOf("0.01"))).toBe("187.5");
    expect(formatPrice(0.12340000001, tickOf("0.0001"))).toBe("0.1234");
  });
});
