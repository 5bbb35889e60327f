import { describe, expect, it } from "vitest";
import type { SuggestedFeesResponse } from "../../domain/fees/feeQuote.ts";
import type { AmmPool } from "../../domain/swap/ammPool.ts";
import { createPoolIndex, findBestRoute } from "../../domain/swap/swapRouter.ts";
import { planSwap, type QuoteToken, type SwapMarket } from "./swapPlan.ts";

const e = (n: number | string, d: number) => BigInt(Math.round(Number(n) * 1e6)) * 10n ** BigInt(d - 6);
const t = (chainId: number, symbol: string, address: string, decimals: number): QuoteToken => ({
  chainId,
  symbol,
  decimals,
  address: address as `0x${string}`,
  erc20: address as `0x${string}`,
  native: false,
});
const WETH_A = t(1, "WETH", "0x00000000000000000000000000000000000000a1", 18);
const USDC_A = t(1, "USDC", "0x00000000000000000000000000000000000000a2", 6);
const USDC_B = t(2, "USDC", "0x00000000000000000000000000000000000000b2", 6);
const DAI_B = t(2, "DAI", "0x00000000000000000000000000000000000000b3", 18);

const pool = (a: QuoteToken, ra: bigint, b: QuoteToken, rb: bigint): AmmPool => {
  const [x, y] = a.erc20 < b.erc20 ? [a, b] : [b, a];
  const [rx, ry] = a.erc20 < b.erc20 ? [ra, rb] : [rb, ra];
  return {
    source: "uniswap_v2",
    address: "0x0",
    token0: x.erc20,
    token1: y.erc20,
    reserve0: rx,
    reserve1: ry,
    feePips: 3000,
  };
};
const pools = {
  1: createPoolIndex([pool(USDC_A, e(3_000_000, 6), WETH_A, e(1000, 18))]),
  2: createPoolIndex([pool(DAI_B, e(1_000_000, 18), USDC_B, e(1_000_000, 6))]),
} as const;

/** A bridge taking a flat 1 USDC plus 0.1 % of the input; its quote records the inputs it was asked. */
function market(): SwapMarket & { asked: bigint[] } {
  const asked: bigint[] = [];
  return {
    asked,
    route(chainId, tokenIn, tokenOut, amount, kind) {
      const found = findBestRoute(pools[chainId as 1 | 2], { tokenIn, tokenOut, amount, kind });
      if (!found) throw new Error("no route");
      return found;
    },
    async bridgeQuote(inputAmount) {
      asked.push(inputAmount);
      const fee = 1_000_000n + inputAmount / 1000n;
      if (fee >= inputAmount) throw new Error("AMOUNT_TOO_LOW");
      return {
        outputAmount: String(inputAmount - fee),
        totalRelayFee: { pct: "0", total: String(fee) },
      } as unknown as SuggestedFeesResponse;
    },
  };
}

describe("planSwap", () => {
  it("exactInput any → any: the bridge is quoted on the origin swap's minimum, the destination sells the whole fill", async () => {
    const m = market();
    const plan = await planSwap(
      {
        tradeType: "exactInput",
        amount: e(1, 18),
        inputToken: WETH_A,
        outputToken: DAI_B,
        bridgeIn: USDC_A,
        bridgeOut: USDC_B,
        slippage: 0.01,
        appFee: 0,
      },
      m,
    );
    expect(plan.crossSwapType).toBe("anyToAny");
    expect(plan.origin?.slippage).toBe(0.005); // split between the two legs
    expect(plan.bridge.quotedInputAmount).toBe(plan.origin?.minOutputAmount);
    expect(m.asked).toEqual([plan.origin?.minOutputAmount]);
    expect(plan.bridge.proportional).toBe(true);
    // The expected fill scales with what the swap is expected to return over its minimum.
    expect(plan.bridge.expectedOutputAmount).toBe(
      (plan.bridge.depositOutputAmount * (plan.origin?.outputAmount as bigint)) / plan.bridge.quotedInputAmount,
    );
    expect(plan.minOutputAmount).toBeLessThan(plan.expectedOutputAmount);
    expect(plan.inputAmount).toBe(e(1, 18));
  });

  it("minOutput: the computed input still delivers the minimum when every leg lands at its worst", async () => {
    const wanted = e(2000, 18);
    const plan = await planSwap(
      {
        tradeType: "minOutput",
        amount: wanted,
        inputToken: WETH_A,
        outputToken: DAI_B,
        bridgeIn: USDC_A,
        bridgeOut: USDC_B,
        slippage: 0.02,
        appFee: 0,
      },
      market(),
    );
    expect(plan.minOutputAmount).toBe(wanted);
    // Worst case: the origin swap returns its minimum, the bridge pays its quoted output for it, and the
    // destination router accepts nothing below `minOutputAmount` of its leg.
    const origin = plan.origin as NonNullable<typeof plan.origin>;
    expect(origin.minOutputAmount).toBe(plan.bridge.quotedInputAmount);
    expect(plan.bridge.depositOutputAmount).toBeGreaterThanOrEqual(BigInt(plan.bridge.quote.outputAmount) - 1n);
    expect(plan.destination?.minOutputAmount).toBe(wanted);
    expect(plan.expectedOutputAmount).toBeGreaterThan(wanted);
  });

  it("exactOutput with an app fee: the destination buys the gross output exactly, the recipient nets the amount", async () => {
    const wanted = e(500, 18);
    const plan = await planSwap(
      {
        tradeType: "exactOutput",
        amount: wanted,
        inputToken: USDC_A,
        outputToken: DAI_B,
        bridgeIn: USDC_A,
        bridgeOut: USDC_B,
        slippage: "auto",
        appFee: 0.01,
      },
      market(),
    );
    expect(plan.crossSwapType).toBe("bridgeableToAny");
    expect(plan.destination?.kind).toBe("exactOutput");
    expect((plan.destination?.outputAmount as bigint) - plan.appFee).toBe(wanted);
    expect(plan.expectedOutputAmount).toBe(wanted);
    // The deposit carries the destination's most input (its slippage included), what the handler may spend.
    expect(plan.bridge.depositOutputAmount).toBe(plan.destination?.maxInputAmount);
    expect(plan.bridge.proportional).toBe(false);
  });

  it("exactInput whose fees exceed the input is refused by the bridge quote", async () => {
    await expect(
      planSwap(
        {
          tradeType: "exactInput",
          amount: 500_000n,
          inputToken: USDC_A,
          outputToken: USDC_B,
          bridgeIn: USDC_A,
          bridgeOut: USDC_B,
          slippage: "auto",
          appFee: 0,
        },
        market(),
      ),
    ).rejects.toThrow("AMOUNT_TOO_LOW");
  });
});
