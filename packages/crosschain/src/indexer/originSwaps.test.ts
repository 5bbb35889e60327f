import { zeroAddress } from "viem";
import { describe, expect, it } from "vitest";
import { encodeSwapAndBridge } from "../domain/swap/swapCalldata.ts";
import { originSwapOf } from "./originSwaps.ts";

const WETH = "0x4200000000000000000000000000000000000006";
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const swapAndBridge = encodeSwapAndBridge({
  deposit: {
    inputToken: USDC,
    outputToken: USDC,
    outputAmount: 990_000n,
    depositor: "0x00000000000000000000000000000000000000d1",
    recipient: "0x00000000000000000000000000000000000000e1",
    destinationChainId: 10,
    exclusiveRelayer: zeroAddress,
    quoteTimestamp: 1_700_000_000,
    fillDeadline: 1_700_007_200,
    exclusivityParameter: 0,
    message: "0x",
  },
  swapToken: WETH,
  exchange: "0x00000000000000000000000000000000000000a1",
  swapTokenAmount: 5n * 10n ** 17n,
  minExpectedInputTokenAmount: 1_000_000n,
  routerCalldata: "0x1234",
  enableProportionalAdjustment: true,
  spokePool: "0x00000000000000000000000000000000000000b1",
});

describe("originSwapOf", () => {
  it("reads the swapped token and amount of a swapAndBridge call, with or without the app-sdk's tag", () => {
    const swap = { swapToken: WETH.toLowerCase(), swapTokenAmount: 5n * 10n ** 17n };
    expect(originSwapOf(swapAndBridge)).toEqual(swap);
    expect(originSwapOf(`${swapAndBridge}1dc0debeef73c0de`)).toEqual(swap);
  });

  it("finds none in other calldata", () => {
    expect(originSwapOf("0x")).toBeNull();
    expect(originSwapOf("0xad5425c6")).toBeNull();
    expect(originSwapOf(`0x12345678${"00".repeat(64)}`)).toBeNull();
    expect(originSwapOf(swapAndBridge.slice(0, 200))).toBeNull();
    expect(originSwapOf("not hex")).toBeNull();
  });
});
