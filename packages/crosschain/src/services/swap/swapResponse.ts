/**
 * The swap quote as the anchor answers it (reference §1.5): steps, fees with their USD values and 1e18-scaled
 * shares of the input's value, amounts, checks, approvals and the transaction. Fees are always present (the
 * app-sdk's schema requires them): a token without a USD price counts as 0 USD.
 */
import { type Address, formatUnits, type Hex } from "viem";
import type { QuoteToken, SwapLeg, SwapPlan } from "./swapPlan.ts";
import type { SwapChecks } from "./swapTransaction.ts";

const WAD = 10n ** 18n;

export interface TokenJson {
  address: string;
  symbol: string;
  decimals: number;
  chainId: number;
}

export const tokenJson = (t: QuoteToken): TokenJson => ({
  address: t.address,
  symbol: t.symbol,
  decimals: t.decimals,
  chainId: t.chainId,
});

export interface SwapResponseInputs {
  plan: SwapPlan;
  inputToken: QuoteToken;
  outputToken: QuoteToken;
  refundToken: QuoteToken;
  checks: SwapChecks;
  approvalTxns?: { chainId: number; to: Address; data: Hex }[];
  swapTx: {
    simulationSuccess: boolean;
    chainId: number;
    to: Address;
    data: Hex;
    value: bigint;
    gas: bigint;
    maxFeePerGas: bigint;
    maxPriorityFeePerGas: bigint;
  };
  /** The origin chain's native coin, for `originGas`. */
  nativeToken: QuoteToken;
  /** USD per whole token (1e18-scaled) of a token of the quote, when known. */
  usdPrice(token: QuoteToken): bigint | undefined;
  quoteExpiryTimestamp: number;
}

