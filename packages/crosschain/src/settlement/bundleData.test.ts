import { kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { crosschainService } from "../index.ts";
import { bookItems, loadBundleItems, loadUnpricedDeposits } from "./bundleData.ts";
import {
  clearLedger,
  DEPOSITOR,
  insertBundle,
  insertDeposit,
  insertFill,
  OTHER_TOKEN,
  RELAYER,
  sameAddressTokenMap,
  TOKEN,
} from "./ledgerTestRows.ts";
import type { BundleItem } from "./types.ts";

const CHAINS = [1, 10, 137];
const tokenMap = sameAddressTokenMap(CHAINS);
const PCT = 10n ** 16n; // 1 %
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, [...kernelMigrations(), ...crosschainService.migrations]);
});
afterAll(async () => {
  await t?.drop();
});
beforeEach(async () => {
  await clearLedger(t.db);
});

/** Loads with every chain ending at `end` (or its override) and every end block at time `ts`. */
function load(opts: { end?: bigint; ends?: Record<number, bigint>; ts?: bigint; routed?: number[] } = {}) {
  return loadBundleItems(t.db, {
    ranges: CHAINS.map((chainId) => ({ chainId, start: 0n, end: opts.ends?.[chainId] ?? opts.end ?? 100n })),
    endTimestamps: new Map(CHAINS.map((c) => [c, opts.ts ?? 5_000n])),
    tokenMap,
    routedChains: new Set(opts.routed ?? CHAINS),
    lpFeeOf: () => PCT,
  });
}
const of = (items: BundleItem[], kind: BundleItem["kind"]) => items.filter((i) => i.kind === kind);
const deposit = (depositId: bigint, block = 10n, fillDeadline = 9_999n, extra = {}) =>
  insertDeposit(t.db, { origin: 10, destination: 137, depositId, block, fillDeadline, ...extra });

describe("deposits", () => {
  it("books a deposit at or below its origin end block, once", async () => {
    const h = await deposit(1n, 100n);
    await deposit(2n, 101n);
    const items = await load();
    expect(items).toEqual([
      {
        kind: "deposit",
        relayHash: h,
        originChainId: 10,
        depositId: 1n,
        chainId: 10,
        l1Token: TOKEN,
        l2Token: TOKEN,
        payee: "0x0000000000000000000000000000000000000000",
        amount: 1_000_000n,
        lpFee: 0n,
      },
    ]);
    await bookItems(t.db, await insertBundle(t.db), items);
    expect(await load()).toEqual([]);
    expect((await load({ end: 101n })).map((i) => i.depositId)).toEqual([2n]);
  });

  it("refuses to book an item twice", async () => {
    await deposit(1n);
    const items = await load();
    await bookItems(t.db, await insertBundle(t.db), items);
    await expect(bookItems(t.db, await insertBundle(t.db), items)).rejects.toThrow();
  });
});

