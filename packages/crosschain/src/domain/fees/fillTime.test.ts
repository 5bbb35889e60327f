import { describe, expect, it } from "vitest";
import {
  DEFAULT_FILL_TIME_SEC,
  estimateFillTimeSec,
  type FillTimeConfig,
  type FillTimeRow,
  fillTimeOrderings,
  parseFillTimeRows,
  rebalanceTimeSec,
  resolveFillTimeSec,
} from "./fillTime.ts";
import { WAD } from "./fixedPoint.ts";

const usd = (n: bigint) => n * WAD;
const row = (dest: string, orig: string, tokens: string, maxUsd: bigint, secs: number): FillTimeRow => ({
  destinationChains: dest.split(","),
  originChains: orig.split(","),
  tokenGroups: tokens.split(","),
  maxSizeUsd: usd(maxUsd),
  fillTimeSec: secs,
});

describe("fillTimeOrderings", () => {
  it("goes from the exact route to the full wildcard, token before OTHER", () => {
    expect(fillTimeOrderings("1", "10", "USDC").map((o) => `${o.dest}/${o.orig}/${o.token}`)).toEqual([
      "10/1/USDC",
      "10/1/OTHER",
      "0/1/USDC",
      "0/1/OTHER",
      "10/0/USDC",
      "10/0/OTHER",
      "0/0/USDC",
      "0/0/OTHER",
    ]);
  });
});

describe("resolveFillTimeSec", () => {
  const config: FillTimeConfig = {
    table: [
      // deliberately unsorted: the big row must not shadow the small one
      row("10", "1", "USDC", 1_000_000n, 60),
      row("10", "1", "USDC", 1_000n, 5),
      row("0", "1", "WETH", 100_000n, 7),
      row("10", "0", "OTHER", 100_000n, 20),
      row("0", "0", "OTHER", 10_000_000n, 30),
    ],
  };

  it("takes the smallest matching size bucket of the most specific ordering", () => {
    expect(resolveFillTimeSec(config, 1, 10, "USDC", usd(500n))).toBe(5);
    expect(resolveFillTimeSec(config, 1, 10, "usdc", usd(1_000n))).toBe(5); // ≤ is inclusive, symbol upper-cased
    expect(resolveFillTimeSec(config, 1, 10, "USDC", usd(1_001n))).toBe(60);
  });

  it("falls back through the wildcard orderings", () => {
    // (10,1,WETH) and (10,1,OTHER) miss; (0,1,WETH) hits
    expect(resolveFillTimeSec(config, 1, 10, "WETH", usd(50n))).toBe(7);
    // origin 8453: only (10,0,OTHER) and (0,0,OTHER) can match
    expect(resolveFillTimeSec(config, 8453, 10, "WETH", usd(50n))).toBe(20);
    expect(resolveFillTimeSec(config, 8453, 42161, "WETH", usd(50n))).toBe(30);
  });

  it("returns the default (10 s) when nothing matches", () => {
    expect(resolveFillTimeSec(config, 8453, 42161, "WETH", usd(20_000_000n))).toBe(DEFAULT_FILL_TIME_SEC);
    expect(DEFAULT_FILL_TIME_SEC).toBe(10);
    expect(resolveFillTimeSec({ table: [] }, 1, 10, "USDC", 0n)).toBe(10);
  });

  it("honours a non-zero override", () => {
    const withOverride: FillTimeConfig = { ...config, overrides: { "1": { "10": { USDC: 99 } } } };
    expect(resolveFillTimeSec(withOverride, 1, 10, "USDC", usd(1n))).toBe(99);
  });
});

describe("estimateFillTimeSec", () => {
  const config: FillTimeConfig = { table: [row("0", "0", "OTHER", 1_000_000n, 4)] };
  const base = {
    originChainId: 1,
    destinationChainId: 10,
    symbol: "USDC",
    amountUsd: usd(100n),
    maxDepositInstant: 1000n,
  };

  it("uses the table when amount ≤ maxDepositInstant", () => {
    expect(estimateFillTimeSec({ ...base, amount: 1000n }, config)).toBe(4);
  });

  it("uses the rebalance time when amount > maxDepositInstant (900 s, Polygon 1800 s)", () => {
    expect(estimateFillTimeSec({ ...base, amount: 1001n }, config)).toBe(900);
    expect(estimateFillTimeSec({ ...base, amount: 1001n, destinationChainId: 137 }, config)).toBe(1800);
    expect(rebalanceTimeSec({ rebalanceTimes: { "10": 300 } }, 10)).toBe(300);
    expect(rebalanceTimeSec({ defaultRebalanceTimeSec: 600 }, 10)).toBe(600);
  });
});

describe("parseFillTimeRows", () => {
  it("parses the preset JSON shape", () => {
    expect(
      parseFillTimeRows([
        {
          destination_route_classification: "10,8453",
          origin_route_classification: "1",
          token_liquidity_groups: "usdc,usdt",
          max_size_usd: "1000.5",
          p75_fill_time_secs: "6",
          p50_fill_time_secs: "3",
        },
        {
          destination_route_classification: "0",
          token_liquidity_groups: "OTHER",
          max_size_usd: "10",
          p50_fill_time_secs: 12,
        },
      ]),
    ).toEqual([
      {
        destinationChains: ["10", "8453"],
        originChains: ["1"],
        tokenGroups: ["USDC", "USDT"],
        maxSizeUsd: 1_000_500_000_000_000_000_000n,
        fillTimeSec: 6,
      },
      { destinationChains: ["0"], originChains: ["0"], tokenGroups: ["OTHER"], maxSizeUsd: usd(10n), fillTimeSec: 12 },
    ]);
  });
});
