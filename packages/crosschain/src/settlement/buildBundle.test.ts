import { hexToBigInt } from "viem";
import { describe, expect, it } from "vitest";
import { type BuildBundleInput, buildBundle, refundLeafIdOf } from "./buildBundle.ts";
import { hashPoolRebalanceLeaf, hashRelayerRefundLeaf, hashSlowFillLeaf } from "./leaves/encode.ts";
import { EMPTY_MERKLE_ROOT } from "./merkle.ts";
import { addr, allRoutes, item, l1, l2, relayData, verifySortedPairProof } from "./testSupport.ts";
import type { BuiltBundle, BundleItem } from "./types.ts";

const CHAINS = [1, 10, 137, 42161];
const base: Omit<BuildBundleInput, "items"> = {
  previousRunningBalances: [],
  tokenMap: allRoutes,
  maxRefundLeafSize: 3,
  maxPoolLeafSize: 2,
  chainIds: CHAINS,
};

function expectProofsVerify(b: BuiltBundle): void {
  const check = <L>(
    t: { leaves: L[]; root: `0x${string}`; proofs: `0x${string}`[][] },
    hash: (l: L) => `0x${string}`,
  ) => {
    t.leaves.forEach((leaf, i) => {
      expect(verifySortedPairProof(t.proofs[i]!, t.root, hash(leaf))).toBe(true);
    });
  };
  check(b.poolRebalance, hashPoolRebalanceLeaf);
  check(b.relayerRefund, hashRelayerRefundLeaf);
  check(b.slowRelay, hashSlowFillLeaf);
}

