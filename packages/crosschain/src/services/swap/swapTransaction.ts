/**
 * The origin transaction of a swap quote and what the chain says about it: the calldata (a SpokePool deposit,
 * or `SpokePoolPeriphery.swapAndBridge` when an origin swap runs), the allowance and balance checks, the
 * approvals a short allowance needs, and the `eth_estimateGas` simulation. The only RPC of a quote besides a
 * message fill's simulation: one multicall for the checks and one estimate, both skippable.
 */
import { type Address, erc20Abi, type Hex, maxUint256, type PublicClient, zeroAddress } from "viem";
import { QuoteRefusedError } from "../../domain/quoteErrors.ts";
import {
  encodeApprove,
  encodeRouterSwap,
  encodeSpokePoolDeposit,
  encodeSwapAndBridge,
  tagSwapCalldata,
} from "../../domain/swap/swapCalldata.ts";
import { nativeBalanceCall, tokenBalanceCall } from "../../quotes/balanceCalls.ts";
import type { QuoteToken, SwapPlan } from "./swapPlan.ts";

/** Tokens that refuse `approve` from a non-zero allowance to another non-zero one (USDT): reset to 0 first. */
const RESET_BEFORE_APPROVE = new Set(["USDT"]);
/**
 * Gas added to a swap's estimate: an estimate made in a pair's last-update second leaves out the price
 * accumulators' writes (2 × 17,100 gas on a pair's first swap of a new second), which a percentage of a
 * small estimate does not cover (CI saw a ×1.3 limit revert on the devnet).
 */
const SWAP_GAS_HEADROOM = 60_000n;
/** Origin gas assumed for the fee display when the transaction is not simulated. */
const UNSIMULATED_GAS = { deposit: 120_000n, swapAndBridge: 300_000n } as const;

export interface OriginContracts {
  spokePool: Address;
  spokePoolPeriphery?: Address;
  /** The router of the origin swap's source. */
  router?: Address;
  swapProxy?: Address;
}

/** The deposit fields the plan leaves to the transfer: who, to whom, the message. */
export interface DepositParties {
  /** The deposit's `depositor` (who gets an origin refund). */
  depositor: Address;
  /** The fill's recipient: the user, or the MulticallHandler when a message runs. */
  recipient: Address;
  message: Hex;
  destinationChainId: number;
}

export interface OriginTransaction {
  chainId: number;
  to: Address;
  data: Hex;
  value: bigint;
  /** Who must be allowed to pull the input token (the transaction's target). */
  spender: Address;
  kind: keyof typeof UNSIMULATED_GAS;
}

/** The origin transaction of `plan` (calldata tagged with the integrator id and the swap marker). */
export function buildOriginTransaction(
  plan: SwapPlan,
  parties: DepositParties,
  contracts: OriginContracts,
  o: { integratorId?: string; swapDeadline: number; inputToken: QuoteToken },
): OriginTransaction {
  const q = plan.bridge.quote;
  const deposit = {
    depositor: parties.depositor,
    recipient: parties.recipient,
    inputToken: plan.bridge.tokenIn.erc20,
    outputToken: plan.bridge.tokenOut.erc20,
    outputAmount: plan.bridge.depositOutputAmount,
    destinationChainId: parties.destinationChainId,
    exclusiveRelayer: q.exclusiveRelayer as Address,
    quoteTimestamp: Number(q.timestamp),
    fillDeadline: Number(q.fillDeadline),
    exclusivityParameter: q.exclusivityDeadline,
    message: parties.message,
  };
  // The caller's input token: the native coin travels as the transaction's value (the bridge token is then WETH).
  const value = o.inputToken.native ? plan.inputAmount : 0n;
  const chainId = o.inputToken.chainId;
  if (!plan.origin) {
    // A native deposit sends the coin with the call; the SpokePool wraps it (msg.value = inputAmount).
    const data = encodeSpokePoolDeposit({ ...deposit, inputAmount: plan.inputAmount });
    return {
      chainId,
      to: contracts.spokePool,
      data: tagSwapCalldata(data, o.integratorId),
      value,
      spender: contracts.spokePool,
      kind: "deposit",
    };
  }
  const { spokePoolPeriphery, router, swapProxy } = contracts;
  if (!spokePoolPeriphery || !router || !swapProxy) {
    throw new QuoteRefusedError(
      `Origin swaps are not available on chain ${chainId}: it has no SpokePoolPeriphery or router`,
      "SWAP_QUOTE_UNAVAILABLE",
    );
  }
  const routerCalldata = encodeRouterSwap({
    source: plan.origin.route.source,
    fees: plan.origin.route.pools.map((p) => p.feePips),
    kind: "exactInput",
    amount: plan.origin.inputAmount,
    limit: plan.origin.minOutputAmount,
    path: plan.origin.route.path as Address[],
    // The swap proxy hands the periphery its whole balance of the bridge token after the call.
    to: swapProxy,
    deadline: o.swapDeadline,
  });
  const data = encodeSwapAndBridge({
    deposit,
    swapToken: plan.origin.tokenIn.erc20,
    exchange: router,
    swapTokenAmount: plan.origin.inputAmount,
    minExpectedInputTokenAmount: plan.bridge.quotedInputAmount,
    routerCalldata,
    enableProportionalAdjustment: plan.bridge.proportional,
    spokePool: contracts.spokePool,
  });
  return {
    chainId,
    to: spokePoolPeriphery,
    data: tagSwapCalldata(data, o.integratorId),
    value,
    spender: spokePoolPeriphery,
    kind: "swapAndBridge",
  };
}

