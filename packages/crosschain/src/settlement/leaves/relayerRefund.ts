/**
 * Relayer refund leaves (design §3.4; SDK `getRefundsFromBundle`, `_buildRelayerRefundRoot`,
 * `sortRelayerRefundLeaves`): fill refunds and expired-deposit refunds merged per payee, one leaf per
 * (chain, L2 token) split at `maxRefundLeafSize`, and the spoke's surplus returned to the hub.
 */
import type { Address } from "viem";
import type { BundleItem, RelayerRefundLeaf } from "../types.ts";
import { compareAddresses, pairKey } from "./poolRebalance.ts";

/** Tokens a spoke sends back to the hub (a negative net send), in that chain's token. */
export interface AmountToReturn {
  chainId: number;
  l2Token: Address;
  amount: bigint;
}

interface RefundGroup {
  chainId: number;
  l2Token: Address;
  amountToReturn: bigint;
  payees: Map<string, { address: Address; amount: bigint }>;
}

/** Whether an item is paid through a relayer refund leaf. */
export function isRefundItem(item: Pick<BundleItem, "kind">): boolean {
  return item.kind === "fillRefund" || item.kind === "expiredRefund";
}

/**
 * Refund leaves sorted by (chainId, l2Token, groupIndex) with `leafId` = index. Payees are summed per address
 * and ordered by amount descending, then address ascending; payees owed 0 are left out. Only the first
 * sub-leaf of a (chain, token) carries `amountToReturn`; a leaf without refunds exists when it is > 0.
 */
export function buildRelayerRefundLeaves(
  items: readonly BundleItem[],
  returns: readonly AmountToReturn[],
  maxRefundLeafSize: number,
): RelayerRefundLeaf[] {
  if (!Number.isInteger(maxRefundLeafSize) || maxRefundLeafSize < 1) {
    throw new Error(`maxRefundLeafSize must be a positive integer (got ${maxRefundLeafSize})`);
  }
  const groups = new Map<string, RefundGroup>();
  const group = (chainId: number, l2Token: Address): RefundGroup => {
    const key = pairKey(chainId, l2Token);
    let g = groups.get(key);
    if (!g) {
      g = { chainId, l2Token, amountToReturn: 0n, payees: new Map() };
      groups.set(key, g);
    }
    return g;
  };
  for (const item of items) {
    if (!isRefundItem(item)) continue;
    const payees = group(item.chainId, item.l2Token).payees;
    const key = item.payee.toLowerCase();
    const payee = payees.get(key);
    if (payee) payee.amount += item.amount;
    else payees.set(key, { address: item.payee, amount: item.amount });
  }
  for (const r of returns) {
    if (r.amount < 0n) throw new Error(`amountToReturn must not be negative (chain ${r.chainId}, ${r.l2Token})`);
    if (r.amount > 0n) group(r.chainId, r.l2Token).amountToReturn += r.amount;
  }

  const sorted = [...groups.values()].sort((a, b) => a.chainId - b.chainId || compareAddresses(a.l2Token, b.l2Token));
  const leaves: RelayerRefundLeaf[] = [];
  for (const g of sorted) {
    const payees = [...g.payees.values()]
      .filter((p) => p.amount > 0n)
      .sort((a, b) => (a.amount > b.amount ? -1 : a.amount < b.amount ? 1 : compareAddresses(a.address, b.address)));
    if (payees.length === 0 && g.amountToReturn === 0n) continue;
    for (let i = 0; i === 0 || i < payees.length; i += maxRefundLeafSize) {
      const chunk = payees.slice(i, i + maxRefundLeafSize);
      leaves.push({
        amountToReturn: i === 0 ? g.amountToReturn : 0n,
        chainId: BigInt(g.chainId),
        refundAmounts: chunk.map((p) => p.amount),
        leafId: leaves.length,
        l2TokenAddress: g.l2Token,
        refundAddresses: chunk.map((p) => p.address),
      });
    }
  }
  return leaves;
}

/**
 * A lookup of the refund leaf (its `leafId`) that pays an item, for finding a deposit's refund transaction
 * (`ExecutedRelayerRefundRoot` carries the leafId). Undefined for items no refund leaf pays (deposits, slow
 * fills, payees owed 0). One payee of a (chain, token) sits in exactly one sub-leaf, since payees are merged.
 */
export function refundLeafLocator(
  leaves: readonly RelayerRefundLeaf[],
): (item: Pick<BundleItem, "kind" | "chainId" | "l2Token" | "payee">) => number | undefined {
  const index = new Map<string, number>();
  for (const leaf of leaves) {
    const prefix = `${pairKey(Number(leaf.chainId), leaf.l2TokenAddress)}|`;
    for (const address of leaf.refundAddresses) index.set(prefix + address.toLowerCase(), leaf.leafId);
  }
  return (item) =>
    isRefundItem(item) ? index.get(`${pairKey(item.chainId, item.l2Token)}|${item.payee.toLowerCase()}`) : undefined;
}
