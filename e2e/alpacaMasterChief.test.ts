/**
 * End to end with the community client `@master-chief/alpaca` 6.3.20, unmodified, against a fresh
 * `platform start` (brokerage only, ephemeral ports, exchange writer and market data recorder running), with a
 * key pair made by `platform brokerage keys create`. Its `AlpacaClient` is pointed at our paper and data hosts
 * by its `endpoints` option (its base URLs).
 *
 * The client sends JSON bodies without a Content-Type (fetch labels them `text/plain;charset=UTF-8`), the
 * order's id inside `PATCH /v2/orders/{id}`, `uuid` inside watchlist bodies: what Alpaca accepts and the
 * brokerage now accepts too (`http/trading/requestBodies.ts`). It throws an error body it receives as is.
 */
import * as masterChief from "@master-chief/alpaca";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
// Types by path: the package's `exports` hides its declarations (e2e/support/masterChiefAlpaca.d.ts).
import type { AlpacaClient } from "../node_modules/@master-chief/alpaca/@types/client.js";
import type { Endpoints } from "../node_modules/@master-chief/alpaca/@types/entities.js";
import { pollUntil } from "./support/alpacaClients.ts";
import {
  type CommandResult,
  createPlatformEnv,
  EPHEMERAL_PORTS,
  hostOrigin,
  type PlatformProcess,
  runPlatform,
  startPlatformProcess,
} from "./support/platformProcess.ts";

let env: Record<string, string>;
let removeEnv: (() => Promise<void>) | undefined;
let platform: PlatformProcess | undefined;
let client: AlpacaClient;

