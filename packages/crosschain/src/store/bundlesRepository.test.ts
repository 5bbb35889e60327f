import { hexToBytea, kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import type { Address, Hex } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { crosschainService } from "../index.ts";
import type { BuiltBundle } from "../settlement/types.ts";
import { type BundleRange, createBundlesRepository } from "./bundlesRepository.ts";

const b32 = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
const TOKEN = "0x00000000000000000000000000000000000000aa" as Address;
const noFence = async () => {};
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, [...kernelMigrations(), ...crosschainService.migrations]);
});

afterAll(async () => {
  await t?.drop();
});

const ranges: BundleRange[] = [{ chainId: 10, start: 1n, end: 9n, endHash: b32(9), endTimestamp: 1_700_000_000n }];

function built(runningBalance: bigint): BuiltBundle {
  return {
    poolRebalance: {
      leaves: [
        {
          chainId: 10n,
          bundleLpFees: [0n],
          netSendAmounts: [0n],
          runningBalances: [runningBalance],
          groupIndex: 0n,
          leafId: 0,
          l1Tokens: [TOKEN],
        },
      ],
      root: b32(1),
      proofs: [[]],
    },
    relayerRefund: { leaves: [], root: b32(0), proofs: [] },
    slowRelay: { leaves: [], root: b32(0), proofs: [] },
    runningBalances: [{ chainId: 10, l1Token: TOKEN, amount: runningBalance }],
  };
}

it("carries the running balances of executed bundles only, one open bundle at a time", async () => {
  const repo = createBundlesRepository(t.db);
  const first = await repo.insertBuilt(noFence, ranges, built(-5n), async () => {}, []);
  await expect(repo.insertBuilt(noFence, ranges, built(1n), async () => {}, [])).rejects.toThrow();
  expect(await repo.runningBalances()).toEqual([]);
  await repo.markProposed(noFence, first, { tx: b32(2), block: 3n, challengeEnd: 4n });
  await repo.markExecuted(noFence, first);
  expect(await repo.runningBalances()).toEqual([{ chainId: 10, l1Token: TOKEN, amount: -5n }]);
  expect((await repo.lastProposed())?.ranges).toEqual(ranges);
  expect(await repo.openBundle()).toBeUndefined();
});

it("finds the spoke's id of roots a canonical bridge relayed, from the indexed RelayedRootBundle", async () => {
  const repo = createBundlesRepository(t.db);
  const refundRoot = `0x${"Ab".repeat(32)}` as Hex;
  const slowRoot = b32(0);
  expect(await repo.relayedRootBundleId(10, refundRoot, slowRoot)).toBeUndefined();
  await t.db.query(
    `INSERT INTO crosschain.settlement_events (chain_id, event_name, args, tx_hash, log_index, block_number)
     VALUES (10, 'RelayedRootBundle', $1, $2, 0, 5)`,
    [
      JSON.stringify({ rootBundleId: 7, relayerRefundRoot: refundRoot.toLowerCase(), slowRelayRoot: slowRoot }),
      hexToBytea(b32(0x77)),
    ],
  );
  expect(await repo.relayedRootBundleId(10, refundRoot, slowRoot)).toBe(7);
  expect(await repo.relayedRootBundleId(137, refundRoot, slowRoot)).toBeUndefined();
});
