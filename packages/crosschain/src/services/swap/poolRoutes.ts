/**
 * A swap leg's route over a chain's cached pools, or the anchor's refusal: SWAP_QUOTE_UNAVAILABLE when no path
 * joins the tokens, SWAP_LIQUIDITY_INSUFFICIENT when the pools cannot carry the amount or would move too far.
 */
import { QuoteRefusedError } from "../../domain/quoteErrors.ts";
import {
  type FindRouteParameters,
  findBestRoute,
  type PoolIndex,
  type SwapRoute,
} from "../../domain/swap/swapRouter.ts";

/**
 * A leg selling more than a third of a pool's reserve (a price impact of 25 % and more: a constant-product
 * trade of share s of the reserve loses s / (1 + s) to impact) is refused as SWAP_LIQUIDITY_INSUFFICIENT rather
 * than quoted: such a trade empties a pool, and a route choice must not prefer it to a bridge limit (90 M USDC
 * "fits" a 1 M pool as a 97 % loss). Measured on reserves, not on amounts, so that dust rounding cannot trip it.
 */
const MAX_DEPTH_SHARE_WAD = 10n ** 18n / 3n;

export function routeOnPools(index: PoolIndex, chainId: number, p: FindRouteParameters): SwapRoute {
  const found = findBestRoute(index, p);
  if (found) {
    if (found.depthShareWad <= MAX_DEPTH_SHARE_WAD) return found;
    throw new QuoteRefusedError(
      `The pools on chain ${chainId} are too shallow for this amount from ${p.tokenIn} to ${p.tokenOut} ` +
        "(price impact above 25 %)",
      "SWAP_LIQUIDITY_INSUFFICIENT",
    );
  }
  const anyPath = findBestRoute(index, { ...p, amount: 1n, kind: "exactInput" });
  throw anyPath
    ? new QuoteRefusedError(
        `The pools on chain ${chainId} cannot carry this amount from ${p.tokenIn} to ${p.tokenOut}`,
        "SWAP_LIQUIDITY_INSUFFICIENT",
      )
    : new QuoteRefusedError(
        `No swap route from ${p.tokenIn} to ${p.tokenOut} on chain ${chainId}`,
        "SWAP_QUOTE_UNAVAILABLE",
      );
}
