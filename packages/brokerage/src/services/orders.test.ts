/**
 * Placement against a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL), without the exchange
 * writer: the statements a placement costs, and the compare-and-swap of the account's version under
 * contention (placements racing each other, the writer's fills and cancels, and a replace) never letting an
 * account spend the same buying power twice.
 */
import type { Database } from "@platform/kernel";
import { recordStatements, type TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OrderRejectedError } from "../domain/orderErrors.ts";
import { OPEN_STATUSES } from "../domain/orderObject.ts";
import type { OrderBody } from "../domain/orderRequest.ts";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import { createOrdersRepository } from "../store/ordersRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { accountsOf } from "../testing/oauthFixture.ts";
import { createMarketService } from "./market.ts";
import { createOrdersService } from "./orders.ts";

let database: TestDatabase;
let db: Database;
beforeAll(async () => {
  database = await createBrokerageTestDatabase();
  db = database.db;
}, 60_000);
afterAll(async () => {
  await database?.drop();
});

const market = createMarketService({ universe: createDefaultAssetUniverse(), sessionMode: "always" });

/**
 * A placement service on `target`, counting the compare-and-swaps it lost; `between.write`, when set, runs
 * once between the next placement's read and its compare-and-swap (another write of the account, at the worst
 * moment).
 */
function ordersOn(target: Database) {
  const repository = createOrdersRepository(target);
  const place = repository.place;
  const counts = { lost: 0 };
  const between: { write?: (() => Promise<unknown>) | undefined } = {};
  repository.place = async (...args) => {
    const write = between.write;
    between.write = undefined;
    await write?.();
    const stored = await place(...args);
    if (!stored) counts.lost++;
    return stored;
  };
  return { service: createOrdersService({ db: target, orders: repository, market }), counts, between };
}

let traders = 0;
/** A new paper account with `cash`, a cash account (multiplier 1: buying power is the cash). */
async function newAccount(cash: string): Promise<string> {
  const user = await createUsersRepository(db).insertWithAccounts({
    email: `placer${++traders}-${Date.now()}@example.com`,
    passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo",
    startingCash: cash,
    paperAccounts: 1,
  });
  const accountId = accountsOf(user).paper[0].id;
  await db.query("UPDATE brokerage.accounts SET max_margin_multiplier = '1' WHERE id = $1", [accountId]);
  return accountId;
}

/** A resting limit buy of AAPL far below the market: it holds qty × $10 of buying power. */
const restingBuy = (qty: string): OrderBody => ({
  symbol: "AAPL",
  qty,
  side: "buy",
  type: "limit",
  limit_price: "10",
  time_in_force: "gtc",
});

/** The account's cash less what its open orders hold, in dollars. */
async function unheldCash(accountId: string): Promise<number> {
  const [row] = await db.query<{ unheld: string }>(
    `SELECT (a.cash - COALESCE((SELECT sum((o.qty - o.filled_qty) * o.hold_price) FROM brokerage.orders o
       WHERE o.account_id = a.id AND o.status = ANY($2::text[])), 0))::text AS unheld
     FROM brokerage.accounts a WHERE a.id = $1`,
    [accountId, OPEN_STATUSES],
  );
  return Number(row?.unheld);
}

/**
 * A write of the exchange writer that spends $1,000 no order held (a fill beyond its hold), checked under the
 * account lock as the ledger takes it (SELECT … FOR UPDATE, then UPDATE of the cash): whether it was made.
 */
async function spendUnheld(accountId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT id FROM brokerage.accounts WHERE id = $1 FOR UPDATE", [accountId]);
    const [row] = await tx.query<{ unheld: string }>(
      `SELECT (a.cash - COALESCE((SELECT sum((o.qty - o.filled_qty) * o.hold_price) FROM brokerage.orders o
         WHERE o.account_id = a.id AND o.status = ANY($2::text[])), 0))::text AS unheld
       FROM brokerage.accounts a WHERE a.id = $1`,
      [accountId, OPEN_STATUSES],
    );
    if (Number(row?.unheld) < 1000) return false;
    await tx.query("UPDATE brokerage.accounts SET cash = cash - 1000 WHERE id = $1", [accountId]);
    return true;
  });
}

const accepted = (results: PromiseSettledResult<unknown>[]) => results.filter((r) => r.status === "fulfilled").length;
const refusedForBuyingPower = (results: PromiseSettledResult<unknown>[]) =>
  results.filter(
    (r) =>
      r.status === "rejected" &&
      r.reason instanceof OrderRejectedError &&
      r.reason.status === 403 &&
      r.reason.message === "insufficient buying power",
  ).length;

