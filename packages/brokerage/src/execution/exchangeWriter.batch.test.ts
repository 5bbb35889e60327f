/**
 * Group commit of the exchange writer: commands queued while it was down (or busy) are executed together,
 * a few transactions for hundreds of them, with statements per transaction that do not grow with the
 * number of orders (multi-row statements, ledgerStatements.ts). The stream's events keep the commands'
 * order, and the ledger holds (testing/ledgerInvariants.ts).
 */
import { createLogger, type Database } from "@platform/kernel";
import { recordStatements, type StatementLog, type TestDatabase } from "@platform/kernel/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import { createMarketService } from "../services/market.ts";
import { createOrdersService } from "../services/orders.ts";
import { createOrdersRepository } from "../store/ordersRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { ledgerViolations } from "../testing/ledgerInvariants.ts";
import { createExchangeWriter } from "./exchangeWriter.ts";

const market = createMarketService({ universe: createDefaultAssetUniverse(), sessionMode: "always" });
const logger = createLogger({ level: "silent" });
let database: TestDatabase;

beforeEach(async () => {
  database = await createBrokerageTestDatabase();
});
afterEach(async () => {
  await database?.drop();
});

/** The writer's traffic in `log`: statements (BEGIN and COMMIT left out), those in transactions, transactions. */
const trafficOf = (log: StatementLog) => ({
  statements: log.statements.length - 2 * log.transactions,
  inTransactions: log.inTransactions,
  transactions: log.transactions,
});

/** Traders with a live and a paper account each. */
async function accounts(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const user = await createUsersRepository(database.db).insertWithAccounts({
      email: `batch-trader-${i}@example.com`,
      passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo",
      startingCash: "1000000",
      paperAccounts: 1,
    });
    for (const a of user.accounts) ids.push(a.id);
  }
  return ids;
}

async function runWriter(db: Database): Promise<void> {
  const writer = createExchangeWriter({ db, market, logger });
  writer.start();
  await writer.idle();
  await writer.stop();
}

/** Runs a writer until it is idle with its statements recorded (`EXCHANGE_TEST_LOG=1` prints them): its traffic. */
async function runWriterRecorded(): Promise<ReturnType<typeof trafficOf>> {
  const { db, log } = recordStatements(database.db);
  const started = performance.now();
  await runWriter(db);
  const traffic = trafficOf(log);
  if (process.env.EXCHANGE_TEST_LOG) console.log({ ...traffic, writerMs: Math.round(performance.now() - started) });
  return traffic;
}

const SYMBOLS = ["KO", "INTC", "AAPL", "MSFT"];

it("executes 500 queued orders in a few transactions, statements per batch not per order, events in order", async () => {
  const ids = await accounts(3);
  const orders = createOrdersService({ db: database.db, orders: createOrdersRepository(database.db), market });
  const placed: string[] = [];
  for (let i = 0; i < 500; i++) {
    const symbol = SYMBOLS[i % SYMBOLS.length] as string;
    // Resting buys well under the market: each becomes `new` and rests (in the live books or the paper venue).
    const order = await orders.place(ids[i % ids.length] as string, {
      symbol,
      side: "buy",
      type: "limit",
      time_in_force: "gtc",
      qty: "1",
      limit_price: (Math.floor(market.priceOf(symbol, Date.now()) * 0.8 * 100) / 100).toFixed(2),
    });
    placed.push(order.id);
  }
  const traffic = await runWriterRecorded();

  const rows = await database.db.query<{ id: string; status: string }>("SELECT id, status FROM brokerage.orders");
  expect(rows.length).toBe(500);
  expect(rows.every((r) => r.status === "new")).toBe(true);
  const events = await database.db.query<{ order_id: string; event: string }>(
    "SELECT order_id, event FROM brokerage.trade_events ORDER BY id",
  );
  expect(events.map((e) => e.event)).toEqual(placed.map(() => "new"));
  expect(events.map((e) => e.order_id)).toEqual(placed);
  // One batch (or a few, by the time slice) for the 500: a bounded number of statements each, whatever its size.
  expect(traffic.transactions).toBeLessThanOrEqual(10);
  expect(traffic.inTransactions).toBeLessThanOrEqual(15 * traffic.transactions);
  expect(traffic.statements).toBeLessThan(200);
  expect(await ledgerViolations(database.db)).toEqual([]);
}, 120_000);

it("fills 300 queued market orders of many accounts in a few transactions: one statement per table, not per order", async () => {
  const ids = await accounts(10);
  const orders = createOrdersService({ db: database.db, orders: createOrdersRepository(database.db), market });
  const placed: string[] = [];
  for (let i = 0; i < 300; i++) {
    const order = await orders.place(ids[i % ids.length] as string, {
      symbol: SYMBOLS[i % SYMBOLS.length] as string,
      side: "buy",
      type: "market",
      time_in_force: "day",
      qty: "1",
    });
    placed.push(order.id);
  }
  const traffic = await runWriterRecorded();

  const rows = await database.db.query<{ id: string; status: string }>("SELECT id, status FROM brokerage.orders");
  expect(rows.every((r) => r.status === "filled")).toBe(true);
  // Each order's `new` before its `fill`, and the orders' events in the commands' order.
  const events = await database.db.query<{ order_id: string; event: string }>(
    "SELECT order_id, event FROM brokerage.trade_events ORDER BY id",
  );
  expect(events.map((e) => `${e.event}:${e.order_id}`)).toEqual(placed.flatMap((id) => [`new:${id}`, `fill:${id}`]));
  const positions = await database.db.query<{ n: string }>("SELECT count(*) AS n FROM brokerage.positions");
  expect(Number(positions[0]?.n)).toBe(ids.length);
  expect(traffic.transactions).toBeLessThanOrEqual(10);
  expect(traffic.inTransactions).toBeLessThanOrEqual(25 * traffic.transactions);
  expect(traffic.statements).toBeLessThan(300);
  expect(await ledgerViolations(database.db, { final: true })).toEqual([]);
}, 120_000);
