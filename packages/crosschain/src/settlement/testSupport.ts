/**
 * Test support for settlement: bundle items on made-up chains and tokens, a token map, random leaves of
 * each kind (seeded), and an independent sorted-pair Merkle verifier (OpenZeppelin `MerkleProof.verify`
 * rewritten in a few lines, so tests do not check Across' tree against itself).
 */
import { type Address, concat, type Hex, keccak256, pad, toHex } from "viem";
import type {
  BundleItem,
  BundleItemKind,
  PoolRebalanceLeaf,
  RelayerRefundLeaf,
  SlowFillLeaf,
  TokenMap,
  V3RelayData,
} from "./types.ts";

/** An address made of one repeated byte pattern, readable in failures: `addr(0xab)` = 0xabab…ab. */
export function addr(byte: number): Address {
  return `0x${byte.toString(16).padStart(2, "0").repeat(20)}` as Address;
}

/** L1 token number `i` (1-based), ascending in address as `i` grows. */
export const l1 = (i: number): Address => addr(0x10 * i);

/** The token of L1 token `l1Token` on `chainId`: a distinct, deterministic address per pair. */
export function l2(chainId: number, l1Token: Address): Address {
  return `0x${(chainId % 256).toString(16).padStart(2, "0")}${l1Token.slice(4)}` as Address;
}

/** A token map where every L1 token is routed to every chain through {@link l2}. */
export const allRoutes: TokenMap = {
  l2TokenOf: (chainId, l1Token) => l2(chainId, l1Token),
  l1TokenOf: () => undefined,
};

let nextDepositId = 1n;

/** One bundle item; `chainId` and `l1Token` default to chain 1 and `l1(1)`, the L2 token follows {@link l2}. */
export function item(kind: BundleItemKind, o: Partial<BundleItem> & { amount: bigint }): BundleItem {
  const chainId = o.chainId ?? 1;
  const l1Token = o.l1Token ?? l1(1);
  const depositId = o.depositId ?? nextDepositId++;
  return {
    kind,
    relayHash: pad(toHex(depositId), { size: 32 }),
    originChainId: o.originChainId ?? chainId,
    depositId,
    chainId,
    l1Token,
    l2Token: o.l2Token ?? l2(chainId, l1Token),
    payee: o.payee ?? addr(0),
    lpFee: o.lpFee ?? 0n,
    ...o,
  };
}

/** A V3RelayData with bytes32 addresses. */
export function relayData(originChainId: bigint, depositId: bigint, o: Partial<V3RelayData> = {}): V3RelayData {
  return {
    depositor: pad(addr(0xd1)),
    recipient: pad(addr(0xe1)),
    exclusiveRelayer: pad(addr(0)),
    inputToken: pad(addr(0xa1)),
    outputToken: pad(addr(0xb1)),
    inputAmount: 1_000n,
    outputAmount: 990n,
    originChainId,
    depositId,
    fillDeadline: 1_700_000_000,
    exclusivityDeadline: 0,
    message: "0x",
    ...o,
  };
}

/** Random leaves of each kind, drawn from `next` (a seeded [0, 1) source). */
export function randomLeaves(next: () => number) {
  const int = (max: number) => Math.floor(next() * max);
  const big = (bits: number) => {
    let v = 0n;
    for (let i = 0; i < bits; i += 24) v = (v << 24n) | BigInt(int(2 ** 24));
    return v & ((1n << BigInt(bits)) - 1n);
  };
  const address = () => toHex(big(160), { size: 20 }) as Address;
  return {
    pool: (leafId: number): PoolRebalanceLeaf => {
      const n = int(4);
      return {
        chainId: BigInt(1 + int(100_000)),
        bundleLpFees: Array.from({ length: n }, () => big(96)),
        netSendAmounts: Array.from({ length: n }, () => big(95) - big(95)),
        runningBalances: Array.from({ length: n }, () => big(95) - big(95)),
        groupIndex: BigInt(int(3)),
        leafId,
        l1Tokens: Array.from({ length: n }, address),
      };
    },
    refund: (leafId: number, chainId: bigint): RelayerRefundLeaf => {
      const n = int(5);
      return {
        amountToReturn: int(2) ? big(96) : 0n,
        chainId,
        refundAmounts: Array.from({ length: n }, () => big(96)),
        leafId,
        l2TokenAddress: address(),
        refundAddresses: Array.from({ length: n }, address),
      };
    },
    slow: (chainId: bigint): SlowFillLeaf => ({
      relayData: relayData(BigInt(1 + int(1000)), big(64), {
        depositor: toHex(big(256), { size: 32 }),
        recipient: pad(address()),
        inputAmount: big(96),
        outputAmount: big(96),
        fillDeadline: int(2 ** 32),
        exclusivityDeadline: int(2 ** 32),
        message: toHex(Uint8Array.from({ length: int(41) }, () => int(256))),
      }),
      chainId,
      updatedOutputAmount: big(96),
    }),
  };
}

/** OpenZeppelin `MerkleProof.verify`: fold the proof with keccak(min ‖ max) and compare with the root. */
export function verifySortedPairProof(proof: readonly Hex[], root: Hex, leafHash: Hex): boolean {
  let node = leafHash.toLowerCase() as Hex;
  for (const sibling of proof) {
    const s = sibling.toLowerCase() as Hex;
    node = keccak256(node < s ? concat([node, s]) : concat([s, node]));
  }
  return node === root.toLowerCase();
}
