/**
 * The connection slots on each backend (PostgreSQL/PGlite always, Redis with TEST_REDIS_URL), against a real
 * brokerage database: the limit, release, renewal, expiry of an abandoned slot, and concurrent acquisitions
 * of one user's last slot, of which exactly one wins.
 */
import { randomUUID } from "node:crypto";
import type { TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { createDataStreamSlots, type DataStreamSlots } from "./dataStreamSlots.ts";

let database: TestDatabase;
const opened: DataStreamSlots[] = [];

beforeAll(async () => {
  database = await createBrokerageTestDatabase();
});
afterAll(async () => {
  for (const s of opened) await s.close();
  await database.drop();
});

async function newUser(connections = 1): Promise<string> {
  const user = await createUsersRepository(database.db).insertWithAccounts({
    email: `slots-${randomUUID()}@example.com`,
    passwordHash: "x",
    startingCash: "0",
    paperAccounts: 1,
  });
  await database.db.query("UPDATE brokerage.users SET data_stream_connections = $2 WHERE id = $1", [
    user.id,
    connections,
  ]);
  return user.id;
}

const backends = [
  { name: "PostgreSQL", redisUrl: undefined },
  ...(process.env.TEST_REDIS_URL ? [{ name: "Redis", redisUrl: process.env.TEST_REDIS_URL }] : []),
];

describe.each(backends)("data stream slots ($name)", ({ redisUrl }) => {
  const prefix = `test:slots:${randomUUID()}:`;
  const slots = (leaseSeconds = 15) => {
    const s = createDataStreamSlots({ db: database.db, leaseSeconds, redisUrl, redisPrefix: prefix });
    opened.push(s);
    return s;
  };

  it("reads the user's settings (default one connection, plan basic)", async () => {
    const userId = await newUser(3);
    expect(await slots().settingsOf(userId)).toEqual({ connections: 3, plan: "basic" });
    expect(await slots().settingsOf(randomUUID())).toBeUndefined();
  });

  it("grants up to the limit, again to the same connection, and frees a slot on release", async () => {
    const s = slots();
    const userId = await newUser();
    expect(await s.acquire(userId, "a", 1)).toBe(true);
    expect(await s.acquire(userId, "a", 1)).toBe(true);
    expect(await s.acquire(userId, "b", 1)).toBe(false);
    expect(await s.acquire(userId, "b", 2)).toBe(true);
    expect(await s.held(userId)).toBe(2);
    await s.release(userId, "a");
    expect(await s.acquire(userId, "c", 2)).toBe(true);
    expect(await s.acquire(userId, "d", 0)).toBe(false);
  });

  it("lets an abandoned slot expire, and a renewed one live", async () => {
    const s = slots(0.4);
    const userId = await newUser();
    expect(await s.acquire(userId, "renewed", 2)).toBe(true);
    expect(await s.acquire(userId, "abandoned", 2)).toBe(true);
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 130));
      expect(await s.renew(userId, "renewed")).toBe(true);
    }
    expect(await s.held(userId)).toBe(1);
    expect(await s.renew(userId, "abandoned")).toBe(false);
    expect(await s.acquire(userId, "new", 2)).toBe(true);
  });

  it("renews many connections at once (one statement on PostgreSQL), telling the expired ones apart", async () => {
    const s = slots(0.3);
    const userId = await newUser(5);
    for (const id of ["r1", "r2", "r3", "gone"]) expect(await s.acquire(userId, id, 5)).toBe(true);
    await s.release(userId, "gone");
    expect(await Promise.all(["r1", "r2", "r3", "gone", "r1"].map((id) => s.renew(userId, id)))).toEqual([
      true,
      true,
      true,
      false,
      true,
    ]);
  });

  it("gives a user's last slot to exactly one of many concurrent acquisitions (two instances)", async () => {
    const [first, second] = [slots(), slots()] as [DataStreamSlots, DataStreamSlots];
    const userId = await newUser();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? first : second).acquire(userId, `c${i}`, 1)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await first.held(userId)).toBe(1);
  });
});
