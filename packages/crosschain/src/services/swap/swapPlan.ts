/**
 * The amounts of a swap quote: which legs run (origin swap, bridge, destination swap), what each takes and
 * gives, and the least the recipient gets, for the three trade types:
 *
 * - `exactInput`: the input is fixed; the origin swap sells all of it, the bridge is quoted on the swap's
 *   minimum (the deposit's output grows in proportion when the swap returns more, `enableProportionalAdjustment`)
 *   and the destination swap sells the whole fill. Fees beyond the input fail the bridge quote (AMOUNT_TOO_LOW).
 * - `minOutput`: the amount is the least output; walking backwards, the destination swap's input is sized so
 *   that its minimum after slippage still covers it, the bridge input so that its output covers that (a few
 *   quotes, since fees grow with the amount), and the origin swap's input so that its minimum covers the bridge.
 * - `exactOutput`: the same walk, but the recipient gets exactly the amount: the destination swap buys exactly
 *   it (what is left of the bridged tokens is the refund), or the deposit's output is exactly it; when the
 *   market cannot deliver, the destination swap reverts and the handler refunds the bridged tokens.
 *
 * The app fee is a share of the output (taken on the destination); for the output-fixed types the gross output
 * is grossed up so that the recipient still gets the amount. Everything here is arithmetic over the injected
 * `SwapMarket` (routes from the cached pools, the bridge's fee quote), so the rules are tested without chains.
 */
import type { SuggestedFeesResponse } from "../../domain/fees/feeQuote.ts";
import { convertDecimals } from "../../domain/fees/fixedPoint.ts";
import { QuoteRefusedError } from "../../domain/quoteErrors.ts";
import {
  amountCoveringSlippage,
  legSlippage,
  maximumAfterSlippage,
  minimumAfterSlippage,
  type SlippageRequest,
} from "../../domain/swap/slippage.ts";
import { routeOutput, type SwapKind, type SwapRoute } from "../../domain/swap/swapRouter.ts";

export type TradeType = "exactInput" | "minOutput" | "exactOutput";
export type CrossSwapType = "bridgeableToBridgeable" | "anyToBridgeable" | "bridgeableToAny" | "anyToAny";

/** A token of a quote: one of the chain's ERC-20s, or its native coin (moved as the wrapped token). */
export interface QuoteToken {
  chainId: number;
  /** As the caller named it: the zero address for the native coin. */
  address: `0x${string}`;
  symbol: string;
  decimals: number;
  /** The ERC-20 the contracts move (the wrapped token for the native coin). */
  erc20: `0x${string}`;
  native: boolean;
}

/** A swap on one chain. */
export interface SwapLeg {
  tokenIn: QuoteToken;
  tokenOut: QuoteToken;
  route: SwapRoute;
  /** How it runs on chain: sell an exact input, or buy an exact output. */
  kind: SwapKind;
  inputAmount: bigint;
  /** Expected output. */
  outputAmount: bigint;
  /** exactInput: the router's least output; exactOutput: the exact output. */
  minOutputAmount: bigint;
  maxInputAmount: bigint;
  slippage: number;
}

export interface BridgeLeg {
  tokenIn: QuoteToken;
  tokenOut: QuoteToken;
  /** The deposit's input as quoted (with an origin swap: the swap's minimum, `minExpectedInputTokenAmount`). */
  quotedInputAmount: bigint;
  /** The deposit's `outputAmount`. */
  depositOutputAmount: bigint;
  /** Scale the deposit's output by the swap's actual return (origin swap, not exactOutput). */
  proportional: boolean;
  expectedInputAmount: bigint;
  expectedOutputAmount: bigint;
  quote: SuggestedFeesResponse;
}

export interface SwapPlan {
  crossSwapType: CrossSwapType;
  tradeType: TradeType;
  origin?: SwapLeg;
  bridge: BridgeLeg;
  destination?: SwapLeg;
  /** App fee in output token units. */
  appFee: bigint;
  inputAmount: bigint;
  maxInputAmount: bigint;
  expectedOutputAmount: bigint;
  minOutputAmount: bigint;
}

/** What the plan is computed from. */
export interface SwapMarket {
  /** The best route on a chain over the allowed sources; throws `QuoteRefusedError` when there is none. */
  route(chainId: number, tokenIn: `0x${string}`, tokenOut: `0x${string}`, amount: bigint, kind: SwapKind): SwapRoute;
  /**
   * The bridge's fee quote for this input, with a destination message shaped like the final one (`draft`: the
   * destination swap as far as it is known), so that the fill's gas is priced with the swap in it.
   */
  bridgeQuote(inputAmount: bigint, draft: () => DraftDestination | undefined): Promise<SuggestedFeesResponse>;
}

