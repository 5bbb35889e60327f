/**
 * The vocabulary of settlement: what a bundle settles (items, from the indexed events), the three leaf
 * kinds exactly as the contracts' structs (field order = ABI order), and a built bundle (leaves, roots, proofs).
 * See README.md in this folder for the rules and docs/design/settlement.md for the evidence.
 */
import type { Address, Hex } from "viem";
import type { RelayData } from "../domain/relayHash.ts";

/** A token on a chain, mapped to its HubPool (L1) token. */
export interface TokenMap {
  /** The hub chain's token for `l2Token` on `chainId`, or undefined if the pair is not routed. */
  l1TokenOf(chainId: number, l2Token: Address): Address | undefined;
  /** `chainId`'s token for the hub token `l1Token` (the pool rebalance route), or undefined. */
  l2TokenOf(chainId: number, l1Token: Address): Address | undefined;
}

/** The relay data a deposit was made with (`V3SpokePoolInterface.V3RelayData`); addresses as bytes32. */
export type V3RelayData = RelayData;

/**
 * One thing a bundle settles. Every item is booked once (the `bundle_items` ledger is unique on
 * (kind, relayHash)), so a deposit or a fill lands in exactly one bundle.
 *
 * - `deposit`: a deposit on `chainId` (its origin) took `amount` (inputAmount) into that spoke.
 * - `fillRefund`: a fast fill is repaid to `payee` (the relayer) on `chainId` (its repayment chain, or the
 *   origin chain when that has no route) with `amount` = inputAmount − lpFee, in `l2Token` of that chain.
 * - `expiredRefund`: an unfilled, expired deposit is refunded in full (`amount` = inputAmount, `lpFee` 0) to
 *   `payee` (its depositor) on `chainId` (the origin chain) in the input token.
 * - `slowFill`: a requested slow fill gets a slow relay leaf on `chainId` (the destination) paying
 *   `amount` = updatedOutputAmount = inputAmount − lpFee to the recipient; `relayData` is set.
 * - `excessSlowFill`: a slow leaf of an earlier bundle that can no longer be executed (fast-filled meanwhile,
 *   or expired): its `amount` went to `chainId`'s spoke for nothing and is taken back.
 */
export type BundleItemKind = "deposit" | "fillRefund" | "expiredRefund" | "slowFill" | "excessSlowFill";

export interface BundleItem {
  kind: BundleItemKind;
  relayHash: Hex;
  originChainId: number;
  depositId: bigint;
  /** The chain where the item's money moves (see {@link BundleItemKind}). */
  chainId: number;
  l1Token: Address;
  /** The token on `chainId`. */
  l2Token: Address;
  /** Who is paid (fillRefund: the relayer; expiredRefund: the depositor; slowFill: the recipient); zero address otherwise. */
  payee: Address;
  amount: bigint;
  /** The LP fee booked with the item (fillRefund and slowFill), else 0n. */
  lpFee: bigint;
  /** Only for `slowFill`. */
  relayData?: V3RelayData;
}

/** `HubPoolInterface.PoolRebalanceLeaf`. */
export interface PoolRebalanceLeaf {
  chainId: bigint;
  bundleLpFees: bigint[];
  netSendAmounts: bigint[];
  runningBalances: bigint[];
  groupIndex: bigint;
  leafId: number;
  l1Tokens: Address[];
}

/** `SpokePoolInterface.RelayerRefundLeaf`. */
export interface RelayerRefundLeaf {
  amountToReturn: bigint;
  chainId: bigint;
  refundAmounts: bigint[];
  leafId: number;
  l2TokenAddress: Address;
  refundAddresses: Address[];
}

/** `V3SpokePoolInterface.V3SlowFill`. */
export interface SlowFillLeaf {
  relayData: V3RelayData;
  chainId: bigint;
  updatedOutputAmount: bigint;
}

/** Leaves of one kind with their Merkle root and each leaf's proof (same index as `leaves`). */
export interface MerkleLeaves<L> {
  leaves: L[];
  root: Hex;
  proofs: Hex[][];
}

/** A running balance the HubPool carries between a chain's spoke and the hub, per L1 token. */
export interface RunningBalance {
  chainId: number;
  l1Token: Address;
  amount: bigint;
}

/** Per (chain, L1 token) rebalance rule from the config store's `spokeTargetBalances` (0/0 by default). */
export interface SpokeTargetBalance {
  target: bigint;
  threshold: bigint;
}

/** What a bundle pays and moves, ready to propose. */
export interface BuiltBundle {
  poolRebalance: MerkleLeaves<PoolRebalanceLeaf>;
  relayerRefund: MerkleLeaves<RelayerRefundLeaf>;
  slowRelay: MerkleLeaves<SlowFillLeaf>;
  /** The running balances after this bundle (every (chain, token) with a previous or new balance). */
  runningBalances: RunningBalance[];
}
