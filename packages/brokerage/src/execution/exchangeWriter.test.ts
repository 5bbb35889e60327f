/**
 * The exchange writer in-process on a clock the test moves, for cases the kill test found: a writer that
 * restarts must execute the resting orders its rebuilt live books now cross (at its first tick, and before
 * any command opens the book and could drop the fills of its opening); a replacement sized before its
 * original filled further must not spend the same buying power twice, and one canceled before the swap
 * must not execute (it did, with a fill and no `new` on the stream). After each, the ledger holds
 * (testing/ledgerInvariants.ts: fills, events, positions and cash agree, no account without margin below
 * zero).
 */
import { createLogger } from "@platform/kernel";
import type { TestDatabase } from "@platform/kernel/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import { createMarketService } from "../services/market.ts";
import { createOrdersService } from "../services/orders.ts";
import { createOrdersRepository } from "../store/ordersRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { ledgerViolations } from "../testing/ledgerInvariants.ts";
import { createExchangeWriter } from "./exchangeWriter.ts";
import { expiryOfGtcOrder } from "./sessions.ts";

const T0 = Date.UTC(2026, 2, 3, 15, 0, 0);
let clock = T0;
const market = createMarketService({
  universe: createDefaultAssetUniverse(),
  sessionMode: "always",
  now: () => new Date(clock),
});
const logger = createLogger({ level: "silent" });
let database: TestDatabase;
const db = () => database.db;
const orders = () =>
  createOrdersService({
    db: db(),
    orders: createOrdersRepository(db()),
    market,
  });

beforeEach(async () => {
  clock = T0;
  database = await createBrokerageTestDatabase();
});
afterEach(async () => {
  await database?.drop();
});

let traders = 0;
/** A live account with `cash` and this margin multiplier. */
async function liveAccount(cash: string, multiplier: "1" | "4"): Promise<string> {
  const user = await createUsersRepository(db()).insertWithAccounts({
    email: `writer-trader-${++traders}@example.com`,
    passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo",
    startingCash: cash,
    paperAccounts: 1,
  });
  const live = user.accounts.find((a) => a.env === "live") as { id: string };
  await db().query("UPDATE brokerage.accounts SET max_margin_multiplier = $2 WHERE id = $1", [live.id, multiplier]);
  return live.id;
}

/** A writer (a new process, as after a restart) runs until its queue is empty and it ticked once, then stops. */
async function runWriter(): Promise<void> {
  const writer = createExchangeWriter({ db: db(), market, logger });
  writer.start();
  await writer.idle();
  await writer.stop();
}

const orderRow = async (id: string) =>
  (
    await db().query<{ status: string; filled_qty: string }>(
      "SELECT status, filled_qty FROM brokerage.orders WHERE id = $1",
      [id],
    )
  )[0];

const cents = (price: number) => price.toFixed(2);

/**
 * A resting live buy of INTC placed at T0 far under the market, then the first instant after which the
 * market has come down through it (the writer being down meanwhile).
 */
async function restingBuyTheMarketReaches(accountId: string): Promise<{ id: string; crossedAt: number }> {
  const limit = market.priceOf("INTC", T0) - 0.1;
  const placed = await orders().place(accountId, {
    symbol: "INTC",
    side: "buy",
    type: "limit",
    time_in_force: "gtc",
    qty: "10",
    limit_price: cents(limit),
  });
  await runWriter();
  expect(await orderRow(placed.id)).toMatchObject({ status: "new" });
  let at = T0;
  // The book's maker asks a tick or two above the price: well under the limit, the book crosses it.
  while (market.priceOf("INTC", at) > limit - 0.03) at += 1_000;
  return { id: placed.id, crossedAt: at };
}

it("a restarted writer executes, at its first tick, the resting orders its rebuilt books now cross", async () => {
  const trader = await liveAccount("100000", "4");
  const resting = await restingBuyTheMarketReaches(trader);
  clock = resting.crossedAt;
  await runWriter(); // no command: only the first tick can execute it
  expect(await orderRow(resting.id)).toMatchObject({ status: "filled", filled_qty: "10.000000000" });
  expect(await ledgerViolations(db(), { final: true })).toEqual([]);
});

