import { parseUnits } from "viem";
import { describe, expect, it } from "vitest";
import { WAD } from "../domain/fees/fixedPoint.ts";
import { type AmmPoolReserves, derivePrices, parseUsdPrice } from "./prices.ts";

const WETH = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const USDC = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512";
const USDT = "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0";
const DAI = "0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9";
const WBTC = "0xdc64a140aa3e981100a9beca4e685f962f0cf6c9";
const tokens = [
  { address: WETH, symbol: "WETH", decimals: 18 },
  { address: USDC, symbol: "USDC", decimals: 6 },
  { address: USDT, symbol: "USDT", decimals: 6 },
  { address: DAI, symbol: "DAI", decimals: 18 },
  { address: WBTC, symbol: "WBTC", decimals: 8 },
];

/** A pool as a pair stores it (token0 < token1). */
function pool(a: string, amountA: bigint, b: string, amountB: bigint): AmmPoolReserves {
  return BigInt(a) < BigInt(b)
    ? { token0: a, token1: b, reserve0: amountA, reserve1: amountB }
    : { token0: b, token1: a, reserve0: amountB, reserve1: amountA };
}

// The devnet pools: 3,000,000 USDC : 1,000 WETH; USDT/USDC and DAI/USDC 1M : 1M; 20 WBTC : 600 WETH.
const devnetPools = [
  pool(USDC, parseUnits("3000000", 6), WETH, parseUnits("1000", 18)),
  pool(USDT, parseUnits("1000000", 6), USDC, parseUnits("1000000", 6)),
  pool(DAI, parseUnits("1000000", 18), USDC, parseUnits("1000000", 6)),
  pool(WBTC, parseUnits("20", 8), WETH, parseUnits("600", 18)),
];

describe("derivePrices", () => {
  it("prices the devnet pools: ETH 3,000 USD, BTC 30 ETH, stablecoins 1 USD", () => {
    const p = derivePrices({ tokens, wrappedNative: WETH, nativeSymbol: "ETH", pools: devnetPools });
    expect(p.inNative.get(WETH)).toBe(WAD);
    expect(p.nativeUsd).toBe(3000n * WAD);
    expect(p.inNative.get(USDC)).toBe(WAD / 3000n);
    expect(p.inNative.get(WBTC)).toBe(30n * WAD);
    expect(p.usd.get(WBTC)).toBe(90_000n * WAD);
    for (const stable of [USDC, USDT, DAI]) {
      // 1 USD, up to the rounding of 1e18/3000.
      expect(WAD - (p.usd.get(stable) as bigint)).toBeLessThan(10n);
    }
  });

  it("propagates through non-native pools (DAI only paired with USDC) and skips empty pools", () => {
    const p = derivePrices({
      tokens,
      wrappedNative: WETH,
      pools: [pool(DAI, 2n * WAD, USDC, 1_000_000n), pool(USDC, 3_000_000_000n, WETH, WAD), pool(WBTC, 0n, WETH, WAD)],
      stablecoins: [],
    });
    expect(p.inNative.get(USDC)).toBe(WAD / 3000n);
    expect(p.inNative.get(DAI)).toBe(WAD / 3000n / 2n); // 2 DAI per USDC in that pool
    expect(p.inNative.has(WBTC)).toBe(false);
    expect(p.nativeUsd).toBeUndefined(); // no stablecoin to anchor USD
    expect(p.usd.size).toBe(0);
  });

  it("lets the configured USD map beat pool prices", () => {
    const usdPrices = new Map([
      ["ETH", parseUsdPrice("2000")],
      ["WBTC", parseUsdPrice(50_000)],
    ]);
    const p = derivePrices({ tokens, wrappedNative: WETH, nativeSymbol: "ETH", pools: devnetPools, usdPrices });
    expect(p.nativeUsd).toBe(2000n * WAD);
    expect(p.inNative.get(WBTC)).toBe(25n * WAD);
    expect(p.inNative.get(USDC)).toBe(WAD / 2000n);
    expect(p.usd.get(WETH)).toBe(2000n * WAD);
  });

  it("works from the USD map alone (no pools)", () => {
    const p = derivePrices({
      tokens,
      wrappedNative: WETH,
      nativeSymbol: "ETH",
      pools: [],
      usdPrices: new Map([["WETH", 4000n * WAD]]),
    });
    expect(p.inNative.get(USDC)).toBe(WAD / 4000n);
    expect(p.inNative.has(WBTC)).toBe(false);
  });
});

describe("parseUsdPrice", () => {
  it("parses human decimals and rejects the rest", () => {
    expect(parseUsdPrice("3000")).toBe(3000n * WAD);
    expect(parseUsdPrice("0.5")).toBe(WAD / 2n);
    expect(parseUsdPrice(1.25)).toBe((5n * WAD) / 4n);
    for (const bad of ["", "-1", "1e3", "abc", "1.0000000000000000001"])
      expect(() => parseUsdPrice(bad)).toThrow(RangeError);
  });
});
