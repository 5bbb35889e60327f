/**
 * The market data streams over real sockets (the `ws` client and the official client) on a data host started
 * as the platform starts it, with a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): the
 * handshake, authentication by message and by headers, JSON and MessagePack, subscribe/unsubscribe and the
 * full-list reply, the feed's messages reaching exactly their subscribers, and every error code 400–411
 * (but 406 and 407, in dataStreamLimits.test.ts).
 */
import { streaming } from "@alpacahq/alpaca-trade-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectDataStream,
  createDataStreamTestbed,
  type DataHost,
  type DataMessage,
  type DataStreamClient,
  type DataStreamTestbed,
  writeFeed,
} from "../../testing/dataStreamHost.ts";

let bed: DataStreamTestbed;
let host: DataHost;
const clients: DataStreamClient[] = [];

beforeAll(async () => {
  bed = await createDataStreamTestbed();
  host = await bed.startHost({ authTimeoutMs: 2_000 });
});
afterAll(async () => {
  for (const c of clients) c.socket.terminate();
  await bed.close();
});

const CONNECTED = { T: "success", msg: "connected" };
const AUTHENTICATED = { T: "success", msg: "authenticated" };
const error = (code: number, msg: string) => ({ T: "error", code, msg });
const isSubscription = (m: DataMessage) => m.T === "subscription";
const isData = (m: DataMessage) => !["success", "error", "subscription"].includes(m.T);
const EMPTY_STOCK = {
  T: "subscription",
  trades: [],
  quotes: [],
  bars: [],
  updatedBars: [],
  dailyBars: [],
  statuses: [],
  lulds: [],
  corrections: [],
  cancelErrors: [],
};

const trade = (S: string, i: number, p = 151.23) => ({
  T: "t",
  S,
  i,
  x: "V",
  p,
  s: 100,
  c: ["@"],
  z: "C",
  t: "2026-11-25T15:00:00.123Z",
});
const quote = (S: string) => ({
  T: "q",
  S,
  bx: "V",
  bp: 151.2,
  bs: 3,
  ax: "V",
  ap: 151.3,
  as: 2,
  c: ["R"],
  z: "C",
  t: "2026-11-25T15:00:00.200Z",
});

async function connect(path = "/v2/iex", options: Parameters<typeof connectDataStream>[1] = {}) {
  const client = await connectDataStream(`${host.wsOrigin}${path}`, options);
  clients.push(client);
  expect(await client.next()).toEqual(CONNECTED);
  return client;
}

/** A connection authenticated by a new key pair of a new user (each user has one slot). */
async function authenticated(path = "/v2/iex", settings: { plan?: "basic" | "plus" } = {}, msgpack = false) {
  const user = await bed.user(settings);
  const k = await bed.keyPairs.create({ accountId: user.live.id });
  const client = await connect(path, { msgpack });
  client.send({ action: "auth", key: k.key_id, secret: k.secret_key });
  expect(await client.next()).toEqual(AUTHENTICATED);
  return client;
}

