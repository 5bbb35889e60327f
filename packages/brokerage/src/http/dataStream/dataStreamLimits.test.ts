/**
 * What bounds the data streams, over real sockets: one connection per end user (406 `connection limit
 * exceeded` for a second one, whichever application or key pair opens it, on this instance or another one on
 * the same database or Redis), the slot released at close, after a missed pong, and after its lease when an
 * instance dies holding it; and the slow client (407), whose server-side buffer stays bounded.
 */
import { createDatabase } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectDataStream,
  createDataStreamTestbed,
  type DataHost,
  type DataStreamClient,
  type DataStreamTestbed,
  writeFeed,
} from "../../testing/dataStreamHost.ts";

let bed: DataStreamTestbed;
let host: DataHost;
const clients: DataStreamClient[] = [];

beforeAll(async () => {
  bed = await createDataStreamTestbed({ leaseSeconds: 15 });
  host = await bed.startHost();
});
afterAll(async () => {
  for (const c of clients) c.socket.terminate();
  await bed.close();
});

const AUTHENTICATED = { T: "success", msg: "authenticated" };
const LIMIT = { T: "error", code: 406, msg: "connection limit exceeded" };

type User = Awaited<ReturnType<DataStreamTestbed["user"]>>;

async function open(on: DataHost, auth: Record<string, string>, options: { autoPong?: boolean } = {}) {
  const client = await connectDataStream(`${on.wsOrigin}/v2/iex`, options);
  clients.push(client);
  await client.next((m) => m.msg === "connected");
  client.send({ action: "auth", ...auth });
  return client;
}
const byToken = async (user: User, app: "first" | "second" = "first") => ({
  key: "oauth",
  secret: await bed.token(user, ["data"], app),
});
const byKeyPair = async (user: User) => {
  const k = await bed.keyPairs.create({ accountId: user.paper.id });
  return { key: k.key_id, secret: k.secret_key };
};