describe("fill refunds", () => {
  it("repays the relayer on its repayment chain, input amount less the LP fee", async () => {
    const h = await deposit(1n);
    await insertFill(t.db, { relayHash: h, origin: 10, destination: 137, block: 50n, repaymentChainId: 1 });
    const [refund] = of(await load(), "fillRefund");
    expect(refund).toMatchObject({ chainId: 1, payee: RELAYER, l1Token: TOKEN, l2Token: TOKEN, relayHash: h });
    expect(refund?.lpFee).toBe(10_000n);
    expect(refund?.amount).toBe(990_000n);
  });

  it("falls back to the origin chain when the repayment chain is not routed or lacks the token", async () => {
    const a = await deposit(1n);
    const b = await deposit(2n);
    const c = await deposit(3n, 10n, 9_999n, { inputToken: OTHER_TOKEN, outputToken: OTHER_TOKEN });
    await insertFill(t.db, { relayHash: a, origin: 10, destination: 137, block: 50n, repaymentChainId: 1 });
    await insertFill(t.db, { relayHash: b, origin: 10, destination: 137, block: 50n, repaymentChainId: 424242 });
    await insertFill(t.db, { relayHash: c, origin: 10, destination: 137, block: 50n, repaymentChainId: 137 });
    const narrowMap = {
      l1TokenOf: tokenMap.l1TokenOf,
      l2TokenOf: (chainId: number, l1: `0x${string}`) =>
        chainId === 137 && l1 === OTHER_TOKEN ? undefined : tokenMap.l2TokenOf(chainId, l1),
    };
    const items = await loadBundleItems(t.db, {
      ranges: CHAINS.map((chainId) => ({ chainId, start: 0n, end: 100n })),
      endTimestamps: new Map(CHAINS.map((c) => [c, 5_000n])),
      tokenMap: narrowMap,
      routedChains: new Set([10, 137]),
      lpFeeOf: () => PCT,
    });
    const chains = new Map(of(items, "fillRefund").map((i) => [i.depositId, [i.chainId, i.l2Token]]));
    expect(chains).toEqual(
      new Map([
        [1n, [10, TOKEN]],
        [2n, [10, TOKEN]],
        [3n, [10, OTHER_TOKEN]],
      ]),
    );
  });

  it("makes a pre-fill (fill indexed before its deposit) wait for the bundle that contains the deposit", async () => {
    const h = await deposit(1n, 150n);
    await insertFill(t.db, { relayHash: h, origin: 10, destination: 137, block: 50n, repaymentChainId: 137 });
    const first = await load();
    expect(first).toEqual([]);
    await bookItems(t.db, await insertBundle(t.db), first);
    const second = await load({ ends: { 10: 200n } });
    expect(second.map((i) => i.kind)).toEqual(["deposit", "fillRefund"]);
  });

  it("does not refund slow fills (fill type 2) nor fills past the destination end", async () => {
    const a = await deposit(1n);
    const b = await deposit(2n);
    await insertFill(t.db, {
      relayHash: a,
      origin: 10,
      destination: 137,
      block: 50n,
      repaymentChainId: 137,
      fillType: 2,
    });
    await insertFill(t.db, { relayHash: b, origin: 10, destination: 137, block: 101n, repaymentChainId: 137 });
    expect(of(await load(), "fillRefund")).toEqual([]);
    expect(of(await load({ ends: { 137: 101n } }), "fillRefund").map((i) => i.depositId)).toEqual([2n]);
  });

  it("fails without an LP fee, and reads the stored one by default", async () => {
    const h = await deposit(1n);
    await insertFill(t.db, { relayHash: h, origin: 10, destination: 137, block: 50n, repaymentChainId: 137 });
    const input = {
      ranges: CHAINS.map((chainId) => ({ chainId, start: 0n, end: 100n })),
      endTimestamps: new Map(CHAINS.map((c) => [c, 5_000n])),
      tokenMap,
      routedChains: new Set(CHAINS),
    };
    await expect(loadBundleItems(t.db, input)).rejects.toThrow(/no LP fee/);
    const unpriced = await loadUnpricedDeposits(t.db, input);
    expect(unpriced.map((d) => [d.relayHash, d.inputToken, d.inputAmount])).toEqual([[h, TOKEN, 1_000_000n]]);
    await t.db.query("INSERT INTO crosschain.deposit_lp_fees VALUES (decode($1, 'hex'), $2, 7)", [h.slice(2), "2"]);
    expect(await loadUnpricedDeposits(t.db, input)).toEqual([]);
    const [refund] = of(await loadBundleItems(t.db, input), "fillRefund");
    expect(refund?.lpFee).toBe((1_000_000n * 2n) / 10n ** 18n);
  });
});

describe("expired refunds", () => {
  it("refunds an unfilled deposit whose deadline is before the destination end time, in full to the depositor", async () => {
    const h = await deposit(1n, 10n, 4_999n);
    const [refund] = of(await load({ ts: 5_000n }), "expiredRefund");
    expect(refund).toMatchObject({ relayHash: h, chainId: 10, payee: DEPOSITOR, amount: 1_000_000n, lpFee: 0n });
  });

  it("does not expire a deposit whose deadline equals the end time (a fill is still allowed then)", async () => {
    await deposit(1n, 10n, 5_000n);
    expect(of(await load({ ts: 5_000n }), "expiredRefund")).toEqual([]);
    expect(of(await load({ ts: 5_001n }), "expiredRefund")).toHaveLength(1);
  });

  it("never refunds a depositor that is not an EVM address (a bytes32 with nonzero upper bytes)", async () => {
    await deposit(1n, 10n, 10n, { depositor: `0x01${"0".repeat(22)}${DEPOSITOR.slice(2)}` });
    expect(of(await load(), "expiredRefund")).toEqual([]);
  });

  it("does not expire a filled deposit, but does when the fill lies past the destination end", async () => {
    const h = await deposit(1n, 10n, 10n);
    await insertFill(t.db, { relayHash: h, origin: 10, destination: 137, block: 90n, repaymentChainId: 137 });
    expect(of(await load(), "expiredRefund")).toEqual([]);
    expect(of(await load({ ends: { 137: 80n } }), "expiredRefund")).toHaveLength(1);
  });
});
