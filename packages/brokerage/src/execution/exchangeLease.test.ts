/**
 * One exchange writer at a time, chosen by the kernel lease `brokerage.exchange-writer` (platform.leases):
 * - two writers on one database: one holds the lease and executes; a holder that stalls (its database calls
 *   hang, as a paused process) loses it once it expires, the other takes over and executes what was queued,
 *   and the stalled holder's commit, sent after the takeover, is refused (`LeaseLostError`): nothing twice;
 * - the brokerage as served: while another instance holds the lease its writer stands by, and it takes the
 *   lease again once it is free.
 */
import type { Database, Queryable } from "@platform/kernel";
import { createLeases, createLogger, LeaseLostError } from "@platform/kernel";
import type { TestDatabase } from "@platform/kernel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import { createMarketService } from "../services/market.ts";
import { createOrdersService } from "../services/orders.ts";
import { createOrdersRepository } from "../store/ordersRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { ledgerViolations } from "../testing/ledgerInvariants.ts";
import { startTradingHost, type TradingHost } from "../testing/tradingHost.ts";
import { createExchangeWriter, EXCHANGE_WRITER_LEASE, type ExchangeWriter } from "./exchangeWriter.ts";

const logger = createLogger({ level: "silent" });

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const leaseRow = async (db: Queryable) =>
  (
    await db.query<{ holder: string | null; token: string; held: boolean }>(
      "SELECT holder, token, holder IS NOT NULL AND expires_at > clock_timestamp() AS held FROM platform.leases WHERE name = $1",
      [EXCHANGE_WRITER_LEASE],
    )
  )[0];

/**
 * `db` as a process that can be paused: while paused, its transactions (the writer's commits) and its lease
 * statements (the renewals) wait; its other reads go on.
 */
