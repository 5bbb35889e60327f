/**
 * Live answers of the running brokerage (every host as `platform start` serves it, the exchange writer and
 * the market data recorder running) validated against Alpaca's own OpenAPI documents, the generator input of
 * `@alpacahq/alpaca-trade-api` 4.x (read from the anchors' documents beside the clone: `shared/reference/alpaca/`):
 * every operation we implement that a document declares is driven on the live and the paper host (trading)
 * and the data host (market data), and each answer is checked with ajv against the schema the document gives
 * that operation and status (its `$ref`s resolved inside the document). Any mismatch fails the test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AlpacaDocuments, type DocumentCorrection, loadAlpacaDocuments } from "../testing/alpacaDocuments.ts";
import { startTradingHost, type TradingClient, type TradingHost } from "../testing/tradingHost.ts";

/**
 * Where Alpaca's documents are wrong against Alpaca's real answers (adapted here only, never in the service):
 * - `Exchange` (assets) and `ExchangeForPosition` (positions) list no `CRYPTO`, yet every crypto asset, and
 *   so every crypto position, is on exchange `CRYPTO` (Alpaca's own Python SDK, alpacahq/alpaca-py
 *   `alpaca/trading/enums.py`, `AssetExchange.CRYPTO = "CRYPTO"`; the crypto position example of Alpaca's
 *   crypto trading guide, `"exchange": "CRYPTO"`);
 * - `GET /v2/account/activities/{activity_type}` answers `oneOf` a trading or a non-trade activity, but
 *   `NonTradeActivities` requires no field and allows any, so every trading activity (a `FILL`) matches both
 *   and no real answer could hold; `GET /v2/account/activities` says `anyOf` of the same two, as meant.
 */
const correctAlpacaDocuments: DocumentCorrection = (name, document) => {
  if (name !== "trading") return;
  for (const name of ["Exchange", "ExchangeForPosition"]) {
    (document.components.schemas[name] as { enum: string[] }).enum.push("CRYPTO");
  }
  const byType = document.paths["/v2/account/activities/{activity_type}"]?.get as {
    responses: { 200: { content: { "application/json": { schema: { items: Record<string, unknown> } } } } };
  };
  const items = byType.responses[200].content["application/json"].schema.items;
  items.anyOf = items.oneOf;
  delete items.oneOf;
};

let host: TradingHost;
let documents: AlpacaDocuments;
beforeAll(async () => {
  documents = loadAlpacaDocuments({ correct: correctAlpacaDocuments });
  host = await startTradingHost();
}, 60_000);
afterAll(async () => {
  await host?.close();
  const { held, failures } = documents.tally();
  console.log(`Alpaca's documents: ${held} of ${held + failures.length} checks hold`);
});

/** Calls `path` and checks the answer against `template`'s operation in the trading document. */
async function trading(client: TradingClient, method: string, path: string, template: string, body?: unknown) {
  const answer = await client.call(method, path, body);
  documents.check("trading", method, template, answer.status, answer.body, path);
  return answer;
}