describe(`data streams (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"})`, () => {
  it("authenticates a key pair, answers subscribe with every channel, idempotently, and streams JSON", async () => {
    const client = await authenticated();
    const subscribe = { action: "subscribe", trades: ["AAPL"], quotes: ["AAPL", "MSFT"], bars: ["*"] };
    client.send(subscribe);
    const reply = { ...EMPTY_STOCK, trades: ["AAPL"], quotes: ["AAPL", "MSFT"], bars: ["*"] };
    expect(await client.next()).toEqual(reply);
    client.send(subscribe);
    expect(await client.next()).toEqual(reply);
    await writeFeed(bed.db, [
      { channel: "trades", message: trade("AAPL", 1) },
      { channel: "trades", message: trade("MSFT", 2) },
      { channel: "quotes", message: quote("MSFT") },
    ]);
    const frame = await client.next(isData);
    expect(frame).toEqual(trade("AAPL", 1));
    expect(await client.next(isData)).toEqual(quote("MSFT"));
    // One frame for the read, JSON text frames throughout.
    expect(client.frames.at(-1)?.messages).toHaveLength(2);
    expect(client.frames.every((f) => !f.binary)).toBe(true);

    client.send({ action: "unsubscribe", trades: ["AAPL"], quotes: ["MSFT", "TSLA"] });
    expect(await client.next()).toEqual({ ...EMPTY_STOCK, quotes: ["AAPL"], bars: ["*"] });
  });

  it("sends a channel's messages only to its subscribers, `*` once with a symbol, one frame per read", async () => {
    const both = await authenticated("/v2/iex", { plan: "plus" });
    both.send({ action: "subscribe", trades: ["SPY", "*"] });
    await both.next(isSubscription);
    const other = await authenticated();
    other.send({ action: "subscribe", trades: ["QQQ"], bars: ["SPY"] });
    await other.next(isSubscription);
    await writeFeed(bed.db, [
      { channel: "trades", message: trade("SPY", 10) },
      { channel: "quotes", message: quote("SPY") },
      { channel: "trades", message: trade("IWM", 11) },
      { channel: "trades", message: trade("QQQ", 12) },
    ]);
    await other.next(isData);
    await expect.poll(() => both.received.filter(isData).length).toBe(3);
    expect(both.received.filter(isData).map((m) => m.i)).toEqual([10, 11, 12]);
    expect(both.frames.at(-1)?.messages.map((m) => m.i)).toEqual([10, 11, 12]);
    expect(other.received.filter(isData).map((m) => m.i)).toEqual([12]);
  });

  it("speaks MessagePack when the handshake asks for it, with `t` as a timestamp, and takes an OAuth token", async () => {
    const user = await bed.user();
    const token = await bed.token(user, ["data"]);
    const client = await connect("/v2/iex", { msgpack: true });
    client.send({ action: "auth", key: "oauth", secret: token });
    expect(await client.next()).toEqual(AUTHENTICATED);
    client.send({ action: "subscribe", trades: ["AAPL"] });
    expect(await client.next()).toEqual({ ...EMPTY_STOCK, trades: ["AAPL"] });
    await writeFeed(bed.db, [{ channel: "trades", message: trade("AAPL", 20) }]);
    const received = await client.next(isData);
    expect(received).toEqual({ ...trade("AAPL", 20), t: new Date("2026-11-25T15:00:00.123Z") });
    expect(client.frames.every((f) => f.binary)).toBe(true);
    // A fixarray of one message; the timestamp is extension −1 (0xd6/0xd7 0xff).
    const last = client.frames.at(-1)?.bytes as Buffer;
    expect(last[0]).toBe(0x91);
    expect(last.includes(Buffer.from([0xd7, 0xff])) || last.includes(Buffer.from([0xd6, 0xff]))).toBe(true);
  });

  it("authenticates with the handshake's headers at once (bearer token, key pair)", async () => {
    const user = await bed.user();
    const byToken = await connect("/v2/iex", {
      headers: { Authorization: `Bearer ${await bed.token(user, ["data"])}` },
    });
    expect(await byToken.next()).toEqual(AUTHENTICATED);
    await byToken.close();
    const other = await bed.user();
    const k = await bed.keyPairs.create({ accountId: other.paper.id });
    const byKey = await connect("/v2/test", {
      headers: { "APCA-API-KEY-ID": k.key_id, "APCA-API-SECRET-KEY": k.secret_key },
    });
    expect(await byKey.next()).toEqual(AUTHENTICATED);
    byKey.send({ action: "subscribe", trades: ["FAKEPACA"] });
    expect(await byKey.next()).toEqual({ ...EMPTY_STOCK, trades: ["FAKEPACA"] });
    await writeFeed(bed.db, [
      { channel: "trades", message: trade("AAPL", 40) },
      { channel: "trades", message: trade("FAKEPACA", 41) },
    ]);
    expect(await byKey.next(isData)).toEqual(trade("FAKEPACA", 41));
  });

  it("serves the crypto feed with its channels, and refuses unknown feeds at the handshake", async () => {
    const client = await authenticated("/v1beta3/crypto/us");
    client.send({ action: "subscribe", trades: ["BTC/USD"], orderbooks: ["ETH/USD"] });
    expect(await client.next()).toEqual({
      T: "subscription",
      trades: ["BTC/USD"],
      quotes: [],
      bars: [],
      updatedBars: [],
      dailyBars: [],
      orderbooks: ["ETH/USD"],
    });
    const crypto = { T: "t", S: "BTC/USD", i: 5, p: 91000.5, s: 0.01, tks: "B", t: "2026-11-25T15:00:01Z" };
    await writeFeed(bed.db, [{ channel: "trades", message: crypto }]);
    expect(await client.next(isData)).toEqual(crypto);
    await expect(connectDataStream(`${host.wsOrigin}/v2/delayed_sip`)).rejects.toThrow(/404/);
    await expect(connectDataStream(`${host.wsOrigin}/v1beta3/crypto/eu`)).rejects.toThrow(/404/);
  });

  it("serves the official client (StockDataStream with key `oauth`) in MessagePack", async () => {
    const user = await bed.user();
    const token = await bed.token(user, ["data"]);
    const stream = new streaming.StockDataStream({
      credentials: { keyId: "oauth", secret: token },
      url: `${host.wsOrigin}/v2/iex`,
      reconnect: false,
    });
    const trades: unknown[] = [];
    const subscribed = new Promise((resolve) => stream.on(streaming.EVENT.SUBSCRIPTION, resolve));
    stream.onTrade((t) => trades.push(t));
    stream.connect();
    try {
      expect(await stream.waitForAuthentication(5_000)).toBe(true);
      stream.subscribeForTrades(["AAPL"]);
      await subscribed;
      await writeFeed(bed.db, [{ channel: "trades", message: trade("AAPL", 30, 150.5) }]);
      await expect.poll(() => trades.length).toBe(1);
      expect(trades[0]).toMatchObject({
        symbol: "AAPL",
        price: 150.5,
        id: 30,
        timestamp: new Date("2026-11-25T15:00:00.123Z"),
      });
    } finally {
      stream.disconnect();
    }
  });
});

