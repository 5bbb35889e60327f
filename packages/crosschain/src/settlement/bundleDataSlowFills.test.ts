import { kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { type Hex, keccak256, stringToHex } from "viem";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { crosschainService } from "../index.ts";
import { bookItems, loadBundleItems } from "./bundleData.ts";
import {
  clearLedger,
  DEPOSITOR,
  insertBundle,
  insertDeposit,
  insertFill,
  insertSlowLeaf,
  insertSlowRequest,
  OTHER_TOKEN,
  RECIPIENT,
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

describe("slow fills", () => {
  it("gives a requested, unfilled, unexpired deposit a slow leaf on the destination with its relay data", async () => {
    const h = await deposit(1n, 10n, 9_999n, { message: "0xabcd" });
    await insertSlowRequest(t.db, { relayHash: h, destination: 137, block: 60n });
    const [slow] = of(await load(), "slowFill");
    expect(slow).toMatchObject({ chainId: 137, payee: RECIPIENT, l2Token: TOKEN, lpFee: 10_000n, amount: 990_000n });
    expect(slow?.relayData).toMatchObject({
      depositor: `0x${"0".repeat(24)}${DEPOSITOR.slice(2)}`,
      outputToken: `0x${"0".repeat(24)}${TOKEN.slice(2)}`,
      inputAmount: 1_000_000n,
      outputAmount: 990_000n,
      originChainId: 10n,
      depositId: 1n,
      fillDeadline: 9_999,
      message: "0xabcd",
    });
  });

  it("gives no slow leaf to a V5-tagged message (SpokePool nonV5Fill) nor to a zero-value deposit", async () => {
    const v5 = `${keccak256(stringToHex("AcrossV5MessagePrefix.V1"))}${"ab".repeat(32)}` as Hex;
    const tagged = await deposit(1n, 10n, 9_999n, { message: v5 });
    const empty = await deposit(2n, 10n, 9_999n, { inputAmount: 0n });
    const plain = await deposit(3n, 10n, 9_999n, { message: "0x1234" });
    for (const relayHash of [tagged, empty, plain])
      await insertSlowRequest(t.db, { relayHash, destination: 137, block: 60n });
    expect(of(await load(), "slowFill").map((i) => i.relayHash)).toEqual([plain]);
  });

  it("gives no slow leaf to an expired, filled, token-changing or already-booked request", async () => {
    const expired = await deposit(1n, 10n, 4_000n);
    const filled = await deposit(2n);
    const swapped = await deposit(3n, 10n, 9_999n, { outputToken: OTHER_TOKEN });
    const booked = await deposit(4n);
    for (const relayHash of [expired, filled, swapped, booked]) {
      await insertSlowRequest(t.db, { relayHash, destination: 137, block: 60n });
    }
    await insertFill(t.db, {
      relayHash: filled,
      origin: 10,
      destination: 137,
      block: 70n,
      repaymentChainId: 137,
      fillType: 1,
    });
    const bundle = await insertBundle(t.db);
    const [bookedSlow] = of(await load(), "slowFill").filter((i) => i.relayHash === booked);
    await bookItems(t.db, bundle, [bookedSlow!]);
    const items = await load();
    expect(of(items, "slowFill")).toEqual([]);
    expect(of(items, "expiredRefund").map((i) => i.relayHash)).toEqual([expired]);
  });
});

describe("excess slow fills", () => {
  it("takes back a superseded or expired slow leaf once, on its chain", async () => {
    const a = await deposit(1n);
    const b = await deposit(2n);
    const c = await deposit(3n);
    const bundle = await insertBundle(t.db);
    await insertSlowLeaf(t.db, { bundleId: bundle, relayHash: a, chainId: 137, amount: 990n, state: "superseded" });
    await insertSlowLeaf(t.db, { bundleId: bundle, relayHash: b, chainId: 137, amount: 991n, state: "expired" });
    await insertSlowLeaf(t.db, { bundleId: bundle, relayHash: c, chainId: 137, amount: 992n, state: "pending" });
    const excess = of(await load(), "excessSlowFill");
    expect(excess.map((i) => [i.relayHash, i.chainId, i.amount, i.l2Token])).toEqual(
      expect.arrayContaining([
        [a, 137, 990n, TOKEN],
        [b, 137, 991n, TOKEN],
      ] as [Hex, number, bigint, string][]),
    );
    expect(excess).toHaveLength(2);
    await bookItems(t.db, bundle, excess);
    expect(of(await load(), "excessSlowFill")).toEqual([]);
  });
});
