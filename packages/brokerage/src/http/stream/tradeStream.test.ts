/**
 * `/stream` over real sockets (the `ws` client) on trading hosts built as the platform builds them, with a
 * real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): authentication by key pair and by OAuth token
 * (the anchor's three message forms), the account's events in order and no one else's, JSON in binary frames
 * and MessagePack, the unauthorized paths, listen before auth, `[]`, re-authentication, a connection that
 * misses nothing while events are being written, and two instances (hubs) on one PostgreSQL database.
 */
import { streaming } from "@alpacahq/alpaca-trade-api";
import { createDatabase } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccountRow } from "../../store/accountsRepository.ts";
import { writeTradeEvents } from "../../testing/tradeEvents.ts";
import { connectTradeStream, type TradeStreamClient } from "../../testing/tradeStreamClient.ts";
import { createTradeStreamTestbed, type StreamHost, type TradeStreamTestbed } from "../../testing/tradeStreamHost.ts";

let bed: TradeStreamTestbed;
let live: StreamHost;
let paper: StreamHost;
const clients: TradeStreamClient[] = [];

beforeAll(async () => {
  bed = await createTradeStreamTestbed();
  live = await bed.startHost("live");
  paper = await bed.startHost("paper");
});
afterAll(async () => {
  for (const c of clients) c.socket.terminate();
  await bed.close();
});

const AUTHORIZED = { stream: "authorization", data: { status: "authorized", action: "authenticate" } };
const UNAUTHORIZED = { stream: "authorization", data: { status: "unauthorized", action: "authenticate" } };
const LISTENING = { stream: "listening", data: { streams: ["trade_updates"] } };

async function connect(host: StreamHost, options: { msgpack?: boolean } = {}) {
  const client = await connectTradeStream(host.streamUrl, options);
  clients.push(client);
  return client;
}

const keyAuth = (k: { key_id: string; secret_key: string }) => ({
  action: "authenticate",
  data: { key_id: k.key_id, secret_key: k.secret_key },
});
const listen = (streams: string[] = ["trade_updates"]) => ({ action: "listen", data: { streams } });
const isTradeUpdate = (m: Record<string, unknown>) => m.stream === "trade_updates";
const eventIdOf = (m: Record<string, unknown>) => (m.data as { event_id: string }).event_id;

/** A connection authenticated with a new key pair of `account`, listening to trade updates. */
async function listening(host: StreamHost, account: AccountRow, options: { msgpack?: boolean } = {}) {
  const client = await connect(host, options);
  client.send(keyAuth(await bed.keyPairs.create({ accountId: account.id })));
  expect(await client.next()).toEqual(AUTHORIZED);
  client.send(listen());
  expect(await client.next()).toEqual(LISTENING);
  return client;
}

