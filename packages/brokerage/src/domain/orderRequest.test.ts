import { describe, expect, it } from "vitest";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import { OrderRejectedError } from "./orderErrors.ts";
import { type OrderBody, toOrderIntent } from "./orderRequest.ts";

const universe = createDefaultAssetUniverse();
const intent = (body: Partial<OrderBody>) => {
  const full = { symbol: "AAPL", side: "buy", type: "market", time_in_force: "day", qty: "1", ...body } as OrderBody;
  return toOrderIntent(full, universe.find(full.symbol));
};
const rejection = (body: Partial<OrderBody>) => {
  try {
    intent(body);
  } catch (error) {
    if (error instanceof OrderRejectedError) return `${error.status} ${error.code} ${error.message}`;
    throw error;
  }
  return "accepted";
};

describe("toOrderIntent", () => {
  it("turns amounts into exact 1e-9 units", () => {
    const o = intent({ qty: "0.123456789", type: "limit", limit_price: 187.25 });
    expect(o.qty).toBe(123_456_789n);
    expect(o.limitPrice).toBe(187_250_000_000n);
    expect(intent({ notional: "25.5", qty: undefined }).notional).toBe(25_500_000_000n);
  });

  it.each([
    [{ symbol: "NOPE" }, '422 42210000 asset "NOPE" not found'],
    [{ symbol: "TCEHY" }, '422 42210000 asset "TCEHY" is not tradable'],
    [{ qty: "1", notional: "10" }, "422 42210000 only one of qty or notional is accepted"],
    [{ qty: undefined }, "422 42210000 qty or notional is required"],
    [{ qty: "-1" }, "422 42210000 invalid qty: -1"],
    [{ qty: "1e3" }, "422 42210000 invalid qty: 1e3"],
    [{ type: "limit" }, "422 42210000 limit_price is required"],
    [{ limit_price: "10" }, "422 42210000 limit_price is not allowed for market orders"],
    [
      { type: "limit", limit_price: "187.123" },
      "422 42210000 invalid limit_price 187.123. sub-penny increment does not fulfill minimum pricing criteria",
    ],
    [{ type: "stop", stop_price: "0.5", symbol: "AAPL" }, "accepted"],
    [{ symbol: "BRK.A", qty: "0.5" }, "422 42210000 asset BRK.A is not fractionable"],
    [{ qty: "0.5", time_in_force: "gtc" }, "422 42210000 fractional orders must be day orders"],
    [
      { notional: "10", qty: undefined, type: "limit", limit_price: "10" },
      "422 42210000 notional orders must be market orders",
    ],
    [{ symbol: "BTC/USD", time_in_force: "day" }, "422 42210000 invalid crypto time_in_force"],
    [{ symbol: "BTC/USD", time_in_force: "gtc", qty: "0.00001" }, "422 42210000 qty must be >= 0.0001"],
    [{ type: "trailing_stop" }, "422 42210000 trailing_stop orders need exactly one of trail_price or trail_percent"],
    [
      { type: "trailing_stop", trail_percent: "1", time_in_force: "ioc" },
      "422 42210000 trailing_stop orders must be day or gtc",
    ],
    [{ extended_hours: true }, "422 42210000 extended hours order must be DAY limit orders"],
    [{ client_order_id: "x".repeat(49) }, "422 42210000 client_order_id must be at most 48 characters"],
    [
      { take_profit: { limit_price: "10" } },
      "422 42210000 take_profit and stop_loss need order_class bracket, oco or oto",
    ],
    [{ order_class: "oto" }, "422 42210000 oto orders need exactly one of take_profit or stop_loss"],
    [
      { order_class: "oco", take_profit: { limit_price: "10" }, stop_loss: { stop_price: "5" } },
      "422 42210000 oco orders must be limit orders",
    ],
  ] as [Partial<OrderBody>, string][])("%j → %s", (body, expected) => {
    expect(rejection(body)).toBe(expected);
  });

  it("gives an oco order the take-profit's limit price", () => {
    const o = intent({
      side: "sell",
      type: "limit",
      time_in_force: "gtc",
      order_class: "oco",
      take_profit: { limit_price: "300" },
      stop_loss: { stop_price: "150" },
    });
    expect(o.limitPrice).toBe(300_000_000_000n);
  });
});
