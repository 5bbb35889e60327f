/**
 * The equity snapshot job against a real database: one row per account and bucket whoever records it (twice,
 * or two instances at once), equity from cash and positions at the market's prices (long and short, a symbol
 * without a price at its entry price), only changed accounts written in later buckets, every account
 * reached through the batches, `last_equity` from the previous trading day's close, and the recurring job
 * on the kernel's job workers (one occurrence per period among several).
 */
import { randomUUID } from "node:crypto";
import { createJobWorker, createLogger, type Queryable } from "@platform/kernel";
import type { TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import type { AccountRow } from "../store/accountsRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { createEquitySnapshotRecorder, EQUITY_SNAPSHOTS_QUEUE, previousSessionClose } from "./equitySnapshots.ts";
import { createMarketService } from "./market.ts";

const MINUTE = 60_000;
/** Monday 2026-03-02, 10:00 New York (EST): before that day's close. */
const T1 = Date.parse("2026-03-02T15:00:00Z");
const logger = createLogger({ level: "silent" });

let database: TestDatabase;
let db: Queryable;
/** Six accounts: A (long AAPL, short TSLA), B (BTC), C, D, E, F without positions. */
let accounts: AccountRow[];
const prices = new Map<string, number>([
  ["AAPL", 200],
  ["TSLA", 100],
  ["BTC/USD", 50_000.5],
]);
const market = {
  priceOf(symbol: string): number {
    const price = prices.get(symbol);
    if (price === undefined) throw new Error(`no price for ${symbol}`);
    return price;
  },
};
const recorder = (batchSize?: number) =>
  createEquitySnapshotRecorder({ db, market, intervalMs: MINUTE, logger, ...(batchSize ? { batchSize } : {}) });

async function insertPosition(accountId: string, symbol: string, qty: string, avgEntryPrice: string) {
  await db.query(
    `INSERT INTO brokerage.positions (account_id, symbol, asset_id, asset_class, exchange, qty, avg_entry_price, updated_at)
     VALUES ($1, $2, $3, 'us_equity', 'NASDAQ', $4, $5, now())`,
    [accountId, symbol, randomUUID(), qty, avgEntryPrice],
  );
}

/** The snapshots of bucket `at`: account id → [equity, cash] as the anchor prints decimals. */
async function snapshotsAt(at: number): Promise<Map<string, [string, string]>> {
  const rows = await db.query<{ account_id: string; equity: string; cash: string }>(
    "SELECT account_id, equity::float8::text AS equity, cash::float8::text AS cash FROM brokerage.equity_snapshots WHERE at = $1",
    [new Date(at)],
  );
  return new Map(rows.map((r) => [r.account_id, [r.equity, r.cash]]));
}

const account = (i: number) => accounts[i] as AccountRow;

beforeAll(async () => {
  database = await createBrokerageTestDatabase();
  db = database.db;
  const users = createUsersRepository(db);
  accounts = [];
  for (let i = 0; i < 3; i++) {
    const user = await users.insertWithAccounts({
      email: `saver${i}@example.com`,
      passwordHash: "x",
      startingCash: "100000",
      paperAccounts: 1,
    });
    accounts.push(...user.accounts);
  }
  await insertPosition(account(0).id, "AAPL", "10", "150");
  await insertPosition(account(0).id, "TSLA", "-5", "120");
  await insertPosition(account(1).id, "BTC/USD", "0.5", "40000");
});
afterAll(() => database?.drop());

describe("recordOnce", () => {
  it("writes one row per account for a bucket that two instances record at once", async () => {
    const [first, second] = await Promise.all([
      recorder().recordOnce(new Date(T1)),
      recorder().recordOnce(new Date(T1 + 10_000)),
    ]);
    expect((first as number) + (second as number)).toBe(6);
    const rows = await snapshotsAt(T1);
    expect(rows.size).toBe(6);
    // 100000 + 10 × 200 − 5 × 100; 100000 + 0.5 × 50000.5
    expect(rows.get(account(0).id)).toEqual(["101500", "100000"]);
    expect(rows.get(account(1).id)).toEqual(["125000.25", "100000"]);
    for (const i of [2, 3, 4, 5]) expect(rows.get(account(i).id)).toEqual(["100000", "100000"]);
  });

  it("writes nothing when the same bucket is recorded again (a restart)", async () => {
    expect(await recorder().recordOnce(new Date(T1 + MINUTE - 1))).toBe(0);
    expect((await snapshotsAt(T1)).size).toBe(6);
  });

  it("writes in a later bucket only the accounts whose equity or cash changed", async () => {
    prices.set("AAPL", 201);
    await db.query("UPDATE brokerage.accounts SET cash = cash - 1000 WHERE id = $1", [account(2).id]);
    const t2 = T1 + MINUTE;
    expect(await recorder().recordOnce(new Date(t2 + 5_000))).toBe(2);
    const rows = await snapshotsAt(t2);
    expect(rows.get(account(0).id)).toEqual(["101510", "100000"]);
    expect(rows.get(account(2).id)).toEqual(["99000", "99000"]);
    expect(rows.size).toBe(2);
  });

  it.each([1, 3, 4])("reaches every account in batches of %i", async (batchSize) => {
    await db.query("UPDATE brokerage.accounts SET cash = cash + 1");
    const at = T1 + (1 + batchSize) * MINUTE;
    expect(await recorder(batchSize).recordOnce(new Date(at))).toBe(6);
    expect((await snapshotsAt(at)).size).toBe(6);
  });

  it("values a position the market has no price for at its entry price", async () => {
    await insertPosition(account(3).id, "ZZZZ", "2", "12.5");
    const at = T1 + 10 * MINUTE;
    expect(await recorder().recordOnce(new Date(at))).toBe(1);
    expect((await snapshotsAt(at)).get(account(3).id)).toEqual(["100028", "100003"]);
    await db.query("DELETE FROM brokerage.positions WHERE symbol = 'ZZZZ'");
  });

  it("values positions at the market service's prices of the bucket's instant", async () => {
    const real = createMarketService({ universe: createDefaultAssetUniverse(), sessionMode: "always" });
    const at = T1 + 11 * MINUTE;
    await createEquitySnapshotRecorder({ db, market: real, intervalMs: MINUTE, logger }).recordOnce(
      new Date(at + 42_000),
    );
    const [row] = await db.query<{ equity: string }>(
      "SELECT equity FROM brokerage.equity_snapshots WHERE account_id = $1 AND at = $2",
      [account(0).id, new Date(at)],
    );
    const cents = (n: number) => Math.round(n * 100);
    const expected = 100_003 * 100 + 10 * cents(real.priceOf("AAPL", at)) - 5 * cents(real.priceOf("TSLA", at));
    expect(cents(Number(row?.equity))).toBe(expected);
  });

  it("refuses an interval under a second", () => {
    expect(() => createEquitySnapshotRecorder({ db, market, intervalMs: 999, logger })).toThrow(RangeError);
  });
});

describe("last_equity", () => {
  it("is the equity at the previous trading day's close (none before the first snapshot)", async () => {
    const lastEquity = async () =>
      new Map(
        (
          await db.query<{ id: string; last_equity: string | null }>("SELECT id, last_equity FROM brokerage.accounts")
        ).map((r) => [r.id, r.last_equity === null ? null : Number(r.last_equity)]),
      );
    // On Monday the previous close is Friday's: no snapshot precedes it.
    expect([...(await lastEquity()).values()]).toEqual([null, null, null, null, null, null]);

    // Monday's close is 16:00 EST = 21:00Z; snapshots around it for account A.
    const close = Date.parse("2026-03-02T21:00:00Z");
    for (const [at, equity] of [
      [close - 5 * MINUTE, "111"],
      [close, "222"],
      [close + 5 * MINUTE, "333"],
    ] as const) {
      await db.query("INSERT INTO brokerage.equity_snapshots (account_id, at, equity, cash) VALUES ($1, $2, $3, $3)", [
        account(0).id,
        new Date(at),
        equity,
      ]);
    }
    // Tuesday 10:00 New York.
    await recorder().recordOnce(new Date("2026-03-03T15:00:00Z"));
    const values = await lastEquity();
    expect(values.get(account(0).id)).toBe(222);
    // B's last snapshot before the close: the one at the market service's prices (T1 + 11 min).
    const [realEquity] = (await snapshotsAt(T1 + 11 * MINUTE)).get(account(1).id) ?? [];
    expect(values.get(account(1).id)).toBe(Number(realEquity));
    expect(values.get(account(2).id)).toBe(99_003);
  });

  it.each([
    ["a weekday", "2026-03-03T15:00:00Z", "2026-03-02T21:00:00.000Z"],
    ["after the close, still the previous day's", "2026-03-03T23:30:00Z", "2026-03-02T21:00:00.000Z"],
    ["a Monday: Friday's", "2026-03-09T14:00:00Z", "2026-03-06T21:00:00.000Z"],
    ["after a holiday (MLK day 2026-01-19): Friday's", "2026-01-20T15:00:00Z", "2026-01-16T21:00:00.000Z"],
    ["after an early close (13:00 on 2026-11-27)", "2026-11-30T15:00:00Z", "2026-11-27T18:00:00.000Z"],
    ["in daylight time (16:00 EDT)", "2026-07-08T15:00:00Z", "2026-07-07T20:00:00.000Z"],
  ])("previous close on %s", (_label, at, close) => {
    expect(new Date(previousSessionClose(Date.parse(at))).toISOString()).toBe(close);
  });
});

describe("as a recurring job", () => {
  it("is recorded once per period by one of several job workers", async () => {
    await db.query("UPDATE brokerage.accounts SET cash = 5 WHERE id = $1", [account(5).id]);
    const jobs = [recorder(), recorder()];
    const workers = jobs.map((job) =>
      createJobWorker({
        db: database.db,
        logger,
        queues: { [EQUITY_SNAPSHOTS_QUEUE]: job.queue },
        schedules: [job.schedule],
      }),
    );
    try {
      await Promise.all(workers.map((w) => w.start()));
      await expect
        .poll(() => jobs.map((j) => j.status().lastBucket).filter((b) => b !== null).length, { timeout: 20_000 })
        .toBeGreaterThan(0);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    const ran = jobs.map((j) => j.status()).filter((s) => s.lastBucket !== null);
    expect(ran[0]).toMatchObject({ intervalMs: MINUTE, lastError: null, lastWritten: expect.any(Number) });
    const bucket = Math.floor(Date.parse(ran[0]?.lastBucket as string) / MINUTE) * MINUTE;
    expect((await snapshotsAt(bucket)).get(account(5).id)).toEqual(["5", "5"]);
    // One occurrence per period, whichever worker took it.
    const periods = await db.query<{ run_at: Date; n: number }>(
      "SELECT run_at, count(*)::int AS n FROM platform.jobs WHERE queue = $1 GROUP BY run_at",
      [EQUITY_SNAPSHOTS_QUEUE],
    );
    expect(periods.length).toBeGreaterThan(0);
    for (const p of periods) expect(p.n).toBe(1);
  });

  it("stops between batches when its signal is aborted", async () => {
    const abort = new AbortController();
    abort.abort(new Error("stopping"));
    await expect(recorder(1).recordOnce(new Date(T1 + 20 * MINUTE), abort.signal)).rejects.toThrow("stopping");
  });
});
