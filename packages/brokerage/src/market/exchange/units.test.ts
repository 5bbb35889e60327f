import { describe, expect, it } from "vitest";
import { priceToTicks, qtyToUnits, scaledToDecimal, ticksToPrice, unitsToQty } from "./units.ts";

describe("quantity units", () => {
  it.each([
    ["1", 1_000_000_000n],
    ["0.1", 100_000_000n],
    ["1.5", 1_500_000_000n],
    ["0.000000001", 1n],
    ["12345678901234.000000000", 12_345_678_901_234_000_000_000n],
  ])("%s share ↔ %s units", (qty, units) => {
    expect(qtyToUnits(qty)).toBe(units);
    expect(unitsToQty(units)).toBe(qty.includes(".") ? qty.replace(/\.?0+$/, "") : qty);
  });

  it.each(["", "-1", "1e3", "0.0000000001", "1.", ".5", " 1", "1,5"])("refuses %j", (qty) => {
    expect(qtyToUnits(qty)).toBeUndefined();
  });

  it("prints negative amounts (positions, cash deltas)", () => {
    expect(scaledToDecimal(-250n, 3)).toBe("-0.25");
  });
});

describe("price ticks", () => {
  it.each([
    ["10.07", "0.01", 1007],
    ["10.070", "0.01", 1007],
    ["0.1234", "0.0001", 1234],
    ["65000.5", "0.5", 130001],
    ["3", "1", 3],
  ])("%s at tick %s is %i ticks", (price, tick, ticks) => {
    expect(priceToTicks(price, tick)).toBe(ticks);
    expect(ticksToPrice(ticks, tick)).toBe(price.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ""));
  });

  it.each([
    ["10.071", "0.01"],
    ["0", "0.01"],
    ["abc", "0.01"],
    ["1", "0"],
  ])("refuses %s at tick %s (sub-penny, zero, malformed)", (price, tick) => {
    expect(priceToTicks(price, tick)).toBeUndefined();
  });
});
