import { kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import type { Hex } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { crosschainService } from "../index.ts";
import { DEPOSIT_COLUMNS } from "../indexer/depositRows.ts";
import { createFillCostsStore } from "./fillCostsStore.ts";
import { createIndexerStore } from "./indexerStore.ts";

const b32 = (n: bigint | number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, [...kernelMigrations(), ...crosschainService.migrations]);
});

afterAll(async () => {
  await t?.drop();
});

it("records a fill's costs once, and only while the fill is stored from the block its receipt names", async () => {
  const indexer = createIndexerStore(t.db);
  await indexer.startOver(10, b32(0x5b), b32(0x6e), 0n);
  const fill = {
    kind: "fill" as const,
    relayHash: b32(0xabc),
    originChainId: 8453n,
    depositId: 1n,
    relayer: b32(0xfe),
    repaymentChainId: 10n,
    fillType: 0,
    updatedRecipient: b32(0xec),
    updatedOutputAmount: 5n,
    callsFailed: false,
    txHash: b32(0x7a),
    txIndex: 0,
    logIndex: 1,
    blockNumber: 3n,
    blockHash: b32(3),
  };
  const range = {
    blocks: [{ number: 3n, hash: b32(3), timestamp: 1_700_000_000 }],
    deposits: { columns: DEPOSIT_COLUMNS, count: 0, bytes: new Uint8Array(0) },
    fills: [fill],
    slowFills: [],
    speedUps: [],
    settlements: [],
  };
  expect(await indexer.appendRange(10, 0n, 3n, range)).toBe(true);
  const store = createFillCostsStore(t.db);
  const costs = {
    relayHash: fill.relayHash,
    txHash: fill.txHash,
    blockHash: b32(3),
    gasFee: 21_000n * 1_000_000_000n,
    gasTokenPriceUsd: 3000n * 10n ** 18n,
    inputPriceUsd: 10n ** 18n,
    outputPriceUsd: null,
    bridgeFeeUsd: -(10n ** 17n),
    swapTokenPriceUsd: null,
    swapFeeUsd: null,
  };
  const stored = async () =>
    (
      await t.db.query<{ gas_fee: string | null; output_price_usd: string | null; bridge_fee_usd: string | null }>(
        "SELECT gas_fee::text, output_price_usd::text, bridge_fee_usd::text FROM crosschain.fills",
      )
    )[0];
  // A receipt from another block (a reorg the indexer has not rolled back yet) writes nothing.
  expect(await store.save(10, [{ ...costs, blockHash: b32(4) }])).toBe(0);
  expect((await stored())?.gas_fee).toBeNull();
  expect(await store.save(10, [costs])).toBe(1);
  expect(await stored()).toEqual({
    gas_fee: "21000000000000",
    output_price_usd: null,
    bridge_fee_usd: "-100000000000000000",
  });
  // Once recorded, a record does not move.
  expect(await store.save(10, [{ ...costs, gasFee: 1n }])).toBe(0);
  expect((await stored())?.gas_fee).toBe("21000000000000");
});
