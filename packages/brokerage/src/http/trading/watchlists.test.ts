/**
 * Watchlists over HTTP on a live and a paper host: every route of the anchor (by id and by name), symbols
 * resolved by the market and kept in order once each, the anchor's 404/422 bodies, limits, the
 * `account:write` scope, accounts kept apart (another account's or the other host's watchlist is not found),
 * concurrent writes, and the official client (4.0.2).
 */
import { trading } from "@alpacahq/alpaca-trade-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scope } from "../../domain/scopes.ts";
import { MAX_SYMBOLS_PER_WATCHLIST, MAX_WATCHLISTS_PER_ACCOUNT } from "../../domain/watchlists.ts";
import { createDefaultAssetUniverse } from "../../market/assetListings.ts";
import { createMarketService } from "../../services/market.ts";
import { createWatchlistsService } from "../../services/watchlists.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import { createWatchlistsRepository } from "../../store/watchlistsRepository.ts";
import { accountsOf } from "../../testing/oauthFixture.ts";
import { startTradingTestHosts, type TradingTestHosts } from "../../testing/tradingTestHosts.ts";
import { registerWatchlistRoutes } from "./watchlists.ts";

const market = createMarketService({ universe: createDefaultAssetUniverse(), sessionMode: "always" });
const NOT_FOUND = { code: 40410000, message: "watchlist not found" };
const NOT_UNIQUE = { code: 42210000, message: "watchlist name is not unique, or some parameters are not valid" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let hosts: TradingTestHosts;
beforeAll(async () => {
  hosts = await startTradingTestHosts((api, _env, fixture) => {
    const repository = createWatchlistsRepository(fixture.database.db);
    registerWatchlistRoutes(api, { watchlists: createWatchlistsService({ repository, market }) });
  });
});
afterAll(() => hosts?.close());

type Env = "live" | "paper";

/** A new user's live and paper account, with a token of both (`account:write` unless told otherwise). */
async function newTrader(scopes: Scope[] = ["account:write"]) {
  const user = await hosts.fixture.createUser(1);
  const { live, paper } = accountsOf(user);
  const token = await hosts.token(user.id, { live, paper: paper[0] }, scopes);
  const call = async (env: Env, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${hosts.origin[env]}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return { user, live, paper: paper[0] as AccountRow, token, call };
}

const symbolsOf = (watchlist: { assets: { symbol: string }[] }) => watchlist.assets.map((a) => a.symbol);

describe("creating and reading", () => {
  it("creates a watchlist with the market's asset objects, in order, each once, whatever the symbol's form", async () => {
    const { paper, call } = await newTrader();
    const created = await call("paper", "POST", "/v2/watchlists", {
      name: "Tech",
      symbols: ["aapl", "BTCUSD", "MSFT", "AAPL", null, market.getAsset("NVDA").id, "msft"],
    });
    expect(created.status).toBe(200);
    const w = created.body;
    expect(w).toEqual({
      id: expect.stringMatching(UUID),
      account_id: paper.id,
      name: "Tech",
      created_at: expect.any(String),
      updated_at: w.created_at,
      assets: ["AAPL", "BTC/USD", "MSFT", "NVDA"].map((s) => market.getAsset(s)),
    });
    expect(Date.now() - Date.parse(w.created_at)).toBeLessThan(60_000);

    expect(await call("paper", "GET", `/v2/watchlists/${w.id}`)).toEqual({ status: 200, body: w });
    expect(await call("paper", "GET", "/v2/watchlists:by_name?name=Tech")).toEqual({ status: 200, body: w });
  });

  it("creates an empty watchlist, and lists the account's watchlists without assets, oldest first", async () => {
    const { call } = await newTrader();
    expect((await call("paper", "GET", "/v2/watchlists")).body).toEqual([]);
    const a = (await call("paper", "POST", "/v2/watchlists", { name: "A", symbols: ["TSLA"] })).body;
    const b = (await call("paper", "POST", "/v2/watchlists", { name: "B" })).body;
    expect(b.assets).toEqual([]);
    const { assets: _a, ...summaryA } = a;
    const { assets: _b, ...summaryB } = b;
    expect(await call("paper", "GET", "/v2/watchlists")).toEqual({ status: 200, body: [summaryA, summaryB] });
  });

  it("404 for an unknown symbol, and nothing is created", async () => {
    const { call } = await newTrader();
    const response = await call("paper", "POST", "/v2/watchlists", { name: "X", symbols: ["AAPL", "NOPE"] });
    expect(response).toEqual({ status: 404, body: { code: 40410000, message: "asset not found for NOPE" } });
    expect((await call("paper", "GET", "/v2/watchlists")).body).toEqual([]);
  });

  it.each([
    ["no name", { symbols: ["AAPL"] }],
    ["an empty name", { name: "" }],
    ["a name of 65 characters", { name: "n".repeat(65) }],
    ["a name with a control character", { name: "a\u0000b" }],
    ["a number as name", { name: 5 }],
    ["a symbol that is not a string", { name: "ok", symbols: [5] }],
    [`more than ${MAX_SYMBOLS_PER_WATCHLIST} symbols`, { name: "ok", symbols: Array(1_001).fill("AAPL") }],
  ])("422 for %s", async (_label, body) => {
    const { call } = await newTrader();
    const response = await call("paper", "POST", "/v2/watchlists", body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ code: 42210000, message: expect.any(String) });
    expect((await call("paper", "GET", "/v2/watchlists")).body).toEqual([]);
  });

  it("ignores fields it does not know and reads null as absent, as the anchor (a client's `uuid` in the body)", async () => {
    const { call } = await newTrader();
    const created = await call("paper", "POST", "/v2/watchlists", { name: "Lenient", symbol: "MSFT", symbols: null });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: "Lenient", assets: [] });
    expect(created.body).not.toHaveProperty("symbol");
    const { id } = created.body;
    const added = await call("paper", "POST", `/v2/watchlists/${id}`, { uuid: "not-the-id", symbol: "AAPL" });
    expect(added.status).toBe(200);
    expect(symbolsOf(added.body)).toEqual(["AAPL"]);
    const updated = await call("paper", "PUT", `/v2/watchlists/${id}`, { uuid: id, name: "Renamed", symbols: null });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, name: "Renamed" });
    expect(symbolsOf(updated.body)).toEqual(["AAPL"]);
  });

  it("accepts a name of 64 characters (any script)", async () => {
    const { call } = await newTrader();
    const name = "é".repeat(32) + "📈".repeat(32);
    const response = await call("paper", "POST", "/v2/watchlists", { name });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe(name);
    expect((await call("paper", "GET", `/v2/watchlists:by_name?name=${encodeURIComponent(name)}`)).status).toBe(200);
  });

  it("422 with the anchor's message for a name the account uses already; another account may use it", async () => {
    const { call } = await newTrader();
    expect((await call("paper", "POST", "/v2/watchlists", { name: "Mine" })).status).toBe(200);
    expect(await call("paper", "POST", "/v2/watchlists", { name: "Mine", symbols: ["AAPL"] })).toEqual({
      status: 422,
      body: NOT_UNIQUE,
    });
    expect((await call("live", "POST", "/v2/watchlists", { name: "Mine" })).status).toBe(200);
    expect((await call("paper", "POST", "/v2/watchlists", { name: "mine" })).status).toBe(200);
  });
});