function pausable(db: Database) {
  let gate: Promise<void> | undefined;
  let open = () => {};
  const waiting = { transactions: 0, leases: 0 };
  const pass = async (kind: keyof typeof waiting) => {
    if (!gate) return;
    waiting[kind] += 1;
    try {
      await gate;
    } finally {
      waiting[kind] -= 1;
    }
  };
  const paused: Database = {
    driver: db.driver,
    async query(text, params) {
      if (text.includes("platform.leases")) await pass("leases");
      return db.query(text, params);
    },
    exec: (script) => db.exec(script),
    copyFrom: (statement, data) => db.copyFrom(statement, data),
    async transaction(fn) {
      await pass("transactions");
      return db.transaction(fn);
    },
    listen: (channel, onNotification) => db.listen(channel, onNotification),
    close: () => db.close(),
  };
  return {
    db: paused,
    waiting,
    pause() {
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    resume() {
      gate = undefined;
      open();
    },
  };
}

describe("two writers on one database", () => {
  let database: TestDatabase;
  const writers: ExchangeWriter[] = [];
  const market = createMarketService({ universe: createDefaultAssetUniverse(), sessionMode: "always" });

  beforeAll(async () => {
    database = await createBrokerageTestDatabase();
  }, 60_000);
  afterEach(async () => {
    for (const w of writers.splice(0)) await w.stop();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("one holds the lease; a stalled holder's commit after the takeover is refused", async () => {
    const db = database.db;
    const user = await createUsersRepository(db).insertWithAccounts({
      email: "lease-trader@example.com",
      passwordHash: "x",
      startingCash: "100000",
      paperAccounts: 1,
    });
    const paper = user.accounts.find((a) => a.env === "paper") as { id: string };
    const orders = createOrdersService({ db, orders: createOrdersRepository(db), market });
    const buy = () =>
      orders.place(paper.id, { symbol: "KO", qty: "1", side: "buy", type: "market", time_in_force: "day" });
    const statusOf = async (id: string) =>
      (await db.query<{ status: string }>("SELECT status FROM brokerage.orders WHERE id = $1", [id]))[0]?.status;

    const a = pausable(db);
    const first = createExchangeWriter({ db: a.db, market, logger, leaseTtlMs: 1_500, holder: "writer-a" });
    const second = createExchangeWriter({ db, market, logger, leaseTtlMs: 1_500, holder: "writer-b" });
    writers.push(first, second);
    first.start();
    await first.idle();
    second.start();
    // Only one holder: A, which executes; B stands by.
    const placed = await buy();
    await waitFor("A to fill the first order", async () => (await statusOf(placed.id)) === "filled");
    expect(await leaseRow(db)).toMatchObject({ holder: "writer-a", held: true });
    expect([first.holding(), second.holding()]).toEqual([true, false]);
    const tokenOfA = BigInt((await leaseRow(db))?.token ?? 0);

    // A stalls with the next order's fill computed: its commit and its renewals wait.
    a.pause();
    const next = await buy();
    await waitFor("A's commit to stall", () => a.waiting.transactions > 0);
    // Its lease expires; B takes it over, rebuilds and executes the queued command.
    await waitFor("B to take the lease", () => second.holding());
    await waitFor("B to fill the order", async () => (await statusOf(next.id)) === "filled");
    const taken = await leaseRow(db);
    expect(taken).toMatchObject({ holder: "writer-b", held: true });
    expect(BigInt(taken?.token ?? 0)).toBeGreaterThan(tokenOfA);

    // A resumes: its commit, sent after the takeover, is refused, and it stands by.
    a.resume();
    await waitFor("A's write to be refused", () => first.status().refused === 1);
    expect(first.status().lastError).toMatchObject({ name: "LeaseLostError" });
    await waitFor("A to stand by", () => !first.holding());
    expect(second.holding()).toBe(true);
    expect(await leaseRow(db)).toMatchObject({ holder: "writer-b", held: true });

    const fills = await db.query<{ order_id: string }>(
      "SELECT order_id FROM brokerage.activities WHERE activity_type = 'FILL' ORDER BY transaction_time",
    );
    expect(fills.map((f) => f.order_id).sort()).toEqual([placed.id, next.id].sort());
    expect(await ledgerViolations(db)).toEqual([]);
  }, 60_000);

  it("refuses a write that asserts a lease taken over (the fencing token)", async () => {
    const leases = createLeases({ db: database.db });
    const old = await leases.acquire({ name: EXCHANGE_WRITER_LEASE, holder: "old", ttlMs: 1 });
    await waitFor("the old lease to expire", async () => !(await leaseRow(database.db))?.held);
    const taken = await leases.acquire({ name: EXCHANGE_WRITER_LEASE, holder: "new", ttlMs: 60_000 });
    expect(taken?.token).toBe((old?.token ?? 0n) + 1n);
    await expect(
      database.db.transaction((tx) => leases.assertHeld(tx, old as NonNullable<typeof old>)),
    ).rejects.toBeInstanceOf(LeaseLostError);
  });
});

describe("the brokerage's writer", () => {
  let host: TradingHost;
  beforeAll(async () => {
    host = await startTradingHost();
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  const exchangeStatus = () => (host.jobStatus() as { exchange: { holding: boolean } }).exchange;

  it("stands by while another instance holds the lease, then takes it again", async () => {
    const { paper: client } = await host.createTrader();
    const order = { symbol: "KO", qty: "1", side: "buy", type: "market", time_in_force: "day" };
    const first = await client.call("POST", "/v2/orders", order);
    await host.waitForOrder(client, first.body.id, (o) => o.status === "filled");
    const ours = await leaseRow(host.db);
    expect(ours?.held).toBe(true);

    // Another instance takes the lease (a new tenure: the token grows) for an hour.
    await host.db.query(
      `UPDATE platform.leases SET holder = 'another-instance', token = token + 1,
         expires_at = clock_timestamp() + interval '1 hour' WHERE name = $1`,
      [EXCHANGE_WRITER_LEASE],
    );
    await waitFor("the writer to stand by", () => !exchangeStatus().holding);
    const placed = await client.call("POST", "/v2/orders", order);
    expect((await client.call("GET", `/v2/orders/${placed.body.id}`)).body.status).toBe("accepted");
    const [pending] = await host.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM brokerage.order_commands WHERE done_at IS NULL",
    );
    expect(Number(pending?.n)).toBe(1);
    expect((await leaseRow(host.db))?.holder).toBe("another-instance");

    // The other instance releases it: this one takes it and executes what was queued.
    await host.db.query("UPDATE platform.leases SET holder = NULL, expires_at = clock_timestamp() WHERE name = $1", [
      EXCHANGE_WRITER_LEASE,
    ]);
    const done = await host.waitForOrder(client, placed.body.id, (o) => o.status === "filled", 20_000);
    expect(done.filled_qty).toBe("1");
    expect(exchangeStatus().holding).toBe(true);
    expect(BigInt((await leaseRow(host.db))?.token ?? 0)).toBeGreaterThan(BigInt(ours?.token ?? 0));
  }, 60_000);
});
