import { describe, expect, it } from "vitest";
import { type AmmPool, amountIn, amountOut } from "./ammPool.ts";
import { createPoolIndex, findBestRoute } from "./swapRouter.ts";

const USDC = "0x00000000000000000000000000000000000000a1";
const WETH = "0x00000000000000000000000000000000000000b2";
const DAI = "0x00000000000000000000000000000000000000c3";
const WBTC = "0x00000000000000000000000000000000000000d4";
const e = (n: number, d: number) => BigInt(n) * 10n ** BigInt(d);

function pool(a: string, ra: bigint, b: string, rb: bigint, source = "uniswap_v2", feePips = 3000): AmmPool {
  const [token0, token1, reserve0, reserve1] = a < b ? [a, b, ra, rb] : [b, a, rb, ra];
  return {
    source,
    address: `0x${(a.slice(-4) + b.slice(-4) + source.length).padStart(40, "0")}` as `0x${string}`,
    token0,
    token1,
    reserve0,
    reserve1,
    feePips,
  };
}

describe("constant-product math", () => {
  it("equals UniswapV2Library's getAmountOut/getAmountIn to the unit", () => {
    // UniswapV2Library: out = in*997*rOut / (rIn*1000 + in*997); in = rIn*out*1000 / ((rOut-out)*997) + 1
    const rIn = e(3_000_000, 6);
    const rOut = e(1000, 18);
    for (const x of [1n, 12_345n, e(250, 6), e(99_999, 6)]) {
      expect(amountOut(x, rIn, rOut, 3000)).toBe((x * 997n * rOut) / (rIn * 1000n + x * 997n));
      const y = amountOut(x, rIn, rOut, 3000);
      if (y > 0n) expect(amountIn(y, rIn, rOut, 3000)).toBe((rIn * y * 1000n) / ((rOut - y) * 997n) + 1n);
    }
  });

  it("an exact output can be bought with its computed input, and not with one unit less", () => {
    const rIn = e(1_000_000, 18);
    const rOut = e(1_000_000, 6);
    const want = e(5000, 6);
    const needed = amountIn(want, rIn, rOut, 3000) as bigint;
    expect(amountOut(needed, rIn, rOut, 3000)).toBeGreaterThanOrEqual(want);
    expect(amountOut(needed - 1n, rIn, rOut, 3000)).toBeLessThan(want);
  });

  it("refuses what the pool cannot deliver", () => {
    expect(amountIn(e(10, 6), e(1, 6), e(10, 6), 3000)).toBeUndefined();
    expect(amountOut(0n, e(1, 6), e(10, 6), 3000)).toBe(0n);
    expect(amountOut(5n, 0n, e(10, 6), 3000)).toBe(0n);
  });
});

describe("findBestRoute", () => {
  const devnetLike = createPoolIndex([
    pool(USDC, e(3_000_000, 6), WETH, e(1000, 18)),
    pool(DAI, e(1_000_000, 18), USDC, e(1_000_000, 6)),
    pool(WBTC, e(20, 8), WETH, e(600, 18)),
  ]);

  it("routes through the shared token when no direct pool exists (WETH → USDC → DAI)", () => {
    const route = findBestRoute(devnetLike, { tokenIn: WETH, tokenOut: DAI, amount: e(1, 18), kind: "exactInput" });
    expect(route?.path).toEqual([WETH, USDC, DAI]);
    // ~2,991 USDC then ~2,982 DAI after two 0.3 % fees and a little impact
    expect(route && route.amountOut > e(2970, 18) && route.amountOut < e(2991, 18)).toBe(true);
    expect(route?.amountIn).toBe(e(1, 18));
  });

  it("an exact output route delivers the output for its input, hop by hop", () => {
    const route = findBestRoute(devnetLike, {
      tokenIn: WBTC,
      tokenOut: USDC,
      amount: e(10_000, 6),
      kind: "exactOutput",
    });
    expect(route?.path).toEqual([WBTC, WETH, USDC]);
    const back = findBestRoute(devnetLike, {
      tokenIn: WBTC,
      tokenOut: USDC,
      amount: route?.amountIn as bigint,
      kind: "exactInput",
    });
    expect(back?.amountOut).toBeGreaterThanOrEqual(e(10_000, 6));
  });

  it("prefers the deeper or cheaper venue, and obeys include/exclude", () => {
    const index = createPoolIndex([
      pool(USDC, e(3_000_000, 6), WETH, e(1000, 18), "uniswap_v2"),
      pool(USDC, e(30_000_000, 6), WETH, e(10_000, 18), "uniswap_v3", 500),
    ]);
    const q = { tokenIn: WETH, tokenOut: USDC, amount: e(10, 18), kind: "exactInput" } as const;
    expect(findBestRoute(index, q)?.source).toBe("uniswap_v3");
    expect(findBestRoute(index, { ...q, excludeSources: ["uniswap_v3"] })?.source).toBe("uniswap_v2");
    expect(findBestRoute(index, { ...q, includeSources: ["uniswap_v2"] })?.source).toBe("uniswap_v2");
    expect(findBestRoute(index, { ...q, includeSources: ["curve"] })).toBeUndefined();
  });

  it("never mixes sources within one path", () => {
    const index = createPoolIndex([
      pool(USDC, e(3_000_000, 6), WETH, e(1000, 18), "uniswap_v2"),
      pool(DAI, e(1_000_000, 18), USDC, e(1_000_000, 6), "uniswap_v3", 100),
    ]);
    expect(
      findBestRoute(index, { tokenIn: WETH, tokenOut: DAI, amount: e(1, 18), kind: "exactInput" }),
    ).toBeUndefined();
  });

  it("answers undefined for unknown tokens, zero amounts and outputs beyond the reserves", () => {
    expect(
      findBestRoute(devnetLike, { tokenIn: WETH, tokenOut: "0xdead", amount: 1n, kind: "exactInput" }),
    ).toBeUndefined();
    expect(
      findBestRoute(devnetLike, { tokenIn: WETH, tokenOut: USDC, amount: 0n, kind: "exactInput" }),
    ).toBeUndefined();
    expect(
      findBestRoute(devnetLike, { tokenIn: WETH, tokenOut: USDC, amount: e(3_000_000, 6), kind: "exactOutput" }),
    ).toBeUndefined();
  });

  it("measures the depth share", () => {
    const route = findBestRoute(devnetLike, { tokenIn: WETH, tokenOut: USDC, amount: e(10, 18), kind: "exactInput" });
    expect(route?.depthShareWad).toBe(e(1, 16)); // 10 of 1,000 WETH = 1 %
  });

  it("searches 1,000 pools quickly", () => {
    const tokens = Array.from({ length: 200 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`);
    const pools: AmmPool[] = [];
    for (let i = 0; i < 1000; i++) {
      const a = tokens[i % 200] as string;
      const b = tokens[(i * 7 + 1) % 200] as string;
      if (a !== b) pools.push(pool(a, e(1000 + i, 18), b, e(2000 + i, 18)));
    }
    const index = createPoolIndex(pools);
    const route = findBestRoute(index, {
      tokenIn: tokens[0] as string,
      tokenOut: tokens[8] as string,
      amount: e(1, 18),
      kind: "exactInput",
    });
    expect(route?.pools.length).toBeGreaterThan(0);
  });
});
