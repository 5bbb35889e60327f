/**
 * Calldata of the transactions a swap quote hands out and of the calls its destination message makes: the
 * SpokePool deposit, `SpokePoolPeriphery.swapAndBridge`, Uniswap V2 router swaps, ERC-20 approvals and
 * transfers, and the anchor's calldata tags. ABIs are written out here (the few functions used) so that this
 * module stays pure; `swapCalldata.test.ts` checks every selector against the deployed artifacts.
 */
import { type Address, concat, encodeFunctionData, encodePacked, type Hex, parseAbi } from "viem";
import { addressToBytes32 } from "../relayHash.ts";

export const spokePoolDepositAbi = parseAbi([
  "function deposit(bytes32 depositor, bytes32 recipient, bytes32 inputToken, bytes32 outputToken, uint256 inputAmount, uint256 outputAmount, uint256 destinationChainId, bytes32 exclusiveRelayer, uint32 quoteTimestamp, uint32 fillDeadline, uint32 exclusivityParameter, bytes message) payable",
]);

export const spokePoolPeripheryAbi = parseAbi([
  "struct Fees { uint256 amount; address recipient; }",
  "struct BaseDepositData { address inputToken; bytes32 outputToken; uint256 outputAmount; address depositor; bytes32 recipient; uint256 destinationChainId; bytes32 exclusiveRelayer; uint32 quoteTimestamp; uint32 fillDeadline; uint32 exclusivityParameter; bytes message; }",
  "struct SwapAndDepositData { Fees submissionFees; BaseDepositData depositData; address swapToken; address exchange; uint8 transferType; uint256 swapTokenAmount; uint256 minExpectedInputTokenAmount; bytes routerCalldata; bool enableProportionalAdjustment; address spokePool; uint256 nonce; }",
  "function swapAndBridge(SwapAndDepositData swapAndDepositData) payable",
]);

export const uniswapV2RouterAbi = parseAbi([
  "function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
  "function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
  "function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
  "function swapTokensForExactETH(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
]);

export const uniswapV3RouterAbi = parseAbi([
  "struct ExactInputParams { bytes path; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; }",
  "struct ExactOutputParams { bytes path; address recipient; uint256 deadline; uint256 amountOut; uint256 amountInMaximum; }",
  "function exactInput(ExactInputParams params) payable returns (uint256 amountOut)",
  "function exactOutput(ExactOutputParams params) payable returns (uint256 amountIn)",
]);

export const erc20WriteAbi = parseAbi([
  "function approve(address spender, uint256 amount) returns (bool)",
  "function transfer(address to, uint256 amount) returns (bool)",
]);

/** The fields of a SpokePool deposit. */
export interface DepositFields {
  depositor: Address;
  recipient: Address;
  inputToken: Address;
  outputToken: Address;
  inputAmount: bigint;
  outputAmount: bigint;
  destinationChainId: number;
  exclusiveRelayer: Address;
  quoteTimestamp: number;
  fillDeadline: number;
  exclusivityParameter: number;
  message: Hex;
}

export function encodeSpokePoolDeposit(d: DepositFields): Hex {
  return encodeFunctionData({
    abi: spokePoolDepositAbi,
    functionName: "deposit",
    args: [
      addressToBytes32(d.depositor),
      addressToBytes32(d.recipient),
      addressToBytes32(d.inputToken),
      addressToBytes32(d.outputToken),
      d.inputAmount,
      d.outputAmount,
      BigInt(d.destinationChainId),
      addressToBytes32(d.exclusiveRelayer),
      d.quoteTimestamp,
      d.fillDeadline,
      d.exclusivityParameter,
      d.message,
    ],
  });
}

/** `swapAndBridge`: swap `swapToken` on `exchange`, then deposit what it returned (see the periphery). */
export interface SwapAndBridgeFields {
  deposit: Omit<DepositFields, "inputAmount">;
  swapToken: Address;
  exchange: Address;
  swapTokenAmount: bigint;
  /** The swap must return at least this much of the deposit's input token, or the transaction reverts. */
  minExpectedInputTokenAmount: bigint;
  routerCalldata: Hex;
  /** Scale the deposit's output by what the swap returned over the minimum (surplus goes to the user). */
  enableProportionalAdjustment: boolean;
  spokePool: Address;
}

