/**
 * The pure heart of settlement: a bundle's items and the carried running balances in, the three leaf sets
 * with their Merkle roots and proofs out (design §3.4, §4.4). No I/O, so it is unit-tested and benchmarked
 * on its own; the same inputs always give the same roots.
 */
import type { Address } from "viem";
import { buildPoolRebalanceLeaves, computeRebalances } from "./leaves/poolRebalance.ts";
import { type AmountToReturn, buildRelayerRefundLeaves, refundLeafLocator } from "./leaves/relayerRefund.ts";
import { buildSlowFillLeaves } from "./leaves/slowFill.ts";
import { poolRebalanceTree, relayerRefundTree, slowRelayTree } from "./merkle.ts";
import type { BuiltBundle, BundleItem, RunningBalance, SpokeTargetBalance, TokenMap } from "./types.ts";

/** What {@link buildBundle} needs. */
export interface BuildBundleInput {
  items: readonly BundleItem[];
  /** The running balances of the last executed bundle per (chain, L1 token); missing pairs are 0. */
  previousRunningBalances: readonly RunningBalance[];
  /** ConfigStore `spokeTargetBalances`; 0/0 (settle everything) when omitted. */
  targets?: (chainId: number, l1Token: Address) => SpokeTargetBalance;
  /** Pool rebalance routes: a pool leaf token needs one (else HubPool reverts "Route not whitelisted"). */
  tokenMap: TokenMap;
  /** ConfigStore `MAX_RELAYER_REPAYMENT_LEAF_SIZE`. */
  maxRefundLeafSize: number;
  /** ConfigStore `MAX_POOL_REBALANCE_LEAF_SIZE`. */
  maxPoolLeafSize: number;
  /** The bundle's chains (`CHAIN_ID_INDICES`); an item or balance on any other chain is a bug upstream. */
  chainIds: readonly number[];
}

/**
 * Builds a bundle. Running balance per (chain, L1 token) = previous + fill refunds + expired refunds + slow
 * fills − deposits − excess slow fills; the net send follows the target/threshold rule; a negative net send
 * is returned by the spoke through its refund leaf's `amountToReturn` (the HubPool only relays positive sends).
 * Throws on an unknown chain, a negative amount or fee, a pair without a pool rebalance route, or more than
 * 256 pool leaves.
 */
export function buildBundle(input: BuildBundleInput): BuiltBundle {
  const { items, previousRunningBalances, tokenMap } = input;
  const chains = new Set(input.chainIds);
  for (const item of items) {
    if (!chains.has(item.chainId))
      throw new Error(`item ${item.relayHash} is on chain ${item.chainId}, not a bundle chain`);
    if (item.amount < 0n || item.lpFee < 0n) throw new Error(`item ${item.relayHash} has a negative amount or fee`);
  }
  for (const rb of previousRunningBalances) {
    if (!chains.has(rb.chainId)) throw new Error(`running balance on chain ${rb.chainId}, not a bundle chain`);
  }

  const rebalances = computeRebalances(items, previousRunningBalances, input.targets);
  const returns: AmountToReturn[] = [];
  for (const r of rebalances) {
    const l2Token = tokenMap.l2TokenOf(r.chainId, r.l1Token);
    if (!l2Token) throw new Error(`no pool rebalance route for ${r.l1Token} on chain ${r.chainId}`);
    if (r.netSend < 0n) returns.push({ chainId: r.chainId, l2Token, amount: -r.netSend });
  }

  const refundLeaves = buildRelayerRefundLeaves(items, returns, input.maxRefundLeafSize);
  const slowLeaves = buildSlowFillLeaves(items);
  const leafChains = new Set<number>();
  for (const leaf of refundLeaves) leafChains.add(Number(leaf.chainId));
  for (const leaf of slowLeaves) leafChains.add(Number(leaf.chainId));
  const poolLeaves = buildPoolRebalanceLeaves(rebalances, leafChains, input.maxPoolLeafSize);

  return {
    poolRebalance: poolRebalanceTree(poolLeaves),
    relayerRefund: relayerRefundTree(refundLeaves),
    slowRelay: slowRelayTree(slowLeaves),
    runningBalances: rebalances.map((r) => ({ chainId: r.chainId, l1Token: r.l1Token, amount: r.runningBalance })),
  };
}

/**
 * The `leafId` of the refund leaf that pays `item` in `bundle` (fillRefund / expiredRefund), else undefined.
 * For many look-ups build one {@link refundLeafLocator} instead.
 */
export function refundLeafIdOf(
  bundle: Pick<BuiltBundle, "relayerRefund">,
  item: Pick<BundleItem, "kind" | "chainId" | "l2Token" | "payee">,
): number | undefined {
  return refundLeafLocator(bundle.relayerRefund.leaves)(item);
}
