import { keccak256, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { hashRelayerRefundLeaf } from "./leaves/encode.ts";
import { buildMerkleLeaves, EMPTY_MERKLE_ROOT, relayerRefundTree } from "./merkle.ts";
import { randomLeaves, verifySortedPairProof } from "./testSupport.ts";

/** Mulberry32: a fixed seed keeps these trees the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hashes = (n: number) => Array.from({ length: n }, (_, i) => keccak256(toHex(i)));

describe("merkle", () => {
  it("gives the 32-byte zero root and no proofs for no leaves", () => {
    expect(EMPTY_MERKLE_ROOT).toBe(`0x${"00".repeat(32)}`);
    expect(buildMerkleLeaves<`0x${string}`>([], (h) => h)).toEqual({ leaves: [], root: EMPTY_MERKLE_ROOT, proofs: [] });
  });

  it("uses a single leaf's hash as the root, with an empty proof (no second hash)", () => {
    const [h] = hashes(1);
    expect(buildMerkleLeaves([h!], (x) => x)).toEqual({ leaves: [h], root: h, proofs: [[]] });
  });

  it("hashes a pair as keccak(min ‖ max)", () => {
    const [a, b] = hashes(2) as [`0x${string}`, `0x${string}`];
    const [lo, hi] = a < b ? [a, b] : [b, a];
    const tree = buildMerkleLeaves([a, b], (x) => x);
    expect(tree.root).toBe(keccak256(`0x${lo.slice(2)}${hi.slice(2)}`));
    expect(tree.proofs).toEqual([[b], [a]]);
  });

  it("gives proofs that an independent sorted-pair verifier accepts, for 1…70 and 255 leaves", () => {
    for (const n of [...Array.from({ length: 70 }, (_, i) => i + 1), 255]) {
      const leaves = hashes(n);
      const tree = buildMerkleLeaves(leaves, (x) => x);
      expect(tree.proofs).toHaveLength(n);
      tree.proofs.forEach((proof, i) => {
        expect(verifySortedPairProof(proof, tree.root, leaves[i]!)).toBe(true);
        expect(proof.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
      });
    }
  });

  it("rejects a proof for another leaf or a tampered proof", () => {
    const leaves = hashes(9);
    const tree = buildMerkleLeaves(leaves, (x) => x);
    expect(verifySortedPairProof(tree.proofs[0]!, tree.root, leaves[1]!)).toBe(false);
    const tampered = [...tree.proofs[3]!];
    tampered[0] = keccak256(tampered[0]!);
    expect(verifySortedPairProof(tampered, tree.root, leaves[3]!)).toBe(false);
  });

  it("has a root independent of leaf order, and keeps duplicate leaves provable", () => {
    const leaves = hashes(13);
    const root = buildMerkleLeaves(leaves, (x) => x).root;
    expect(buildMerkleLeaves([...leaves].reverse(), (x) => x).root).toBe(root);
    const withDuplicate = [...leaves, leaves[4]!];
    const tree = buildMerkleLeaves(withDuplicate, (x) => x);
    expect(tree.root).toBe(root);
    expect(verifySortedPairProof(tree.proofs[13]!, tree.root, leaves[4]!)).toBe(true);
  });

  it("proves typed leaves through their leaf hash", () => {
    const random = randomLeaves(seeded(7));
    const leaves = Array.from({ length: 11 }, (_, i) => random.refund(i, 10n));
    const tree = relayerRefundTree(leaves);
    expect(tree.leaves).toEqual(leaves);
    tree.proofs.forEach((proof, i) => {
      expect(verifySortedPairProof(proof, tree.root, hashRelayerRefundLeaf(leaves[i]!))).toBe(true);
    });
  });
});
