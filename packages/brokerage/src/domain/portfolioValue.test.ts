import { describe, expect, it } from "vitest";
import { heldBuyingPower, heldQuantity } from "./orderHolds.ts";
import { fromNanos, toNanos, valuePortfolio } from "./portfolioValue.ts";

describe("valuePortfolio (the anchor's multiplier rules)", () => {
  it("a cash account's buying power is its cash", () => {
    const v = valuePortfolio({ cash: "50000", positions: [{ qty: "100", price: "500" }], maxMarginMultiplier: "1" });
    expect(fromNanos(v.equity)).toBe("100000");
    expect(v.multiplier).toBe(1);
    expect(fromNanos(v.buyingPower)).toBe("50000");
  });

  it("multiplier 2: 2 × (equity − 50 % initial margin); 4 from $25,000", () => {
    const two = valuePortfolio({ cash: "50000", positions: [{ qty: "100", price: "500" }], maxMarginMultiplier: "2" });
    expect(fromNanos(two.buyingPower)).toBe("150000");
    const four = valuePortfolio({ cash: "50000", positions: [{ qty: "100", price: "500" }], maxMarginMultiplier: "4" });
    expect(four.multiplier).toBe(4);
    expect(fromNanos(four.buyingPower)).toBe("350000");
    const small = valuePortfolio({ cash: "10000", positions: [], maxMarginMultiplier: "4" });
    expect(small.multiplier).toBe(2);
    expect(valuePortfolio({ cash: "1999", positions: [], maxMarginMultiplier: "4" }).multiplier).toBe(1);
  });

  it("shorts lower equity by their value and count in the exposure", () => {
    const v = valuePortfolio({ cash: "110000", positions: [{ qty: "-100", price: "100" }], maxMarginMultiplier: "2" });
    expect(fromNanos(v.shortMarketValue)).toBe("-10000");
    expect(fromNanos(v.equity)).toBe("100000");
    expect(fromNanos(v.buyingPower)).toBe("190000");
  });

  it("open orders' holds come off what a new order may use, never below zero", () => {
    const v = valuePortfolio({ cash: "1000", positions: [], maxMarginMultiplier: "1", held: toNanos("1500") });
    expect(v.availableBuyingPower).toBe(0n);
  });

  it("parses and prints decimals exactly", () => {
    expect(toNanos("0.000000001")).toBe(1n);
    expect(fromNanos(toNanos("-12.50"))).toBe("-12.5");
    expect(() => toNanos("1e3")).toThrow(TypeError);
  });
});

describe("order holds", () => {
  const order = (o: Partial<Parameters<typeof heldBuyingPower>[0][number]> & { id?: string }) => ({
    id: "o",
    symbol: "AAPL",
    side: "buy" as const,
    opens_short: false,
    qty: "10",
    notional: null,
    filled_qty: "0",
    filled_value: "0",
    hold_price: "100",
    parent_id: null,
    status: "new",
    ...o,
  });

  it("holds the remaining quantity × hold price, and notional buys' remaining dollars", () => {
    const held = heldBuyingPower([
      order({ filled_qty: "4" }),
      order({ qty: null, notional: "250", filled_value: "50" }),
      order({ status: "held" }),
    ]);
    expect(fromNanos(held)).toBe("800");
  });

  it("counts the legs of one group once", () => {
    const sells = [
      order({ id: "tp", side: "sell", hold_price: "0", parent_id: "p", qty: "5" }),
      order({ id: "sl", side: "sell", hold_price: "0", parent_id: "p", qty: "5" }),
      order({ id: "s", side: "sell", hold_price: "0", qty: "2" }),
    ];
    expect(fromNanos(heldQuantity(sells, "AAPL", "sell"))).toBe("7");
  });
});