/** The destination swap as known when the bridge is quoted. */
export interface DraftDestination {
  route: SwapRoute;
  kind: SwapKind;
  /** exactInput: the least output (0 while unknown); exactOutput: the exact output. */
  amount: bigint;
}

export interface PlanRequest {
  tradeType: TradeType;
  amount: bigint;
  inputToken: QuoteToken;
  outputToken: QuoteToken;
  /** The bridge's tokens: an enabled route between them. */
  bridgeIn: QuoteToken;
  bridgeOut: QuoteToken;
  slippage: SlippageRequest;
  /** Fraction of the output (0 ≤ appFee < 1). */
  appFee: number;
}

const PPM = 1_000_000n;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const same = (a: QuoteToken, b: QuoteToken) => a.erc20.toLowerCase() === b.erc20.toLowerCase();
const lowOutput = () => new QuoteRefusedError("Sent amount is too low relative to fees", "AMOUNT_TOO_LOW", "amount");

export function crossSwapTypeOf(hasOriginSwap: boolean, hasDestinationSwap: boolean): CrossSwapType {
  if (hasOriginSwap) return hasDestinationSwap ? "anyToAny" : "anyToBridgeable";
  return hasDestinationSwap ? "bridgeableToAny" : "bridgeableToBridgeable";
}

