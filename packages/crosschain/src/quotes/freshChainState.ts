/**
 * The chain state a quote may use: from the cache, warm and recent. A cold cache (the first requests after a
 * start) is waited for once; a state older than `maxStateAgeMs` (its RPC stopped answering) is refused.
 */
import { ChainStateUnavailableError } from "../domain/quoteErrors.ts";
import type { ChainState } from "./chainStateCache.ts";
import type { QuoteContext } from "./quoteContext.ts";

export function freshState(quotes: QuoteContext, chainId: number, now: number): ChainState {
  const state = quotes.cache.snapshot().chains.get(chainId);
  if (!state) {
    throw new ChainStateUnavailableError(`Chain ${chainId} state is not available yet; try again shortly`, chainId);
  }
  if (now - state.updatedAt > quotes.settings.maxStateAgeMs) {
    throw new ChainStateUnavailableError(
      `Chain ${chainId} state is stale (its RPC is not answering); try again later`,
      chainId,
    );
  }
  return state;
}

/** Chain state of both ends: from the cache; only a cold cache (first requests after a start) waits for it. */
export async function chainStates(quotes: QuoteContext, originChainId: number, destinationChainId: number) {
  const chains = quotes.cache.snapshot().chains;
  if (!chains.has(originChainId) || !chains.has(destinationChainId)) await quotes.cache.ready(5000);
  const now = Date.now();
  return {
    originState: freshState(quotes, originChainId, now),
    destinationState: freshState(quotes, destinationChainId, now),
  };
}
