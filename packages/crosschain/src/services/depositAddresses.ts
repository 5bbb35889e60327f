/**
 * Counterfactual deposit addresses (`/swap/counterfactual`): an address computed from the transfer's
 * parameters (the route a clone may deposit on and who may withdraw its funds), to which the user simply sends
 * the input token; `depositAddresses/watcher.ts` then deposits from it, or refunds it. The quote part is the
 * bridgeable→bridgeable swap quote of the same transfer.
 *
 * Only bridgeable routes are issued: an address is permanent and takes any amount at any time, so a
 * destination swap's minimum output cannot be committed in it (the clone's message is fixed) without letting
 * the swap run at any price.
 */
import { type Address, getAddress, type PublicClient, parseAbi, zeroAddress, zeroHash } from "viem";
import type { SpokeChain } from "../deployments.ts";
import {
  BEACON_TOKEN_GETTERS,
  type CounterfactualInputSymbol,
  depositAddressTree,
  encodeRouteParams,
  encodeWithdrawParams,
  NATIVE_ASSET,
} from "../domain/counterfactual/depositAddress.ts";
import { ChainNotAnsweringError, invalidParam, QuoteRefusedError } from "../domain/quoteErrors.ts";
import { wrappedNativeOf } from "../quotes/enabledRoutes.ts";
import type { QuoteContext } from "../quotes/quoteContext.ts";
import type { DepositAddressesRepository } from "../store/depositAddressesRepository.ts";
import type { SwapApprovalResponse } from "./swap/swapResponse.ts";
import type { SwapApprovalService } from "./swapApproval.ts";

export interface CounterfactualRequest {
  useDepositAddress?: boolean;
  inputToken: string;
  outputToken: string;
  originChainId: number;
  destinationChainId: number;
  amount: string;
  recipient: string;
  refundAddress?: string;
  integratorId?: string;
}

/** The contracts a chain needs to issue deposit addresses. */
export interface CounterfactualContracts {
  factory: Address;
  depositImplementation: Address;
  withdrawImplementation: Address;
}

export function counterfactualContractsOf(chain: SpokeChain): CounterfactualContracts | undefined {
  const c = chain.contracts;
  if (!c.counterfactualDepositFactory || !c.counterfactualDepositSpokePool || !c.withdrawImplementation)
    return undefined;
  return {
    factory: c.counterfactualDepositFactory,
    depositImplementation: c.counterfactualDepositSpokePool,
    withdrawImplementation: c.withdrawImplementation,
  };
}

const factoryAbi = parseAbi(["function predictAddress(bytes32 salt, bytes32 initialRoot) view returns (address)"]);

export interface DepositAddressServiceOptions {
  quotes: QuoteContext;
  swaps: SwapApprovalService;
  repository: DepositAddressesRepository;
  /** The beacon's signer (the watcher's key); undefined: addresses are not issued. */
  signer: Address | undefined;
  maxFeeBps: number;
  clientOf(chain: SpokeChain): PublicClient;
}

export type CounterfactualResponse = Omit<SwapApprovalResponse, "swapTx"> & { depositAddress: Address };

const PREDICTED_ADDRESSES_KEPT = 10_000;