async function waitFor<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(["live", "paper"] as const)("the trading API on the %s host", (env) => {
  let client: TradingClient;
  beforeAll(async () => {
    client = (await host.createTrader())[env];
  });

  it("account, configurations, clock, calendar, assets", async () => {
    await trading(client, "GET", "/v2/account", "/v2/account");
    await trading(client, "GET", "/v2/account/configurations", "/v2/account/configurations");
    await trading(client, "PATCH", "/v2/account/configurations", "/v2/account/configurations", {
      trade_confirm_email: "none",
    });
    await trading(client, "GET", "/v2/clock", "/v2/clock");
    await trading(client, "GET", "/v2/calendar?start=2026-01-01&end=2026-02-01", "/v2/calendar");
    await trading(client, "GET", "/v3/clock", "/v3/clock");
    await trading(client, "GET", "/v3/clock?markets=NYSE&time=2026-11-27T18:00:00Z", "/v3/clock");
    await trading(client, "GET", "/v3/calendar/NYSE?start=2026-11-20&end=2026-12-31", "/v3/calendar/{market}");
    await trading(client, "GET", "/v3/calendar/XNYS?timezone=UTC", "/v3/calendar/{market}");
    await trading(client, "GET", "/v2/assets", "/v2/assets");
    await trading(client, "GET", "/v2/assets?asset_class=crypto", "/v2/assets");
    await trading(client, "GET", "/v2/assets/AAPL", "/v2/assets/{symbol_or_asset_id}");
    await trading(client, "GET", "/v2/assets/BTC%2FUSD", "/v2/assets/{symbol_or_asset_id}");
    await trading(client, "GET", "/v2/assets/GME", "/v2/assets/{symbol_or_asset_id}");
    expect((await trading(client, "GET", "/v2/assets/NOPE", "/v2/assets/{symbol_or_asset_id}")).status).toBe(404);
    expect((await trading(client, "GET", "/v3/clock?markets=LSE", "/v3/clock")).status).toBe(400);
    expect((await trading(client, "GET", "/v3/calendar/LSE", "/v3/calendar/{market}")).status).toBe(400);
  });

  it("orders of every class, replaced, cancelled one by one and in bulk", async () => {
    const market = await trading(client, "POST", "/v2/orders", "/v2/orders", {
      symbol: "AAPL",
      qty: "10",
      side: "buy",
      type: "market",
      time_in_force: "day",
    });
    expect(market.status).toBe(200);
    await host.waitForOrder(client, market.body.id, (o) => o.status === "filled");
    await trading(client, "POST", "/v2/orders", "/v2/orders", {
      symbol: "MSFT",
      notional: "1000.5",
      side: "buy",
      type: "market",
      time_in_force: "day",
    });
    const limit = await trading(client, "POST", "/v2/orders", "/v2/orders", {
      symbol: "AAPL",
      qty: "1",
      side: "buy",
      type: "limit",
      limit_price: "1.00",
      time_in_force: "gtc",
      client_order_id: `gtc-${env}-${Date.now()}`,
    });
    expect(limit.body.expires_at).not.toBeNull();
    await trading(client, "POST", "/v2/orders", "/v2/orders", {
      symbol: "AAPL",
      qty: "1",
      side: "buy",
      type: "limit",
      limit_price: "1.00",
      time_in_force: "day",
      order_class: "bracket",
      take_profit: { limit_price: "2.00" },
      stop_loss: { stop_price: "0.50" },
    });
    await trading(client, "POST", "/v2/orders", "/v2/orders", {
      symbol: "AAPL",
      qty: "2",
      side: "sell",
      type: "trailing_stop",
      trail_percent: "5",
      time_in_force: "gtc",
    });
    await trading(client, "POST", "/v2/orders", "/v2/orders", {
      symbol: "NOPE",
      qty: "1",
      side: "buy",
      type: "market",
      time_in_force: "day",
    });
    await trading(client, "POST", "/v2/orders", "/v2/orders", {
      symbol: "AAPL",
      qty: "1000000",
      side: "buy",
      type: "market",
      time_in_force: "day",
    });

    const btc = await trading(client, "POST", "/v2/orders", "/v2/orders", {
      symbol: "BTC/USD",
      qty: "0.01",
      side: "buy",
      type: "market",
      time_in_force: "gtc",
    });
    await host.waitForOrder(client, btc.body.id, (o) => o.status === "filled");
    const oco = await trading(client, "POST", "/v2/orders", "/v2/orders", {
      symbol: "AAPL",
      qty: "5",
      side: "sell",
      type: "limit",
      time_in_force: "gtc",
      order_class: "oco",
      take_profit: { limit_price: "100000" },
      stop_loss: { stop_price: "1.00" },
    });
    expect(oco.status).toBe(200);
    await trading(client, "GET", "/v2/orders", "/v2/orders");
    const crypto = await trading(client, "GET", "/v2/orders?status=all&asset_class=crypto", "/v2/orders");
    expect(crypto.body.map((o: { symbol: string }) => o.symbol)).toEqual(["BTC/USD"]);
    await trading(client, "GET", "/v2/orders?status=all&nested=true&direction=asc", "/v2/orders");
    await trading(client, "GET", "/v2/orders?status=closed&symbols=AAPL,MSFT&side=buy", "/v2/orders");
    await trading(client, "GET", `/v2/orders/${limit.body.id}`, "/v2/orders/{order_id}");
    await trading(client, "GET", `/v2/orders/${limit.body.id}?nested=true`, "/v2/orders/{order_id}");
    await trading(
      client,
      "GET",
      `/v2/orders:by_client_order_id?client_order_id=${limit.body.client_order_id}`,
      "/v2/orders:by_client_order_id",
    );
    const replaced = await trading(client, "PATCH", `/v2/orders/${limit.body.id}`, "/v2/orders/{order_id}", {
      limit_price: "1.05",
    });
    expect(replaced.status).toBe(200);
    const cancelled = await trading(client, "DELETE", `/v2/orders/${replaced.body.id}`, "/v2/orders/{order_id}");
    expect(cancelled.status).toBe(204);
    const filled = await trading(client, "DELETE", `/v2/orders/${market.body.id}`, "/v2/orders/{order_id}");
    expect(filled.status).toBe(422);
    const all = await trading(client, "DELETE", "/v2/orders", "/v2/orders");
    expect(all.status).toBe(207);
  });

  it("positions read and closed, activities, portfolio history", async () => {
    const buy = await client.call("POST", "/v2/orders", {
      symbol: "SPY",
      qty: "4",
      side: "buy",
      type: "market",
      time_in_force: "day",
    });
    await host.waitForOrder(client, buy.body.id, (o) => o.status === "filled");
    await trading(client, "GET", "/v2/positions", "/v2/positions");
    await trading(client, "GET", "/v2/positions/SPY", "/v2/positions/{symbol_or_asset_id}");
    const closed = await trading(client, "DELETE", "/v2/positions/SPY?qty=1", "/v2/positions/{symbol_or_asset_id}");
    expect(closed.status).toBe(200);
    await trading(client, "DELETE", "/v2/positions/SPY?percentage=50", "/v2/positions/{symbol_or_asset_id}");
    await trading(client, "GET", "/v2/account/activities", "/v2/account/activities");
    await trading(client, "GET", "/v2/account/activities?activity_types=FILL,CSD", "/v2/account/activities");
    await trading(client, "GET", "/v2/account/activities/FILL", "/v2/account/activities/{activity_type}");
    await trading(client, "GET", "/v2/account/portfolio/history", "/v2/account/portfolio/history");
    await trading(
      client,
      "GET",
      "/v2/account/portfolio/history?period=1D&timeframe=1Min",
      "/v2/account/portfolio/history",
    );
    const all = await trading(client, "DELETE", "/v2/positions?cancel_orders=true", "/v2/positions");
    expect(all.status).toBe(207);
  });

  it("watchlists by id and by name", async () => {
    const name = `docs-${env}`;
    const created = await trading(client, "POST", "/v2/watchlists", "/v2/watchlists", {
      name,
      symbols: ["AAPL", "MSFT"],
    });
    const id = created.body.id;
    await trading(client, "GET", "/v2/watchlists", "/v2/watchlists");
    await trading(client, "GET", `/v2/watchlists/${id}`, "/v2/watchlists/{watchlist_id}");
    await trading(client, "POST", `/v2/watchlists/${id}`, "/v2/watchlists/{watchlist_id}", { symbol: "SPY" });
    await trading(client, "PUT", `/v2/watchlists/${id}`, "/v2/watchlists/{watchlist_id}", {
      name,
      symbols: ["AAPL", "SPY"],
    });
    await trading(client, "DELETE", `/v2/watchlists/${id}/SPY`, "/v2/watchlists/{watchlist_id}/{symbol}");
    await trading(client, "GET", `/v2/watchlists:by_name?name=${name}`, "/v2/watchlists:by_name");
    await trading(client, "POST", `/v2/watchlists:by_name?name=${name}`, "/v2/watchlists:by_name", {
      symbol: "QQQ",
    });
    await trading(client, "PUT", `/v2/watchlists:by_name?name=${name}`, "/v2/watchlists:by_name", {
      name,
      symbols: ["QQQ"],
    });
    await trading(client, "DELETE", `/v2/watchlists:by_name?name=${name}`, "/v2/watchlists:by_name");
    const second = await client.call("POST", "/v2/watchlists", { name: `${name}-2` });
    await trading(client, "DELETE", `/v2/watchlists/${second.body.id}`, "/v2/watchlists/{watchlist_id}");
  });
});

