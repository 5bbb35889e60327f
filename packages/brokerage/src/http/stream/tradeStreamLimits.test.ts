/**
 * What bounds a `/stream` connection, over real sockets: the authentication timeout, the frame size limit,
 * the send buffer limit (a client that does not read is closed as a slow client), the keepalive ping, and
 * a server shutdown that closes every socket (1001) without waiting on peers that do not answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccountRow } from "../../store/accountsRepository.ts";
import type { TradeEventListener } from "../../stream/tradeUpdatesHub.ts";
import { writeTradeEvents } from "../../testing/tradeEvents.ts";
import { connectTradeStream, type TradeStreamClient } from "../../testing/tradeStreamClient.ts";
import { createTradeStreamTestbed, type StreamHost, type TradeStreamTestbed } from "../../testing/tradeStreamHost.ts";

let bed: TradeStreamTestbed;
const clients: TradeStreamClient[] = [];
let subscriptions = 0;
/** The testbed's hub, counting the subscriptions the connections hold. */
const countingHub = {
  subscribe(accountId: string, listener: TradeEventListener) {
    subscriptions++;
    const stop = bed.hub.subscribe(accountId, listener);
    return () => {
      subscriptions--;
      stop();
    };
  },
};

beforeAll(async () => {
  bed = await createTradeStreamTestbed();
});
afterAll(async () => {
  for (const c of clients) c.socket.terminate();
  await bed.close();
});

async function connect(host: StreamHost, options: { autoPong?: boolean } = {}) {
  const client = await connectTradeStream(host.streamUrl, options);
  clients.push(client);
  return client;
}

async function listening(host: StreamHost, account: AccountRow) {
  const client = await connect(host);
  const k = await bed.keyPairs.create({ accountId: account.id });
  client.send({ action: "authenticate", data: { key_id: k.key_id, secret_key: k.secret_key } });
  await client.next((m) => m.stream === "authorization");
  client.send({ action: "listen", data: { streams: ["trade_updates"] } });
  await client.next((m) => m.stream === "listening");
  return client;
}

describe("/stream limits", () => {
  it("closes a connection that does not authenticate in time, not one that did", async () => {
    const host = await bed.startHost("paper", { authTimeoutMs: 150 });
    const idle = await connect(host);
    const authenticated = await listening(host, bed.paper(0));
    expect(await idle.next()).toEqual({ action: "error", data: { error_message: "auth timeout" } });
    expect(await idle.closed).toEqual({ code: 1008, reason: "auth timeout" });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(authenticated.socket.readyState).toBe(authenticated.socket.OPEN);
  });

  it("closes a connection that sends a frame over 16 KiB", async () => {
    const host = await bed.startHost("paper");
    const client = await connect(host);
    client.socket.send(JSON.stringify({ action: "listen", data: { streams: ["x".repeat(17 * 1024)] } }));
    expect((await client.closed).code).toBe(1009);
  });

  it("closes a client that does not read as a slow client, and drops its subscription", async () => {
    const host = await bed.startHost("paper", { sendBufferLimit: 64 * 1024 }, countingHub);
    const client = await listening(host, bed.paper(1));
    expect(subscriptions).toBe(1);
    client.socket.pause();
    // ~10 MB of events: more than the loopback socket buffers hold, far more than the limit.
    const padding = "x".repeat(256 * 1024);
    await writeTradeEvents(
      bed.db,
      Array.from({ length: 40 }, () => ({ accountId: bed.paper(1).id, order: { padding } })),
    );
    await expect.poll(() => subscriptions, { timeout: 5_000 }).toBe(0);
    client.socket.resume();
    expect(await client.closed).toEqual({ code: 1008, reason: "slow client" });
    const events = client.received.filter((r) => r.message.stream === "trade_updates");
    expect(events.length).toBeLessThan(40);
  });

  it("cuts a peer that stops answering pings, and keeps one that answers", async () => {
    const host = await bed.startHost("paper", { pingIntervalMs: 50 });
    const dead = await connect(host, { autoPong: false });
    const alive = await connect(host);
    expect((await dead.closed).code).toBe(1006);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alive.socket.readyState).toBe(alive.socket.OPEN);
  });

  it("closes every socket on shutdown, without waiting on a peer that does not answer", async () => {
    const host = await bed.startHost("paper", {}, countingHub);
    const polite = await listening(host, bed.paper(0));
    const deaf = await listening(host, bed.paper(0));
    deaf.socket.pause();
    const started = Date.now();
    await host.app.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await polite.closed).toEqual({ code: 1001, reason: "server shutting down" });
    deaf.socket.resume();
    await deaf.closed;
    expect(subscriptions).toBe(0);
  });
});
