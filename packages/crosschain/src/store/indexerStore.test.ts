import { kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import type { Hex } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { crosschainService } from "../index.ts";
import { DEPOSIT_COLUMNS } from "../indexer/depositRows.ts";
import { createIndexerStore, type RangeData } from "./indexerStore.ts";

const b32 = (n: bigint | number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, [...kernelMigrations(), ...crosschainService.migrations]);
});

afterAll(async () => {
  await t?.drop();
});

it("stores a fill naming chain ids no chain has (anyone may fill any relay data) without failing its range", async () => {
  const store = createIndexerStore(t.db);
  await store.startOver(10, b32(0x5b), b32(0x6e), 0n);
  const huge = 2n ** 256n - 1n;
  const data: RangeData = {
    blocks: [{ number: 3n, hash: b32(3), timestamp: 1_700_000_000 }],
    deposits: { columns: DEPOSIT_COLUMNS, count: 0, bytes: new Uint8Array(0) },
    fills: [
      {
        kind: "fill",
        relayHash: b32(0xabc),
        originChainId: huge,
        depositId: huge,
        relayer: b32(0xfe),
        repaymentChainId: 2n ** 64n + 1n,
        fillType: 0,
        updatedRecipient: b32(0xec),
        updatedOutputAmount: 0n,
        callsFailed: false,
        txHash: b32(0x7a),
        txIndex: 0,
        logIndex: 1,
        blockNumber: 3n,
        blockHash: b32(3),
      },
    ],
    slowFills: [],
    speedUps: [],
    settlements: [],
  };
  expect(await store.appendRange(10, 0n, 3n, data)).toBe(true);
  const [fill] = await t.db.query<{ origin_chain_id: string; repayment_chain_id: string; deposit_id: string }>(
    "SELECT origin_chain_id::text, repayment_chain_id::text, deposit_id::text FROM crosschain.fills",
  );
  expect(fill).toEqual({
    origin_chain_id: huge.toString(),
    repayment_chain_id: (2n ** 64n + 1n).toString(),
    deposit_id: huge.toString(),
  });
  expect((await store.checkpoint(10))?.next_block).toBe("4");
});
