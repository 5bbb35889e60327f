import { describe, expect, it } from "vitest";
import { createDefaultAssetUniverse } from "./assetListings.ts";
import { AssetNotFoundError } from "./assets.ts";
import { DEFAULT_ANCHOR_TIME, PRICE_STEP_MS, PriceProcess } from "./priceProcess.ts";
import { isOnTick, tickFor, tickOf } from "./priceTicks.ts";

const universe = createDefaultAssetUniverse();
const makePrices = (seed: string | number = "seed-1") => new PriceProcess({ seed, universe });
const DAY = 86_400_000;
const YEAR_SECONDS = 365.25 * 86_400;
const T0 = Date.parse("2026-11-25T15:00:00Z");

/** Standard deviation of the log returns over `horizonMs`, from `count` disjoint intervals. */
function logReturnStd(prices: PriceProcess, symbol: string, start: number, horizonMs: number, count: number): number {
  const returns = Array.from({ length: count }, (_, i) => {
    const from = start + i * horizonMs;
    return Math.log(prices.midPriceAt(symbol, from + horizonMs) / prices.midPriceAt(symbol, from));
  });
  const mean = returns.reduce((a, b) => a + b, 0) / count;
  return Math.sqrt(returns.reduce((a, b) => a + (b - mean) ** 2, 0) / (count - 1));
}

describe("PriceProcess prices", () => {
  it("equals each reference price at the anchor time", () => {
    const prices = makePrices();
    expect(prices.priceAt("AAPL", DEFAULT_ANCHOR_TIME)).toBe(230);
    expect(prices.priceAt("BTC/USD", DEFAULT_ANCHOR_TIME)).toBe(95_000);
    expect(prices.midPriceAt("DOGE/USD", DEFAULT_ANCHOR_TIME + 999)).toBe(0.25); // same second
  });

  it("gives the same prices for the same seed, whatever was asked before and in which order", () => {
    const symbols = ["AAPL", "BTC/USD", "SPY", "DOGE/USD"];
    const times = Array.from({ length: 200 }, (_, i) => T0 + ((i * 7919) % 200) * 37_000 + i * DAY);
    const forward = makePrices();
    const expected = symbols.flatMap((s) => times.map((t) => forward.midPriceAt(s, t)));
    const backward = makePrices();
    for (const s of [...symbols].reverse()) for (const t of [...times].reverse()) backward.midPriceAt(s, t);
    expect(symbols.flatMap((s) => times.map((t) => backward.midPriceAt(s, t)))).toEqual(expected);
    const cold = symbols.flatMap((s) => times.map((t) => makePrices().midPriceAt(s, t)));
    expect(cold).toEqual(expected);
  });

  it("gives other prices for another seed, and the same for a numeric seed and its string", () => {
    expect(makePrices("seed-2").midPriceAt("AAPL", T0)).not.toBe(makePrices("seed-1").midPriceAt("AAPL", T0));
    expect(makePrices(42).midPriceAt("AAPL", T0)).toBe(makePrices("42").midPriceAt("AAPL", T0));
  });

  it("moves each second, with independent symbols", () => {
    const prices = makePrices();
    const aapl = Array.from({ length: 60 }, (_, i) => prices.midPriceAt("AAPL", T0 + i * PRICE_STEP_MS));
    expect(new Set(aapl).size).toBe(60);
    expect(prices.midPriceAt("AAPL", T0 + 1)).toBe(prices.midPriceAt("AAPL", T0)); // one price per second
    expect(prices.midPriceAt("MSFT", T0) / 430).not.toBeCloseTo(aapl[0]! / 230, 6);
  });

  it("has the listing's volatility at every scale, from a second to a day", () => {
    const prices = makePrices("stats");
    const sigma = 0.25; // AAPL
    for (const [horizonMs, count] of [
      [PRICE_STEP_MS, 4_000],
      [60_000, 4_000],
      [DAY, 3_000],
    ] as const) {
      const expected = sigma * Math.sqrt(horizonMs / 1000 / YEAR_SECONDS);
      const observed = logReturnStd(prices, "AAPL", Date.parse("2020-01-01T00:00:00Z"), horizonMs, count);
      expect(observed / expected, `horizon ${horizonMs} ms`).toBeGreaterThan(0.93);
      expect(observed / expected, `horizon ${horizonMs} ms`).toBeLessThan(1.07);
    }
  });

  it("rounds prices to the asset's tick", () => {
    const prices = makePrices();
    for (const symbol of ["AAPL", "BTC/USD", "ETH/USD", "DOGE/USD", "BRK.A"]) {
      const asset = universe.get(symbol).asset;
      for (let i = 0; i < 100; i++) {
        const price = prices.priceAt(symbol, T0 + i * 3_600_000);
        expect(isOnTick(price, tickFor(asset, price)), `${symbol} ${price}`).toBe(true);
      }
    }
  });

  it("answers quickly anywhere on the grid (no walk from the epoch)", () => {
    const prices = makePrices();
    const started = performance.now();
    for (let i = 0; i < 20_000; i++) prices.midPriceAt("AAPL", ((i * 2_654_435_761) % 4_000_000_000) * 1000);
    for (let i = 0; i < 86_400; i++) prices.midPriceAt("SPY", T0 + i * PRICE_STEP_MS);
    expect(performance.now() - started).toBeLessThan(3_000); // ~100 ms on a laptop
    expect(prices.midPriceAt("AAPL", Date.parse("2105-12-31T00:00:00Z"))).toBeGreaterThan(0);
  });

  it("refuses unknown symbols and times off the grid, and accepts the anchor's symbol forms", () => {
    const prices = makePrices();
    expect(() => prices.priceAt("ZZZZ", T0)).toThrow(AssetNotFoundError);
    expect(() => prices.priceAt("AAPL", -1000)).toThrow(RangeError);
    expect(() => prices.priceAt("AAPL", Date.parse("2106-03-01T00:00:00Z"))).toThrow(RangeError);
    expect(() => prices.priceAt("AAPL", Number.NaN)).toThrow(RangeError);
    expect(prices.priceAt("btcusd", T0)).toBe(prices.priceAt("BTC/USD", T0));
  });
});

