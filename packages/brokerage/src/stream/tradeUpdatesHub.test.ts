/**
 * The hub on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): events reach their account's
 * listeners in id order across batches; a subscriber gets what follows the cursor at the moment it joins;
 * notifications, `wake()` and the safety poll each lead to a read, and reads never overlap.
 */
import { createLogger, type Database } from "@platform/kernel";
import type { TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TradeEventRow } from "../store/tradeEventFeedRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { writeTradeEvents } from "../testing/tradeEvents.ts";
import { createTradeUpdatesHub, type TradeUpdatesHub } from "./tradeUpdatesHub.ts";

const logger = createLogger({ level: "silent" });
let database: TestDatabase;
let alice: string;
let bob: string;
const hubs: TradeUpdatesHub[] = [];

beforeAll(async () => {
  database = await createBrokerageTestDatabase();
  const users = createUsersRepository(database.db);
  const a = await users.insertWithAccounts({
    email: "a@example.com",
    passwordHash: "x",
    startingCash: "1000",
    paperAccounts: 1,
  });
  const b = await users.insertWithAccounts({
    email: "b@example.com",
    passwordHash: "x",
    startingCash: "1000",
    paperAccounts: 1,
  });
  alice = (a.accounts[1] as { id: string }).id;
  bob = (b.accounts[1] as { id: string }).id;
});
afterAll(async () => {
  for (const hub of hubs) await hub.close();
  await database.drop();
});

function hubOn(db: Database, options: { pollIntervalMs?: number; batchSize?: number } = {}) {
  const hub = createTradeUpdatesHub({ db, logger, pollIntervalMs: 60_000, ...options });
  hubs.push(hub);
  return hub;
}

/** Collects the events a subscription receives. */
function collect(hub: TradeUpdatesHub, accountId: string) {
  const events: TradeEventRow[] = [];
  const stop = hub.subscribe(accountId, (event) => events.push(event));
  const ids = () => events.map((e) => e.id);
  return { events, ids, stop };
}

const latestIdInTable = async () =>
  BigInt(
    (await database.db.query<{ id: string | null }>("SELECT max(id) AS id FROM brokerage.trade_events"))[0]?.id ?? 0,
  );

describe(`trade updates hub (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"})`, () => {
  it("hands each account its events only, in id order, across batches, after the cursor at subscription", async () => {
    const hub = hubOn(database.db, { batchSize: 3 });
    // Written before the hub starts and while nobody listens: the cursor passes over them.
    await writeTradeEvents(database.db, [{ accountId: alice, event: "early" }]);
    await writeTradeEvents(database.db, [{ accountId: alice, event: "while nobody listens" }]);
    await expect.poll(() => hub.latestId()).toBe(await latestIdInTable());

    const a = collect(hub, alice);
    const b = collect(hub, bob);
    const written = await writeTradeEvents(
      database.db,
      Array.from({ length: 8 }, (_, i) => ({ accountId: i % 3 === 0 ? bob : alice, event: `e${i}` })),
    );
    const forAlice = written.filter((_, i) => i % 3 !== 0);
    const forBob = written.filter((_, i) => i % 3 === 0);
    await expect.poll(() => a.ids()).toEqual(forAlice);
    await expect.poll(() => b.ids()).toEqual(forBob);
    expect(a.events.map((e) => e.event)).toEqual(["e1", "e2", "e4", "e5", "e7"]);
    expect(await hub.latestId()).toBe(BigInt(written.at(-1) as string));

    // Stopped: nothing more for that subscription; the other still gets its events.
    a.stop();
    const more = await writeTradeEvents(database.db, [{ accountId: alice }, { accountId: bob }]);
    await expect.poll(() => b.ids()).toEqual([...forBob, more[1]]);
    expect(a.ids()).toEqual(forAlice);
    b.stop();
  });

  it("reads on wake() and on the safety poll when no notification comes", async () => {
    const woken = hubOn(database.db);
    const polling = hubOn(database.db, { pollIntervalMs: 50 });
    await woken.latestId();
    await polling.latestId();
    const byWake = collect(woken, alice);
    const byPoll = collect(polling, alice);

    const [id] = await writeTradeEvents(database.db, [{ accountId: alice }], { notify: false });
    await expect.poll(() => byPoll.ids()).toEqual([id]);
    // The 60 s poll has not run and no notification was sent: only wake() makes this hub read.
    expect(byWake.ids()).toEqual([]);
    woken.wake();
    await expect.poll(() => byWake.ids()).toEqual([id]);
    byWake.stop();
    byPoll.stop();
  });

  it("never reads twice at once, however often it is woken", async () => {
    let inFlight = 0;
    let most = 0;
    // The hub's reads counted on their way through the database.
    const counting: Database = {
      ...database.db,
      async query<R>(text: string, params?: readonly unknown[]) {
        if (!text.includes("trade_events")) return database.db.query<R>(text, params);
        most = Math.max(most, ++inFlight);
        try {
          return await database.db.query<R>(text, params);
        } finally {
          inFlight--;
        }
      },
    };
    const hub = hubOn(counting, { batchSize: 2 });
    await hub.latestId();
    const a = collect(hub, alice);
    const written: string[] = [];
    for (let round = 0; round < 5; round++) {
      written.push(
        ...(await writeTradeEvents(database.db, [{ accountId: alice }, { accountId: alice }, { accountId: alice }])),
      );
      for (let i = 0; i < 10; i++) hub.wake();
    }
    await expect.poll(() => a.ids()).toEqual(written);
    expect(most).toBe(1);
    a.stop();
  });

  it("stops reading when closed", async () => {
    const hub = createTradeUpdatesHub({ db: database.db, logger, pollIntervalMs: 50 });
    await hub.latestId();
    const a = collect(hub, alice);
    await hub.close();
    await writeTradeEvents(database.db, [{ accountId: alice }]);
    hub.wake();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(a.ids()).toEqual([]);
  });
});