describe("data stream errors", () => {
  it("400 invalid syntax: malformed JSON, an unknown action, a malformed symbol; the connection stays", async () => {
    const client = await authenticated("/v1beta3/crypto/us");
    client.socket.send("{not json");
    expect(await client.next()).toEqual(error(400, "invalid syntax"));
    client.send({ action: "dance" });
    expect(await client.next()).toEqual(error(400, "invalid syntax"));
    client.send({ action: "subscribe", trades: ["BTCUSD"] });
    expect(await client.next()).toEqual(error(400, "invalid syntax"));
    client.send({ action: "subscribe", trades: "BTC/USD" });
    expect(await client.next()).toEqual(error(400, "invalid syntax"));
    client.send({ action: "subscribe", trades: ["BTC/USD"] });
    expect(await client.next(isSubscription)).toMatchObject({ trades: ["BTC/USD"] });
  });

  it("401 not authenticated: subscribe before auth; the connection stays", async () => {
    const client = await connect();
    client.send({ action: "subscribe", trades: ["AAPL"] });
    expect(await client.next()).toEqual(error(401, "not authenticated"));
    expect(client.socket.readyState).toBe(client.socket.OPEN);
  });

  it("402 auth failed, then close: a wrong secret, an unknown token, bad handshake headers", async () => {
    const user = await bed.user();
    const k = await bed.keyPairs.create({ accountId: user.live.id });
    const wrong = await connect();
    // The secret with its last character changed (a random secret ends in "x" one time in 64).
    const wrongSecret = `${k.secret_key.slice(0, -1)}${k.secret_key.endsWith("x") ? "y" : "x"}`;
    wrong.send({ action: "auth", key: k.key_id, secret: wrongSecret });
    expect(await wrong.next()).toEqual(error(402, "auth failed"));
    expect((await wrong.closed).code).toBe(1008);
    const unknown = await connect("/v2/iex", { msgpack: true });
    unknown.send({ action: "auth", key: "oauth", secret: "no-such-token" });
    expect(await unknown.next()).toEqual(error(402, "auth failed"));
    await unknown.closed;
    const header = await connect("/v2/iex", { headers: { Authorization: "Basic abc" } });
    expect(await header.next()).toEqual(error(402, "auth failed"));
    await header.closed;
  });

  it("403 already authenticated; the connection stays", async () => {
    const client = await authenticated();
    client.send({ action: "auth", key: "oauth", secret: "whatever" });
    expect(await client.next()).toEqual(error(403, "already authenticated"));
    client.send({ action: "subscribe", bars: ["AAPL"] });
    expect(await client.next(isSubscription)).toMatchObject({ bars: ["AAPL"] });
  });

  it("404 auth timeout, then close; an authenticated connection stays", async () => {
    const quick = await bed.startHost({ authTimeoutMs: 150 });
    const idle = await connectDataStream(`${quick.wsOrigin}/v2/iex`);
    clients.push(idle);
    expect(await idle.next()).toEqual(CONNECTED);
    expect(await idle.next()).toEqual(error(404, "auth timeout"));
    expect(await idle.closed).toEqual({ code: 1008, reason: "auth timeout" });
  });

  it("405 symbol limit exceeded on plan basic (over 30 symbols of trades and quotes, or `*`); plus has none", async () => {
    const basic = await authenticated();
    const symbols = Array.from({ length: 20 }, (_, i) => `S${i}`);
    basic.send({ action: "subscribe", trades: symbols, bars: ["*"] });
    expect(await basic.next(isSubscription)).toMatchObject({ trades: symbols });
    basic.send({ action: "subscribe", quotes: Array.from({ length: 11 }, (_, i) => `Q${i}`) });
    expect(await basic.next()).toEqual(error(405, "symbol limit exceeded"));
    basic.send({ action: "subscribe", quotes: ["*"] });
    expect(await basic.next()).toEqual(error(405, "symbol limit exceeded"));
    basic.send({ action: "subscribe", quotes: ["Q1"] });
    expect(await basic.next(isSubscription)).toMatchObject({ trades: symbols, quotes: ["Q1"], bars: ["*"] });
    const plus = await authenticated("/v2/sip", { plan: "plus" });
    plus.send({ action: "subscribe", trades: ["*"], quotes: Array.from({ length: 40 }, (_, i) => `Q${i}`) });
    expect(await plus.next(isSubscription)).toMatchObject({ trades: ["*"] });
  });

  it("409 insufficient subscription: sip on plan basic, at authentication, then close", async () => {
    const user = await bed.user({ plan: "basic" });
    const client = await connect("/v2/sip");
    client.send({ action: "auth", key: "oauth", secret: await bed.token(user, ["data"]) });
    expect(await client.next()).toEqual(error(409, "insufficient subscription"));
    expect((await client.closed).code).toBe(1008);
  });

  it("410 invalid subscribe action for this feed: statuses on crypto, orderbooks on stocks", async () => {
    const crypto = await authenticated("/v1beta3/crypto/us");
    crypto.send({ action: "subscribe", trades: ["BTC/USD"], statuses: ["BTC/USD"] });
    expect(await crypto.next()).toEqual(error(410, "invalid subscribe action for this feed"));
    const stocks = await authenticated("/v2/iex");
    stocks.send({ action: "subscribe", orderbooks: ["AAPL"] });
    expect(await stocks.next()).toEqual(error(410, "invalid subscribe action for this feed"));
    stocks.send({ action: "subscribe", lulds: ["AAPL"], corrections: ["AAPL"], cancelErrors: ["AAPL"] });
    expect(await stocks.next()).toMatchObject({ T: "subscription", lulds: ["AAPL"], cancelErrors: ["AAPL"] });
  });

  it("411 insufficient scope: an OAuth token without `data`, then close", async () => {
    const user = await bed.user();
    const client = await connect();
    client.send({ action: "auth", key: "oauth", secret: await bed.token(user, ["trading"]) });
    expect(await client.next()).toEqual(error(411, "insufficient scope"));
    expect((await client.closed).code).toBe(1008);
    expect(await bed.slots.held(user.id)).toBe(0);
  });
});