describe("accounts are apart", () => {
  it("a watchlist of the live account is not found from the paper account, nor another user's", async () => {
    const me = await newTrader();
    const other = await newTrader();
    const w = (await me.call("live", "POST", "/v2/watchlists", { name: "Live only", symbols: ["AAPL"] })).body;
    for (const [caller, env] of [
      [me, "paper"],
      [other, "live"],
      [other, "paper"],
    ] as const) {
      for (const [method, path, body] of [
        ["GET", `/v2/watchlists/${w.id}`],
        ["GET", "/v2/watchlists:by_name?name=Live%20only"],
        ["PUT", `/v2/watchlists/${w.id}`, { name: "stolen" }],
        ["POST", `/v2/watchlists/${w.id}`, { symbol: "TSLA" }],
        ["DELETE", `/v2/watchlists/${w.id}/AAPL`],
        ["DELETE", `/v2/watchlists/${w.id}`],
        ["DELETE", "/v2/watchlists:by_name?name=Live%20only"],
      ] as const) {
        expect(await caller.call(env, method, path, body), `${method} ${path} on ${env}`).toEqual({
          status: 404,
          body: NOT_FOUND,
        });
      }
      expect((await caller.call(env, "GET", "/v2/watchlists")).body).toEqual([]);
    }
    expect(await me.call("live", "GET", `/v2/watchlists/${w.id}`)).toEqual({ status: 200, body: w });
  });

  it("404 for an unknown id and for an id that is not a UUID (one answer for every id naming no watchlist)", async () => {
    const { call } = await newTrader();
    for (const id of ["00000000-0000-4000-8000-000000000000", "nope", "1", "00000000-0000-4000-8000-00000000000Z"]) {
      expect(await call("paper", "GET", `/v2/watchlists/${id}`)).toEqual({ status: 404, body: NOT_FOUND });
      expect(await call("paper", "DELETE", `/v2/watchlists/${id}`)).toEqual({ status: 404, body: NOT_FOUND });
    }
    expect(await call("paper", "GET", "/v2/watchlists:by_name?name=absent")).toEqual({ status: 404, body: NOT_FOUND });
    expect((await call("paper", "GET", "/v2/watchlists:by_name")).status).toBe(422);
  });
});

