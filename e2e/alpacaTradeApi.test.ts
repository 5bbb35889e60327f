/**
 * End to end with Alpaca's official client, `@alpacahq/alpaca-trade-api` 4.0.2, unmodified: against the
 * brokerage started as `platform start` starts it (exchange writer running), with a real OAuth access token
 * (code exchanged over HTTP at `POST /oauth/token`) for a user's live and paper accounts:
 * - REST through the client's generated API classes (`basePath` + `accessToken`) on the live and the paper
 *   host: account, clock, calendar, assets, orders (market by qty and notional, limit, stop; get, list,
 *   replace, cancel, cancel all), positions (close by qty, percentage, all), activities, configurations,
 *   watchlists, portfolio history, and the anchor's errors as the client's error classes;
 * - the client's `TradingStream` on `/stream`, with a key pair (its own authentication) and with the OAuth
 *   token (its `sendAuth()` overridden, reference §4.1), receiving the updates of orders placed over REST.
 */
import { NotFoundError, PermissionError, streaming, type trading, ValidationError } from "@alpacahq/alpaca-trade-api";
import { startTradingHost, type TradingHost } from "@platform/brokerage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AlpacaUser,
  createAlpacaUser,
  listenToTradeUpdates,
  OAuthTradingStream,
  orderReaches,
  originOf,
  pollUntil,
  streamUrlOf,
  type TradingApis,
  type TradingEnv,
  tradingApis,
} from "./support/alpacaClients.ts";

let host: TradingHost;
beforeAll(async () => {
  host = await startTradingHost();
}, 60_000);
afterAll(async () => {
  await host?.close();
});

/** A decimal string as a number, for comparisons with a tolerance. */
const num = (value: string | number | undefined | null) => Number(value);

/** The error a client call rejects with. */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

