/**
 * Merkle trees of leaves, built with Across' own tree (`@across-protocol/contracts/dist/utils/MerkleTree.js`,
 * the one the Across SDK's dataworker uses), so our roots are the roots the real dataworker would propose.
 * It sorts and de-duplicates the leaf hashes, hashes pairs as keccak(min ‖ max) and carries an odd node up
 * unchanged, which is what OpenZeppelin's `MerkleProof.verify` (used by MerkleLib.sol) accepts. The leaf hash
 * is used as-is (no double hash), unlike `@openzeppelin/merkle-tree`'s StandardMerkleTree.
 */
import { MerkleTree } from "@across-protocol/contracts/dist/utils/MerkleTree.js";
import type { Hex } from "viem";
import { hashPoolRebalanceLeaf, hashRelayerRefundLeaf, hashSlowFillLeaf } from "./leaves/encode.ts";
import type { MerkleLeaves, PoolRebalanceLeaf, RelayerRefundLeaf, SlowFillLeaf } from "./types.ts";

/** The root of a tree without leaves (what the contracts expect for "nothing to execute"). */
export const EMPTY_MERKLE_ROOT: Hex = `0x${"0".repeat(64)}`;

const identity = (hash: Hex): string => hash;

/**
 * Builds the tree of `leaves` and every leaf's proof (same index as `leaves`). Each leaf is hashed once;
 * proofs are looked up by hash, so a leaf's position in the tree does not depend on its `leafId`.
 */
export function buildMerkleLeaves<L>(leaves: readonly L[], hash: (leaf: L) => Hex): MerkleLeaves<L> {
  if (leaves.length === 0) return { leaves: [], root: EMPTY_MERKLE_ROOT, proofs: [] };
  const hashes = leaves.map(hash);
  const tree = new MerkleTree<Hex>(hashes, identity);
  return {
    leaves: [...leaves],
    root: tree.getHexRoot() as Hex,
    proofs: hashes.map((h) => tree.getHexProof(h) as Hex[]),
  };
}

/** The pool rebalance tree (its root is `poolRebalanceRoot` of `proposeRootBundle`). */
export function poolRebalanceTree(leaves: readonly PoolRebalanceLeaf[]): MerkleLeaves<PoolRebalanceLeaf> {
  return buildMerkleLeaves(leaves, hashPoolRebalanceLeaf);
}

/** The relayer refund tree (`relayerRefundRoot`). */
export function relayerRefundTree(leaves: readonly RelayerRefundLeaf[]): MerkleLeaves<RelayerRefundLeaf> {
  return buildMerkleLeaves(leaves, hashRelayerRefundLeaf);
}

/** The slow relay tree (`slowRelayRoot`). */
export function slowRelayTree(leaves: readonly SlowFillLeaf[]): MerkleLeaves<SlowFillLeaf> {
  return buildMerkleLeaves(leaves, hashSlowFillLeaf);
}
