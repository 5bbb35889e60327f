/**
 * The swap quote (`/swap/approval`): a transfer that may swap on the origin chain, bridge through an enabled
 * route and swap (and run the caller's actions) on the destination, priced from the pools the chain-state cache
 * reads every refresh and the bridge's own fee quote; then the origin transaction with its checks, approvals and
 * simulation. Refusals are typed errors (`domain/quoteErrors.ts`, `domain/swap/embeddedActions.ts`).
 *
 * Order: parameters → tokens and chains → sources → actions → the bridge route (an enabled route between the
 * two tokens is a bridgeable→bridgeable transfer; otherwise every enabled route between the chains is priced
 * with a plain bridge quote and the best one is quoted again with its destination message) → the transaction.
 */
import { type Address, getAddress } from "viem";
import { ChainNotAnsweringError, invalidParam, QuoteRefusedError } from "../domain/quoteErrors.ts";
import { destinationMessage, needsDestinationMessage } from "../domain/swap/destinationMessage.ts";
import { ActionEncodingError, encodeEmbeddedActions, type HandlerCall } from "../domain/swap/embeddedActions.ts";
import type { SwapKind, SwapRoute } from "../domain/swap/swapRouter.ts";
import { multicallAddressOf } from "../quotes/balanceCalls.ts";
import { type ChainClients, createChainClients } from "../quotes/chainClients.ts";
import type { ChainState } from "../quotes/chainStateCache.ts";
import { chainStates } from "../quotes/freshChainState.ts";
import type { QuoteContext } from "../quotes/quoteContext.ts";
import { resolveSourceNames, routerOf, sourcesWithoutNativeOut, swapSourcesOf } from "../quotes/swapSources.ts";
import type { SuggestedFeesService } from "./suggestedFees.ts";
import { routeOnPools } from "./swap/poolRoutes.ts";
import { type PlanRequest, planSwap, type QuoteToken, type SwapMarket, type SwapPlan } from "./swap/swapPlan.ts";
import { checkSwapParameters, nativeTokenOf, quoteToken, type SwapApprovalRequest } from "./swap/swapRequest.ts";
import { type SwapApprovalResponse, swapResponseBody } from "./swap/swapResponse.ts";
import {
  approvalTransactions,
  buildOriginTransaction,
  readChecks,
  simulateOriginTransaction,
  unsimulatedGas,
} from "./swap/swapTransaction.ts";

/** Quotes without a destination swap stay valid for an hour of quote time; a destination swap's for 30 s (60 s on mainnet). */
const QUOTE_VALIDITY_SEC = 3600;
const DESTINATION_SWAP_VALIDITY_SEC = (chainId: number) => (chainId === 1 ? 60 : 30);
const lower = (a: string) => a.toLowerCase();