/** The JSON body (without `id`, which the route adds). */
export function swapResponseBody(i: SwapResponseInputs) {
  const { plan } = i;
  const usd = (token: QuoteToken, amount: bigint) =>
    (amount * (i.usdPrice(token) ?? 0n)) / 10n ** BigInt(token.decimals);
  const inputUsd = usd(i.inputToken, plan.inputAmount);
  const pct = (valueUsd: bigint) => (inputUsd > 0n ? (valueUsd * WAD) / inputUsd : 0n);
  const inInputUnits = (valueUsd: bigint) => {
    const price = i.usdPrice(i.inputToken);
    return price ? (valueUsd * 10n ** BigInt(i.inputToken.decimals)) / price : 0n;
  };
  const fee = (token: QuoteToken, amount: bigint) => {
    const valueUsd = usd(token, amount);
    return {
      amount: String(amount),
      amountUsd: formatUnits(valueUsd, 18),
      pct: String(pct(valueUsd)),
      token: tokenJson(token),
    };
  };
  const legImpactUsd = (leg: SwapLeg | undefined, output: (l: SwapLeg) => bigint) =>
    leg ? usd(leg.tokenIn, leg.inputAmount) - usd(leg.tokenOut, output(leg)) : 0n;

  const q = plan.bridge.quote;
  const bridgeToken = plan.bridge.tokenIn;
  const bridgeFee = BigInt(q.totalRelayFee.total);
  const bridgeFeeUsd = usd(bridgeToken, bridgeFee);
  const bridgeDetails = {
    type: "across" as const,
    lp: fee(bridgeToken, BigInt(q.lpFee.total)),
    relayerCapital: fee(bridgeToken, BigInt(q.relayerCapitalFee.total)),
    destinationGas: fee(bridgeToken, BigInt(q.relayerGasFee.total)),
  };
  const bridgeFeeJson = { ...fee(bridgeToken, bridgeFee), details: bridgeDetails };
  const app = fee(i.outputToken, plan.appFee);
  const appUsd = usd(i.outputToken, plan.appFee);

  const swapImpactUsd =
    legImpactUsd(plan.origin, (l) => l.outputAmount) + legImpactUsd(plan.destination, (l) => l.outputAmount);
  const maxSwapImpactUsd =
    legImpactUsd(plan.origin, (l) => l.minOutputAmount) + legImpactUsd(plan.destination, (l) => l.minOutputAmount);
  const inInput = (valueUsd: bigint) => ({
    amount: String(inInputUnits(valueUsd)),
    amountUsd: formatUnits(valueUsd, 18),
    pct: String(pct(valueUsd)),
    token: tokenJson(i.inputToken),
  });
  const totalUsd = swapImpactUsd + appUsd + bridgeFeeUsd;
  const totalMaxUsd = maxSwapImpactUsd + appUsd + bridgeFeeUsd;
  const originGasWei = i.swapTx.gas * i.swapTx.maxFeePerGas;

  const step = (leg: SwapLeg) => ({
    tokenIn: tokenJson(leg.tokenIn),
    tokenOut: tokenJson(leg.tokenOut),
    inputAmount: String(leg.inputAmount),
    outputAmount: String(leg.outputAmount),
    minOutputAmount: String(leg.minOutputAmount),
    maxInputAmount: String(leg.maxInputAmount),
    swapProvider: { name: "uniswap", sources: [leg.route.source] },
    slippage: leg.slippage,
  });

  return {
    crossSwapType: plan.crossSwapType,
    amountType: plan.tradeType,
    checks: {
      allowance: {
        token: i.checks.allowance.token,
        spender: i.checks.allowance.spender,
        actual: String(i.checks.allowance.actual),
        expected: String(i.checks.allowance.expected),
      },
      balance: {
        token: i.checks.balance.token,
        actual: String(i.checks.balance.actual),
        expected: String(i.checks.balance.expected),
      },
    },
    ...(i.approvalTxns ? { approvalTxns: i.approvalTxns } : {}),
    steps: {
      ...(plan.origin ? { originSwap: step(plan.origin) } : {}),
      bridge: {
        inputAmount: String(plan.bridge.expectedInputAmount),
        outputAmount: String(plan.bridge.expectedOutputAmount),
        tokenIn: tokenJson(plan.bridge.tokenIn),
        tokenOut: tokenJson(plan.bridge.tokenOut),
        fees: {
          amount: String(bridgeFee),
          pct: q.totalRelayFee.pct,
          token: tokenJson(bridgeToken),
          details: bridgeDetails,
        },
        provider: "across",
      },
      ...(plan.destination ? { destinationSwap: step(plan.destination) } : {}),
    },
    inputToken: tokenJson(i.inputToken),
    outputToken: tokenJson(i.outputToken),
    refundToken: tokenJson(i.refundToken),
    fees: {
      total: {
        ...inInput(totalUsd),
        details: { type: "total-breakdown" as const, swapImpact: inInput(swapImpactUsd), app, bridge: bridgeFeeJson },
      },
      totalMax: {
        ...inInput(totalMaxUsd),
        details: {
          type: "max-total-breakdown" as const,
          maxSwapImpact: inInput(maxSwapImpactUsd),
          app,
          bridge: bridgeFeeJson,
        },
      },
      originGas: {
        amount: String(originGasWei),
        amountUsd: formatUnits(usd(i.nativeToken, originGasWei), 18),
        token: tokenJson(i.nativeToken),
      },
    },
    inputAmount: String(plan.inputAmount),
    maxInputAmount: String(plan.maxInputAmount),
    expectedOutputAmount: String(plan.expectedOutputAmount),
    minOutputAmount: String(plan.minOutputAmount),
    expectedFillTime: Math.max(0, Math.round(q.estimatedFillTimeSec)),
    swapTx: {
      simulationSuccess: i.swapTx.simulationSuccess,
      chainId: i.swapTx.chainId,
      to: i.swapTx.to,
      data: i.swapTx.data,
      value: String(i.swapTx.value),
      // Without a simulation the gas is left to the wallet's own estimate (the assumed gas only prices originGas).
      ...(i.swapTx.simulationSuccess ? { gas: String(i.swapTx.gas) } : {}),
      maxFeePerGas: String(i.swapTx.maxFeePerGas),
      maxPriorityFeePerGas: String(i.swapTx.maxPriorityFeePerGas),
    },
    quoteExpiryTimestamp: i.quoteExpiryTimestamp,
  };
}

export type SwapApprovalResponse = ReturnType<typeof swapResponseBody>;