describe("a placement", () => {
  it("checks against the state its last placement left while the account's version proves it current", async () => {
    const counting = recordStatements(db);
    const { service, counts } = ordersOn(counting.db);
    const accountId = await newAccount("1000");
    await service.place(accountId, restingBuy("40")); // $400 held
    counting.log.statements.length = 0;
    await service.place(accountId, restingBuy("40")); // $800 held, from the remembered state
    expect(counting.log.statements).toHaveLength(1);

    // A fill elsewhere bumps the version: the remembered state loses its swap, and the placement reads again.
    expect(await spendUnheld(accountId)).toBe(false);
    await db.query("UPDATE brokerage.accounts SET cash = cash - 100 WHERE id = $1", [accountId]);
    counting.log.statements.length = 0;
    await expect(service.place(accountId, restingBuy("15"))).rejects.toThrow("insufficient buying power");
    expect(counts.lost).toBe(1);
    expect(await unheldCash(accountId)).toBe(100);

    // The writer canceling an order releases its hold without a version bump: a refusal by the remembered state
    // is checked again against the database, which lets the order through.
    await service.place(accountId, restingBuy("5")); // $50 held, remembered
    const [held] = await db.query<{ id: string }>(
      "SELECT id FROM brokerage.orders WHERE account_id = $1 AND qty = 40 ORDER BY created_at LIMIT 1",
      [accountId],
    );
    await db.query("UPDATE brokerage.orders SET status = 'canceled' WHERE id = $1", [held?.id]);
    counting.log.statements.length = 0;
    const placed = await service.place(accountId, restingBuy("30"));
    expect(placed.status).toBe("accepted");
    expect(counting.log.statements).toHaveLength(2);
    expect(await unheldCash(accountId)).toBe(150);
  });

  it("reads its account in one statement and writes the order, its legs and its command in one more", async () => {
    const counting = recordStatements(db);
    const { service } = ordersOn(counting.db);
    const accountId = await newAccount("100000");

    const simple = await service.place(accountId, restingBuy("1"));
    expect(counting.log.statements).toHaveLength(2);
    expect(simple.status).toBe("accepted");

    // The next placement of the account checks against the state the first one left: the write alone.
    counting.log.statements.length = 0;
    const bracket = await service.place(accountId, {
      ...restingBuy("1"),
      time_in_force: "day",
      order_class: "bracket",
      take_profit: { limit_price: "2000" },
      stop_loss: { stop_price: "5", limit_price: "4" },
    });
    expect(counting.log.statements).toHaveLength(1);
    expect(bracket.legs?.map((l) => [l.type, l.status])).toEqual([
      ["limit", "held"],
      ["stop_limit", "held"],
    ]);
    const commands = await db.query<{ order_id: string; command: string }>(
      "SELECT order_id, command FROM brokerage.order_commands WHERE order_id = ANY($1::uuid[]) ORDER BY seq",
      [[simple.id, bracket.id, ...(bracket.legs ?? []).map((l) => l.id)]],
    );
    expect(commands).toEqual([
      { order_id: simple.id, command: "submit" },
      { order_id: bracket.id, command: "submit" },
    ]);
  });

  it("answers a client_order_id the account already used with the anchor's 422, and inserts nothing", async () => {
    const { service } = ordersOn(db);
    const accountId = await newAccount("100000");
    await service.place(accountId, { ...restingBuy("1"), client_order_id: "mine" });
    await expect(service.place(accountId, { ...restingBuy("1"), client_order_id: "mine" })).rejects.toMatchObject({
      status: 422,
      code: 40010001,
    });
    const [count] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM brokerage.orders WHERE account_id = $1",
      [accountId],
    );
    expect(count?.n).toBe(1);
  });

  it("wakes a writer of another instance (pg_notify) only when it inserted", async () => {
    const payloads: string[] = [];
    const stop = await db.listen("brokerage_order_commands", (p) => payloads.push(p));
    try {
      const { service } = ordersOn(db);
      const accountId = await newAccount("1000");
      await service.place(accountId, restingBuy("100"));
      await expect(service.place(accountId, restingBuy("1"))).rejects.toThrow("insufficient buying power");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(payloads).toHaveLength(1);
    } finally {
      await stop();
    }
  });
});

