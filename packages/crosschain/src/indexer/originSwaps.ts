/**
 * The origin swap of a deposit transaction, from its calldata: a `SpokePoolPeriphery.swapAndBridge` call
 * swaps `swapTokenAmount` of `swapToken` before it deposits (what `/deposits` shows as swapToken,
 * swapTokenAmount and swapTransactionHash). Other calldata (a plain SpokePool deposit) has none.
 */
import { decodeFunctionData, type Hex } from "viem";
import { spokePoolPeripheryAbi } from "../domain/swap/swapCalldata.ts";

export interface OriginSwap {
  swapToken: Hex;
  swapTokenAmount: bigint;
}

export function originSwapOf(calldata: string): OriginSwap | null {
  if (!calldata.startsWith("0x") || calldata.length < 10) return null;
  try {
    // Trailing bytes (the app-sdk's 1dc0de… tag) lie past the ABI-encoded argument and are not read.
    const call = decodeFunctionData({ abi: spokePoolPeripheryAbi, data: calldata as Hex });
    if (call.functionName !== "swapAndBridge") return null;
    const [data] = call.args;
    return { swapToken: data.swapToken.toLowerCase() as Hex, swapTokenAmount: data.swapTokenAmount };
  } catch {
    return null;
  }
}