function json<T>(result: CommandResult): T {
  if (result.code !== 0) throw new Error(`platform exited with ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  ({ env, remove: removeEnv } = await createPlatformEnv("master-chief", {
    SERVICES: "brokerage",
    ...EPHEMERAL_PORTS,
    BROKERAGE_DATA_BACKFILL_DAYS: "0",
    // The test polls orders; the anchor's 200 a minute is not what is under test here.
    BROKERAGE_RATE_LIMIT: "100000",
    DEVNET: "false",
    LOG_LEVEL: "warn",
  }));
  // Made before the start, as an operator would (the data folder has one owner at a time).
  const user = json<{ accounts: { env: string; account_number: string }[] }>(
    await runPlatform(
      ["brokerage", "users", "create", "--email", "chief@example.com", "--password", "master chief pass", "--json"],
      env,
    ),
  );
  const paper = user.accounts.find((a) => a.env === "paper") as { account_number: string };
  const pair = json<{ key_id: string; secret_key: string }>(
    await runPlatform(["brokerage", "keys", "create", "--account", paper.account_number, "--json"], env),
  );
  platform = await startPlatformProcess(env);
  const paperApi = hostOrigin(platform, "brokerage", "paper");
  const data = hostOrigin(platform, "brokerage", "data");
  const endpoints = {
    rest: {
      account: `${paperApi}/v2`,
      market_data_v2: `${data}/v2`,
      market_data_v1: `${data}/v1`,
      beta: `${data}/v1beta1`,
    },
    websocket: {
      account: `${paperApi.replace(/^http/, "ws")}/stream`,
      market_data: () => `${data.replace(/^http/, "ws")}/v2/iex`,
    },
  };
  // The option's type names Alpaca's own URLs as literal types; any base URL is what it is for.
  client = new masterChief.AlpacaClient({
    credentials: { key: pair.key_id, secret: pair.secret_key, paper: true },
    endpoints: endpoints as unknown as Endpoints,
  });
}, 120_000);

afterAll(async () => {
  if (platform) expect(await platform.stop("SIGTERM")).toBe(0);
  await removeEnv?.();
});

/** What a client call threw (the client throws the error body it received), or a failure when it succeeded. */
async function thrown(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

const orderReaches = (id: string, statuses: string[]) =>
  pollUntil(
    `order ${id} ${statuses.join("|")}`,
    () => client.getOrder({ order_id: id }),
    (order) => statuses.includes(order.status),
  );

describe("trading with @master-chief/alpaca", () => {
  it("reads the account and places a market order by qty (a number) that fills", async () => {
    const account = await client.getAccount();
    expect(account).toMatchObject({ status: "ACTIVE", cash: 100_000 });
    const placed = await client.placeOrder({
      symbol: "AAPL",
      qty: 3,
      side: "buy",
      type: "market",
      time_in_force: "day",
    });
    expect(placed).toMatchObject({ symbol: "AAPL", qty: 3, side: "buy", type: "market" });
    const filled = await orderReaches(placed.id, ["filled"]);
    expect(filled.filled_qty).toBe(3);
    expect(filled.filled_avg_price).toBeGreaterThan(0);
  });

  it("replaces a resting limit order (the order's id in the body too), refuses an unchanged one, cancels", async () => {
    const resting = await client.placeOrder({
      symbol: "KO",
      qty: 5,
      side: "buy",
      type: "limit",
      limit_price: 1,
      time_in_force: "gtc",
    });
    await orderReaches(resting.id, ["new"]);
    expect(await thrown(client.replaceOrder({ order_id: resting.id }))).toEqual({
      code: 40310000,
      message: "order parameters are not changed",
    });
    expect(await thrown(client.replaceOrder({ order_id: resting.id, qty: 5, limit_price: 1 }))).toEqual({
      code: 40310000,
      message: "order parameters are not changed",
    });
    const replacement = await client.replaceOrder({ order_id: resting.id, qty: 4, limit_price: 1.5 });
    expect(replacement).toMatchObject({ replaces: resting.id, qty: 4, limit_price: 1.5, status: expect.any(String) });
    const replaced = await orderReaches(resting.id, ["replaced"]);
    expect(replaced.replaced_by).toBe(replacement.id);
    await orderReaches(replacement.id, ["new"]);

    expect(await client.cancelOrder({ order_id: replacement.id })).toBe(true);
    await orderReaches(replacement.id, ["canceled"]);
    const open = await client.getOrders({ status: "open" });
    expect(open.map((o) => o.id)).not.toContain(replacement.id);
  });

  it("closes a position with a market order", async () => {
    const position = await client.getPosition({ symbol: "AAPL" });
    expect(position).toMatchObject({ symbol: "AAPL", qty: 3, side: "long" });
    const close = await client.closePosition({ symbol: "AAPL" });
    expect(close).toMatchObject({ symbol: "AAPL", side: "sell", qty: 3, type: "market" });
    await orderReaches(close.id, ["filled"]);
    expect(await thrown(client.getPosition({ symbol: "AAPL" }))).toEqual({
      code: 40410000,
      message: "position does not exist",
    });
  });

  it("creates a watchlist, adds and removes a symbol (uuid in the body), renames it and deletes it", async () => {
    // Typed as a list by the client; the anchor (and we) answer the watchlist.
    const created = (await client.createWatchlist({ name: "Chief", symbols: ["AAPL"] })) as unknown as {
      id: string;
      name: string;
      assets: { symbol: string }[];
    };
    expect(created).toMatchObject({ name: "Chief", assets: [{ symbol: "AAPL" }] });
    const uuid = created.id;
    const added = await client.addToWatchlist({ uuid, symbol: "MSFT" });
    expect(added.assets.map((a) => a.symbol)).toEqual(["AAPL", "MSFT"]);
    const renamed = await client.updateWatchlist({ uuid, name: "Chief's" });
    expect(renamed).toMatchObject({ id: uuid, name: "Chief's" });
    const removed = (await client.removeFromWatchlist({ uuid, symbol: "AAPL" })) as unknown as {
      assets: { symbol: string }[];
    };
    expect(removed.assets.map((a) => a.symbol)).toEqual(["MSFT"]);

    // The client's bug, not ours: deleteWatchlist() reads the JSON of the anchor's 204 (its request() calls
    // resp.json() unless a call passes isJSON: false, which only cancelOrder does; src/client.ts), so it
    // logs the parse error and throws `{}` though the watchlist is deleted. The deletion is checked by a read.
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect(await thrown(client.deleteWatchlist({ uuid }))).toEqual({});
    } finally {
      logged.mockRestore();
    }
    expect(await client.getWatchlists()).toEqual([]);
    expect(await thrown(client.getWatchlist({ uuid }))).toEqual({ code: 40410000, message: "watchlist not found" });
  });

  it("reads and changes the account configurations", async () => {
    const before = await client.getAccountConfigurations();
    expect(before).toMatchObject({ no_shorting: false, trade_confirm_email: "all" });
    const after = await client.updateAccountConfigurations({ no_shorting: true, trade_confirm_email: "none" });
    expect(after).toEqual({ ...before, no_shorting: true, trade_confirm_email: "none" });
    expect(await client.getAccountConfigurations()).toEqual(after);
  });
});

describe("market data with @master-chief/alpaca", () => {
  it("reads the recorded trades, quotes, snapshots and, once a minute ended, its bar", async () => {
    const start = new Date(Date.now() - 10 * 60_000);
    const trades = await pollUntil(
      "recorded AAPL trades",
      () => client.getTrades({ symbol: "AAPL", start, end: new Date(), limit: 100 }),
      (page) => page.trades.length > 0,
      20_000,
    );
    expect(trades.symbol).toBe("AAPL");
    expect(trades.trades[0]?.t).toBeInstanceOf(Date);
    expect(trades.trades[0]?.p).toBeGreaterThan(0);
    const quotes = await client.getQuotes({ symbol: "AAPL", start, end: new Date(), limit: 10 });
    expect(quotes.quotes.length).toBeGreaterThan(0);
    expect(quotes.quotes[0]?.ap).toBeGreaterThan(quotes.quotes[0]?.bp as number);

    const snapshot = await client.getSnapshot({ symbol: "AAPL" });
    expect(snapshot.latestTrade?.p).toBeGreaterThan(0);
    expect(snapshot.latestQuote?.t).toBeInstanceOf(Date);
    const snapshots = await client.getSnapshots({ symbols: ["AAPL", "MSFT"] });
    expect(Object.keys(snapshots).sort()).toEqual(["AAPL", "MSFT"]);

    // The recorder started with the platform: its first minute bar comes when that minute ends.
    const bars = await pollUntil(
      "a recorded AAPL minute bar",
      () => client.getBars({ symbol: "AAPL", start, end: new Date(), timeframe: "1Min" }),
      (page) => page.bars.length > 0,
      75_000,
      500,
    );
    expect(bars.bars[0]).toMatchObject({ o: expect.any(Number), h: expect.any(Number), l: expect.any(Number) });
    expect(bars.bars[0]?.t.getUTCSeconds()).toBe(0);
  }, 120_000);
});