describe(`GET /stream (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"})`, () => {
  it("sends a key pair's account its events in order, as JSON in binary frames, and nobody else's", async () => {
    const client = await listening(paper, bed.paper(0));
    const at = new Date("2026-03-02T15:04:05.123Z");
    const ids = await writeTradeEvents(bed.db, [
      { accountId: bed.paper(0).id, event: "new", at },
      { accountId: bed.paper(1).id, event: "new", at },
      {
        accountId: bed.paper(0).id,
        event: "fill",
        at,
        order: { marker: "fill" },
        executionId: "exec-1",
        price: "179.250000000",
        qty: "2.000000000",
        positionQty: "2.000000000",
      },
    ]);
    const first = await client.next(isTradeUpdate);
    const second = await client.next(isTradeUpdate);
    expect(first).toMatchObject({ stream: "trade_updates", data: { event: "new", event_id: ids[0] } });
    expect(second).toEqual({
      stream: "trade_updates",
      data: {
        event: "fill",
        execution_id: "exec-1",
        order: expect.objectContaining({ marker: "fill", symbol: "AAPL" }),
        timestamp: "2026-03-02T15:04:05.123Z",
        at: "2026-03-02T15:04:05.123Z",
        event_id: ids[2],
        price: "179.25",
        qty: "2",
        position_qty: "2",
      },
    });
    expect(client.received.every((r) => r.binary)).toBe(true);
    expect(client.received.filter((r) => isTradeUpdate(r.message))).toHaveLength(2);
  });

  it("speaks MessagePack when the handshake asks for it, and takes an OAuth token", async () => {
    const token = await bed.token({ paper: bed.paper(0) }, ["trading"]);
    const client = await connect(paper, { msgpack: true });
    const firstBytes: number[] = [];
    client.socket.on("message", (data: Buffer) => firstBytes.push(data[0] as number));
    client.send({ action: "authenticate", data: { oauth_token: token } });
    expect(await client.next()).toEqual(AUTHORIZED);
    client.send(listen());
    expect(await client.next()).toEqual(LISTENING);
    const [id] = await writeTradeEvents(bed.db, [{ accountId: bed.paper(0).id, event: "canceled" }]);
    expect(await client.next(isTradeUpdate)).toMatchObject({ data: { event: "canceled", event_id: id } });
    expect(client.received.every((r) => r.binary)).toBe(true);
    // MessagePack maps of two entries (stream, data), not JSON's "{".
    expect(firstBytes).toEqual([0x82, 0x82, 0x82]);
  });

  it("serves the official client (@alpacahq/alpaca-trade-api 4's TradingStream)", async () => {
    const k = await bed.keyPairs.create({ accountId: bed.paper(1).id });
    const stream = new streaming.TradingStream({
      credentials: { keyId: k.key_id, secret: k.secret_key },
      url: paper.streamUrl,
      reconnect: false,
    });
    const updates: streaming.TradeUpdate[] = [];
    const subscribed = new Promise((resolve) => stream.on(streaming.EVENT.SUBSCRIPTION, resolve));
    stream.onTradeUpdate((update) => updates.push(update));
    stream.subscribeTradeUpdates();
    stream.connect();
    try {
      expect(await stream.waitForAuthentication(5_000)).toBe(true);
      expect(await subscribed).toEqual(["trade_updates"]);
      await writeTradeEvents(bed.db, [
        { accountId: bed.paper(1).id, event: "fill", executionId: "e-1", price: "10.5", qty: "3", positionQty: "3" },
      ]);
      await expect.poll(() => updates.length).toBe(1);
      expect(updates[0]).toMatchObject({
        event: "fill",
        executionId: "e-1",
        price: "10.5",
        qty: "3",
        positionQty: "3",
      });
      expect(updates[0]?.order.symbol).toBe("AAPL");
    } finally {
      stream.disconnect();
    }
  });

  it("accepts the newer `auth` form, with a key pair or with key `oauth` and a token", async () => {
    const k = await bed.keyPairs.create({ accountId: bed.live.id });
    const byKey = await connect(live);
    byKey.send({ action: "auth", key: k.key_id, secret: k.secret_key });
    expect(await byKey.next()).toEqual(AUTHORIZED);
    const byToken = await connect(live);
    byToken.send({ action: "auth", key: "oauth", secret: await bed.token({ live: bed.live }, ["data"]) });
    expect(await byToken.next()).toEqual(AUTHORIZED);
  });

  it.each([
    [
      "a wrong secret",
      async () => ({ action: "authenticate", data: { key_id: "PKUNKNOWN", secret_key: "x".repeat(40) } }),
    ],
    ["a live key on the paper host", async () => keyAuth(await bed.keyPairs.create({ accountId: bed.live.id }))],
    [
      "a token of the other environment",
      async () => ({ action: "authenticate", data: { oauth_token: await bed.token({ live: bed.live }, ["trading"]) } }),
    ],
    [
      "a read-only token (neither trading nor data)",
      async () => ({ action: "authenticate", data: { oauth_token: await bed.token({ paper: bed.paper(0) }, []) } }),
    ],
    ["no credentials", async () => ({ action: "authenticate", data: {} })],
  ])("answers %s unauthorized and closes the connection", async (_case, message) => {
    const client = await connect(paper);
    client.send(await message());
    expect(await client.next()).toEqual(UNAUTHORIZED);
    expect(await client.closed).toEqual({ code: 1008, reason: "unauthorized" });
  });

  it("answers listen before authenticate unauthorized and stays open; the trading hook does not guard it", async () => {
    const client = await connect(paper);
    client.send(listen());
    expect(await client.next()).toEqual({
      stream: "authorization",
      data: { status: "unauthorized", action: "listen" },
    });
    client.send(keyAuth(await bed.keyPairs.create({ accountId: bed.paper(1).id })));
    expect(await client.next()).toEqual(AUTHORIZED);
    client.send(listen());
    expect(await client.next()).toEqual(LISTENING);
    // The same host's trading routes do need credentials in headers.
    expect((await fetch(`${paper.origin}/v2/account`)).status).toBe(401);
  });

  it("answers bad messages with the anchor's error and keeps the connection", async () => {
    const client = await connect(paper);
    client.socket.send("{not json");
    expect(await client.next()).toEqual({ action: "error", data: { error_message: "invalid syntax" } });
    client.send({ action: "subscribe", trades: ["AAPL"] });
    expect(await client.next()).toEqual({ action: "error", data: { error_message: "unrecognized action: subscribe" } });
    client.send(listen(["account_updates"]));
    expect(await client.next()).toMatchObject({ stream: "authorization", data: { status: "unauthorized" } });
  });

  it("stops with listen [] and leaves out streams it does not offer", async () => {
    const client = await listening(paper, bed.paper(1));
    const [before] = await writeTradeEvents(bed.db, [{ accountId: bed.paper(1).id }]);
    expect(eventIdOf(await client.next(isTradeUpdate))).toBe(before);

    client.send(listen([]));
    expect(await client.next()).toEqual({ stream: "listening", data: { streams: [] } });
    const [unheard] = await writeTradeEvents(bed.db, [{ accountId: bed.paper(1).id }]);
    // Once the hub has read past it, listening again starts after it.
    await expect.poll(() => bed.hub.latestId()).toBeGreaterThanOrEqual(BigInt(unheard as string));
    client.send(listen(["account_updates", "trade_updates"]));
    expect(await client.next()).toEqual(LISTENING);
    const [after] = await writeTradeEvents(bed.db, [{ accountId: bed.paper(1).id }]);
    expect(eventIdOf(await client.next(isTradeUpdate))).toBe(after);
    const heard = client.received.filter((r) => isTradeUpdate(r.message)).map((r) => eventIdOf(r.message));
    expect(heard).toEqual([before, after]);
  });

  it("moves a subscription to the account a re-authentication opens", async () => {
    const client = await listening(paper, bed.paper(0));
    client.send(keyAuth(await bed.keyPairs.create({ accountId: bed.paper(1).id })));
    expect(await client.next()).toEqual(AUTHORIZED);
    const ids = await writeTradeEvents(bed.db, [{ accountId: bed.paper(0).id }, { accountId: bed.paper(1).id }]);
    expect(eventIdOf(await client.next(isTradeUpdate))).toBe(ids[1]);
  });

  it("misses nothing of its account while events are being written", async () => {
    const account = bed.paper(0);
    // Transactions of three events each, before, while and after the client connects and listens.
    let rounds = 0;
    let lastRound = Number.POSITIVE_INFINITY;
    const writer = (async () => {
      for (; rounds < lastRound; rounds++) {
        await writeTradeEvents(bed.db, [
          { accountId: account.id, order: { n: rounds } },
          { accountId: bed.paper(1).id },
          { accountId: account.id, order: { n: rounds } },
        ]);
        // PGlite answers without a turn of the event loop: let the sockets in between rounds.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await expect.poll(() => rounds).toBeGreaterThan(2);
    const client = await listening(paper, account);
    // Everything committed from here on must arrive.
    const [{ floor } = { floor: "0" }] = await bed.db.query<{ floor: string }>(
      "SELECT coalesce(max(id), 0) AS floor FROM brokerage.trade_events",
    );
    lastRound = rounds + 10;
    await writer;
    const expected = (
      await bed.db.query<{ id: string }>(
        "SELECT id FROM brokerage.trade_events WHERE account_id = $1 AND id > $2 ORDER BY id",
        [account.id, floor],
      )
    ).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(10);
    const last = expected.at(-1);
    await client.next((m) => isTradeUpdate(m) && eventIdOf(m) === last);
    const heard = client.received.filter((r) => isTradeUpdate(r.message)).map((r) => eventIdOf(r.message));
    // In order, no gap: what came is a contiguous run of the account's events that covers all after the floor.
    const all = (
      await bed.db.query<{ id: string }>("SELECT id FROM brokerage.trade_events WHERE account_id = $1 ORDER BY id", [
        account.id,
      ])
    ).map((r) => r.id);
    const start = all.indexOf(heard[0] as string);
    expect(heard).toEqual(all.slice(start, start + heard.length));
    expect(heard.slice(-expected.length)).toEqual(expected);
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    "reaches the clients of two instances on one PostgreSQL database",
    async () => {
      const otherDb = await createDatabase({ url: bed.database.url, dataDir: "memory", maxConnections: 2 });
      try {
        const otherHub = bed.createHub(otherDb);
        await otherHub.latestId();
        const otherPaper = await bed.startHost("paper", {}, otherHub);
        const here = await listening(paper, bed.paper(0));
        const there = await listening(otherPaper, bed.paper(0));
        // Written by a third connection: both instances hear the notification.
        const writer = await createDatabase({ url: bed.database.url, dataDir: "memory", maxConnections: 1 });
        const [id] = await writeTradeEvents(writer, [{ accountId: bed.paper(0).id }]).finally(() => writer.close());
        expect(eventIdOf(await here.next(isTradeUpdate))).toBe(id);
        expect(eventIdOf(await there.next(isTradeUpdate))).toBe(id);
        await otherPaper.app.close();
        await otherHub.close();
      } finally {
        await otherDb.close();
      }
    },
  );
});
