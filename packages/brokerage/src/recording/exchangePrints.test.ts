/**
 * The live exchange's executions are trades of the market: through the running service (HTTP, the exchange
 * writer), a live fill appears in the market data with its price and size, once; a paper fill does not; an
 * equity's fractional part never reaches the tape (whole shares only, as an exchange reports them).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXCHANGE_TRADE_ID_BASE } from "../domain/marketRecords.ts";
import { startTradingHost, type TradingHost } from "../testing/tradingHost.ts";

let host: TradingHost;
beforeAll(async () => {
  host = await startTradingHost();
}, 60_000);
afterAll(async () => {
  await host?.close();
});

const EXCHANGE = String(EXCHANGE_TRADE_ID_BASE);
const terminal = (o: { status: string }) => ["filled", "canceled", "expired", "rejected"].includes(o.status);

describe("executions of the live books in the market data", () => {
  it("records a live fill as a trade of the market, with a trades message for the streams; a paper fill not", async () => {
    const { live, paper } = await host.createTrader();
    const before = await host.db.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM brokerage.market_trades WHERE symbol = 'MSFT' AND id >= $1",
      [EXCHANGE],
    );
    expect(before[0]?.n).toBe("0");
    for (const client of [paper, live]) {
      const placed = await client.call("POST", "/v2/orders", {
        symbol: "MSFT",
        qty: "7",
        side: "buy",
        type: "market",
        time_in_force: "day",
      });
      expect(placed.status).toBe(200);
      expect((await host.waitForOrder(client, placed.body.id, terminal)).status).toBe("filled");
    }
    const fills = await live.call("GET", "/v2/account/activities/FILL");
    const trades = await host.db.query<{ id: string; price: string; size: string; taker_side: string }>(
      `SELECT id::text, price::text, size::text, taker_side FROM brokerage.market_trades
       WHERE symbol = 'MSFT' AND id >= $1 ORDER BY id`,
      [EXCHANGE],
    );
    // The paper buy printed nothing; the live buy printed each of its executions, as the taker. (The rest of
    // MSFT's trades are the recorder's prints of the tape, with ids below the exchange's.)
    expect(trades.map((t) => Number(t.size)).reduce((a, b) => a + b, 0)).toBe(7);
    expect(trades).toHaveLength(fills.body.length);
    for (const [i, trade] of trades.entries()) {
      expect(BigInt(trade.id)).toBeGreaterThan(BigInt(EXCHANGE_TRADE_ID_BASE));
      expect(trade.taker_side).toBe("B");
      expect(Number(trade.price)).toBe(Number(fills.body[fills.body.length - 1 - i].price));
    }
    const feed = await host.db.query<{ message: { T: string; i: number; p: number } }>(
      `SELECT message FROM brokerage.market_feed
       WHERE channel = 'trades' AND symbol = 'MSFT' AND (message->>'i')::bigint >= $1 ORDER BY seq`,
      [EXCHANGE],
    );
    expect(feed.map((f) => f.message.i)).toEqual(trades.map((t) => Number(t.id)));
    // One statement, one snapshot: the recorder keeps writing the tape meanwhile.
    const [counts] = await host.db.query<{ bars: number; trades: number }>(
      `SELECT (SELECT sum(trade_count)::int FROM brokerage.market_bars WHERE symbol = 'MSFT' AND timeframe = '1Min') AS bars,
         (SELECT count(*)::int FROM brokerage.market_trades WHERE symbol = 'MSFT') AS trades`,
    );
    expect(counts?.bars).toBe(counts?.trades);
  });

  it("prints whole shares of a fractional equity fill, and nothing of a fill under one share", async () => {
    const { live } = await host.createTrader();
    const exchangeTrades = (symbol: string) =>
      host.db.query<{ size: string }>(
        "SELECT size::text FROM brokerage.market_trades WHERE symbol = $1 AND id >= $2 ORDER BY id",
        [symbol, EXCHANGE],
      );
    for (const [symbol, qty] of [
      ["NVDA", "7.6"],
      ["AMZN", "0.4"],
    ] as const) {
      const placed = await live.call("POST", "/v2/orders", {
        symbol,
        qty,
        side: "buy",
        type: "market",
        time_in_force: "day",
      });
      expect(placed.status).toBe(200);
      const order = await host.waitForOrder(live, placed.body.id, terminal);
      expect(order).toMatchObject({ status: "filled", filled_qty: qty });
    }
    const nvda = await exchangeTrades("NVDA");
    expect(nvda.map((t) => Number(t.size))).toEqual([7]);
    expect(await exchangeTrades("AMZN")).toEqual([]);
    const feed = await host.db.query<{ message: { s: number } }>(
      `SELECT message FROM brokerage.market_feed
       WHERE channel = 'trades' AND symbol = 'NVDA' AND (message->>'i')::bigint >= $1`,
      [EXCHANGE],
    );
    expect(feed.map((f) => f.message.s)).toEqual([7]);
    const fractionalVolumes = await host.db.query(
      "SELECT symbol FROM brokerage.market_bars WHERE symbol IN ('NVDA', 'AMZN') AND volume <> trunc(volume)",
    );
    expect(fractionalVolumes).toEqual([]);
  });
});