describe("changing", () => {
  it("PUT renames and/or replaces the assets; the part not sent is kept", async () => {
    const { call } = await newTrader();
    const w = (await call("paper", "POST", "/v2/watchlists", { name: "Old", symbols: ["AAPL", "MSFT"] })).body;

    const renamed = await call("paper", "PUT", `/v2/watchlists/${w.id}`, { name: "New" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: w.id, name: "New", created_at: w.created_at });
    expect(symbolsOf(renamed.body)).toEqual(["AAPL", "MSFT"]);
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(w.updated_at));

    const replaced = await call("paper", "PUT", `/v2/watchlists/${w.id}`, { symbols: ["tsla", "AAPL", "TSLA"] });
    expect(replaced.body.name).toBe("New");
    expect(symbolsOf(replaced.body)).toEqual(["TSLA", "AAPL"]);

    const byName = await call("paper", "PUT", "/v2/watchlists:by_name?name=New", { name: "Newer", symbols: [] });
    expect(byName.body).toMatchObject({ id: w.id, name: "Newer", assets: [] });
    expect(await call("paper", "GET", `/v2/watchlists/${w.id}`)).toEqual({ status: 200, body: byName.body });
  });

  it("PUT refuses an empty body (422), a taken name (422) and an unknown symbol (404), changing nothing", async () => {
    const { call } = await newTrader();
    const w = (await call("paper", "POST", "/v2/watchlists", { name: "One", symbols: ["AAPL"] })).body;
    await call("paper", "POST", "/v2/watchlists", { name: "Two" });
    expect((await call("paper", "PUT", `/v2/watchlists/${w.id}`, {})).status).toBe(422);
    expect(await call("paper", "PUT", `/v2/watchlists/${w.id}`, { name: "Two", symbols: ["MSFT"] })).toEqual({
      status: 422,
      body: NOT_UNIQUE,
    });
    expect(await call("paper", "PUT", `/v2/watchlists/${w.id}`, { name: "Three", symbols: ["XYZQ"] })).toEqual({
      status: 404,
      body: { code: 40410000, message: "asset not found for XYZQ" },
    });
    expect(await call("paper", "GET", `/v2/watchlists/${w.id}`)).toEqual({ status: 200, body: w });
  });

  it("POST adds an asset at the end; one listed already keeps its place; an unknown one is a 404", async () => {
    const { call } = await newTrader();
    const w = (await call("paper", "POST", "/v2/watchlists", { name: "Adds", symbols: ["AAPL", "MSFT"] })).body;
    const added = await call("paper", "POST", `/v2/watchlists/${w.id}`, { symbol: "eth/usd" });
    expect(added.status).toBe(200);
    expect(symbolsOf(added.body)).toEqual(["AAPL", "MSFT", "ETH/USD"]);
    expect(symbolsOf((await call("paper", "POST", `/v2/watchlists/${w.id}`, { symbol: "aapl" })).body)).toEqual([
      "AAPL",
      "MSFT",
      "ETH/USD",
    ]);
    const byName = await call("paper", "POST", "/v2/watchlists:by_name?name=Adds", { symbol: "TSLA" });
    expect(symbolsOf(byName.body)).toEqual(["AAPL", "MSFT", "ETH/USD", "TSLA"]);
    expect(await call("paper", "POST", `/v2/watchlists/${w.id}`, { symbol: "NOPE" })).toEqual({
      status: 404,
      body: { code: 40410000, message: "asset not found for NOPE" },
    });
    expect((await call("paper", "POST", `/v2/watchlists/${w.id}`, {})).status).toBe(422);
  });

  it("DELETE …/{symbol} removes one asset (a pair encoded or not); one not listed is a 404", async () => {
    const { call } = await newTrader();
    const w = (
      await call("paper", "POST", "/v2/watchlists", { name: "Rm", symbols: ["AAPL", "BTC/USD", "ETH/USD", "MSFT"] })
    ).body;
    const removed = await call("paper", "DELETE", `/v2/watchlists/${w.id}/BTC%2FUSD`);
    expect(removed.status).toBe(200);
    expect(symbolsOf(removed.body)).toEqual(["AAPL", "ETH/USD", "MSFT"]);
    expect(symbolsOf((await call("paper", "DELETE", `/v2/watchlists/${w.id}/ETH/USD`)).body)).toEqual(["AAPL", "MSFT"]);
    expect(symbolsOf((await call("paper", "DELETE", `/v2/watchlists/${w.id}/aapl`)).body)).toEqual(["MSFT"]);
    expect(await call("paper", "DELETE", `/v2/watchlists/${w.id}/AAPL`)).toEqual({
      status: 404,
      body: { code: 40410000, message: "symbol AAPL is not in the watchlist" },
    });
    // Positions stay ordered after removals: a new symbol goes last.
    expect(symbolsOf((await call("paper", "POST", `/v2/watchlists/${w.id}`, { symbol: "AAPL" })).body)).toEqual([
      "MSFT",
      "AAPL",
    ]);
  });

  it("DELETE answers 204 without a body, by id and by name; the watchlist is gone", async () => {
    const { call } = await newTrader();
    const a = (await call("paper", "POST", "/v2/watchlists", { name: "A", symbols: ["AAPL"] })).body;
    await call("paper", "POST", "/v2/watchlists", { name: "B b" });
    expect(await call("paper", "DELETE", `/v2/watchlists/${a.id}`)).toEqual({ status: 204, body: undefined });
    expect(await call("paper", "DELETE", `/v2/watchlists/${a.id}`)).toEqual({ status: 404, body: NOT_FOUND });
    expect(await call("paper", "DELETE", "/v2/watchlists:by_name?name=B%20b")).toEqual({
      status: 204,
      body: undefined,
    });
    expect((await call("paper", "GET", "/v2/watchlists")).body).toEqual([]);
    const [row] = await hosts.fixture.database.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM brokerage.watchlist_assets WHERE watchlist_id = $1",
      [a.id],
    );
    expect(row?.n).toBe(0);
  });
});

