/**
 * Running balances, net sends and pool rebalance leaves (design §4.4, §3.4; SDK `_buildPoolRebalanceRoot`,
 * `computeDesiredTransferAmountToSpoke`, `constructPoolRebalanceLeaves`).
 */
import type { Address } from "viem";
import type { BundleItem, PoolRebalanceLeaf, RunningBalance, SpokeTargetBalance } from "../types.ts";

/** The HubPool's claimed bitmap is one uint8-indexed word: a bundle has at most 256 pool leaves. */
export const MAX_POOL_LEAVES = 256;

/** 0/0: every running balance is settled in full (the ConfigStore default when no target is set). */
export const NO_TARGET: SpokeTargetBalance = { target: 0n, threshold: 0n };

/** What one bundle does to one (chain, L1 token). */
export interface TokenRebalance {
  chainId: number;
  l1Token: Address;
  /** The running balance carried in from the last executed bundle. */
  previous: bigint;
  /** Σ LP fees realized on this chain (fill refunds repaid here and slow fills sent here). */
  lpFees: bigint;
  /** Positive: the hub sends tokens to the spoke; negative: the spoke returns them (refund leaf `amountToReturn`). */
  netSend: bigint;
  /** The running balance after this bundle (`previous + activity − netSend`). */
  runningBalance: bigint;
}

interface Accumulator {
  chainId: number;
  l1Token: Address;
  previous: bigint;
  delta: bigint;
  lpFees: bigint;
  active: boolean;
}

/** Map key of a (chain, token) pair; addresses compare case-insensitively. */
export function pairKey(chainId: number, token: Address): string {
  return `${chainId}|${token.toLowerCase()}`;
}

/**
 * The net send for a running balance (SDK `computeDesiredTransferAmountToSpoke`): the hub always pays what it
 * owes (rb ≥ 0); a spoke's surplus is pulled back only beyond `threshold`, and only down to `target`.
 */
export function netSendAmount(runningBalance: bigint, { target, threshold }: SpokeTargetBalance): bigint {
  if (runningBalance >= 0n) return runningBalance;
  const surplus = -runningBalance;
  if (surplus < threshold) return 0n;
  const transfer = surplus - target;
  return transfer < 0n ? 0n : -transfer;
}

/** How an item moves its chain's running balance (what the hub owes the spoke), and the LP fee it books. */
function effect(item: BundleItem): { delta: bigint; lpFee: bigint } {
  switch (item.kind) {
    case "fillRefund":
    case "slowFill":
      return { delta: item.amount, lpFee: item.lpFee };
    case "expiredRefund":
      return { delta: item.amount, lpFee: 0n };
    case "deposit":
    case "excessSlowFill":
      return { delta: -item.amount, lpFee: 0n };
  }
}

/**
 * Every (chain, L1 token) the bundle touches or carries, with its net send and new running balance; sorted by
 * chain ascending then token address ascending. A pair is kept when it has activity or a nonzero running
 * balance before or after (so a carried balance stays visible in `RootBundleExecuted`).
 */
export function computeRebalances(
  items: readonly BundleItem[],
  previousRunningBalances: readonly RunningBalance[],
  targets: (chainId: number, l1Token: Address) => SpokeTargetBalance = () => NO_TARGET,
): TokenRebalance[] {
  const pairs = new Map<string, Accumulator>();
  const at = (chainId: number, l1Token: Address): Accumulator => {
    const key = pairKey(chainId, l1Token);
    let acc = pairs.get(key);
    if (!acc) {
      acc = { chainId, l1Token, previous: 0n, delta: 0n, lpFees: 0n, active: false };
      pairs.set(key, acc);
    }
    return acc;
  };
  for (const rb of previousRunningBalances) at(rb.chainId, rb.l1Token).previous += rb.amount;
  for (const item of items) {
    const acc = at(item.chainId, item.l1Token);
    const { delta, lpFee } = effect(item);
    acc.delta += delta;
    acc.lpFees += lpFee;
    acc.active = true;
  }
  const out: TokenRebalance[] = [];
  for (const acc of pairs.values()) {
    const rb = acc.previous + acc.delta;
    const netSend = netSendAmount(rb, targets(acc.chainId, acc.l1Token));
    const runningBalance = rb - netSend;
    if (!acc.active && acc.previous === 0n && runningBalance === 0n) continue;
    out.push({
      chainId: acc.chainId,
      l1Token: acc.l1Token,
      previous: acc.previous,
      lpFees: acc.lpFees,
      netSend,
      runningBalance,
    });
  }
  return out.sort(compareRebalances);
}

function compareRebalances(a: TokenRebalance, b: TokenRebalance): number {
  if (a.chainId !== b.chainId) return a.chainId - b.chainId;
  return compareAddresses(a.l1Token, b.l1Token);
}

/** Ascending by address value (lowercase hex of equal length compares like the number). */
export function compareAddresses(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Pool rebalance leaves: chains ascending, tokens of a chain in `rebalances` order (address ascending), split
 * every `maxPoolLeafSize` tokens with `groupIndex` 0, 1, … per chain and `leafId` the global sequence.
 * `leafChains` adds chains that need a leaf without any token (refund- or slow-only): only `groupIndex` 0
 * relays the spoke roots, so such a chain gets one leaf with empty arrays.
 */
export function buildPoolRebalanceLeaves(
  rebalances: readonly TokenRebalance[],
  leafChains: Iterable<number>,
  maxPoolLeafSize: number,
): PoolRebalanceLeaf[] {
  if (!Number.isInteger(maxPoolLeafSize) || maxPoolLeafSize < 1) {
    throw new Error(`maxPoolLeafSize must be a positive integer (got ${maxPoolLeafSize})`);
  }
  const byChain = new Map<number, TokenRebalance[]>();
  for (const chainId of leafChains) byChain.set(chainId, []);
  for (const r of rebalances) {
    const list = byChain.get(r.chainId);
    if (list) list.push(r);
    else byChain.set(r.chainId, [r]);
  }
  const leaves: PoolRebalanceLeaf[] = [];
  for (const chainId of [...byChain.keys()].sort((a, b) => a - b)) {
    const tokens = byChain.get(chainId) ?? [];
    let groupIndex = 0n;
    for (let i = 0; i === 0 || i < tokens.length; i += maxPoolLeafSize) {
      const group = tokens.slice(i, i + maxPoolLeafSize);
      leaves.push({
        chainId: BigInt(chainId),
        bundleLpFees: group.map((r) => r.lpFees),
        netSendAmounts: group.map((r) => r.netSend),
        runningBalances: group.map((r) => r.runningBalance),
        groupIndex: groupIndex++,
        leafId: leaves.length,
        l1Tokens: group.map((r) => r.l1Token),
      });
    }
  }
  if (leaves.length > MAX_POOL_LEAVES) {
    throw new Error(`a bundle has at most ${MAX_POOL_LEAVES} pool rebalance leaves (got ${leaves.length})`);
  }
  return leaves;
}
