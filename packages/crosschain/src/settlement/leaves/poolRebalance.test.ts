import { describe, expect, it } from "vitest";
import { addr, item, l1 } from "../testSupport.ts";
import { buildPoolRebalanceLeaves, computeRebalances, netSendAmount, type TokenRebalance } from "./poolRebalance.ts";

describe("netSendAmount (SDK computeDesiredTransferAmountToSpoke)", () => {
  it.each([
    // [running balance, target, threshold, net send]
    [0n, 0n, 0n, 0n],
    [150n, 0n, 0n, 150n], // the hub owes the spoke: always sent in full
    [150n, 40n, 100n, 150n],
    [-150n, 0n, 0n, -150n], // surplus: all of it back with 0/0
    [-150n, 40n, 100n, -110n], // beyond the threshold: back down to the target
    [-99n, 40n, 100n, 0n], // under the threshold: left on the spoke
    [-100n, 40n, 100n, -60n], // |rb| = threshold is not "under"
    [-30n, 50n, 20n, 0n], // misconfigured threshold < target: never a positive send
  ])("rb %d, target %d, threshold %d → %d", (rb, target, threshold, expected) => {
    expect(netSendAmount(rb, { target, threshold })).toBe(expected);
  });
});

describe("computeRebalances", () => {
  it("adds refunds, expired refunds and slow fills, subtracts deposits and excess slow fills, books LP fees", () => {
    const [r] = computeRebalances(
      [
        item("fillRefund", { chainId: 10, amount: 990n, lpFee: 10n, payee: addr(0xaa) }),
        item("expiredRefund", { chainId: 10, amount: 500n, payee: addr(0xbb) }),
        item("slowFill", { chainId: 10, amount: 196n, lpFee: 4n }),
        item("deposit", { chainId: 10, amount: 1_000n }),
        item("excessSlowFill", { chainId: 10, amount: 96n }),
      ],
      [{ chainId: 10, l1Token: l1(1), amount: -100n }],
    );
    // -100 + 990 + 500 + 196 - 1000 - 96 = 490: the hub sends it all and the balance returns to 0.
    expect(r).toEqual({ chainId: 10, l1Token: l1(1), previous: -100n, lpFees: 14n, netSend: 490n, runningBalance: 0n });
  });

  it("carries a surplus down to the target and keeps it under the threshold (next bundle)", () => {
    const targets = () => ({ target: 30n, threshold: 50n });
    const [first] = computeRebalances([item("deposit", { chainId: 10, amount: 100n })], [], targets);
    expect(first).toMatchObject({ netSend: -70n, runningBalance: -30n });
    const [second] = computeRebalances(
      [item("deposit", { chainId: 10, amount: 10n })],
      [{ chainId: 10, l1Token: l1(1), amount: -30n }],
      targets,
    );
    expect(second).toMatchObject({ previous: -30n, netSend: 0n, runningBalance: -40n });
    const [third] = computeRebalances(
      [item("fillRefund", { chainId: 10, amount: 60n })],
      [{ chainId: 10, l1Token: l1(1), amount: -40n }],
      targets,
    );
    expect(third).toMatchObject({ netSend: 20n, runningBalance: 0n });
  });

  it("keeps a pair with a nonzero carried balance but no activity, and drops an idle zero", () => {
    const targets = () => ({ target: 30n, threshold: 50n });
    const out = computeRebalances(
      [],
      [
        { chainId: 10, l1Token: l1(1), amount: -40n },
        { chainId: 10, l1Token: l1(2), amount: 0n },
      ],
      targets,
    );
    expect(out).toEqual([
      { chainId: 10, l1Token: l1(1), previous: -40n, lpFees: 0n, netSend: 0n, runningBalance: -40n },
    ]);
  });

  it("keeps an active pair that nets to zero, and merges addresses case-insensitively", () => {
    const upper = l1(1).toUpperCase().replace("0X", "0x") as `0x${string}`;
    const out = computeRebalances(
      [item("deposit", { chainId: 5, amount: 7n }), item("fillRefund", { chainId: 5, l1Token: upper, amount: 7n })],
      [],
    );
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ chainId: 5, netSend: 0n, runningBalance: 0n });
  });

  it("sorts by chain ascending, then L1 token address ascending", () => {
    const out = computeRebalances(
      [
        item("deposit", { chainId: 137, l1Token: l1(2), amount: 1n }),
        item("deposit", { chainId: 10, l1Token: l1(3), amount: 1n }),
        item("deposit", { chainId: 10, l1Token: l1(1), amount: 1n }),
        item("deposit", { chainId: 1, l1Token: l1(2), amount: 1n }),
      ],
      [],
    );
    expect(out.map((r) => [r.chainId, r.l1Token])).toEqual([
      [1, l1(2)],
      [10, l1(1)],
      [10, l1(3)],
      [137, l1(2)],
    ]);
  });
});

const rebalance = (chainId: number, token: number): TokenRebalance => ({
  chainId,
  l1Token: l1(token),
  previous: 0n,
  lpFees: BigInt(token),
  netSend: BigInt(-token),
  runningBalance: BigInt(token * 10),
});

describe("buildPoolRebalanceLeaves", () => {
  it("splits a chain's tokens at maxPoolLeafSize with groupIndex per chain and a global leafId", () => {
    const leaves = buildPoolRebalanceLeaves(
      [rebalance(1, 1), rebalance(1, 2), rebalance(1, 3), rebalance(1, 4), rebalance(1, 5), rebalance(10, 1)],
      [],
      2,
    );
    expect(leaves.map((l) => [l.chainId, l.groupIndex, l.leafId, l.l1Tokens])).toEqual([
      [1n, 0n, 0, [l1(1), l1(2)]],
      [1n, 1n, 1, [l1(3), l1(4)]],
      [1n, 2n, 2, [l1(5)]],
      [10n, 0n, 3, [l1(1)]],
    ]);
    expect(leaves[1]).toMatchObject({
      bundleLpFees: [3n, 4n],
      netSendAmounts: [-3n, -4n],
      runningBalances: [30n, 40n],
    });
  });

  it("gives a chain that only has refund or slow leaves one leaf with empty arrays, in chain order", () => {
    const leaves = buildPoolRebalanceLeaves([rebalance(10, 1)], [42161, 1, 10], 5);
    expect(leaves.map((l) => [l.chainId, l.groupIndex, l.leafId, l.l1Tokens.length])).toEqual([
      [1n, 0n, 0, 0],
      [10n, 0n, 1, 1],
      [42161n, 0n, 2, 0],
    ]);
    expect(leaves[0]).toMatchObject({ bundleLpFees: [], netSendAmounts: [], runningBalances: [] });
  });

  it("builds nothing for nothing", () => {
    expect(buildPoolRebalanceLeaves([], [], 5)).toEqual([]);
  });

  it("refuses more than 256 leaves (the HubPool's uint8 claimed bitmap) and a bad leaf size", () => {
    const many = Array.from({ length: 257 }, (_, i) => rebalance(1 + i, 1));
    expect(buildPoolRebalanceLeaves(many.slice(0, 256), [], 1)).toHaveLength(256);
    expect(() => buildPoolRebalanceLeaves(many, [], 1)).toThrow(/at most 256/);
    expect(() => buildPoolRebalanceLeaves([], [], 0)).toThrow(/positive integer/);
  });
});