it("a restarted writer keeps the fills of a rebuilt book's opening when a replace opens it", async () => {
  const trader = await liveAccount("100000", "4");
  const other = await liveAccount("100000", "4");
  const far = await orders().place(other, {
    symbol: "INTC",
    side: "buy",
    type: "limit",
    time_in_force: "gtc",
    qty: "5",
    limit_price: cents(market.priceOf("INTC", T0) - 1),
  });
  const resting = await restingBuyTheMarketReaches(trader);
  clock = resting.crossedAt;
  // The first command of the restarted writer takes `far` out of the INTC book, which opens it.
  await orders().replace(other, far.id, { qty: "6" });
  await runWriter();
  expect(await orderRow(resting.id)).toMatchObject({ status: "filled", filled_qty: "10.000000000" });
  expect(await ledgerViolations(db(), { final: true })).toEqual([]);
});

it("refuses a replacement whose original filled after it was requested: no buying power spent twice", async () => {
  const buyer = await liveAccount("15000", "1");
  const seller = await liveAccount("100000", "4");
  const quote = market.quoteOf("INTC");
  const qty = String(Math.floor(14_000 / quote.askPrice));
  // The buyer bids at the price, inside the book's spread: the best bid.
  const original = await orders().place(buyer, {
    symbol: "INTC",
    side: "buy",
    type: "limit",
    time_in_force: "gtc",
    qty,
    limit_price: cents(market.priceOf("INTC")),
  });
  await runWriter();
  // While the writer is down (or busy), a sale that will hit the original is queued, then the buyer
  // replaces the original by a marketable order of the same size: checked against the cash it has now.
  await orders().place(seller, { symbol: "INTC", side: "sell", type: "market", time_in_force: "day", qty: "300" });
  const replacement = await orders().replace(buyer, original.id, { limit_price: cents(quote.askPrice + 0.02) });
  await runWriter();
  expect(await ledgerViolations(db())).toEqual([]);
  expect(await orderRow(original.id)).toMatchObject({ status: "partially_filled", filled_qty: "300.000000000" });
  expect(await orderRow(replacement.id)).toMatchObject({ status: "rejected", filled_qty: "0.000000000" });
});

it("never executes a replacement canceled before the swap: it takes the original's place, then its cancel ends it", async () => {
  const trader = await liveAccount("100000", "4");
  const original = await orders().place(trader, {
    symbol: "KO",
    side: "buy",
    type: "limit",
    time_in_force: "gtc",
    qty: "3",
    limit_price: "10",
  });
  await runWriter();
  const marketable = cents(market.quoteOf("KO").askPrice + 0.05);
  const replacement = await orders().replace(trader, original.id, { limit_price: marketable });
  await orders().cancel(trader, replacement.id);
  await runWriter();
  expect(await ledgerViolations(db(), { final: true })).toEqual([]);
  expect(await orderRow(original.id)).toMatchObject({ status: "replaced" });
  expect(await orderRow(replacement.id)).toMatchObject({ status: "canceled", filled_qty: "0.000000000" });
});

it("expires a resting gtc order at its expires_at (90 days on), not a moment before", async () => {
  const trader = await liveAccount("100000", "1");
  const placed = await orders().place(trader, {
    symbol: "KO",
    side: "buy",
    type: "limit",
    time_in_force: "gtc",
    qty: "3",
    limit_price: "10",
  });
  const expiresAt = Date.parse(placed.expires_at as string);
  expect(expiresAt).toBe(expiryOfGtcOrder(T0, "us_equity").getTime());
  await runWriter();
  expect(await orderRow(placed.id)).toMatchObject({ status: "new" });
  clock = expiresAt - 1_000;
  await runWriter();
  expect(await orderRow(placed.id)).toMatchObject({ status: "new" });
  clock = expiresAt;
  await runWriter();
  expect(await orderRow(placed.id)).toMatchObject({ status: "expired" });
  const [row] = await db().query<{ expired_at: Date | null }>("SELECT expired_at FROM brokerage.orders WHERE id = $1", [
    placed.id,
  ]);
  expect(row?.expired_at?.getTime()).toBe(expiresAt);
  expect(await ledgerViolations(db(), { final: true })).toEqual([]);
});