export interface SwapChecks {
  allowance: { token: Address; spender: Address; actual: bigint; expected: bigint };
  balance: { token: Address; actual: bigint; expected: bigint };
}

/**
 * Allowance and balance of the depositor, read in one multicall; with `skip`, the expected values are reported
 * as met (the anchor's `skipChecks`). A native input needs no allowance: its allowance is reported as the max.
 */
export async function readChecks(
  client: PublicClient,
  tx: OriginTransaction,
  o: { depositor: Address; token: { address: Address; erc20: Address; native: boolean }; amount: bigint },
  multicall3: Address,
  skip: boolean,
): Promise<SwapChecks> {
  const token = o.token.native ? zeroAddress : o.token.erc20;
  if (skip) {
    return {
      allowance: { token, spender: tx.spender, actual: o.token.native ? maxUint256 : o.amount, expected: o.amount },
      balance: { token, actual: o.amount, expected: o.amount },
    };
  }
  const calls = o.token.native
    ? [nativeBalanceCall(multicall3, o.depositor)]
    : [
        { address: o.token.erc20, abi: erc20Abi, functionName: "allowance", args: [o.depositor, tx.spender] },
        tokenBalanceCall(o.token.erc20, o.depositor),
      ];
  const results = (await client.multicall({
    contracts: calls as never,
    allowFailure: false,
    multicallAddress: multicall3,
  })) as bigint[];
  return o.token.native
    ? {
        allowance: { token, spender: tx.spender, actual: maxUint256, expected: o.amount },
        balance: { token, actual: results[0] as bigint, expected: o.amount },
      }
    : {
        allowance: { token, spender: tx.spender, actual: results[0] as bigint, expected: o.amount },
        balance: { token, actual: results[1] as bigint, expected: o.amount },
      };
}

/** The approvals a short allowance needs: `approve(spender, max)`, after `approve(spender, 0)` for USDT-like tokens. */
export function approvalTransactions(
  checks: SwapChecks,
  token: { erc20: Address; symbol: string; native: boolean },
  chainId: number,
): { chainId: number; to: Address; data: Hex }[] | undefined {
  if (token.native || checks.allowance.actual >= checks.allowance.expected) return undefined;
  const approvals: { chainId: number; to: Address; data: Hex }[] = [];
  if (checks.allowance.actual > 0n && RESET_BEFORE_APPROVE.has(token.symbol.toUpperCase())) {
    approvals.push({ chainId, to: token.erc20, data: encodeApprove(checks.allowance.spender, 0n) });
  }
  approvals.push({ chainId, to: token.erc20, data: encodeApprove(checks.allowance.spender, maxUint256) });
  return approvals;
}

/** The gas of the transaction when it can run now (allowance and balance suffice), with headroom for swaps. */
export async function simulateOriginTransaction(
  client: PublicClient,
  tx: OriginTransaction,
  from: Address,
): Promise<bigint> {
  try {
    const estimate = await client.estimateGas({ account: from, to: tx.to, data: tx.data, value: tx.value });
    return tx.kind === "swapAndBridge" ? estimate + SWAP_GAS_HEADROOM : estimate + estimate / 5n;
  } catch (error) {
    const e = error as { shortMessage?: string; message?: string };
    throw new QuoteRefusedError(
      `Simulating the origin transaction failed: ${(e.shortMessage ?? e.message ?? String(error)).split("\n")[0]}`,
      "SIMULATION_ERROR",
    );
  }
}

/** Gas assumed for the fee display when the transaction is not simulated. */
export const unsimulatedGas = (tx: OriginTransaction) => UNSIMULATED_GAS[tx.kind];