/** The plan of one bridge route choice (see the module comment). */
export async function planSwap(r: PlanRequest, market: SwapMarket): Promise<SwapPlan> {
  const needsOrigin = !same(r.inputToken, r.bridgeIn);
  const needsDestination = !same(r.outputToken, r.bridgeOut);
  const legCount = Number(needsOrigin) + Number(needsDestination);
  const slip = (route: SwapRoute) => legSlippage(r.slippage, legCount, route.depthShareWad);
  const feePpm = BigInt(Math.round(r.appFee * 1_000_000));
  const crossSwapType = crossSwapTypeOf(needsOrigin, needsDestination);
  const originRoute = (amount: bigint, kind: SwapKind) =>
    market.route(r.inputToken.chainId, r.inputToken.erc20, r.bridgeIn.erc20, amount, kind);
  const destinationRoute = (amount: bigint, kind: SwapKind) =>
    market.route(r.outputToken.chainId, r.bridgeOut.erc20, r.outputToken.erc20, amount, kind);
  const destinationLeg = (
    route: SwapRoute,
    kind: SwapKind,
    slippage: number,
    amounts: Pick<SwapLeg, "inputAmount" | "outputAmount" | "minOutputAmount" | "maxInputAmount">,
  ): SwapLeg => ({ tokenIn: r.bridgeOut, tokenOut: r.outputToken, route, kind, slippage, ...amounts });
  const originLeg = (route: SwapRoute, minOutputAmount: bigint, slippage: number): SwapLeg => ({
    tokenIn: r.inputToken,
    tokenOut: r.bridgeIn,
    route,
    kind: "exactInput",
    inputAmount: route.amountIn,
    outputAmount: route.amountOut,
    minOutputAmount,
    maxInputAmount: route.amountIn,
    slippage,
  });

  if (r.tradeType === "exactInput") {
    let origin: SwapLeg | undefined;
    let quotedInput = r.amount;
    if (needsOrigin) {
      const route = originRoute(r.amount, "exactInput");
      const s = slip(route);
      origin = originLeg(route, minimumAfterSlippage(route.amountOut, s), s);
      quotedInput = origin.minOutputAmount;
      if (quotedInput <= 0n) throw lowOutput();
    }
    // The destination path for the draft message, from the bridge input (fees not known yet).
    const draft = () =>
      needsDestination
        ? {
            route: destinationRoute(
              convertDecimals(quotedInput, r.bridgeIn.decimals, r.bridgeOut.decimals),
              "exactInput",
            ),
            kind: "exactInput" as const,
            amount: 0n,
          }
        : undefined;
    const quote = await market.bridgeQuote(quotedInput, draft);
    const depositOut = BigInt(quote.outputAmount);
    const expectedBridgeIn = origin?.outputAmount ?? r.amount;
    const expectedBridgeOut = origin ? (depositOut * expectedBridgeIn) / quotedInput : depositOut;
    let destination: SwapLeg | undefined;
    let grossExpected = expectedBridgeOut;
    let grossMin = depositOut;
    if (needsDestination) {
      const route = destinationRoute(expectedBridgeOut, "exactInput");
      const s = slip(route);
      // The handler swaps at least the deposit's output: the router's minimum is taken from that.
      grossMin = minimumAfterSlippage(routeOutput(route, depositOut), s);
      grossExpected = route.amountOut;
      destination = destinationLeg(route, "exactInput", s, {
        inputAmount: expectedBridgeOut,
        outputAmount: route.amountOut,
        minOutputAmount: grossMin,
        maxInputAmount: expectedBridgeOut,
      });
    }
    const appFee = (grossExpected * feePpm) / PPM;
    if (grossMin - appFee <= 0n) throw lowOutput();
    return {
      crossSwapType,
      tradeType: r.tradeType,
      origin,
      destination,
      bridge: {
        tokenIn: r.bridgeIn,
        tokenOut: r.bridgeOut,
        quotedInputAmount: quotedInput,
        depositOutputAmount: depositOut,
        proportional: origin !== undefined,
        expectedInputAmount: expectedBridgeIn,
        expectedOutputAmount: expectedBridgeOut,
        quote,
      },
      appFee,
      inputAmount: r.amount,
      maxInputAmount: r.amount,
      expectedOutputAmount: grossExpected - appFee,
      minOutputAmount: grossMin - appFee,
    };
  }

  // minOutput / exactOutput: from the output backwards.
  const exact = r.tradeType === "exactOutput";
  if (feePpm >= PPM) throw new QuoteRefusedError("appFee must be below 1", "INVALID_PARAM", "appFee");
  const gross = ceilDiv(r.amount * PPM, PPM - feePpm);
  const appFee = gross - r.amount;
  let destination: SwapLeg | undefined;
  let bridgeTarget = gross;
  if (needsDestination) {
    const probe = destinationRoute(gross, "exactOutput");
    const s = slip(probe);
    if (exact) {
      bridgeTarget = maximumAfterSlippage(probe.amountIn, s);
      destination = destinationLeg(probe, "exactOutput", s, {
        inputAmount: probe.amountIn,
        outputAmount: gross,
        minOutputAmount: gross,
        maxInputAmount: bridgeTarget,
      });
    } else {
      // Buy enough that the minimum after slippage still covers the gross output.
      const route = destinationRoute(amountCoveringSlippage(gross, s), "exactOutput");
      bridgeTarget = route.amountIn;
      destination = destinationLeg(route, "exactInput", s, {
        inputAmount: route.amountIn,
        outputAmount: route.amountOut,
        minOutputAmount: gross,
        maxInputAmount: route.amountIn,
      });
    }
  }

  // The bridge input whose output covers the target: fees grow with the amount, so quote until it holds.
  let bridgeInput = convertDecimals(bridgeTarget, r.bridgeOut.decimals, r.bridgeIn.decimals);
  const known = destination;
  const draft = () => known && { route: known.route, kind: known.kind, amount: known.minOutputAmount };
  let quote = await market.bridgeQuote(bridgeInput, draft);
  for (let i = 0; i < 6 && BigInt(quote.outputAmount) < bridgeTarget; i++) {
    const short = bridgeTarget - BigInt(quote.outputAmount);
    bridgeInput += convertDecimals(short, r.bridgeOut.decimals, r.bridgeIn.decimals) + 1n;
    quote = await market.bridgeQuote(bridgeInput, draft);
  }
  if (BigInt(quote.outputAmount) < bridgeTarget) throw lowOutput();
  const depositOut = exact ? bridgeTarget : BigInt(quote.outputAmount);

  let origin: SwapLeg | undefined;
  let inputAmount = bridgeInput;
  let expectedBridgeIn = bridgeInput;
  if (needsOrigin) {
    const probe = originRoute(bridgeInput, "exactOutput");
    const s = slip(probe);
    const wanted = amountCoveringSlippage(bridgeInput, s);
    const sized = originRoute(wanted, "exactOutput");
    inputAmount = sized.amountIn;
    const forward = originRoute(inputAmount, "exactInput");
    origin = originLeg(forward, bridgeInput, s);
    expectedBridgeIn = forward.amountOut;
  }
  const proportional = origin !== undefined && !exact;
  const expectedBridgeOut = proportional ? (depositOut * expectedBridgeIn) / bridgeInput : depositOut;
  let grossExpected = expectedBridgeOut;
  if (destination) {
    grossExpected = exact ? gross : routeOutput(destination.route, expectedBridgeOut);
    if (!exact) destination = { ...destination, inputAmount: expectedBridgeOut, outputAmount: grossExpected };
  }
  return {
    crossSwapType,
    tradeType: r.tradeType,
    origin,
    destination,
    bridge: {
      tokenIn: r.bridgeIn,
      tokenOut: r.bridgeOut,
      quotedInputAmount: bridgeInput,
      depositOutputAmount: depositOut,
      proportional,
      expectedInputAmount: expectedBridgeIn,
      expectedOutputAmount: expectedBridgeOut,
      quote,
    },
    appFee,
    inputAmount,
    maxInputAmount: inputAmount,
    expectedOutputAmount: exact ? r.amount : grossExpected - appFee,
    minOutputAmount: r.amount,
  };
}