describe("buildBundle", () => {
  it("builds an empty bundle: no leaves, zero roots", () => {
    const b = buildBundle({ ...base, items: [] });
    for (const tree of [b.poolRebalance, b.relayerRefund, b.slowRelay]) {
      expect(tree).toEqual({ leaves: [], root: EMPTY_MERKLE_ROOT, proofs: [] });
    }
    expect(b.runningBalances).toEqual([]);
  });

  it("sends to the repayment chain, pulls the deposit back from the origin through amountToReturn", () => {
    const relayer = addr(0xaa);
    const b = buildBundle({
      ...base,
      items: [
        item("deposit", { chainId: 10, originChainId: 10, amount: 1_000n }),
        item("fillRefund", { chainId: 1, originChainId: 10, amount: 990n, lpFee: 10n, payee: relayer }),
      ],
    });
    expect(b.poolRebalance.leaves).toEqual([
      {
        chainId: 1n,
        bundleLpFees: [10n],
        netSendAmounts: [990n],
        runningBalances: [0n],
        groupIndex: 0n,
        leafId: 0,
        l1Tokens: [l1(1)],
      },
      {
        chainId: 10n,
        bundleLpFees: [0n],
        netSendAmounts: [-1_000n],
        runningBalances: [0n],
        groupIndex: 0n,
        leafId: 1,
        l1Tokens: [l1(1)],
      },
    ]);
    expect(b.relayerRefund.leaves).toEqual([
      {
        amountToReturn: 0n,
        chainId: 1n,
        refundAmounts: [990n],
        leafId: 0,
        l2TokenAddress: l2(1, l1(1)),
        refundAddresses: [relayer],
      },
      {
        amountToReturn: 1_000n,
        chainId: 10n,
        refundAmounts: [],
        leafId: 1,
        l2TokenAddress: l2(10, l1(1)),
        refundAddresses: [],
      },
    ]);
    expect(b.runningBalances).toEqual([
      { chainId: 1, l1Token: l1(1), amount: 0n },
      { chainId: 10, l1Token: l1(1), amount: 0n },
    ]);
    expectProofsVerify(b);
  });

  it("carries running balances with a target and returns only what exceeds it", () => {
    const targets = (chainId: number) =>
      chainId === 10 ? { target: 300n, threshold: 500n } : { target: 0n, threshold: 0n };
    const first = buildBundle({ ...base, targets, items: [item("deposit", { chainId: 10, amount: 1_000n })] });
    expect(first.poolRebalance.leaves[0]).toMatchObject({ netSendAmounts: [-700n], runningBalances: [-300n] });
    expect(first.relayerRefund.leaves[0]).toMatchObject({ amountToReturn: 700n, chainId: 10n });
    expect(first.runningBalances).toEqual([{ chainId: 10, l1Token: l1(1), amount: -300n }]);

    const second = buildBundle({
      ...base,
      targets,
      previousRunningBalances: first.runningBalances,
      items: [item("deposit", { chainId: 10, amount: 100n })],
    });
    // -400 is under the threshold: nothing moves, the balance carries, and there is no refund leaf to return.
    expect(second.poolRebalance.leaves).toMatchObject([
      { chainId: 10n, netSendAmounts: [0n], runningBalances: [-400n] },
    ]);
    expect(second.relayerRefund.leaves).toEqual([]);

    const third = buildBundle({
      ...base,
      targets,
      previousRunningBalances: second.runningBalances,
      items: [item("fillRefund", { chainId: 10, amount: 650n, payee: addr(1) })],
    });
    // -400 + 650 = 250 ≥ 0: the hub sends it and the spoke's running balance is back to 0.
    expect(third.poolRebalance.leaves).toMatchObject([{ chainId: 10n, netSendAmounts: [250n], runningBalances: [0n] }]);
    expect(third.relayerRefund.leaves).toMatchObject([{ amountToReturn: 0n, refundAmounts: [650n] }]);
  });

  it("repeats a carried balance with no activity in the pool leaf", () => {
    const b = buildBundle({
      ...base,
      targets: () => ({ target: 300n, threshold: 500n }),
      previousRunningBalances: [{ chainId: 137, l1Token: l1(2), amount: -300n }],
      items: [],
    });
    expect(b.poolRebalance.leaves).toEqual([
      {
        chainId: 137n,
        bundleLpFees: [0n],
        netSendAmounts: [0n],
        runningBalances: [-300n],
        groupIndex: 0n,
        leafId: 0,
        l1Tokens: [l1(2)],
      },
    ]);
  });

  it("adds slow fills to the destination, subtracts excess slow fills, and gives the chain a pool leaf", () => {
    const b = buildBundle({
      ...base,
      items: [
        item("slowFill", { chainId: 42161, originChainId: 1, amount: 495n, lpFee: 5n, relayData: relayData(1n, 8n) }),
        item("excessSlowFill", { chainId: 42161, amount: 95n }),
      ],
    });
    expect(b.slowRelay.leaves).toEqual([{ relayData: relayData(1n, 8n), chainId: 42161n, updatedOutputAmount: 495n }]);
    expect(b.poolRebalance.leaves).toMatchObject([
      { chainId: 42161n, bundleLpFees: [5n], netSendAmounts: [400n], runningBalances: [0n], leafId: 0 },
    ]);
    expect(b.relayerRefund.leaves).toEqual([]);
    expectProofsVerify(b);
  });

  it("splits pool leaves by token and refund leaves by payee, consistently numbered", () => {
    const items: BundleItem[] = [];
    for (const t of [1, 2, 3]) {
      for (const p of [1, 2, 3, 4])
        items.push(item("fillRefund", { chainId: 10, l1Token: l1(t), amount: BigInt(p * t), payee: addr(p) }));
    }
    items.push(item("deposit", { chainId: 10, l1Token: l1(3), amount: 10_000n }));
    const b = buildBundle({ ...base, items });
    expect(b.poolRebalance.leaves.map((l) => [l.groupIndex, l.leafId, l.l1Tokens])).toEqual([
      [0n, 0, [l1(1), l1(2)]],
      [1n, 1, [l1(3)]],
    ]);
    expect(b.relayerRefund.leaves.map((l) => [l.leafId, l.l2TokenAddress, l.amountToReturn, l.refundAmounts])).toEqual([
      [0, l2(10, l1(1)), 0n, [4n, 3n, 2n]],
      [1, l2(10, l1(1)), 0n, [1n]],
      [2, l2(10, l1(2)), 0n, [8n, 6n, 4n]],
      [3, l2(10, l1(2)), 0n, [2n]],
      [4, l2(10, l1(3)), 10_000n - 30n, [12n, 9n, 6n]],
      [5, l2(10, l1(3)), 0n, [3n]],
    ]);
    for (const it of items.filter((i) => i.kind === "fillRefund")) {
      const leaf = b.relayerRefund.leaves[refundLeafIdOf(b, it)!]!;
      expect(leaf.l2TokenAddress).toBe(it.l2Token);
      expect(leaf.refundAddresses).toContain(it.payee);
    }
    expectProofsVerify(b);
  });

  it("gives the same roots whatever the item order", () => {
    const items = Array.from({ length: 60 }, (_, i) =>
      item(i % 3 === 0 ? "deposit" : "fillRefund", {
        chainId: CHAINS[i % 4]!,
        l1Token: l1(1 + (i % 3)),
        amount: BigInt(100 + i),
        lpFee: BigInt(i % 5),
        payee: addr(1 + (i % 7)),
      }),
    );
    const a = buildBundle({ ...base, items });
    const b = buildBundle({ ...base, items: [...items].reverse() });
    expect([b.poolRebalance.root, b.relayerRefund.root]).toEqual([a.poolRebalance.root, a.relayerRefund.root]);
    expect(hexToBigInt(a.poolRebalance.root)).not.toBe(0n);
  });

  it("refuses an unknown chain, a negative amount and a pair without a route", () => {
    expect(() => buildBundle({ ...base, items: [item("deposit", { chainId: 5, amount: 1n })] })).toThrow(/chain 5/);
    expect(() =>
      buildBundle({ ...base, items: [], previousRunningBalances: [{ chainId: 5, l1Token: l1(1), amount: -1n }] }),
    ).toThrow(/chain 5/);
    expect(() => buildBundle({ ...base, items: [item("fillRefund", { chainId: 10, amount: -1n })] })).toThrow(
      /negative/,
    );
    const tokenMap = { l1TokenOf: () => undefined, l2TokenOf: () => undefined };
    expect(() => buildBundle({ ...base, tokenMap, items: [item("deposit", { chainId: 10, amount: 1n })] })).toThrow(
      /no pool rebalance route/,
    );
  });
});