describe.each(["live", "paper"] as const)("REST on the %s host", (env: TradingEnv) => {
  let user: AlpacaUser;
  let api: TradingApis;
  let accountId: string;
  /** The market buys, filled: AAPL by qty, MSFT by notional. */
  let aaplBuy: trading.Order;
  let msftBuy: trading.Order;

  beforeAll(async () => {
    user = await createAlpacaUser(host);
    api = tradingApis(originOf(host, env), user.accessToken);
    accountId = user[env].accountId;
  });

  it("reads the account, the clock, the calendar and the assets", async () => {
    const account = await api.accounts.getAccount();
    expect(account).toMatchObject({ id: accountId, status: "ACTIVE", currency: "USD", cash: "100000" });
    expect(account.accountNumber).toEqual(expect.any(String));
    expect(num(account.buyingPower)).toBeGreaterThanOrEqual(100_000);
    expect(account.createdAt).toBeInstanceOf(Date);

    const clock = await api.clock.legacyClock();
    expect(clock.isOpen).toBe(true); // BROKERAGE_MARKET_SESSION=always
    expect(clock.nextOpen.getTime()).not.toBeNaN();
    expect(clock.nextClose.getTime()).toBeGreaterThan(clock.timestamp.getTime());

    const days = await api.calendar.legacyCalendar();
    expect(days.length).toBeGreaterThan(200);
    expect(days[0]).toMatchObject({ open: expect.stringMatching(/^\d{2}:\d{2}$/), close: expect.any(String) });
    expect(days[0]?.date.getTime()).not.toBeNaN();

    // The 4.x client's preferred methods: the multi-market clock and calendar (/v3).
    const { clocks } = await api.clock.clock({ markets: "NYSE,NASDAQ" });
    expect(clocks.map((c) => c.market.acronym)).toEqual(["NYSE", "NASDAQ"]);
    expect(clocks[0]).toMatchObject({ phase: "core", isMarketDay: expect.any(Boolean) });
    expect(clocks[0]?.nextMarketOpen.getTime()).not.toBeNaN();
    const week = await api.calendar.calendar({
      market: "NYSE",
      start: new Date("2026-11-23T00:00:00Z"),
      end: new Date("2026-11-30T00:00:00Z"),
      timezone: "UTC",
    });
    expect(week.market.mic).toBe("XNYS");
    expect(week.calendar.map((d) => d.date.toISOString().slice(0, 10))).toEqual([
      "2026-11-23",
      "2026-11-24",
      "2026-11-25",
      "2026-11-27",
      "2026-11-30",
    ]);
    expect(week.calendar[3]?.coreEnd.toISOString()).toBe("2026-11-27T18:00:00.000Z");

    const assets = await api.assets.getV2Assets({ status: "active" });
    expect(assets.find((a) => a.symbol === "AAPL")).toMatchObject({ tradable: true, status: "active" });
    const aapl = await api.assets.getV2AssetsSymbolOrAssetId({ symbolOrAssetId: "AAPL" });
    expect(aapl).toMatchObject({ symbol: "AAPL", _class: "us_equity", tradable: true });
  });

  it("places market orders by qty and by notional; they fill", async () => {
    const placed = await api.orders.postOrder({
      postOrderRequest: {
        symbol: "AAPL",
        qty: "10",
        side: "buy",
        type: "market",
        timeInForce: "day",
        clientOrderId: `aapl-${env}`,
      },
    });
    expect(placed).toMatchObject({ symbol: "AAPL", qty: "10", side: "buy", type: "market", timeInForce: "day" });
    const notional = await api.orders.postOrder({
      postOrderRequest: { symbol: "MSFT", notional: "1000", side: "buy", type: "market", timeInForce: "day" },
    });
    expect(notional).toMatchObject({ symbol: "MSFT", notional: "1000", qty: undefined });

    aaplBuy = await orderReaches(api, placed.id as string, ["filled"]);
    expect(aaplBuy).toMatchObject({ filledQty: "10", clientOrderId: `aapl-${env}` });
    expect(aaplBuy.filledAt).toBeInstanceOf(Date);
    expect(num(aaplBuy.filledAvgPrice)).toBeGreaterThan(0);
    msftBuy = await orderReaches(api, notional.id as string, ["filled"]);
    expect(num(msftBuy.filledQty) * num(msftBuy.filledAvgPrice)).toBeCloseTo(1000, 1);

    const byClientId = await api.orders.getOrderByClientOrderId({ clientOrderId: `aapl-${env}` });
    expect(byClientId.id).toBe(aaplBuy.id);
  });

  it("rests limit and stop orders, lists them with filters, replaces one, cancels one, then all", async () => {
    const limit = await api.orders.postOrder({
      postOrderRequest: { symbol: "KO", qty: "5", side: "buy", type: "limit", limitPrice: "1", timeInForce: "gtc" },
    });
    // A stop sell far under the market: it waits for its trigger.
    const stopPrice = (Math.floor(num(aaplBuy.filledAvgPrice) / 2) || 1).toString();
    const stop = await api.orders.postOrder({
      postOrderRequest: { symbol: "AAPL", qty: "2", side: "sell", type: "stop", stopPrice, timeInForce: "gtc" },
    });
    expect(stop).toMatchObject({ type: "stop", stopPrice, side: "sell" });
    await orderReaches(api, limit.id as string, ["new"]);
    await orderReaches(api, stop.id as string, ["new", "accepted"]);

    const open = await api.orders.getAllOrders({ status: "open", direction: "asc" });
    expect(open.map((o) => o.id)).toEqual([limit.id, stop.id]);
    const openBuysOfKo = await api.orders.getAllOrders({ status: "open", symbols: "KO,TSLA", side: "buy" });
    expect(openBuysOfKo.map((o) => o.id)).toEqual([limit.id]);
    const closed = await api.orders.getAllOrders({ status: "closed", limit: 1 });
    expect(closed.map((o) => o.id)).toEqual([msftBuy.id]);
    const since = await api.orders.getAllOrders({ status: "all", after: aaplBuy.submittedAt?.toISOString() });
    expect(since.map((o) => o.id).sort()).toEqual([msftBuy.id, limit.id, stop.id].sort());

    const replacement = await api.orders.patchOrderByOrderId({
      orderId: limit.id as string,
      patchOrderRequest: { qty: "4", limitPrice: "1.5" },
    });
    expect(replacement).toMatchObject({ replaces: limit.id, qty: "4", limitPrice: "1.5" });
    expect(replacement.id).not.toBe(limit.id);
    const replaced = await orderReaches(api, limit.id as string, ["replaced"]);
    expect(replaced.replacedBy).toBe(replacement.id);
    expect(replaced.replacedAt).toBeInstanceOf(Date);

    await api.orders.deleteOrderByOrderID({ orderId: stop.id as string });
    const canceled = await orderReaches(api, stop.id as string, ["canceled"]);
    expect(canceled.canceledAt).toBeInstanceOf(Date);
    const again = await rejection(api.orders.deleteOrderByOrderID({ orderId: stop.id as string }));
    expect(again).toBeInstanceOf(ValidationError);
    expect(again).toMatchObject({ status: 422, code: 42210000, message: "order is not cancelable" });

    const another = await api.orders.postOrder({
      postOrderRequest: { symbol: "KO", qty: "1", side: "buy", type: "limit", limitPrice: "1.1", timeInForce: "day" },
    });
    await orderReaches(api, replacement.id as string, ["new"]);
    const all = await api.orders.deleteAllOrders();
    expect(
      all.map((r) => ({ id: r.id, status: r.status })).sort((a, b) => (a.id as string).localeCompare(b.id as string)),
    ).toEqual([replacement.id, another.id].sort().map((id) => ({ id, status: 200 })));
    await orderReaches(api, replacement.id as string, ["canceled"]);
    await orderReaches(api, another.id as string, ["canceled"]);
    expect(await api.orders.getAllOrders()).toEqual([]);
  });

  it("reads positions and closes them by qty, by percentage, then all", async () => {
    const positions = await api.positions.getAllOpenPositions();
    expect(positions.map((p) => p.symbol).sort()).toEqual(["AAPL", "MSFT"]);
    const aapl = await api.positions.getOpenPosition({ symbolOrAssetId: "AAPL" });
    expect(aapl).toMatchObject({ symbol: "AAPL", qty: "10", side: "long", assetClass: "us_equity" });
    expect(num(aapl.avgEntryPrice)).toBeCloseTo(num(aaplBuy.filledAvgPrice), 6);

    const byQty = await api.positions.deleteOpenPosition({ symbolOrAssetId: "AAPL", qty: 4 });
    expect(byQty).toMatchObject({ symbol: "AAPL", side: "sell", qty: "4", type: "market" });
    await orderReaches(api, byQty.id as string, ["filled"]);
    const byPercentage = await api.positions.deleteOpenPosition({ symbolOrAssetId: "AAPL", percentage: 50 });
    expect(byPercentage).toMatchObject({ side: "sell", qty: "3" });
    await orderReaches(api, byPercentage.id as string, ["filled"]);
    expect(await api.positions.getOpenPosition({ symbolOrAssetId: "AAPL" })).toMatchObject({ qty: "3" });

    const closings = await api.positions.deleteAllOpenPositions({ cancelOrders: true });
    expect(closings.map((c) => [c.symbol, c.status]).sort()).toEqual([
      ["AAPL", 200],
      ["MSFT", 200],
    ]);
    for (const closing of closings) {
      expect(closing.body).toMatchObject({ symbol: closing.symbol, side: "sell", type: "market" });
      await orderReaches(api, closing.body?.id as string, ["filled"]);
    }
    expect(await api.positions.getAllOpenPositions()).toEqual([]);
  });

  it("lists the account's activities: the fills and the initial deposit", async () => {
    const activities = await api.activities.getAccountActivities({ activityTypes: ["FILL", "CSD"] });
    const fills = activities.filter((a) => a.activityType === "FILL");
    // Newest first: the buy's last execution (a book may split it) completes it.
    const ofBuy = fills.filter((f) => f.orderId === aaplBuy.id);
    expect(ofBuy.reduce((sum, f) => sum + num(f.qty), 0)).toBe(10);
    expect(ofBuy[0]).toMatchObject({ symbol: "AAPL", side: "buy", cumQty: "10", leavesQty: "0", type: "fill" });
    expect(ofBuy[0]?.transactionTime).toBeInstanceOf(Date);
    expect(fills.length).toBeGreaterThanOrEqual(6); // 2 buys, 2 partial closes, 2 closings
    const deposits = activities.filter((a) => a.activityType === "CSD");
    expect(deposits).toHaveLength(1);
    expect(deposits[0]).toMatchObject({ netAmount: "100000" });

    const onlyFills = await api.activities.getAccountActivitiesByActivityType({ activityType: "FILL", pageSize: 2 });
    expect(onlyFills).toHaveLength(2);
    expect(onlyFills.every((a) => a.activityType === "FILL")).toBe(true);
  });

  it("reads and changes the account configurations", async () => {
    const before = await api.configurations.getAccountConfig();
    expect(before).toMatchObject({ suspendTrade: false, noShorting: false, tradeConfirmEmail: "all" });
    const changed = await api.configurations.patchAccountConfig({
      accountConfigurations: { noShorting: true, tradeConfirmEmail: "none" },
    });
    expect(changed).toMatchObject({ noShorting: true, tradeConfirmEmail: "none", suspendTrade: false });
    expect(await api.configurations.getAccountConfig()).toMatchObject({ noShorting: true, tradeConfirmEmail: "none" });
  });

  it("creates, fills, reads and deletes a watchlist", async () => {
    const created = await api.watchlists.postWatchlist({
      createWatchlistRequest: { name: `Tech ${env}`, symbols: ["AAPL"] },
    });
    expect(created).toMatchObject({ name: `Tech ${env}`, accountId });
    expect(created.assets?.map((a) => a.symbol)).toEqual(["AAPL"]);
    const added = await api.watchlists.addAssetToWatchlist({
      watchlistId: created.id,
      addAssetToWatchlistRequest: { symbol: "MSFT" },
    });
    expect(added.assets?.map((a) => a.symbol)).toEqual(["AAPL", "MSFT"]);
    expect((await api.watchlists.getWatchlists()).map((w) => w.id)).toEqual([created.id]);
    const read = await api.watchlists.getWatchlistById({ watchlistId: created.id });
    expect(read.assets?.map((a) => a.symbol)).toEqual(["AAPL", "MSFT"]);
    const removed = await api.watchlists.removeAssetFromWatchlist({ watchlistId: created.id, symbol: "AAPL" });
    expect(removed.assets?.map((a) => a.symbol)).toEqual(["MSFT"]);
    const renamed = await api.watchlists.updateWatchlistById({
      watchlistId: created.id,
      updateWatchlistRequest: { name: `Drinks ${env}`, symbols: ["KO", "PEP"] },
    });
    expect(renamed).toMatchObject({ id: created.id, name: `Drinks ${env}` });
    expect(renamed.assets?.map((a) => a.symbol)).toEqual(["KO", "PEP"]);
    await api.watchlists.deleteWatchlistById({ watchlistId: created.id });
    const gone = await rejection(api.watchlists.getWatchlistById({ watchlistId: created.id }));
    expect(gone).toBeInstanceOf(NotFoundError);
  });

  // The client sends `start`/`end` as RFC 3339 timestamps (`toISOString()`): their date part is the day.
  it("reads the calendar between two dates, as the client sends them", async () => {
    const days = await api.calendar.legacyCalendar({ start: new Date("2026-01-05"), end: new Date("2026-01-09") });
    expect(days.map((d) => d.date.toISOString().slice(0, 10))).toEqual([
      "2026-01-05",
      "2026-01-06",
      "2026-01-07",
      "2026-01-08",
      "2026-01-09",
    ]);
  });

  it("reads the portfolio history", async () => {
    const history = await api.portfolioHistory.getAccountPortfolioHistory({ period: "1D", timeframe: "15Min" });
    expect(history.timeframe).toBe("15Min");
    expect(history.equity).toHaveLength(history.timestamp.length);
    expect(history.profitLoss).toHaveLength(history.timestamp.length);
    expect(history.profitLossPct).toHaveLength(history.timestamp.length);
    expect(typeof history.baseValue).toBe("number");
  });

  it("answers what the account cannot do with the client's error classes and the anchor's codes", async () => {
    const tooMuch = await rejection(
      api.orders.postOrder({
        postOrderRequest: { symbol: "AAPL", qty: "1000000", side: "buy", type: "market", timeInForce: "day" },
      }),
    );
    expect(tooMuch).toBeInstanceOf(PermissionError);
    expect(tooMuch).toMatchObject({ status: 403, code: 40310000, message: "insufficient buying power" });

    const missing = await rejection(api.orders.getOrderByOrderID({ orderId: "00000000-0000-4000-8000-000000000000" }));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 40410000, message: "order not found" });
    const noPosition = await rejection(api.positions.getOpenPosition({ symbolOrAssetId: "AAPL" }));
    expect(noPosition).toMatchObject({ status: 404, code: 40410000, message: "position does not exist" });
  });
});

