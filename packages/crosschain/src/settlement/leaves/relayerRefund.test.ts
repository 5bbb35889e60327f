import { describe, expect, it } from "vitest";
import { addr, item, l1, l2, relayData } from "../testSupport.ts";
import { buildRelayerRefundLeaves, refundLeafLocator } from "./relayerRefund.ts";
import { buildSlowFillLeaves } from "./slowFill.ts";

const token = l2(10, l1(1));

describe("buildRelayerRefundLeaves", () => {
  it("merges fill and expired refunds per payee (case-insensitive) and sorts by amount desc, then address", () => {
    const [leaf, ...rest] = buildRelayerRefundLeaves(
      [
        item("fillRefund", { chainId: 10, amount: 30n, payee: addr(0xaa) }),
        item("expiredRefund", { chainId: 10, amount: 50n, payee: addr(0xcc) }),
        item("fillRefund", { chainId: 10, amount: 20n, payee: addr(0xaa).toUpperCase().replace("0X", "0x") as never }),
        item("fillRefund", { chainId: 10, amount: 50n, payee: addr(0xbb) }),
        item("deposit", { chainId: 10, amount: 1_000n }), // not a refund
        item("slowFill", { chainId: 10, amount: 999n, payee: addr(0xdd) }), // paid by a slow leaf, not here
      ],
      [],
      10,
    );
    expect(rest).toEqual([]);
    expect(leaf).toEqual({
      amountToReturn: 0n,
      chainId: 10n,
      refundAmounts: [50n, 50n, 50n],
      leafId: 0,
      l2TokenAddress: token,
      refundAddresses: [addr(0xaa), addr(0xbb), addr(0xcc)],
    });
  });

  it("splits at maxRefundLeafSize and puts amountToReturn on the first sub-leaf only", () => {
    const items = [1, 2, 3, 4, 5].map((i) => item("fillRefund", { chainId: 10, amount: BigInt(i), payee: addr(i) }));
    const leaves = buildRelayerRefundLeaves(items, [{ chainId: 10, l2Token: token, amount: 77n }], 2);
    expect(leaves.map((l) => [l.leafId, l.amountToReturn, l.refundAmounts])).toEqual([
      [0, 77n, [5n, 4n]],
      [1, 0n, [3n, 2n]],
      [2, 0n, [1n]],
    ]);
  });

  it("makes a leaf with no refunds for a return alone, and none for a zero return or zero refunds", () => {
    const leaves = buildRelayerRefundLeaves(
      [item("fillRefund", { chainId: 5, amount: 0n, payee: addr(1) })],
      [
        { chainId: 10, l2Token: token, amount: 40n },
        { chainId: 1, l2Token: l2(1, l1(1)), amount: 0n },
      ],
      3,
    );
    expect(leaves).toEqual([
      { amountToReturn: 40n, chainId: 10n, refundAmounts: [], leafId: 0, l2TokenAddress: token, refundAddresses: [] },
    ]);
    expect(() => buildRelayerRefundLeaves([], [{ chainId: 1, l2Token: token, amount: -1n }], 3)).toThrow(/negative/);
  });

  it("sorts leaves by (chainId, l2Token, groupIndex) with leafId = index", () => {
    const leaves = buildRelayerRefundLeaves(
      [
        item("fillRefund", { chainId: 137, l1Token: l1(1), amount: 1n, payee: addr(1) }),
        item("fillRefund", { chainId: 10, l1Token: l1(2), amount: 1n, payee: addr(1) }),
        item("fillRefund", { chainId: 10, l1Token: l1(1), amount: 1n, payee: addr(1) }),
        item("fillRefund", { chainId: 10, l1Token: l1(1), amount: 2n, payee: addr(2) }),
      ],
      [{ chainId: 1, l2Token: l2(1, l1(3)), amount: 9n }],
      1,
    );
    expect(leaves.map((l) => [l.leafId, l.chainId, l.l2TokenAddress, l.refundAmounts])).toEqual([
      [0, 1n, l2(1, l1(3)), []],
      [1, 10n, l2(10, l1(1)), [2n]],
      [2, 10n, l2(10, l1(1)), [1n]],
      [3, 10n, l2(10, l1(2)), [1n]],
      [4, 137n, l2(137, l1(1)), [1n]],
    ]);
  });

  it("locates the leaf paying an item, and nothing for items no refund leaf pays", () => {
    const items = [1, 2, 3, 4, 5].map((i) => item("fillRefund", { chainId: 10, amount: BigInt(i), payee: addr(i) }));
    const expired = item("expiredRefund", { chainId: 10, amount: 3n, payee: addr(3) });
    const deposit = item("deposit", { chainId: 10, amount: 3n, payee: addr(3) });
    const locate = refundLeafLocator(buildRelayerRefundLeaves([...items, expired], [], 2));
    // addr(3) is owed 3 + 3 = 6: leaves [addr3 6, addr5 5], [addr4 4, addr2 2], [addr1 1]
    expect(items.map(locate)).toEqual([2, 1, 0, 1, 0]);
    expect(locate(expired)).toBe(0);
    expect(locate(deposit)).toBeUndefined();
    expect(locate({ ...items[0]!, chainId: 137 })).toBeUndefined();
  });
});

describe("buildSlowFillLeaves", () => {
  it("makes one leaf per slow fill on its destination, sorted by (originChainId, depositId)", () => {
    const slow = (origin: bigint, id: bigint, amount: bigint) =>
      item("slowFill", { chainId: 10, amount, relayData: relayData(origin, id) });
    const leaves = buildSlowFillLeaves([
      slow(137n, 1n, 5n),
      slow(1n, 20n, 6n),
      item("fillRefund", { amount: 1n }),
      slow(1n, 3n, 7n),
    ]);
    expect(
      leaves.map((l) => [l.relayData.originChainId, l.relayData.depositId, l.chainId, l.updatedOutputAmount]),
    ).toEqual([
      [1n, 3n, 10n, 7n],
      [1n, 20n, 10n, 6n],
      [137n, 1n, 10n, 5n],
    ]);
  });

  it("refuses a slow fill without relay data", () => {
    expect(() => buildSlowFillLeaves([item("slowFill", { amount: 1n })])).toThrow(/no relayData/);
  });
});
