/**
 * What a fill costs the relayer, in output-token units, from the warm chain state (no RPC): the cached
 * `fillRelay` gas × the destination's fill gas price, converted through the token's price in native.
 */

import type { SpokeChain } from "../deployments.ts";
import type { PendingDeposit } from "../relayer/types.ts";
import type { ChainStateCache } from "./chainStateCache.ts";

export function createFillCostEstimator(cache: ChainStateCache, chains: readonly SpokeChain[]) {
  return async (deposit: PendingDeposit): Promise<bigint | undefined> => {
    const state = cache.snapshot().chains.get(deposit.destinationChainId);
    // relayData addresses are bytes32 (left-padded EVM addresses).
    const token = `0x${deposit.relayData.outputToken.slice(-40)}`.toLowerCase();
    const decimals = chains
      .find((c) => c.chainId === deposit.destinationChainId)
      ?.tokens.find((t) => t.address.toLowerCase() === token)?.decimals;
    const gas = state?.fillGas.get(token);
    const priceInNative = state?.prices.inNative.get(token);
    if (!state || !gas || !priceInNative || decimals === undefined) return undefined;
    const costNative = gas.gasUnits * state.gasPrice;
    return (costNative * 10n ** BigInt(decimals)) / priceInNative;
  };
}
