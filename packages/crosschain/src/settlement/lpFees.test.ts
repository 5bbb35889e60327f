import { kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import type { Address } from "viem";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { computeLpFee, type L1TokenRateConfig } from "../domain/fees/lpFee.ts";
import { crosschainService } from "../index.ts";
import { clearLedger, OTHER_TOKEN, sameAddressTokenMap, TOKEN, testRelayHash } from "./ledgerTestRows.ts";
import {
  ensureDepositLpFees,
  type LpFeeDeposit,
  type LpFeePricing,
  loadHubSnapshots,
  realizedLpFeePct,
  recordHubSnapshot,
  snapshotAt,
} from "./lpFees.ts";

const E18 = 10n ** 18n;
const MODEL = { UBar: (65n * E18) / 100n, R0: 0n, R1: (8n * E18) / 100n, R2: E18 };
const ROUTE_MODEL = { UBar: (50n * E18) / 100n, R0: E18 / 10n, R1: 0n, R2: 0n };
const config: L1TokenRateConfig = { rateModel: MODEL, routeRateModel: { "10-137": ROUTE_MODEL } };
const pricing: LpFeePricing = {
  tokenMap: sameAddressTokenMap([1, 10, 137]),
  hubChainId: 1,
  rateConfigOf: (l1: Address) => (l1 === TOKEN ? config : undefined),
  decimalsOf: () => 6,
};
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

const reserves = (liquid: bigint, utilized: bigint) => [
  { l1Token: TOKEN, liquidReserves: liquid, utilizedReserves: utilized, undistributedLpFees: 5n },
  { l1Token: OTHER_TOKEN, liquidReserves: 1n, utilizedReserves: 0n, undistributedLpFees: 0n },
];
const deposit = (depositId: bigint, quoteTimestamp: bigint, destination = 1): LpFeeDeposit => ({
  relayHash: testRelayHash(10, depositId),
  originChainId: 10,
  destinationChainId: destination,
  inputToken: TOKEN,
  inputAmount: 400_000_000n,
  quoteTimestamp,
});

describe("hub snapshots", () => {
  it("records a block's reserves once, however often it is recorded", async () => {
    const snapshot = { blockNumber: 7n, blockTimestamp: 1_000n, reserves: reserves(1_000_000_000n, -3n) };
    await recordHubSnapshot(t.db, snapshot);
    await recordHubSnapshot(t.db, { ...snapshot, reserves: reserves(1n, 1n) });
    const points = (await loadHubSnapshots(t.db, [TOKEN])).get(TOKEN);
    expect(points).toEqual([
      { blockNumber: 7n, blockTimestamp: 1_000n, reserves: { liquidReserves: 1_000_000_000n, utilizedReserves: -3n } },
    ]);
  });

  it("picks the latest snapshot at or before the quote time, else the earliest", () => {
    const at = (n: number, ts: number) => ({
      blockNumber: BigInt(n),
      blockTimestamp: BigInt(ts),
      reserves: { liquidReserves: 0n, utilizedReserves: 0n },
    });
    const points = [at(1, 100), at(2, 200), at(3, 200), at(4, 300)];
    expect(snapshotAt(points, 50n)?.blockNumber).toBe(1n);
    expect(snapshotAt(points, 100n)?.blockNumber).toBe(1n);
    expect(snapshotAt(points, 250n)?.blockNumber).toBe(3n);
    expect(snapshotAt(points, 300n)?.blockNumber).toBe(4n);
    expect(snapshotAt(points, 10_000n)?.blockNumber).toBe(4n);
    expect(snapshotAt([], 1n)).toBeUndefined();
  });
});

describe("realized LP fee", () => {
  it("prices a deposit as the quote did: computeLpFee on the reserves at its quote time, with the route's model", async () => {
    await recordHubSnapshot(t.db, { blockNumber: 5n, blockTimestamp: 900n, reserves: reserves(1_000_000_000n, 0n) });
    await recordHubSnapshot(t.db, {
      blockNumber: 9n,
      blockTimestamp: 1_100n,
      reserves: reserves(600_000_000n, 400_000_000n),
    });
    const snapshots = await loadHubSnapshots(t.db, [TOKEN]);
    const quoted = (liquid: bigint, utilized: bigint, rateModel = MODEL) =>
      computeLpFee({
        amount: 400_000_000n,
        inputDecimals: 6,
        l1Decimals: 6,
        reserves: { liquidReserves: liquid, utilizedReserves: utilized },
        rateModel,
      }).pct;
    const early = realizedLpFeePct(snapshots, deposit(1n, 1_000n), pricing);
    expect(early).toEqual({ lpFeePct: quoted(1_000_000_000n, 0n), hubBlock: 5n });
    expect(early.lpFeePct).toBeGreaterThan(0n);
    const late = realizedLpFeePct(snapshots, deposit(2n, 1_100n), pricing);
    expect(late).toEqual({ lpFeePct: quoted(600_000_000n, 400_000_000n), hubBlock: 9n });
    expect(late.lpFeePct).toBeGreaterThan(early.lpFeePct);
    const routed = realizedLpFeePct(snapshots, deposit(3n, 1_100n, 137), pricing);
    expect(routed.lpFeePct).toBe(quoted(600_000_000n, 400_000_000n, ROUTE_MODEL));
  });

  it("refuses to price a token without snapshots", () => {
    expect(() => realizedLpFeePct(new Map(), deposit(1n, 1n), pricing)).toThrow(/no HubPool snapshot/);
  });

  it("stores each deposit's fee once and never recomputes it", async () => {
    await recordHubSnapshot(t.db, { blockNumber: 5n, blockTimestamp: 900n, reserves: reserves(1_000_000_000n, 0n) });
    const unrouted = { ...deposit(9n, 1_000n), inputToken: "0x00000000000000000000000000000000000000ff" as Address };
    const first = await ensureDepositLpFees(t.db, [deposit(1n, 1_000n), unrouted], pricing);
    expect([...first.keys()]).toEqual([deposit(1n, 0n).relayHash]);
    const pct = first.get(deposit(1n, 0n).relayHash)!;
    expect(pct).toBeGreaterThan(0n);

    // Reserves recorded later at an earlier time would price it differently: the stored fee stands.
    await recordHubSnapshot(t.db, {
      blockNumber: 4n,
      blockTimestamp: 800n,
      reserves: reserves(500_000_000n, 500_000_000n),
    });
    const again = await ensureDepositLpFees(t.db, [deposit(1n, 1_000n), deposit(2n, 850n)], pricing);
    expect(again.get(deposit(1n, 0n).relayHash)).toBe(pct);
    expect(again.get(deposit(2n, 0n).relayHash)).toBeGreaterThan(pct);
    const rows = await t.db.query<{ n: string }>("SELECT count(*)::text AS n FROM crosschain.deposit_lp_fees");
    expect(rows[0]?.n).toBe("2");
  });
});