describe("limits", () => {
  it(`an account has at most ${MAX_WATCHLISTS_PER_ACCOUNT} watchlists`, async () => {
    const { paper, call } = await newTrader();
    await hosts.fixture.database.db.query(
      `INSERT INTO brokerage.watchlists (account_id, name)
       SELECT $1, 'list ' || i FROM generate_series(1, $2::int - 1) AS i`,
      [paper.id, MAX_WATCHLISTS_PER_ACCOUNT],
    );
    expect((await call("paper", "POST", "/v2/watchlists", { name: "last" })).status).toBe(200);
    expect(await call("paper", "POST", "/v2/watchlists", { name: "one too many" })).toEqual({
      status: 422,
      body: { code: 42210000, message: `an account may have at most ${MAX_WATCHLISTS_PER_ACCOUNT} watchlists` },
    });
    expect((await call("live", "POST", "/v2/watchlists", { name: "one too many" })).status).toBe(200);
  });

  it(`a watchlist holds at most ${MAX_SYMBOLS_PER_WATCHLIST} symbols`, async () => {
    const { call } = await newTrader();
    const w = (await call("paper", "POST", "/v2/watchlists", { name: "Full", symbols: ["AAPL"] })).body;
    // Symbols the market does not list (kept in storage, left out of the answer) fill the list to its limit.
    await hosts.fixture.database.db.query(
      `INSERT INTO brokerage.watchlist_assets (watchlist_id, position, symbol)
       SELECT $1, i, 'GONE' || i FROM generate_series(1, $2::int - 1) AS i`,
      [w.id, MAX_SYMBOLS_PER_WATCHLIST],
    );
    expect(symbolsOf((await call("paper", "GET", `/v2/watchlists/${w.id}`)).body)).toEqual(["AAPL"]);
    expect(symbolsOf((await call("paper", "POST", `/v2/watchlists/${w.id}`, { symbol: "AAPL" })).body)).toEqual([
      "AAPL",
    ]);
    expect(await call("paper", "POST", `/v2/watchlists/${w.id}`, { symbol: "MSFT" })).toEqual({
      status: 422,
      body: { code: 42210000, message: `a watchlist may hold at most ${MAX_SYMBOLS_PER_WATCHLIST} symbols` },
    });
    // A stored symbol the market no longer lists can still be removed, which makes room again.
    expect((await call("paper", "DELETE", `/v2/watchlists/${w.id}/GONE1`)).status).toBe(200);
    expect(symbolsOf((await call("paper", "POST", `/v2/watchlists/${w.id}`, { symbol: "MSFT" })).body)).toEqual([
      "AAPL",
      "MSFT",
    ]);
  });
});