describe.each(["live", "paper"] as const)("TradingStream on the %s host", (env: TradingEnv) => {
  const opened: streaming.TradingStream[] = [];
  afterAll(() => {
    for (const stream of opened) stream.disconnect();
  });
  const options = { url: "", reconnect: false, pingIntervalMs: 0 };

  it("receives the new and fill updates of REST orders, with a key pair and with the OAuth token", async () => {
    const user = await createAlpacaUser(host);
    const api = tradingApis(originOf(host, env), user.accessToken);
    const url = streamUrlOf(host, env);
    const { keyId, secret } = user[env];
    const withKeys = new streaming.TradingStream({ ...options, url, credentials: { keyId, secret } });
    const withToken = new OAuthTradingStream({ ...options, url, accessToken: user.accessToken });
    opened.push(withKeys, withToken);
    const logs = await Promise.all([listenToTradeUpdates(withKeys), listenToTradeUpdates(withToken)]);

    const buy = await api.orders.postOrder({
      postOrderRequest: { symbol: "AMD", qty: "3", side: "buy", type: "market", timeInForce: "day" },
    });
    await orderReaches(api, buy.id as string, ["filled"]);
    const sell = await api.orders.postOrder({
      postOrderRequest: { symbol: "AMD", qty: "1", side: "sell", type: "market", timeInForce: "day" },
    });
    await orderReaches(api, sell.id as string, ["filled"]);

    const ofOrder = (id: string | undefined) => (u: streaming.TradeUpdate) => u.order.id === id;
    const completes = (id: string | undefined) => (u: streaming.TradeUpdate) => ofOrder(id)(u) && u.event === "fill";
    for (const log of logs) {
      expect(await log.first((u) => ofOrder(buy.id)(u) && u.event === "new")).toMatchObject({
        order: { id: buy.id, symbol: "AMD", side: "buy", type: "market", status: "new" },
      });
      const buyFill = await log.first(completes(buy.id));
      expect(buyFill).toMatchObject({ positionQty: "3", order: { status: "filled", filledQty: "3" } });
      expect(buyFill.timestamp).toBeInstanceOf(Date);
      const sellFill = await log.first(completes(sell.id));
      expect(sellFill).toMatchObject({ positionQty: "2", order: { side: "sell", status: "filled", filledQty: "1" } });

      // The book may split an order: `partial_fill`s, then the `fill`; each one execution with its price and
      // quantity, together the order's quantity.
      const ofBuy = log.updates.filter(ofOrder(buy.id));
      expect(ofBuy.map((u) => u.event)).toEqual(["new", ...ofBuy.slice(1, -1).map(() => "partial_fill"), "fill"]);
      const executions = ofBuy.slice(1);
      for (const execution of executions) {
        expect(num(execution.price)).toBeGreaterThan(0);
        expect(num(execution.qty)).toBeGreaterThan(0);
        expect(execution.executionId).toEqual(expect.any(String));
      }
      expect(executions.reduce((sum, u) => sum + num(u.qty), 0)).toBe(3);
      expect(executions.map((u) => num(u.positionQty))).toEqual(
        executions.map((_, i) => executions.slice(0, i + 1).reduce((sum, u) => sum + num(u.qty), 0)),
      );
    }
    // Both connections saw the same updates of the account, in the same order.
    const events = (updates: streaming.TradeUpdate[]) => updates.map((u) => `${u.order.id} ${u.event} ${u.qty ?? ""}`);
    await pollUntil(
      "both streams caught up",
      async () => logs.map((l) => l.updates.length),
      ([a, b]) => a === b,
      5_000,
    );
    expect(events(logs[0].updates)).toEqual(events(logs[1].updates));
  });

  it("is refused with credentials of the other host's account", async () => {
    const user = await createAlpacaUser(host);
    const other = env === "live" ? user.paper : user.live;
    const stream = new streaming.TradingStream({
      ...options,
      url: streamUrlOf(host, env),
      credentials: { keyId: other.keyId, secret: other.secret },
    });
    opened.push(stream);
    stream.onError(() => {});
    stream.connect();
    const result = await stream.waitForAuthenticationResult(5_000);
    expect(result).toMatchObject({ authenticated: false, status: streaming.STREAM_AUTH_STATUS.SERVER_REJECTED });
  });
});
