/**
 * The status rule with settlement and its outbox, through the indexer store as the indexer writes: refunded
 * by the execution of the deposit's own refund leaf (not another leaf of the bundle on the same chain), back to
 * expired when a reorg removes the execution; a slow fill ends filled; every change is one outbox row and
 * recording again writes nothing; the expiry sweep records passed deadlines.
 */
import { kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crosschainService } from "../index.ts";
import { createDepositsService } from "../services/deposits.ts";
import { startExpirySweep } from "../services/expirySweep.ts";
import {
  addr,
  b32,
  bytes,
  emptyRange,
  fillOf,
  insertBundle,
  insertExpiredRefund,
  insertRefundLeaf,
  refundExecution,
  relayHashOf,
  slowRequestOf,
  type TestDeposit,
  withDeposits,
} from "../testing/statusFixtures.ts";
import { recordStatusChanges, sweepExpiredStatuses } from "./depositStatusEvents.ts";
import { createDepositsRepository } from "./depositsRepository.ts";
import { createIndexerStore, type IndexerStore } from "./indexerStore.ts";

const ORIGIN = 10;
const DEST = 8453;
const USDC = addr(0x05dc);
const X = addr(0xaa01);
const Y = addr(0xaa02);
const now = () => Math.floor(Date.now() / 1000);

let t: TestDatabase;
let store: IndexerStore;

interface EventRow {
  deposit_id: string;
  status: string;
  fill_tx: Buffer | null;
  refund_tx: Buffer | null;
  cause: string;
}
const eventsOf = (depositId: number) =>
  t.db.query<EventRow>(
    `SELECT deposit_id::text, status, fill_tx, refund_tx, cause FROM crosschain.deposit_status_events
     WHERE origin_chain_id = $1 AND deposit_id = $2 ORDER BY id`,
    [ORIGIN, depositId],
  );
const statusOf = async (depositId: number) =>
  (
    await createDepositsService(createDepositsRepository(t.db)).find({
      by: "depositId",
      originChainId: ORIGIN,
      depositId: String(depositId),
      index: 0,
    })
  ).status;

const deposit = (depositId: number, o: Partial<TestDeposit> = {}): TestDeposit => ({
  originChainId: ORIGIN,
  destinationChainId: DEST,
  depositId,
  key: depositId,
  fillDeadline: now() + 3600,
  blockNumber: 1n,
  ...o,
});

// Expired deposits A (from X) and B (from Y), refunded by one bundle with two USDC leaves on the origin chain.
const A = deposit(1, { fillDeadline: 100, depositor: X });
const B = deposit(2, { fillDeadline: 100, depositor: Y });
// Pending, then slow-fill requested, then slow-filled.
const C = deposit(3);
// Pending until the sweep passes its deadline.
const D = deposit(4, { fillDeadline: now() + 60 });

beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, [...kernelMigrations(), ...crosschainService.migrations]);
  store = createIndexerStore(t.db);
  await store.startOver(ORIGIN, b32(0x5b), b32(0x6e), 0n);
  await store.startOver(DEST, b32(0x5c), b32(0x6f), 0n);
});

afterAll(async () => {
  await t?.drop();
});