describe("concurrent writes of one account", () => {
  it("never spend the same buying power twice: placements racing each other and the writer's fills", async () => {
    const { service, counts } = ordersOn(db);
    const accountId = await newAccount("10000");
    // Each placement holds $1,000, each fill spends $1,000: together exactly ten of them fit.
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 0 ? spendUnheld(accountId) : service.place(accountId, restingBuy("100")),
      ),
    );
    const placements = results.filter((_, i) => i % 3 !== 0);
    const fills = results.filter((r, i) => i % 3 === 0 && r.status === "fulfilled" && r.value === true).length;
    expect(accepted(placements) + fills).toBe(10);
    expect(refusedForBuyingPower(placements)).toBe(placements.length - accepted(placements));
    expect(await unheldCash(accountId)).toBe(0);
    expect(counts.lost).toBeGreaterThan(0);
  });

  it("never spend the same buying power twice: placements racing cancels that end orders", async () => {
    const { service } = ordersOn(db);
    const accountId = await newAccount("10000");
    const first = await Promise.all(Array.from({ length: 10 }, () => service.place(accountId, restingBuy("100"))));
    // A cancel requested through the API, then ended by the writer: the $1,000 it held is free again.
    const cancelAndEnd = async (id: string) => {
      await service.cancel(accountId, id);
      await db.query("UPDATE brokerage.orders SET status = 'canceled' WHERE id = $1", [id]);
    };
    const results = await Promise.allSettled([
      ...first.slice(0, 4).map((o) => cancelAndEnd(o.id)),
      ...Array.from({ length: 12 }, () => service.place(accountId, restingBuy("100"))),
      ...Array.from({ length: 3 }, () => spendUnheld(accountId)),
    ]);
    expect(results.slice(0, 4).every((r) => r.status === "fulfilled")).toBe(true);
    const placements = results.slice(4, 16);
    expect(refusedForBuyingPower(placements)).toBe(placements.length - accepted(placements));
    expect(accepted(placements)).toBeLessThanOrEqual(4);
    expect(await unheldCash(accountId)).toBeGreaterThanOrEqual(0);
  });

  it("let exactly one of a replace and a placement through when only one fits", async () => {
    const { service } = ordersOn(db);
    for (let round = 0; round < 6; round++) {
      const accountId = await newAccount("10000");
      const resting = await service.place(accountId, restingBuy("100"));
      // Replaced with 950 shares it holds $9,500: with another $1,000 order, more than the $10,000.
      const replace = () => service.replace(accountId, resting.id, { qty: "950" });
      const place = () => service.place(accountId, restingBuy("100"));
      const results = await Promise.allSettled(round % 2 === 0 ? [replace(), place()] : [place(), replace()]);
      expect(accepted(results)).toBe(1);
      expect(refusedForBuyingPower(results)).toBe(1);
    }
  });
});

describe("a write of the account between a placement's read and its compare-and-swap", () => {
  it("a replace: the placement is checked again, with the replacement's hold", async () => {
    const { service, counts, between } = ordersOn(db);
    const accountId = await newAccount("10000");
    const resting = await service.place(accountId, restingBuy("100"));
    let replaced: unknown;
    between.write = async () => {
      replaced = await service.replace(accountId, resting.id, { qty: "950" });
    };
    await expect(service.place(accountId, restingBuy("100"))).rejects.toThrow("insufficient buying power");
    expect(replaced).toMatchObject({ qty: "950", replaces: resting.id });
    expect(counts.lost).toBe(1);
  });

  it("a fill: the placement is checked again against the cash left", async () => {
    const { service, counts, between } = ordersOn(db);
    const accountId = await newAccount("1000");
    between.write = () => spendUnheld(accountId);
    await expect(service.place(accountId, restingBuy("100"))).rejects.toThrow("insufficient buying power");
    expect(counts.lost).toBe(1);
    expect(await unheldCash(accountId)).toBe(0);
  });

  it("a cancel: the placement is checked again, and goes through", async () => {
    const { service, counts, between } = ordersOn(db);
    const accountId = await newAccount("2000");
    const resting = await service.place(accountId, restingBuy("100"));
    between.write = () => service.cancel(accountId, resting.id);
    expect((await service.place(accountId, restingBuy("100"))).status).toBe("accepted");
    expect(counts.lost).toBe(1);
  });

  it("another placement, every time: the placement takes the account lock after its last attempt", async () => {
    const counting = recordStatements(db);
    const { service, counts, between } = ordersOn(counting.db);
    const accountId = await newAccount("10000");
    const interfere = () => {
      between.write = async () => {
        if (counts.lost < 2) interfere();
        await createOrdersService({ db, orders: createOrdersRepository(db), market }).place(
          accountId,
          restingBuy("100"),
        );
      };
    };
    interfere();
    counting.log.statements.length = 0;
    expect((await service.place(accountId, restingBuy("100"))).status).toBe("accepted");
    expect(counts.lost).toBe(3);
    // Three reads and compare-and-swaps, then BEGIN, the lock, the holds, the insert and COMMIT.
    expect(counting.log.statements).toHaveLength(3 * 2 + 5);
    expect(await unheldCash(accountId)).toBe(10000 - 4 * 1000);
  });
});