describe(`one data stream connection per user (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"})`, () => {
  it("refuses a second connection of the user from another app or a key pair (406, close), until the first closes", async () => {
    const user = await bed.user();
    const first = await open(host, await byToken(user));
    expect(await first.next()).toEqual(AUTHENTICATED);

    const otherApp = await open(host, await byToken(user, "second"));
    expect(await otherApp.next()).toEqual(LIMIT);
    expect(await otherApp.closed).toEqual({ code: 1008, reason: "connection limit exceeded" });
    const keyPair = await open(host, await byKeyPair(user));
    expect(await keyPair.next()).toEqual(LIMIT);
    await keyPair.closed;
    // Another user is not affected.
    const someoneElse = await open(host, await byToken(await bed.user()));
    expect(await someoneElse.next()).toEqual(AUTHENTICATED);

    await first.close();
    await expect.poll(() => bed.slots.held(user.id)).toBe(0);
    const again = await open(host, await byKeyPair(user));
    expect(await again.next()).toEqual(AUTHENTICATED);
  });

  it("follows the user's configured limit (2 allowed, 0 none)", async () => {
    const two = await bed.user({ connections: 2 });
    expect(await (await open(host, await byToken(two))).next()).toEqual(AUTHENTICATED);
    expect(await (await open(host, await byKeyPair(two))).next()).toEqual(AUTHENTICATED);
    expect(await (await open(host, await byToken(two, "second"))).next()).toEqual(LIMIT);
    const none = await bed.user({ connections: 0 });
    expect(await (await open(host, await byToken(none))).next()).toEqual(LIMIT);
  });

  it("holds across two instances on one database, and each releases at close", async () => {
    const other = await bed.startHost({ slots: bed.createSlots(), hub: bed.createHub() });
    const user = await bed.user();
    const here = await open(host, await byToken(user));
    expect(await here.next()).toEqual(AUTHENTICATED);
    expect(await (await open(other, await byKeyPair(user))).next()).toEqual(LIMIT);
    await here.close();
    await expect.poll(() => bed.slots.held(user.id)).toBe(0);
    const there = await open(other, await byKeyPair(user));
    expect(await there.next()).toEqual(AUTHENTICATED);
    await other.close();
    expect(await bed.slots.held(user.id)).toBe(0);
  });

  it("frees the slot of a client that stops answering pings", async () => {
    const pinging = await bed.startHost({ pingIntervalMs: 50 });
    const user = await bed.user();
    const dead = await open(pinging, await byToken(user), { autoPong: false });
    expect(await dead.next()).toEqual(AUTHENTICATED);
    expect((await dead.closed).code).toBe(1006);
    await expect.poll(() => bed.slots.held(user.id)).toBe(0);
  });

  it("frees, after its lease, a slot whose instance died holding it; renewals keep a live one", async () => {
    const shortLease = bed.createSlots({ leaseSeconds: 0.6 });
    const user = await bed.user();
    // The instance that dies: its connection takes the slot, then nothing of it renews or releases anything.
    const dying = await bed.startHost({
      slots: { ...shortLease, renew: async () => true, release: async () => {} },
    });
    const orphan = await open(dying, await byToken(user));
    expect(await orphan.next()).toEqual(AUTHENTICATED);
    orphan.socket.terminate();
    const shortHost = await bed.startHost({ slots: shortLease });
    expect(await (await open(shortHost, await byToken(user))).next()).toEqual(LIMIT);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const live = await open(shortHost, await byToken(user));
    expect(await live.next()).toEqual(AUTHENTICATED);
    // Renewed every 200 ms (lease/3) while it answers pings: still held well past its first lease.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await shortLease.held(user.id)).toBe(1);
    expect(await (await open(shortHost, await byKeyPair(user))).next()).toEqual(LIMIT);
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    "holds across two instances with their own PostgreSQL connections",
    async () => {
      const otherDb = await createDatabase({ url: bed.databaseUrl, dataDir: "memory", maxConnections: 2 });
      try {
        const other = await bed.startHost({ slots: bed.createSlots({ on: otherDb }), hub: bed.createHub(otherDb) });
        const users = await Promise.all([bed.user(), bed.user(), bed.user()]);
        // Both instances race for each user's one slot: exactly one wins.
        const results = await Promise.all(
          users.flatMap((user) => [host, other].map(async (h) => (await open(h, await byKeyPair(user))).next())),
        );
        for (let i = 0; i < users.length; i++) {
          expect([results[2 * i], results[2 * i + 1]]).toEqual(expect.arrayContaining([AUTHENTICATED, LIMIT]));
        }
        await other.close();
      } finally {
        await otherDb.close();
      }
    },
  );

  it.runIf(process.env.TEST_REDIS_URL)("holds across two instances with slots in Redis", async () => {
    const redisUrl = process.env.TEST_REDIS_URL as string;
    const redisSlots = bed.createSlots({ redisUrl });
    const a = await bed.startHost({ slots: redisSlots });
    const b = await bed.startHost({ slots: bed.createSlots({ redisUrl }) });
    const user = await bed.user();
    const first = await open(a, await byToken(user));
    expect(await first.next()).toEqual(AUTHENTICATED);
    expect(await (await open(b, await byKeyPair(user))).next()).toEqual(LIMIT);
    await first.close();
    await expect.poll(() => redisSlots.held(user.id)).toBe(0);
    expect(await (await open(b, await byKeyPair(user))).next()).toEqual(AUTHENTICATED);
  });
});

describe("slow clients", () => {
  it("cuts a client that stops reading with 407 while its server-side buffer stays under the limit", async () => {
    const limit = 512 * 1024;
    const slow = await bed.startHost({ sendBufferLimit: limit });
    const user = await bed.user({ plan: "plus" });
    const client = await open(slow, await byToken(user));
    expect(await client.next()).toEqual(AUTHENTICATED);
    client.send({ action: "subscribe", trades: ["*"] });
    await client.next((m) => m.T === "subscription");
    const [serverSocket] = [...slow.streams.clients()];
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, serverSocket?.bufferedAmount ?? 0);
    }, 1);
    client.socket.pause();
    // ~16 MB of trades in 40 writes: far more than the loopback buffers and the limit hold.
    const conditions = Array.from({ length: 100 }, (_, i) => `c${i}`);
    const write = (w: number) =>
      Array.from({ length: 400 }, (_, i) => ({
        channel: "trades",
        message: { T: "t", S: `S${i % 50}`, i: w * 400 + i, p: 1, s: 1, c: conditions, t: "2026-11-25T15:00:00Z" },
      }));
    // One read's frame (one write's messages) is about half the limit.
    expect(JSON.stringify(write(39).map((e) => e.message)).length).toBeLessThan(limit);
    try {
      for (let w = 0; w < 40 && serverSocket?.readyState === serverSocket?.OPEN; w++) {
        await writeFeed(bed.db, write(w));
      }
      // The server gave up on it (closing); a client that reads again within the close's grace gets the 407.
      await expect.poll(() => serverSocket?.readyState, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      // What is left waiting for it (the frames before the cut, the 407, the close frame).
      peak = Math.max(peak, serverSocket?.bufferedAmount ?? 0);
    } finally {
      clearInterval(sampler);
    }
    client.socket.resume();
    expect(await client.closed).toEqual({ code: 1008, reason: "slow client" });
    expect(client.received.at(-1)).toEqual({ T: "error", code: 407, msg: "slow client" });
    // What waited for the client never passed the limit (but for the 407 and the close frame after it).
    expect(peak).toBeLessThanOrEqual(limit + 256);
    expect(peak).toBeGreaterThan(0);
    const trades = client.received.filter((m) => m.T === "t").length;
    expect(trades).toBeLessThan(16_000);
    console.info(`slow client: peak server buffer ${peak} B (limit ${limit} B), ${trades} of 16000 trades sent`);
    await expect.poll(() => bed.slots.held(user.id)).toBe(0);
  });
});