describe("the status outbox", () => {
  it("records each stored deposit once, and recording again writes nothing", async () => {
    expect(await store.appendRange(ORIGIN, 0n, 1n, withDeposits(emptyRange(1n), [A, B, C, D]))).toBe(true);
    expect((await eventsOf(1)).map((e) => [e.status, e.cause])).toEqual([["expired", "indexer"]]);
    expect((await eventsOf(3)).map((e) => [e.status, e.cause])).toEqual([["pending", "indexer"]]);
    const again = await t.db.transaction((tx) =>
      recordStatusChanges(tx, { relayHashes: [A, B, C, D].map((d) => bytes(relayHashOf(d))) }, "indexer"),
    );
    expect(again).toBe(0);
    expect(await eventsOf(3)).toHaveLength(1);
  });

  it("a slow-fill request, then the slow fill (fillType 2), end filled with the fill tx", async () => {
    const range = { ...emptyRange(1n), slowFills: [slowRequestOf(C, b32(0x51), 1n)] };
    expect(await store.appendRange(DEST, 0n, 1n, range)).toBe(true);
    expect((await statusOf(3)).status).toBe("slowFillRequested");
    const filled = { ...emptyRange(2n), fills: [fillOf(C, b32(0x52), 2n, 2)] };
    expect(await store.appendRange(DEST, 2n, 2n, filled)).toBe(true);
    expect(await statusOf(3)).toMatchObject({ status: "filled", fillTxnRef: b32(0x52), actionsSucceeded: null });
    expect((await eventsOf(3)).map((e) => e.status)).toEqual(["pending", "slowFillRequested", "filled"]);
    expect((await eventsOf(3))[2]?.fill_tx).toEqual(bytes(b32(0x52)));
  });

  it("refunds each deposit by the execution of its own leaf, and a reorg moves it back to expired", async () => {
    await t.db.transaction(async (tx) => {
      const bundle = await insertBundle(tx);
      await insertExpiredRefund(tx, bundle, A, USDC, X);
      await insertExpiredRefund(tx, bundle, B, USDC, Y);
      const leaf = { bundleId: bundle, chainId: ORIGIN, l2Token: USDC, spokeRootBundleId: 7 };
      await insertRefundLeaf(tx, { ...leaf, leafId: 0, refundAddresses: [X] });
      await insertRefundLeaf(tx, { ...leaf, leafId: 1, refundAddresses: [Y] });
    });
    // Only leaf 1 (B's) is executed: A stays expired although the same root bundle was executed on its chain.
    const leaf1 = refundExecution(
      { rootBundleId: 7, leafId: 1, chainId: ORIGIN, l2Token: USDC, refundAddresses: [Y] },
      b32(0xf1),
      2n,
    );
    expect(await store.appendRange(ORIGIN, 2n, 2n, { ...emptyRange(2n), settlements: [leaf1] })).toBe(true);
    expect(await statusOf(2)).toMatchObject({ status: "refunded", depositRefundTxnRef: b32(0xf1) });
    expect(await statusOf(1)).toMatchObject({ status: "expired", depositRefundTxnRef: null });
    expect((await eventsOf(2)).map((e) => [e.status, e.cause])).toEqual([
      ["expired", "indexer"],
      ["refunded", "settlement"],
    ]);
    expect((await eventsOf(2))[1]?.refund_tx).toEqual(bytes(b32(0xf1)));
    expect(await eventsOf(1)).toHaveLength(1);

    const leaf0 = refundExecution(
      { rootBundleId: 7, leafId: 0, chainId: ORIGIN, l2Token: USDC, refundAddresses: [X] },
      b32(0xf0),
      3n,
    );
    expect(await store.appendRange(ORIGIN, 3n, 3n, { ...emptyRange(3n), settlements: [leaf0] })).toBe(true);
    expect(await statusOf(1)).toMatchObject({ status: "refunded", depositRefundTxnRef: b32(0xf0) });
    const listed = await createDepositsService(createDepositsRepository(t.db)).list({
      status: "refunded",
      skip: 0,
      limit: 10,
    });
    expect(listed.map((d) => d.deposit.deposit_id).sort()).toEqual(["1", "2"]);

    // Block 3 (leaf 0's execution) is reorged away: A is expired again, B keeps its refund.
    await store.rollbackTo(ORIGIN, 2n);
    expect(await statusOf(1)).toMatchObject({ status: "expired", depositRefundTxnRef: null });
    expect(await statusOf(2)).toMatchObject({ status: "refunded" });
    expect((await eventsOf(1)).map((e) => [e.status, e.cause, e.refund_tx])).toEqual([
      ["expired", "indexer", null],
      ["refunded", "settlement", bytes(b32(0xf0))],
      ["expired", "reorg", null],
    ]);
    expect(await eventsOf(2)).toHaveLength(2);
  });

  it("a reorg of the destination moves a filled deposit back", async () => {
    await store.rollbackTo(DEST, 1n);
    expect((await statusOf(3)).status).toBe("slowFillRequested");
    expect((await eventsOf(3)).map((e) => [e.status, e.cause])).toEqual([
      ["pending", "indexer"],
      ["slowFillRequested", "indexer"],
      ["filled", "indexer"],
      ["slowFillRequested", "reorg"],
    ]);
  });

  it("the expiry sweep records passed deadlines once", async () => {
    expect(await sweepExpiredStatuses(t.db, now())).toBe(0);
    const later = D.fillDeadline + 1;
    expect(await sweepExpiredStatuses(t.db, later, now() - 600)).toBe(1);
    expect(await sweepExpiredStatuses(t.db, later)).toBe(0);
    expect((await eventsOf(4)).map((e) => [e.status, e.cause])).toEqual([
      ["pending", "indexer"],
      ["expired", "expiry"],
    ]);
  });

  it("the sweep loop records a deadline passed since its previous pass", async () => {
    const E = deposit(5, { fillDeadline: now() + 30, blockNumber: 4n });
    expect(await store.appendRange(ORIGIN, 3n, 4n, withDeposits(emptyRange(3n, 4n), [E]))).toBe(true);
    let clock = now();
    const logger = { warn: () => {}, debug: () => {} };
    const sweep = startExpirySweep({ db: t.db, logger, intervalMs: 60_000, now: () => clock });
    expect(await sweep.runOnce()).toBe(0);
    clock = E.fillDeadline + 1;
    expect(await sweep.runOnce()).toBe(1);
    await sweep.stop();
    expect((await eventsOf(5)).map((e) => e.status)).toEqual(["pending", "expired"]);
  });
});