describe("PriceProcess quotes", () => {
  it("quotes on the tick around the price, a spread apart", () => {
    const prices = makePrices();
    for (const symbol of ["AAPL", "SPY", "BTC/USD", "DOGE/USD", "BRK.A", "INTC"]) {
      const listing = universe.get(symbol);
      for (let i = 0; i < 50; i++) {
        const time = T0 + i * 61_000;
        const quote = prices.quoteAt(symbol, time);
        const mid = prices.midPriceAt(symbol, time);
        const tick = tickFor(listing.asset, mid);
        expect(quote.bidPrice).toBeLessThanOrEqual(mid);
        expect(quote.askPrice).toBeGreaterThanOrEqual(mid);
        expect(quote.askPrice - quote.bidPrice).toBeGreaterThanOrEqual(tick.size * 0.999);
        const spreadBps = ((quote.askPrice - quote.bidPrice) / mid) * 10_000;
        expect(spreadBps).toBeLessThanOrEqual(listing.spreadBps + (2 * tick.size * 10_000) / mid + 1e-9);
        expect(isOnTick(quote.bidPrice, tick) && isOnTick(quote.askPrice, tick)).toBe(true);
        expect(quote.bidSize).toBeGreaterThan(0);
        expect(quote.askSize).toBeGreaterThan(0);
        expect(quote.timestamp).toBe(Math.floor(time / 1000) * 1000);
      }
    }
  });

  it("sizes crypto in the pair's trade increment and equities in round lots", () => {
    const prices = makePrices();
    const btc = prices.quoteAt("BTC/USD", T0);
    expect(isOnTick(btc.bidSize, tickOf("0.000000001"))).toBe(true);
    expect(btc.bidSize * btc.bidPrice).toBeGreaterThan(1_000);
    expect(prices.quoteAt("AAPL", T0).askSize % 100).toBe(0);
  });
});

describe("PriceProcess tape", () => {
  it("prints at the quote's bid or ask, about as often as the listing says, in order", () => {
    const prices = makePrices();
    const hour = prices.tradesBetween("AAPL", T0, T0 + 3_600_000);
    expect(hour.length).toBeGreaterThan(60 * 60 * 0.9); // 60 a minute
    expect(hour.length).toBeLessThan(60 * 60 * 1.1);
    expect(hour.map((t) => t.timestamp)).toEqual([...hour.map((t) => t.timestamp)].sort((a, b) => a - b));
    expect(new Set(hour.map((t) => t.id)).size).toBe(hour.length);
    for (const print of hour.slice(0, 200)) {
      const quote = prices.quoteAt("AAPL", print.timestamp);
      expect(print.price).toBe(print.takerSide === "buy" ? quote.askPrice : quote.bidPrice);
      expect(print.size).toBeGreaterThan(0);
    }
    expect(new Set(hour.map((t) => t.takerSide))).toEqual(new Set(["buy", "sell"]));
  });

  it("is the same tape for the same seed, and the last print is the window's last", () => {
    const window = [T0, T0 + 600_000] as const;
    const tape = makePrices().tradesBetween("ETH/USD", ...window);
    expect(makePrices().tradesBetween("ETH/USD", ...window)).toEqual(tape);
    expect(tape.every((t) => t.timestamp >= window[0] && t.timestamp < window[1])).toBe(true);
    expect(makePrices().lastTradeAt("ETH/USD", window[1] - 1)).toEqual(tape.at(-1));
    const first = tape[0]!;
    expect(makePrices().lastTradeAt("ETH/USD", first.timestamp - 1, first.timestamp - 1 - window[0])).toBeUndefined();
    expect(makePrices().lastTradeAt("ETH/USD", first.timestamp, first.timestamp - window[0])).toEqual(first);
  });

  it("refuses windows longer than a week", () => {
    expect(() => makePrices().tradesBetween("AAPL", T0, T0 + 8 * DAY)).toThrow(RangeError);
  });
});