export function createDepositAddressService(o: DepositAddressServiceOptions) {
  // Addresses already predicted (one RPC each), by chain and root; bounded, as every new recipient adds one.
  const predicted = new Map<string, Address>();

  async function quote(r: CounterfactualRequest): Promise<CounterfactualResponse> {
    if (r.useDepositAddress !== true) {
      throw new QuoteRefusedError("useDepositAddress=true is required", "MISSING_PARAM", "useDepositAddress");
    }
    if (!o.signer) {
      throw invalidParam(
        "Deposit addresses are not enabled on this service (no signer key configured)",
        "useDepositAddress",
      );
    }
    const origin = o.quotes.chains.find((c) => c.chainId === r.originChainId);
    const contracts = origin && counterfactualContractsOf(origin);
    if (!origin || !contracts) {
      throw invalidParam(`Chain ${r.originChainId} has no counterfactual deposit contracts`, "originChainId");
    }
    const native = r.inputToken.toLowerCase() === zeroAddress;
    const wrapped = wrappedNativeOf(origin);
    const inputErc20 = native
      ? wrapped?.token
      : origin.tokens.find((t) => t.address.toLowerCase() === r.inputToken.toLowerCase());
    const inputSymbol = (native ? "ETH" : inputErc20?.symbol.toUpperCase()) as CounterfactualInputSymbol;
    if (!inputErc20 || !(inputSymbol in BEACON_TOKEN_GETTERS)) {
      throw invalidParam(
        `Deposit addresses take ${Object.keys(BEACON_TOKEN_GETTERS).join(", ")} on chain ${origin.chainId}`,
        "inputToken",
      );
    }
    const recipient = getAddress(r.recipient);
    const refundAddress = getAddress(r.refundAddress ?? r.recipient);
    const swap = await o.swaps.quote({
      tradeType: "exactInput",
      amount: r.amount,
      inputToken: r.inputToken,
      outputToken: r.outputToken,
      originChainId: r.originChainId,
      destinationChainId: r.destinationChainId,
      depositor: refundAddress,
      recipient,
      refundAddress,
      integratorId: r.integratorId,
      skipChecks: true,
      skipOriginTxEstimation: true,
    });
    if (swap.crossSwapType !== "bridgeableToBridgeable") {
      throw invalidParam(
        "Deposit addresses carry bridgeable routes only (the input and output tokens of an enabled route)",
        "outputToken",
      );
    }
    const outputDecimals = swap.outputToken.decimals;
    const inDecimals = inputErc20.decimals;
    const stableExchangeRate =
      inDecimals >= outputDecimals
        ? 10n ** 18n * 10n ** BigInt(inDecimals - outputDecimals)
        : 10n ** 18n / 10n ** BigInt(outputDecimals - inDecimals);
    const routeParams = encodeRouteParams({
      inputSymbol,
      destinationChainId: r.destinationChainId,
      outputToken: getAddress(swap.steps.bridge.tokenOut.address),
      recipient,
      message: "0x",
      stableExchangeRate,
      maxFeeBps: o.maxFeeBps,
    });
    const withdrawParams = encodeWithdrawParams(o.signer, refundAddress);
    const tree = depositAddressTree({
      depositImplementation: contracts.depositImplementation,
      routeParams,
      withdrawImplementation: contracts.withdrawImplementation,
      withdrawParams,
    });
    const key = `${origin.chainId}:${tree.root}`;
    let depositAddress = predicted.get(key);
    if (!depositAddress) {
      depositAddress = await o
        .clientOf(origin)
        .readContract({
          address: contracts.factory,
          abi: factoryAbi,
          functionName: "predictAddress",
          args: [zeroHash, tree.root],
        })
        .catch((error) => {
          throw new ChainNotAnsweringError(
            `Could not compute the deposit address on chain ${origin.chainId}: its RPC is not answering`,
            origin.chainId,
            { cause: error },
          );
        });
      if (predicted.size >= PREDICTED_ADDRESSES_KEPT) predicted.clear();
      predicted.set(key, depositAddress);
    }
    await o.repository.save({
      originChainId: origin.chainId,
      address: depositAddress,
      root: tree.root,
      inputToken: native ? NATIVE_ASSET : inputErc20.address,
      inputSymbol,
      inputDecimals: inDecimals,
      routeParams,
      withdrawParams,
      destinationChainId: r.destinationChainId,
      outputToken: getAddress(swap.steps.bridge.tokenOut.address),
      refundAddress,
      maxFeeBps: o.maxFeeBps,
      stableExchangeRate,
    });
    const { swapTx: _swapTx, approvalTxns: _approvals, ...body } = swap;
    return { ...body, depositAddress };
  }

  return {
    /**
     * The deposit address of a transfer (recorded for the watcher) with the transfer's quote.
     * @throws {QuoteErrorType} as the swap quote, and INVALID_PARAM for what addresses do not carry.
     */
    quote,
  };
}

export type DepositAddressService = ReturnType<typeof createDepositAddressService>;
