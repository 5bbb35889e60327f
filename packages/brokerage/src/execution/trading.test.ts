/**
 * Trading through the running service (HTTP with key pairs, the exchange writer running, a real database):
 * orders fill on the live books and in the paper simulation, positions, cash and activities follow, cancels
 * and replaces, and many concurrent orders of one account never overspend or oversell.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectTradeStream } from "../testing/tradeStreamClient.ts";
import { type JsonBody, startTradingHost, type TradingHost } from "../testing/tradingHost.ts";

let host: TradingHost;
beforeAll(async () => {
  host = await startTradingHost();
}, 60_000);
afterAll(async () => {
  await host?.close();
});

async function setMultiplier(accountId: string, multiplier: "1" | "2" | "4") {
  await host.db.query("UPDATE brokerage.accounts SET max_margin_multiplier = $2 WHERE id = $1", [
    accountId,
    multiplier,
  ]);
}

const terminal = (o: { status: string }) => ["filled", "canceled", "expired", "rejected"].includes(o.status);

describe.each(["live", "paper"] as const)("%s host", (env) => {
  it("fills a market buy, then the position, cash and FILL activity follow; a market sell closes it", async () => {
    const { [env]: client } = await host.createTrader();
    const placed = await client.call("POST", "/v2/orders", {
      symbol: "AAPL",
      qty: "10",
      side: "buy",
      type: "market",
      time_in_force: "day",
      client_order_id: "first-buy",
    });
    expect(placed.status).toBe(200);
    expect(placed.body).toMatchObject({
      symbol: "AAPL",
      qty: "10",
      side: "buy",
      type: "market",
      client_order_id: "first-buy",
    });
    const filled = await host.waitForOrder(client, placed.body.id, terminal);
    expect(filled.status).toBe("filled");
    expect(filled.filled_qty).toBe("10");
    const price = Number(filled.filled_avg_price);
    expect(price).toBeGreaterThan(0);

    const position = await client.call("GET", "/v2/positions/AAPL");
    expect(position.status).toBe(200);
    expect(position.body).toMatchObject({ symbol: "AAPL", qty: "10", side: "long" });
    expect(Number(position.body.avg_entry_price)).toBeCloseTo(price, 6);

    const account = await client.call("GET", "/v2/account");
    expect(Number(account.body.cash)).toBeCloseTo(100_000 - 10 * price, 6);

    const byClientId = await client.call("GET", "/v2/orders:by_client_order_id?client_order_id=first-buy");
    expect(byClientId.body.id).toBe(placed.body.id);
    const again = await client.call("POST", "/v2/orders", {
      symbol: "AAPL",
      qty: "1",
      side: "buy",
      type: "market",
      time_in_force: "day",
      client_order_id: "first-buy",
    });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ code: 40010001, message: "client_order_id must be unique" });

    const close = await client.call("DELETE", "/v2/positions/AAPL");
    expect(close.status).toBe(200);
    expect(close.body).toMatchObject({ side: "sell", qty: "10", type: "market" });
    await host.waitForOrder(client, close.body.id, terminal);
    expect((await client.call("GET", "/v2/positions/AAPL")).body).toEqual({
      code: 40410000,
      message: "position does not exist",
    });
    const list = await client.call("GET", "/v2/orders?status=closed");
    expect(list.body.map((o: { id: string }) => o.id)).toEqual([close.body.id, placed.body.id]);
  });

  it("rests a limit order far from the market, then cancels it", async () => {
    const { [env]: client } = await host.createTrader();
    const placed = await client.call("POST", "/v2/orders", {
      symbol: "MSFT",
      qty: "3",
      side: "buy",
      type: "limit",
      limit_price: "1.5",
      time_in_force: "gtc",
    });
    expect(placed.status).toBe(200);
    await host.waitForOrder(client, placed.body.id, (o) => o.status === "new");
    expect((await client.call("GET", "/v2/orders")).body.map((o: { id: string }) => o.id)).toEqual([placed.body.id]);
    expect((await client.call("DELETE", `/v2/orders/${placed.body.id}`)).status).toBe(204);
    const canceled = await host.waitForOrder(client, placed.body.id, terminal);
    expect(canceled.status).toBe("canceled");
    expect(canceled.canceled_at).not.toBeNull();
    expect((await client.call("DELETE", `/v2/orders/${placed.body.id}`)).status).toBe(422);
  });

  it("replaces a resting limit order by a new one", async () => {
    const { [env]: client } = await host.createTrader();
    const placed = await client.call("POST", "/v2/orders", {
      symbol: "KO",
      qty: "5",
      side: "buy",
      type: "limit",
      limit_price: "2",
      time_in_force: "day",
    });
    await host.waitForOrder(client, placed.body.id, (o) => o.status === "new");
    // Nothing to change, or only what the order already is: the anchor's 403, and no replacement is made.
    const notChanged = { status: 403, body: { code: 40310000, message: "order parameters are not changed" } };
    const path = `/v2/orders/${placed.body.id}`;
    expect(await client.call("PATCH", path, {})).toEqual(notChanged);
    expect(await client.call("PATCH", path, { qty: 5, limit_price: "2.00", time_in_force: "day" })).toEqual(notChanged);
    expect(await client.call("PATCH", path, { client_order_id: "only-a-new-id" })).toEqual(notChanged);
    expect((await client.call("GET", "/v2/orders?status=all")).body).toEqual([
      expect.objectContaining({ id: placed.body.id, status: "new" }),
    ]);
    // As @master-chief/alpaca sends it: the order's id in the body too (the path names the order), nulls unused.
    const replaced = await client.call("PATCH", path, {
      order_id: "61e69015-8549-4bfd-b9c3-01e75843f47d",
      limit_price: 2.5,
      qty: "4",
      stop_price: null,
      time_in_force: null,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      replaces: placed.body.id,
      limit_price: "2.5",
      qty: "4",
      time_in_force: "day",
    });
    const old = await host.waitForOrder(client, placed.body.id, (o) => o.status === "replaced");
    expect(old.replaced_by).toBe(replaced.body.id);
    await host.waitForOrder(client, replaced.body.id, (o) => o.status === "new");
  });

  it("takes JSON without a Content-Type, as text/plain or as a form (fetch of bytes or a string, curl -d) and a typed empty DELETE", async () => {
    const { [env]: client } = await host.createTrader();
    const origin = env === "live" ? host.urls[""] : host.urls.paper;
    const send = (method: string, path: string, body: BodyInit | undefined, type?: string) =>
      fetch(new URL(path, origin), {
        method,
        headers: {
          "apca-api-key-id": client.keyId,
          "apca-api-secret-key": client.secret,
          ...(type ? { "content-type": type } : {}),
        },
        body,
      });
    const order = JSON.stringify({
      symbol: "KO",
      qty: "1",
      side: "buy",
      type: "limit",
      limit_price: "1",
      time_in_force: "gtc",
      notional: null,
    });
    // Bytes through fetch carry no Content-Type at all; a string is labelled text/plain;charset=UTF-8.
    const untyped = await send("POST", "/v2/orders", new TextEncoder().encode(order));
    expect(untyped.status).toBe(200);
    const text = await send("POST", "/v2/orders", order);
    expect(text.status).toBe(200);
    // What `curl -d '{…}'` sends without -H: the JSON labelled as a form.
    const curl = await send("POST", "/v2/orders", order, "application/x-www-form-urlencoded");
    expect(curl.status).toBe(200);
    expect(await text.json()).toMatchObject({ symbol: "KO", qty: "1", limit_price: "1" });
    const garbage = await send("POST", "/v2/orders", new TextEncoder().encode("symbol=KO"));
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toEqual({ code: 40010000, message: "request body format is invalid" });
    expect((await send("POST", "/v2/orders", order, "application/xml")).status).toBe(415);

    const { id } = (await untyped.json()) as { id: string };
    await host.waitForOrder(client, id, (o) => o.status === "new");
    expect((await send("DELETE", `/v2/orders/${id}`, undefined, "application/json")).status).toBe(204);
    expect((await host.waitForOrder(client, id, terminal)).status).toBe("canceled");
  });

  it("refuses what the account cannot do, with the anchor's codes", async () => {
    const { [env]: client } = await host.createTrader();
    const order = (body: Record<string, unknown>) =>
      client.call("POST", "/v2/orders", { side: "buy", type: "market", time_in_force: "day", ...body });
    expect((await order({ symbol: "AAPL", qty: "100000" })).body).toMatchObject({
      code: 40310000,
      message: "insufficient buying power",
    });
    expect((await order({ symbol: "NOPE", qty: "1" })).body).toEqual({
      code: 42210000,
      message: 'asset "NOPE" not found',
    });
    expect((await order({ symbol: "AAPL", qty: "1", notional: "10" })).status).toBe(422);
    expect((await order({ symbol: "AAPL", qty: "1", type: "limit", limit_price: "187.123" })).body.message).toMatch(
      /sub-penny/,
    );
    expect((await order({ symbol: "BRK.A", qty: "0.5" })).body.message).toMatch(/not fractionable/);
    expect((await order({ symbol: "TCEHY", qty: "1" })).body.message).toMatch(/not tradable/);
    const sell = await order({ symbol: "GME", qty: "1", side: "sell" });
    expect(sell.status).toBe(403);
  });
});

describe.each(["live", "paper"] as const)("trade-update stream on the %s host", (env) => {
  it("sends new and fill events of the account's orders, in order, with price, qty and position_qty", async () => {
    const { [env]: client } = await host.createTrader();
    const origin = env === "live" ? (host.urls[""] as string) : (host.urls.paper as string);
    const stream = await connectTradeStream(`${origin.replace(/^http/, "ws")}/stream`);
    stream.send({ action: "authenticate", data: { key_id: client.keyId, secret_key: client.secret } });
    expect(await stream.next((m) => m.stream === "authorization")).toEqual({
      stream: "authorization",
      data: { status: "authorized", action: "authenticate" },
    });
    stream.send({ action: "listen", data: { streams: ["trade_updates"] } });
    await stream.next((m) => m.stream === "listening");
    const placed = await client.call("POST", "/v2/orders", {
      symbol: "AMD",
      qty: "4",
      side: "buy",
      type: "market",
      time_in_force: "day",
    });
    const isOrder = (m: Record<string, unknown>) =>
      m.stream === "trade_updates" && (m.data as { order: { id: string } }).order.id === placed.body.id;
    const created = (await stream.next(isOrder)) as { data: Record<string, unknown> };
    expect(created.data.event).toBe("new");
    const fill = (await stream.next(isOrder)) as { data: JsonBody };
    expect(fill.data).toMatchObject({ event: "fill", qty: "4", position_qty: "4" });
    expect(Number(fill.data.price)).toBeGreaterThan(0);
    expect(fill.data.execution_id).toEqual(expect.any(String));
    expect(fill.data.order).toMatchObject({ id: placed.body.id, status: "filled", filled_qty: "4" });
    await stream.close();
  });
});

describe("concurrent orders of one account", () => {
  it("never spend the same buying power twice", async () => {
    const { paper: client } = await host.createTrader("10000");
    // A cash account (multiplier 1): buying power is the cash.
    await setMultiplier(client.accountId, "1");
    // Each resting order holds $1,000 of the $10,000: exactly ten can be accepted.
    const results = await Promise.all(
      Array.from({ length: 25 }, () =>
        client.call("POST", "/v2/orders", {
          symbol: "AAPL",
          qty: "100",
          side: "buy",
          type: "limit",
          limit_price: "10",
          time_in_force: "gtc",
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 403)).toHaveLength(15);
  });

  it("never sell the same shares twice", async () => {
    const { live: client } = await host.createTrader();
    const buy = await client.call("POST", "/v2/orders", {
      symbol: "NVDA",
      qty: "10",
      side: "buy",
      type: "market",
      time_in_force: "day",
    });
    await host.waitForOrder(client, buy.body.id, terminal);
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        client.call("POST", "/v2/orders", {
          symbol: "NVDA",
          qty: "2",
          side: "sell",
          type: "limit",
          limit_price: "100000",
          time_in_force: "gtc",
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = results.filter((r) => r.status === 403);
    expect(refused).toHaveLength(7);
    expect(refused[0]?.body.message).toMatch(/^insufficient qty available for order \(requested: 2, available: 0\)$/);
  });
});