describe("the market data API on the data host", () => {
  let data: (path: string, template: string) => Promise<{ status: number; body: unknown }>;
  beforeAll(async () => {
    const { live } = await host.createTrader();
    const origin = host.urls.data as string;
    data = async (path, template) => {
      const response = await fetch(new URL(path, origin), {
        headers: { "apca-api-key-id": live.keyId, "apca-api-secret-key": live.secret },
      });
      const text = await response.text();
      const body = text ? JSON.parse(text) : undefined;
      documents.check("marketData", "GET", template, response.status, body, path);
      return { status: response.status, body };
    };
    // A live execution and a recorded minute: trades, quotes and bars of AAPL and BTC/USD exist.
    const buy = await live.call("POST", "/v2/orders", {
      symbol: "AAPL",
      qty: "3.5",
      side: "buy",
      type: "market",
      time_in_force: "day",
    });
    await host.waitForOrder(live, buy.body.id, (o) => o.status === "filled");
    await waitFor(async () => {
      const answer = await live.call("GET", "/v2/account");
      const [trades, crypto] = await Promise.all(
        ["/v2/stocks/AAPL/trades/latest", "/v1beta3/crypto/us/latest/trades?symbols=BTC/USD"].map(
          async (path) =>
            (
              await fetch(new URL(path, origin), {
                headers: { "apca-api-key-id": live.keyId, "apca-api-secret-key": live.secret },
              })
            ).status,
        ),
      );
      return answer.status === 200 && trades === 200 && crypto === 200 ? true : undefined;
    }, "recorded trades");
  }, 30_000);

  it("stocks: historical, latest, snapshots, meta", async () => {
    const start = new Date(Date.now() - 3_600_000).toISOString();
    for (const kind of ["bars", "trades", "quotes"] as const) {
      const extra = kind === "bars" ? "&timeframe=1Min" : "";
      await data(`/v2/stocks/${kind}?symbols=AAPL,MSFT&start=${start}${extra}`, `/v2/stocks/${kind}`);
      await data(`/v2/stocks/AAPL/${kind}?start=${start}&limit=5${extra}`, `/v2/stocks/{symbol}/${kind}`);
      await data(`/v2/stocks/${kind}/latest?symbols=AAPL,MSFT`, `/v2/stocks/${kind}/latest`);
      await data(`/v2/stocks/AAPL/${kind}/latest`, `/v2/stocks/{symbol}/${kind}/latest`);
    }
    await data(`/v2/stocks/AAPL/bars?start=${start}&timeframe=1Day&feed=sip`, "/v2/stocks/{symbol}/bars");
    await data("/v2/stocks/snapshots?symbols=AAPL,SPY", "/v2/stocks/snapshots");
    await data("/v2/stocks/AAPL/snapshot", "/v2/stocks/{symbol}/snapshot");
    await data("/v2/stocks/meta/exchanges", "/v2/stocks/meta/exchanges");
    await data("/v2/stocks/meta/conditions/trade?tape=A", "/v2/stocks/meta/conditions/{ticktype}");
    await data("/v2/stocks/meta/conditions/quote?tape=C", "/v2/stocks/meta/conditions/{ticktype}");
  });

  it("crypto: historical, latest, order books, snapshots", async () => {
    const start = new Date(Date.now() - 3_600_000).toISOString();
    for (const kind of ["bars", "trades", "quotes"] as const) {
      const extra = kind === "bars" ? "&timeframe=1Min" : "";
      await data(
        `/v1beta3/crypto/us/${kind}?symbols=BTC/USD,ETH/USD&start=${start}${extra}`,
        `/v1beta3/crypto/{loc}/${kind}`,
      );
      await data(`/v1beta3/crypto/us/latest/${kind}?symbols=BTC/USD`, `/v1beta3/crypto/{loc}/latest/${kind}`);
    }
    await data("/v1beta3/crypto/us/latest/orderbooks?symbols=BTC/USD", "/v1beta3/crypto/{loc}/latest/orderbooks");
    await data("/v1beta3/crypto/us/snapshots?symbols=BTC/USD,ETH/USD", "/v1beta3/crypto/{loc}/snapshots");
  });
});

describe("the tally", () => {
  it("every answer holds against Alpaca's documents", () => {
    const { failures } = documents.tally();
    expect(failures).toEqual([]);
  });
});