describe("concurrent writes of one account", () => {
  it("keeps every added symbol once, each at its own position", async () => {
    const { call } = await newTrader();
    const w = (await call("paper", "POST", "/v2/watchlists", { name: "Race" })).body;
    const symbols = ["AAPL", "MSFT", "AMZN", "GOOGL", "META", "NVDA", "TSLA", "NFLX", "AMD", "INTC"];
    const answers = await Promise.all(
      [...symbols, ...symbols].map((symbol) => call("paper", "POST", `/v2/watchlists/${w.id}`, { symbol })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const final = symbolsOf((await call("paper", "GET", `/v2/watchlists/${w.id}`)).body);
    expect([...final].sort()).toEqual([...symbols].sort());
    const positions = await hosts.fixture.database.db.query<{ position: number }>(
      "SELECT position FROM brokerage.watchlist_assets WHERE watchlist_id = $1 ORDER BY position",
      [w.id],
    );
    expect(positions.map((p) => p.position)).toEqual(symbols.map((_, i) => i));
  });

  it("creates one watchlist of a name asked for several times at once", async () => {
    const { call } = await newTrader();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => call("paper", "POST", "/v2/watchlists", { name: "Same" })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422, 422, 422, 422, 422]);
    expect((await call("paper", "GET", "/v2/watchlists")).body).toHaveLength(1);
  });
});

