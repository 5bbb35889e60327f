/**
 * What a fill costs the relayer, in output-token units, from the warm chain state (no RPC): the cached
 * `fillRelay` gas (or the caller's simulated gas of this very fill) × the destination's fill gas price, converted through the token's price in native,
 * plus the LP fee, which Across withholds from the relayer's refund (refund = input − LP fee).
 */

import { findToken, type SpokeChain } from "../deployments.ts";
import { convertDecimals } from "../domain/fees/fixedPoint.ts";
import { computeLpFee } from "../domain/fees/lpFee.ts";
import type { PendingDeposit } from "../relayer/types.ts";
import type { ChainStateCache } from "./chainStateCache.ts";
import { lpPoolFor } from "./hubPool.ts";

export function createFillCostEstimator(cache: ChainStateCache, chains: readonly SpokeChain[]) {
  return async (deposit: PendingDeposit, gasUnits?: bigint): Promise<bigint | undefined> => {
    const state = cache.snapshot().chains.get(deposit.destinationChainId);
    // relayData addresses are bytes32 (left-padded EVM addresses).
    const token = `0x${deposit.relayData.outputToken.slice(-40)}`.toLowerCase();
    const decimals = findToken(chains, deposit.destinationChainId, token)?.decimals;
    const gas = state?.fillGas.get(token);
    const priceInNative = state?.prices.inNative.get(token);
    if (!state || !gas || !priceInNative || decimals === undefined) return undefined;
    const costNative = (gasUnits ?? gas.gasUnits) * state.gasPrice;
    const gasCost = (costNative * 10n ** BigInt(decimals)) / priceInNative;
    const input = findToken(chains, deposit.originChainId, `0x${deposit.relayData.inputToken.slice(-40)}`);
    if (!input) return gasCost;
    const pool = lpPoolFor(cache.snapshot(), chains, input.symbol, deposit.originChainId, deposit.destinationChainId);
    const lpFee = computeLpFee({
      amount: deposit.relayData.inputAmount,
      inputDecimals: input.decimals,
      l1Decimals: pool.l1TokenDecimals ?? input.decimals,
      reserves: pool.reserves,
      rateModel: pool.rateModel,
    }).total;
    return gasCost + convertDecimals(lpFee, input.decimals, decimals);
  };
}
