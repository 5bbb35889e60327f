/**
 * Stops, trailing stops and order classes through the running service: a stop reached by the market executes
 * as a market order; a trailing stop follows its water mark; a bracket's legs wait for the entry and the first
 * leg to fill cancels the other (oco); an entry canceled unfilled takes its legs with it; bulk cancels
 * (`DELETE /v2/orders`, `DELETE /v2/positions?cancel_orders=true`) include a filled entry's open legs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTradingHost, type TradingClient, type TradingHost } from "../testing/tradingHost.ts";

let host: TradingHost;
beforeAll(async () => {
  host = await startTradingHost();
}, 60_000);
afterAll(async () => {
  await host?.close();
});

const terminal = (o: { status: string }) => ["filled", "canceled", "expired", "rejected"].includes(o.status);
const price = (symbol: string) => host.instance.services.market.priceOf(symbol);

async function legsOf(client: TradingClient, id: string) {
  return (await client.call("GET", `/v2/orders/${id}?nested=true`)).body.legs as { id: string; status: string }[];
}

describe.each(["live", "paper"] as const)("%s", (env) => {
  it("executes a stop the market has reached as a market order", async () => {
    const { [env]: client } = await host.createTrader();
    // A buy stop below the market is reached at once: it triggers on the next tick and fills.
    const stop = (Math.floor(price("PEP") * 0.9 * 100) / 100).toFixed(2);
    const placed = await client.call("POST", "/v2/orders", {
      symbol: "PEP",
      qty: "2",
      side: "buy",
      type: "stop",
      stop_price: stop,
      time_in_force: "gtc",
    });
    expect(placed.status).toBe(200);
    const done = await host.waitForOrder(client, placed.body.id, terminal);
    expect(done).toMatchObject({ status: "filled", filled_qty: "2" });
    expect(Number(done.stop_price)).toBe(Number(stop));
  });

  it("keeps a stop the market has not reached, then cancels it", async () => {
    const { [env]: client } = await host.createTrader();
    const placed = await client.call("POST", "/v2/orders", {
      symbol: "PEP",
      qty: "2",
      side: "buy",
      type: "stop_limit",
      stop_price: (price("PEP") * 3).toFixed(2),
      limit_price: (price("PEP") * 3.1).toFixed(2),
      time_in_force: "day",
    });
    expect(placed.status).toBe(200);
    await host.waitForOrder(client, placed.body.id, (o) => o.status === "new");
    expect((await client.call("DELETE", `/v2/orders/${placed.body.id}`)).status).toBe(204);
    expect((await host.waitForOrder(client, placed.body.id, terminal)).status).toBe("canceled");
  });

  it("starts a trailing stop at the market's price (its high-water mark)", async () => {
    const { [env]: client } = await host.createTrader();
    const buy = await client.call("POST", "/v2/orders", {
      symbol: "XOM",
      qty: "3",
      side: "buy",
      type: "market",
      time_in_force: "day",
    });
    await host.waitForOrder(client, buy.body.id, terminal);
    const placed = await client.call("POST", "/v2/orders", {
      symbol: "XOM",
      qty: "3",
      side: "sell",
      type: "trailing_stop",
      trail_percent: "50",
      time_in_force: "gtc",
    });
    expect(placed.status).toBe(200);
    const working = await host.waitForOrder(client, placed.body.id, (o) => o.hwm !== null);
    expect(working.status).toBe("new");
    const hwm = Number(working.hwm);
    expect(Number(working.stop_price)).toBeCloseTo(hwm / 2, 4);
    // The stop's shares are held: not available, and selling them again is refused.
    expect((await client.call("GET", "/v2/positions/XOM")).body).toMatchObject({ qty: "3", qty_available: "0" });
    const again = await client.call("POST", "/v2/orders", {
      symbol: "XOM",
      qty: "1",
      side: "sell",
      type: "market",
      time_in_force: "day",
    });
    expect(again.status).toBe(403);
  });

  it("runs a bracket: legs wait for the entry, the take-profit fills, the stop-loss is canceled", async () => {
    const { [env]: client } = await host.createTrader();
    const p = price("JPM");
    const placed = await client.call("POST", "/v2/orders", {
      symbol: "JPM",
      qty: "5",
      side: "buy",
      type: "market",
      time_in_force: "gtc",
      order_class: "bracket",
      // A take-profit below the market sells at once when it starts; the stop-loss is far below.
      take_profit: { limit_price: (Math.floor(p * 0.8 * 100) / 100).toFixed(2) },
      stop_loss: { stop_price: (Math.floor(p * 0.5 * 100) / 100).toFixed(2) },
    });
    expect(placed.status).toBe(200);
    expect(placed.body.order_class).toBe("bracket");
    expect(placed.body.legs.map((l: { status: string }) => l.status)).toEqual(["held", "held"]);
    await host.waitForOrder(client, placed.body.id, terminal);
    const [takeProfit, stopLoss] = placed.body.legs as { id: string }[];
    expect((await host.waitForOrder(client, takeProfit?.id as string, terminal)).status).toBe("filled");
    expect((await host.waitForOrder(client, stopLoss?.id as string, terminal)).status).toBe("canceled");
    expect((await client.call("GET", "/v2/positions/JPM")).status).toBe(404);
  });

  it("cancels the waiting legs with an entry that ends unfilled", async () => {
    const { [env]: client } = await host.createTrader();
    const p = price("JPM");
    const placed = await client.call("POST", "/v2/orders", {
      symbol: "JPM",
      qty: "5",
      side: "buy",
      type: "limit",
      limit_price: (Math.floor(p * 0.5 * 100) / 100).toFixed(2),
      time_in_force: "day",
      order_class: "oto",
      stop_loss: { stop_price: (Math.floor(p * 0.4 * 100) / 100).toFixed(2) },
    });
    expect(placed.status).toBe(200);
    await host.waitForOrder(client, placed.body.id, (o) => o.status === "new");
    expect((await client.call("DELETE", `/v2/orders/${placed.body.id}`)).status).toBe(204);
    await host.waitForOrder(client, placed.body.id, terminal);
    const [leg] = await legsOf(client, placed.body.id);
    expect((await host.waitForOrder(client, leg?.id as string, terminal)).status).toBe("canceled");
  });

  it("refuses order classes the anchor refuses", async () => {
    const { [env]: client } = await host.createTrader();
    const bad = await client.call("POST", "/v2/orders", {
      symbol: "JPM",
      qty: "1",
      side: "buy",
      type: "market",
      time_in_force: "gtc",
      order_class: "bracket",
      take_profit: { limit_price: "10" },
    });
    expect(bad.body).toEqual({ code: 42210000, message: "bracket orders need take_profit and stop_loss" });
    const crossed = await client.call("POST", "/v2/orders", {
      symbol: "JPM",
      qty: "1",
      side: "buy",
      type: "market",
      time_in_force: "gtc",
      order_class: "bracket",
      take_profit: { limit_price: "10" },
      stop_loss: { stop_price: "20" },
    });
    expect(crossed.body.message).toBe("take_profit.limit_price must be above stop_loss.stop_price");
  });

  it("cancels a filled bracket's open legs in bulk, and closes every position with cancel_orders", async () => {
    const { [env]: client } = await host.createTrader();
    const bracket = async (symbol: string) => {
      const p = price(symbol);
      const placed = await client.call("POST", "/v2/orders", {
        symbol,
        qty: "4",
        side: "buy",
        type: "market",
        time_in_force: "gtc",
        order_class: "bracket",
        take_profit: { limit_price: (Math.ceil(p * 1.5 * 100) / 100).toFixed(2) },
        stop_loss: { stop_price: (Math.floor(p * 0.5 * 100) / 100).toFixed(2) },
      });
      expect(placed.status).toBe(200);
      await host.waitForOrder(client, placed.body.id, terminal);
      const legs = await legsOf(client, placed.body.id);
      for (const leg of legs) await host.waitForOrder(client, leg.id, (o) => o.status === "new");
      return legs.map((l) => l.id);
    };
    const jpmLegs = await bracket("JPM");
    const all = await client.call("DELETE", "/v2/orders");
    expect(all.status).toBe(207);
    expect(all.body.map((e: { id: string }) => e.id).sort()).toEqual([...jpmLegs].sort());
    expect(all.body.every((e: { status: number }) => e.status === 200)).toBe(true);
    for (const id of jpmLegs) expect((await host.waitForOrder(client, id, terminal)).status).toBe("canceled");

    const koLegs = await bracket("KO");
    const closed = await client.call("DELETE", "/v2/positions?cancel_orders=true");
    expect(closed.status).toBe(207);
    expect(closed.body.map((e: { symbol: string; status: number }) => [e.symbol, e.status]).sort()).toEqual([
      ["JPM", 200],
      ["KO", 200],
    ]);
    for (const id of koLegs) expect((await host.waitForOrder(client, id, terminal)).status).toBe("canceled");
    for (const entry of closed.body) await host.waitForOrder(client, entry.body.id, terminal);
    expect((await client.call("GET", "/v2/positions")).body).toEqual([]);
  });
});