describe("the account:write scope", () => {
  it("reads with any token; every write needs account:write (or a key pair)", async () => {
    const owner = await newTrader();
    const w = (await owner.call("paper", "POST", "/v2/watchlists", { name: "Scoped", symbols: ["AAPL"] })).body;
    const readOnly = await hosts.token(owner.user.id, { paper: owner.paper }, ["trading", "data"]);
    const as = (method: string, path: string, body?: unknown) =>
      fetch(`${hosts.origin.paper}${path}`, {
        method,
        headers: { Authorization: `Bearer ${readOnly}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    for (const path of ["/v2/watchlists", `/v2/watchlists/${w.id}`, "/v2/watchlists:by_name?name=Scoped"]) {
      expect((await as("GET", path)).status).toBe(200);
    }
    for (const [method, path, body] of [
      ["POST", "/v2/watchlists", { name: "No" }],
      ["PUT", `/v2/watchlists/${w.id}`, { name: "No" }],
      ["POST", `/v2/watchlists/${w.id}`, { symbol: "MSFT" }],
      ["DELETE", `/v2/watchlists/${w.id}/AAPL`],
      ["DELETE", `/v2/watchlists/${w.id}`],
      ["PUT", "/v2/watchlists:by_name?name=Scoped", { name: "No" }],
      ["POST", "/v2/watchlists:by_name?name=Scoped", { symbol: "MSFT" }],
      ["DELETE", "/v2/watchlists:by_name?name=Scoped"],
    ] as const) {
      const response = await as(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(await response.json()).toEqual({ code: 40110000, message: "token is not authorized for this scope" });
    }
    expect(await owner.call("paper", "GET", `/v2/watchlists/${w.id}`)).toEqual({ status: 200, body: w });

    const key = await hosts.keyPair(owner.paper);
    const withKey = await fetch(`${hosts.origin.paper}/v2/watchlists/${w.id}`, {
      method: "DELETE",
      headers: { "APCA-API-KEY-ID": key.key_id, "APCA-API-SECRET-KEY": key.secret_key },
    });
    expect(withKey.status).toBe(204);
  });
});

describe("with the official client (@alpacahq/alpaca-trade-api 4.0.2)", () => {
  it("every WatchlistsApi method", async () => {
    const { token } = await newTrader();
    const api = new trading.WatchlistsApi(
      new trading.Configuration({ basePath: hosts.origin.live, accessToken: token }),
    );
    const created = await api.postWatchlist({
      createWatchlistRequest: { name: "Client", symbols: ["AAPL", "BTC/USD"] },
    });
    expect(created.assets?.map((a) => a.symbol)).toEqual(["AAPL", "BTC/USD"]);
    expect(created.createdAt).toBeInstanceOf(Date);
    expect((await api.getWatchlists()).map((w) => w.name)).toEqual(["Client"]);
    expect((await api.getWatchlistById({ watchlistId: created.id })).name).toBe("Client");
    expect((await api.getWatchlistByName({ name: "Client" })).id).toBe(created.id);
    const added = await api.addAssetToWatchlist({
      watchlistId: created.id,
      addAssetToWatchlistRequest: { symbol: "TSLA" },
    });
    expect(added.assets?.map((a) => a.symbol)).toEqual(["AAPL", "BTC/USD", "TSLA"]);
    await api.addAssetToWatchlistByName({ name: "Client", addAssetToWatchlistRequest: { symbol: "MSFT" } });
    const removed = await api.removeAssetFromWatchlist({ watchlistId: created.id, symbol: "BTC/USD" });
    expect(removed.assets?.map((a) => a.symbol)).toEqual(["AAPL", "TSLA", "MSFT"]);
    const updated = await api.updateWatchlistById({
      watchlistId: created.id,
      updateWatchlistRequest: { name: "Client 2", symbols: ["NVDA"] },
    });
    expect(updated.assets?.map((a) => a.symbol)).toEqual(["NVDA"]);
    expect(
      (await api.updateWatchlistByName({ name: "Client 2", updateWatchlistRequest: { name: "Client 3" } })).name,
    ).toBe("Client 3");
    await api.deleteWatchlistByName({ name: "Client 3" });
    await expect(api.getWatchlistById({ watchlistId: created.id })).rejects.toMatchObject({ status: 404 });
    const second = await api.postWatchlist({ createWatchlistRequest: { name: "Second" } });
    await api.deleteWatchlistById({ watchlistId: second.id });
    expect(await api.getWatchlists()).toEqual([]);
  });
});
