/**
 * Slow fill leaves (design §3.4; RL `buildV3SlowFillLeaf`): one per requested slow fill, verified by the
 * destination spoke with `chainId = chainId()`, paying `updatedOutputAmount` (inputAmount − LP fee).
 */
import type { BundleItem, SlowFillLeaf } from "../types.ts";

/** Slow fill leaves of the bundle's `slowFill` items, sorted by (originChainId, depositId) ascending. */
export function buildSlowFillLeaves(items: readonly BundleItem[]): SlowFillLeaf[] {
  const leaves: SlowFillLeaf[] = [];
  for (const item of items) {
    if (item.kind !== "slowFill") continue;
    if (!item.relayData) throw new Error(`slowFill item ${item.relayHash} has no relayData`);
    leaves.push({ relayData: item.relayData, chainId: BigInt(item.chainId), updatedOutputAmount: item.amount });
  }
  return leaves.sort((a, b) => {
    const x = a.relayData;
    const y = b.relayData;
    if (x.originChainId !== y.originChainId) return x.originChainId < y.originChainId ? -1 : 1;
    return x.depositId < y.depositId ? -1 : x.depositId > y.depositId ? 1 : 0;
  });
}