export function encodeSwapAndBridge(f: SwapAndBridgeFields): Hex {
  return encodeFunctionData({
    abi: spokePoolPeripheryAbi,
    functionName: "swapAndBridge",
    args: [
      {
        submissionFees: { amount: 0n, recipient: "0x0000000000000000000000000000000000000000" },
        depositData: {
          inputToken: f.deposit.inputToken,
          outputToken: addressToBytes32(f.deposit.outputToken),
          outputAmount: f.deposit.outputAmount,
          depositor: f.deposit.depositor,
          recipient: addressToBytes32(f.deposit.recipient),
          destinationChainId: BigInt(f.deposit.destinationChainId),
          exclusiveRelayer: addressToBytes32(f.deposit.exclusiveRelayer),
          quoteTimestamp: f.deposit.quoteTimestamp,
          fillDeadline: f.deposit.fillDeadline,
          exclusivityParameter: f.deposit.exclusivityParameter,
          message: f.deposit.message,
        },
        swapToken: f.swapToken,
        exchange: f.exchange,
        transferType: 0, // Approval: the swap proxy approves the router for exactly the swapped amount
        swapTokenAmount: f.swapTokenAmount,
        minExpectedInputTokenAmount: f.minExpectedInputTokenAmount,
        routerCalldata: f.routerCalldata,
        enableProportionalAdjustment: f.enableProportionalAdjustment,
        spokePool: f.spokePool,
        nonce: 0n, // swapAndBridge requires 0 (nonces are for the signed variants)
      },
    ],
  });
}

/** One router swap along `path`, on the router of `source`. */
export interface RouterSwapFields {
  /** `uniswap_v2` (UniswapV2Router02) or `uniswap_v3` (V3 SwapRouter). */
  source: string;
  kind: "exactInput" | "exactOutput";
  /** exactInput: the input; exactOutput: the output wanted. */
  amount: bigint;
  /** exactInput: the least output; exactOutput: the most input. */
  limit: bigint;
  path: readonly Address[];
  /** Each hop's pool fee in millionths (V3 paths name their pools by fee). */
  fees: readonly number[];
  to: Address;
  deadline: number;
  /** Deliver the native coin (the path ends in the wrapped native token; V2 only). */
  nativeOut?: boolean;
}

/** A V3 path: token, fee, token, …; reversed for an exact output (the router walks it from the output). */
export function encodeV3Path(
  path: readonly Address[],
  fees: readonly number[],
  kind: "exactInput" | "exactOutput",
): Hex {
  const tokens = kind === "exactInput" ? [...path] : [...path].reverse();
  const hopFees = kind === "exactInput" ? [...fees] : [...fees].reverse();
  const types: ("address" | "uint24")[] = [];
  const values: (Address | number)[] = [];
  tokens.forEach((token, i) => {
    types.push("address");
    values.push(token);
    if (i < hopFees.length) {
      types.push("uint24");
      values.push(hopFees[i] as number);
    }
  });
  return encodePacked(types, values);
}

export function encodeRouterSwap(f: RouterSwapFields): Hex {
  if (f.source === "uniswap_v3") {
    if (f.nativeOut) throw new RangeError("V3 swaps deliver the wrapped token only");
    const path = encodeV3Path(f.path, f.fees, f.kind);
    return f.kind === "exactInput"
      ? encodeFunctionData({
          abi: uniswapV3RouterAbi,
          functionName: "exactInput",
          args: [
            { path, recipient: f.to, deadline: BigInt(f.deadline), amountIn: f.amount, amountOutMinimum: f.limit },
          ],
        })
      : encodeFunctionData({
          abi: uniswapV3RouterAbi,
          functionName: "exactOutput",
          args: [
            { path, recipient: f.to, deadline: BigInt(f.deadline), amountOut: f.amount, amountInMaximum: f.limit },
          ],
        });
  }
  const functionName =
    f.kind === "exactInput"
      ? f.nativeOut
        ? "swapExactTokensForETH"
        : "swapExactTokensForTokens"
      : f.nativeOut
        ? "swapTokensForExactETH"
        : "swapTokensForExactTokens";
  return encodeFunctionData({
    abi: uniswapV2RouterAbi,
    functionName,
    args: [f.amount, f.limit, [...f.path], f.to, BigInt(f.deadline)],
  });
}

/**
 * Byte offsets of a router swap's amount and limit in its calldata (what a balance replacement overwrites):
 * V2 takes them as its first two arguments; V3 in its params tuple (selector, tuple offset, then the tuple's
 * head: path offset, recipient, deadline, amount, limit).
 */
export function routerArgOffsets(source: string): { amount: bigint; limit: bigint } {
  return source === "uniswap_v3" ? { amount: 132n, limit: 164n } : { amount: 4n, limit: 36n };
}

/** Byte offset of `approve`'s amount. */
export const APPROVE_AMOUNT_OFFSET = 36n;

export const encodeApprove = (spender: Address, amount: bigint): Hex =>
  encodeFunctionData({ abi: erc20WriteAbi, functionName: "approve", args: [spender, amount] });

export const encodeTransfer = (to: Address, amount: bigint): Hex =>
  encodeFunctionData({ abi: erc20WriteAbi, functionName: "transfer", args: [to, amount] });

/** The anchor's integrator tag (`1dc0de` + 2-byte id), then its Swap API marker (`73c0de`), after the calldata. */
export function tagSwapCalldata(data: Hex, integratorId: string | undefined): Hex {
  const parts: Hex[] = [data];
  if (integratorId) parts.push(`0x1dc0de${integratorId.slice(2).toLowerCase()}`);
  parts.push("0x73c0de");
  return concat(parts);
}