export function createSwapApprovalService(
  quotes: QuoteContext,
  suggestedFees: SuggestedFeesService,
  clientOf: ChainClients = createChainClients(),
) {
  const byId = new Map(quotes.chains.map((c) => [c.chainId, c]));

  async function quote(r: SwapApprovalRequest): Promise<SwapApprovalResponse> {
    // --- parameters -------------------------------------------------------------------------------------
    const { tradeType, amount, appFee, slippage, depositor, recipient, refundRecipient } = checkSwapParameters(r);
    const origin = byId.get(r.originChainId);
    const destination = byId.get(r.destinationChainId);
    if (!origin) throw invalidParam(`Chain ${r.originChainId} has no SpokePool on this service`, "originChainId");
    if (!destination)
      throw invalidParam(`Chain ${r.destinationChainId} has no SpokePool on this service`, "destinationChainId");
    const inputToken = quoteToken(origin, r.inputToken, "inputToken");
    const outputToken = quoteToken(destination, r.outputToken, "outputToken");

    // --- sources and actions ------------------------------------------------------------------------------
    const available = [...new Set([...swapSourcesOf(origin), ...swapSourcesOf(destination)])];
    const resolve = (names: string[] | undefined, param: string) => {
      if (!names?.length) return undefined;
      const resolved = resolveSourceNames(names, available);
      if (!resolved.ok) throw invalidParam(`Unknown swap source '${resolved.unknown}'; see /swap/sources`, param);
      return resolved.sources;
    };
    const includeSources = resolve(r.includeSources, "includeSources");
    const excludeSources = resolve(r.excludeSources, "excludeSources");
    let actions: HandlerCall[] = [];
    if (r.actions?.length) {
      if (!destination.multicallHandler)
        throw invalidParam(`Chain ${destination.chainId} has no MulticallHandler`, "actions");
      try {
        actions = encodeEmbeddedActions(r.actions, { multicallHandler: destination.multicallHandler });
      } catch (error) {
        if (error instanceof ActionEncodingError)
          throw new QuoteRefusedError(error.message, "ABI_ENCODING_ERROR", "actions");
        throw error;
      }
    }
    if (outputToken.native && (appFee > 0 || actions.length > 0)) {
      throw invalidParam(
        "A native output cannot be combined with appFee or actions; ask for the wrapped token",
        "outputToken",
      );
    }

    const { originState, destinationState } = await chainStates(quotes, origin.chainId, destination.chainId);
    const stateOf = (chainId: number): ChainState => (chainId === origin.chainId ? originState : destinationState);

    // --- the bridge route ----------------------------------------------------------------------------------
    type MessagePlan = { recipient: Address; message: `0x${string}` | undefined };
    const refundOnOrigin = (hasDestinationSwap: boolean) => r.refundOnOrigin ?? !hasDestinationSwap;
    /** The destination message for a bridge landing `bridgeOut` (none when the fill goes straight out). */
    const messageOf = (
      bridgeOut: QuoteToken,
      dest: { kind: SwapKind; route: SwapRoute; amount: bigint } | undefined,
      fee: bigint,
      swapDeadline: number,
    ): MessagePlan => {
      const router = dest && routerOf(destination, dest.route.source);
      const parts = {
        swap: dest
          ? {
              router: router as Address,
              source: dest.route.source,
              fees: dest.route.pools.map((p) => p.feePips),
              kind: dest.kind,
              path: dest.route.path.map((a) => getAddress(a)),
              amount: dest.amount,
              deadline: swapDeadline,
              nativeOut: outputToken.native,
            }
          : undefined,
        appFee: fee > 0n ? { amount: fee, recipient: getAddress(r.appFeeRecipient as string) } : undefined,
        actions,
      };
      if (!needsDestinationMessage(parts)) return { recipient, message: undefined };
      const handler = destination.multicallHandler;
      if (!handler || (dest && !router)) {
        throw new QuoteRefusedError(
          `Chain ${destination.chainId} cannot run destination swaps or actions`,
          "SWAP_QUOTE_UNAVAILABLE",
        );
      }
      const fallbackRecipient = refundOnOrigin(dest !== undefined) ? recipient : refundRecipient;
      return {
        recipient: handler,
        message: destinationMessage({
          multicallHandler: handler,
          bridgedToken: bridgeOut.erc20,
          outputToken: outputToken.erc20,
          recipient,
          fallbackRecipient,
          ...parts,
        }),
      };
    };
    // A draft message prices the fill's gas: its deadline and app fee amount do not change that.
    const draftDeadline = Number(destinationState.blockTimestamp) + quotes.settings.fillDeadlineBufferSec;
    /** The plan's market for one bridge route (with the destination message priced in, or plain quotes). */
    const market = (bridgeIn: QuoteToken, bridgeOut: QuoteToken, withMessage: boolean): SwapMarket => ({
      route(chainId, tokenIn, tokenOut, amountWanted, kind: SwapKind) {
        const nativeLeg = outputToken.native && chainId === destination.chainId && tokenOut === outputToken.erc20;
        return routeOnPools(stateOf(chainId).pools, chainId, {
          tokenIn,
          tokenOut,
          amount: amountWanted,
          kind,
          includeSources,
          excludeSources: nativeLeg
            ? [...(excludeSources ?? []), ...sourcesWithoutNativeOut(available)]
            : excludeSources,
        });
      },
      async bridgeQuote(inputAmount, draft) {
        const d = withMessage ? draft() : undefined;
        const m = withMessage ? messageOf(bridgeOut, d, appFee > 0 ? 1n : 0n, draftDeadline) : undefined;
        return suggestedFees.quote({
          amount: String(inputAmount),
          inputToken: bridgeIn.erc20,
          outputToken: bridgeOut.erc20,
          originChainId: origin.chainId,
          destinationChainId: destination.chainId,
          allowUnmatchedDecimals: true,
          ...(m?.message ? { recipient: m.recipient, message: m.message } : {}),
        });
      },
    });
    const planFor = async (route: { originToken: string; destinationToken: string }, withMessage: boolean) => {
      const bridgeIn = quoteToken(origin, route.originToken, "inputToken");
      const bridgeOut = quoteToken(destination, route.destinationToken, "outputToken");
      const request: PlanRequest = {
        tradeType,
        amount,
        inputToken,
        outputToken,
        bridgeIn,
        bridgeOut,
        slippage,
        appFee,
      };
      return planSwap(request, market(bridgeIn, bridgeOut, withMessage));
    };

    // Routes needing fewer swaps first: when none can be quoted, the error of the most direct one is reported
    // (a bridge limit rather than a far-fetched path's liquidity).
    const swapsNeeded = (route: { originToken: string; destinationToken: string }) =>
      Number(lower(route.originToken) !== lower(inputToken.erc20)) +
      Number(lower(route.destinationToken) !== lower(outputToken.erc20));
    const candidates = quotes.routes
      .filter({ originChainId: origin.chainId, destinationChainId: destination.chainId })
      .filter((route) => !route.isNative)
      .sort((a, b) => swapsNeeded(a) - swapsNeeded(b));
    const direct = candidates.find(
      (c) => lower(c.originToken) === lower(inputToken.erc20) && lower(c.destinationToken) === lower(outputToken.erc20),
    );
    let chosen = direct;
    if (!chosen) {
      // Price every bridge route with a plain quote (no RPC), keep the best, then quote it with its message.
      let best: { route: (typeof candidates)[number]; plan: SwapPlan } | undefined;
      let firstError: unknown;
      for (const route of candidates) {
        try {
          const plan = await planFor(route, false);
          const better =
            !best ||
            (tradeType === "exactInput"
              ? plan.expectedOutputAmount > best.plan.expectedOutputAmount
              : plan.inputAmount < best.plan.inputAmount);
          if (better) best = { route, plan };
        } catch (error) {
          if (!(error instanceof QuoteRefusedError)) throw error;
          firstError ??= error;
        }
      }
      if (!best) {
        throw firstError ?? new QuoteRefusedError("Route is not enabled.", "ROUTE_NOT_ENABLED");
      }
      chosen = best.route;
    }
    const plan = await planFor(chosen, true);
    const hasDestinationSwap = plan.destination !== undefined;
    // The destination swap may run until the fill deadline: the fill cannot come later.
    const finalMessage = messageOf(
      plan.bridge.tokenOut,
      plan.destination
        ? { kind: plan.destination.kind, route: plan.destination.route, amount: plan.destination.minOutputAmount }
        : undefined,
      plan.appFee,
      Number(plan.bridge.quote.fillDeadline),
    );

    // --- the transaction ------------------------------------------------------------------------------------
    const quoteTimestamp = Number(plan.bridge.quote.timestamp);
    const quoteExpiryTimestamp = hasDestinationSwap
      ? Math.floor(Date.now() / 1000) + DESTINATION_SWAP_VALIDITY_SEC(destination.chainId)
      : quoteTimestamp + QUOTE_VALIDITY_SEC;
    const tx = buildOriginTransaction(
      plan,
      {
        depositor: refundOnOrigin(hasDestinationSwap) ? refundRecipient : depositor,
        recipient: finalMessage.recipient,
        message: finalMessage.message ?? "0x",
        destinationChainId: destination.chainId,
      },
      {
        spokePool: origin.spokePool,
        spokePoolPeriphery: origin.contracts.spokePoolPeriphery,
        router: plan.origin && routerOf(origin, plan.origin.route.source),
        swapProxy: origin.contracts.swapProxy,
      },
      { integratorId: r.integratorId, swapDeadline: quoteTimestamp + QUOTE_VALIDITY_SEC, inputToken },
    );
    const client = clientOf(origin);
    const chainError = (error: unknown): never => {
      if (error instanceof QuoteRefusedError) throw error;
      throw new ChainNotAnsweringError(
        `Could not read the depositor's allowance and balance on chain ${origin.chainId}: its RPC is not answering`,
        origin.chainId,
        { cause: error },
      );
    };
    const checks = await readChecks(
      client,
      tx,
      { depositor, token: inputToken, amount: plan.inputAmount },
      multicallAddressOf(origin),
      r.skipChecks === true,
    ).catch(chainError);
    const approvalTxns = approvalTransactions(checks, inputToken, origin.chainId);
    const ready =
      checks.allowance.actual >= checks.allowance.expected && checks.balance.actual >= checks.balance.expected;
    let gas: bigint = unsimulatedGas(tx);
    let simulationSuccess = false;
    if (r.skipOriginTxEstimation !== true && r.skipChecks !== true && ready) {
      gas = await simulateOriginTransaction(client, tx, depositor);
      simulationSuccess = true;
    }
    const nativeToken = nativeTokenOf(origin);
    const usdPrice = (token: QuoteToken) => stateOf(token.chainId).prices.usd.get(lower(token.erc20));
    return swapResponseBody({
      plan,
      inputToken,
      outputToken,
      refundToken: refundOnOrigin(hasDestinationSwap) ? plan.bridge.tokenIn : plan.bridge.tokenOut,
      checks,
      approvalTxns,
      swapTx: {
        simulationSuccess,
        chainId: origin.chainId,
        to: tx.to,
        data: tx.data,
        value: tx.value,
        gas,
        maxFeePerGas: originState.gasPrice,
        maxPriorityFeePerGas: originState.maxPriorityFeePerGas,
      },
      nativeToken,
      usdPrice,
      quoteExpiryTimestamp,
    });
  }

  return {
    /**
     * The swap quote with its transaction.
     * @throws {QuoteErrorType} for every refusal (`QuoteRefusedError` with the anchor's codes, including
     * `ABI_ENCODING_ERROR` for actions), `ChainStateUnavailableError`, `ChainNotAnsweringError`.
     */
    quote,
  };
}

export type SwapApprovalService = ReturnType<typeof createSwapApprovalService>;

export type { SwapApprovalRequest };
