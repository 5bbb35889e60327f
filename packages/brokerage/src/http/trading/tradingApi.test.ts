/**
 * The trading hosts over HTTP, live and paper each on its own server as the platform runs them: accounts read
 * with OAuth tokens (issued by the real codes and tokens services) and with key pairs, the anchor's 401
 * bodies and RFC 6750 challenges, scope enforcement, and `GET /v2/orders` parameters (a bad one is a
 * documented 422, never a 500).
 */
import { createMemoryRateCounter } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccountEnv } from "../../domain/accountNumbers.ts";
import { toAlpacaAccount } from "../../domain/accountObject.ts";
import type { Scope } from "../../domain/scopes.ts";
import { createBrokerageServices } from "../../services/index.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import type { UserWithAccounts } from "../../store/usersRepository.ts";
import { createTradingTestBed, type TradingTestBed } from "../../testing/tradingTestHosts.ts";
import { registerTradingApi } from "./tradingApi.ts";
import { principalOf } from "./tradingAuth.ts";

const REDIRECT = "http://127.0.0.1:8765/callback";
const UNAUTHORIZED = { code: 40110000, message: "request is not authorized" };

let hosts: TradingTestBed;
let services: ReturnType<typeof createBrokerageServices>;
const origin: Record<AccountEnv, string> = { live: "", paper: "" };
let user: UserWithAccounts;

/** A host with the whole trading API, as the brokerage registers it (its own authentication hook). */
async function startHost(env: AccountEnv): Promise<string> {
  const host = await hosts.startHost(env, {
    beside: (app) =>
      registerTradingApi(app, {
        env,
        accountForBearer: hosts.accounts.forAccessToken,
        keyPairs: hosts.keyPairs,
        orders: services.orders,
        positions: services.positions,
        accountConfigurations: services.accountConfigurations,
        watchlists: services.watchlists,
        activities: services.activities,
        portfolioHistory: services.portfolioHistory,
        market: services.market,
      }),
  });
  return host.origin;
}

beforeAll(async () => {
  hosts = await createTradingTestBed();
  const { db } = hosts.fixture.database;
  services = createBrokerageServices({ db, loginFailures: createMemoryRateCounter(), marketSession: "always" });
  user = await hosts.fixture.createUser(2);
  origin.live = await startHost("live");
  origin.paper = await startHost("paper");
});
afterAll(() => hosts?.close());

const live = () => user.accounts[0] as AccountRow;
const paper = (i: 0 | 1) => user.accounts[1 + i] as AccountRow;

/** A real access token: a code issued for the chosen accounts, exchanged by the tokens service. */
const token = (accounts: { live?: AccountRow; paper?: AccountRow }, scopes: Scope[] = []): Promise<string> =>
  hosts.token(user.id, accounts, scopes);

const get = (env: AccountEnv, path: string, headers: Record<string, string> = {}) =>
  fetch(`${origin[env]}${path}`, { headers });
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const keys = (k: { key_id: string; secret_key: string }) => ({
  "APCA-API-KEY-ID": k.key_id,
  "APCA-API-SECRET-KEY": k.secret_key,
});

async function expectUnauthorized(response: Response) {
  expect(response.status).toBe(401);
  expect(await response.json()).toEqual(UNAUTHORIZED);
  expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="brokerage"/);
}

describe("GET /v2/account with an OAuth token", () => {
  it("reads the token's live account on the live host and its paper account on the paper host", async () => {
    const t = await token({ live: live(), paper: paper(1) });
    const onLive = await get("live", "/v2/account", bearer(t));
    expect(onLive.status).toBe(200);
    const liveAccount = await onLive.json();
    // A new $100,000 account: a margin account at the default max_margin_multiplier 4, no positions.
    expect(liveAccount).toEqual({
      ...toAlpacaAccount(live()),
      balance_asof: expect.any(String),
      cash: "100000",
      buying_power: "400000",
      daytrading_buying_power: "400000",
      effective_buying_power: "400000",
      regt_buying_power: "200000",
      multiplier: "4",
      shorting_enabled: true,
    });
    const onPaper = await get("paper", "/v2/account", bearer(t));
    expect(onPaper.status).toBe(200);
    const paperAccount = await onPaper.json();
    expect(paperAccount.id).toBe(paper(1).id);
    expect(paperAccount.account_number).toBe(paper(1).account_number);
    expect(paperAccount).toMatchObject({ status: "ACTIVE", currency: "USD", cash: "100000", multiplier: "4" });
  });

  it("accepts the scheme in any case (RFC 7235)", async () => {
    const t = await token({ paper: paper(0) });
    expect((await get("paper", "/v2/account", { Authorization: `bearer ${t}` })).status).toBe(200);
  });

  it("401 on the host of an environment the token has no account for", async () => {
    const paperOnly = await token({ paper: paper(0) });
    await expectUnauthorized(await get("live", "/v2/account", bearer(paperOnly)));
    const liveOnly = await token({ live: live() });
    await expectUnauthorized(await get("paper", "/v2/account", bearer(liveOnly)));
  });

  it("401 with error=invalid_token for a revoked or unknown token, at once", async () => {
    const t = await token({ live: live() });
    expect((await get("live", "/v2/account", bearer(t))).status).toBe(200);
    expect(await hosts.fixture.tokens.revoke(t, hosts.client.client_id)).toBe(true);
    const revoked = await get("live", "/v2/account", bearer(t));
    await expectUnauthorized(revoked);
    expect(revoked.headers.get("www-authenticate")).toBe('Bearer realm="brokerage", error="invalid_token"');
    await expectUnauthorized(await get("live", "/v2/account", bearer("A".repeat(43))));
  });

  it("401 once the token's application is revoked", async () => {
    const other = await hosts.fixture.clients.create({ name: "Short-lived app", redirectUris: [REDIRECT] });
    const code = await hosts.fixture.codes.issue({
      clientId: other.client_id,
      userId: user.id,
      redirectUri: REDIRECT,
      scopes: [],
      paperAccountId: paper(0).id,
    });
    const grant = await hosts.fixture.tokens.exchangeCode({ code, clientId: other.client_id, redirectUri: REDIRECT });
    expect((await get("paper", "/v2/account", bearer(grant.access_token))).status).toBe(200);
    await hosts.fixture.clients.revoke(other.client_id);
    await expectUnauthorized(await get("paper", "/v2/account", bearer(grant.access_token)));
  });

  it("answers the account as it is now (cash read on every request)", async () => {
    const t = await token({ paper: paper(0) });
    await hosts.fixture.database.db.query("UPDATE brokerage.accounts SET cash = 1234.5 WHERE id = $1", [paper(0).id]);
    expect((await (await get("paper", "/v2/account", bearer(t))).json()).cash).toBe("1234.5");
  });
});

describe("GET /v2/account with a key pair", () => {
  it("reads a paper key's account on the paper host only, a live key's on the live host only", async () => {
    const paperKey = await hosts.keyPairs.create({ accountId: paper(1).id });
    const response = await get("paper", "/v2/account", keys(paperKey));
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(paper(1).id);
    await expectUnauthorized(await get("live", "/v2/account", keys(paperKey)));

    const liveKey = await hosts.keyPairs.create({ accountId: live().id });
    expect((await (await get("live", "/v2/account", keys(liveKey))).json()).id).toBe(live().id);
    await expectUnauthorized(await get("paper", "/v2/account", keys(liveKey)));
  });

  it("401 for a wrong secret, an unknown key, or a key id without its secret", async () => {
    const k = await hosts.keyPairs.create({ accountId: paper(0).id });
    await expectUnauthorized(await get("paper", "/v2/account", keys({ ...k, secret_key: "x".repeat(40) })));
    await expectUnauthorized(await get("paper", "/v2/account", keys({ ...k, key_id: `PK${"A".repeat(18)}` })));
    await expectUnauthorized(await get("paper", "/v2/account", { "APCA-API-KEY-ID": k.key_id }));
    await expectUnauthorized(await get("paper", "/v2/account", { "APCA-API-SECRET-KEY": k.secret_key }));
  });
});

describe("requests that are not authorized", () => {
  it.each([
    ["no credentials", {}],
    ["an empty Authorization", { Authorization: "" }],
    ["Basic credentials", { Authorization: "Basic dXNlcjpwYXNz" }],
    ["Bearer without a token", { Authorization: "Bearer" }],
    ["a token with a space", { Authorization: "Bearer abc def" }],
    ["a token with odd characters", { Authorization: "Bearer abc<script>" }],
    ["an oversized token", { Authorization: `Bearer ${"a".repeat(5_000)}` }],
  ])("401 for %s", async (_label, headers) => {
    await expectUnauthorized(await get("live", "/v2/account", headers as Record<string, string>));
  });

  it("401 for a token and a key pair at once (one way of authenticating per request)", async () => {
    const t = await token({ paper: paper(0) });
    const k = await hosts.keyPairs.create({ accountId: paper(0).id });
    await expectUnauthorized(await get("paper", "/v2/account", { ...bearer(t), ...keys(k) }));
  });

  it("authenticates before validating: bad parameters without credentials are a 401", async () => {
    await expectUnauthorized(await get("paper", "/v2/orders?limit=nope"));
  });

  it("404 in the anchor's format for an unknown path", async () => {
    const response = await get("paper", "/v2/nope");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 40410000, message: expect.any(String) });
  });
});

describe("scopes", () => {
  /** The hook on a write route: the first write routes come with orders (issue 15); their scope rule is here. */
  let scopedOrigin: string;
  beforeAll(async () => {
    const host = await hosts.startHost("paper", {
      routes: (api) => {
        api.post("/v2/orders", async (request) => ({ via: principalOf(request).via }));
        api.get("/v2/orders/:id", async (request) => ({ via: principalOf(request).via }));
        api.patch("/v2/account/configurations", async () => ({}));
      },
    });
    scopedOrigin = host.origin;
  });
  const call = (method: string, path: string, headers: Record<string, string>) =>
    fetch(`${scopedOrigin}${path}`, { method, headers });

  it("the anchor's 40110000 body and an insufficient_scope challenge for a write the token may not do", async () => {
    const readOnly = await token({ paper: paper(0) });
    const response = await call("POST", "/v2/orders", bearer(readOnly));
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ code: 40110000, message: "token is not authorized for this scope" });
    expect(response.headers.get("www-authenticate")).toBe(
      'Bearer realm="brokerage", error="insufficient_scope", scope="trading"',
    );
    expect((await call("GET", "/v2/orders/x", bearer(readOnly))).status).toBe(200);
    expect((await call("PATCH", "/v2/account/configurations", bearer(readOnly))).status).toBe(401);
  });

  it("lets a token with the scope, and a key pair (every scope), write", async () => {
    const trading = await token({ paper: paper(0) }, ["trading"]);
    const response = await call("POST", "/v2/orders", bearer(trading));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ via: "oauth" });
    expect((await call("PATCH", "/v2/account/configurations", bearer(trading))).status).toBe(401);
    const k = await hosts.keyPairs.create({ accountId: paper(0).id });
    expect(await (await call("POST", "/v2/orders", keys(k))).json()).toEqual({ via: "key" });
  });
});

describe("GET /v2/orders", () => {
  let paperToken: string;
  let liveToken: string;
  beforeAll(async () => {
    paperToken = await token({ paper: paper(0) });
    liveToken = await token({ live: live() });
  });

  it("answers an empty list on both hosts (no order can be placed yet)", async () => {
    for (const [env, t] of [
      ["paper", paperToken],
      ["live", liveToken],
    ] as const) {
      const response = await get(env, "/v2/orders", bearer(t));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
    }
  });

  it("accepts every parameter Alpaca's document declares", async () => {
    const query = new URLSearchParams({
      status: "all",
      limit: "500",
      after: "2026-01-01T00:00:00Z",
      until: "2026-02-01",
      direction: "asc",
      nested: "true",
      side: "sell",
      symbols: "AAPL, BRK.B,BTC/USD",
      asset_class: "us_equity",
    });
    const response = await get("paper", `/v2/orders?${query}`, bearer(paperToken));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
    const byCursor = `before_order_id=${crypto.randomUUID()}&asset_class=us_equity&asset_class=crypto,us_option`;
    expect((await get("paper", `/v2/orders?${byCursor}`, bearer(paperToken))).status).toBe(200);
  });

  it("filters by asset_class and pages by before_order_id / after_order_id", async () => {
    const account = paper(1);
    const accountToken = await token({ paper: account });
    const placed: string[] = [];
    for (const [symbol, qty] of [
      ["AAPL", "1"],
      ["BTC/USD", "0.01"],
      ["MSFT", "1"],
    ] as const) {
      const body = { symbol, qty, side: "buy", type: "limit", limit_price: "1", time_in_force: "gtc" } as const;
      placed.push((await services.orders.place(account.id, body)).id);
    }
    const btc = placed[1];
    const ids = async (query: string) => {
      const response = await get("paper", `/v2/orders?direction=asc&${query}`, bearer(accountToken));
      expect(response.status, query).toBe(200);
      return ((await response.json()) as { id: string }[]).map((o) => o.id);
    };
    // Submission order, as the list answers it (orders placed within one millisecond are ordered by id).
    const all = await ids("");
    expect([...all].sort()).toEqual([...placed].sort());
    expect(await ids("asset_class=crypto")).toEqual([btc]);
    expect(await ids("asset_class=us_equity")).toEqual(all.filter((id) => id !== btc));
    expect(await ids("asset_class=us_equity,crypto")).toEqual(all);
    expect(await ids("asset_class=all")).toEqual(all);
    expect(await ids("asset_class=us_option")).toEqual([]);
    expect(await ids(`before_order_id=${all[2]}`)).toEqual(all.slice(0, 2));
    expect(await ids(`after_order_id=${all[0]}`)).toEqual(all.slice(1));
    expect(await ids(`after_order_id=${all[0]}&asset_class=us_equity`)).toEqual(
      all.slice(1).filter((id) => id !== btc),
    );
    // Another account's order is no cursor here.
    expect(await ids(`after_order_id=${crypto.randomUUID()}`)).toEqual([]);
  });

  it("ignores a query parameter the operation does not declare, as Alpaca's trading API does", async () => {
    // `@master-chief/alpaca` sends a method's arguments as query parameters (`?symbol=` on a path that names it).
    const response = await get("paper", "/v2/orders?asset=crypto&symbol=AAPL&=", bearer(paperToken));
    expect(response.status).toBe(200);
    expect(Array.isArray(await response.json())).toBe(true);
  });

  it("serves `:by_client_order_id` at its literal path only, and documents it so", async () => {
    const byId = await get("paper", "/v2/orders:by_client_order_id?client_order_id=none", bearer(paperToken));
    expect(byId.status).toBe(404);
    const glued = await get("paper", "/v2/ordersx?client_order_id=none", bearer(paperToken));
    expect(glued.status).toBe(404);
    expect(await glued.json()).toMatchObject({ code: 40410000 });
    const document = (await (await fetch(`${origin.paper}/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(document.paths)).toContain("/v2/orders:by_client_order_id");
  });

  it.each([
    "status=bogus",
    "status=open&status=closed",
    "limit=0",
    "limit=501",
    "limit=abc",
    "limit=1.5",
    "direction=sideways",
    "side=hold",
    "nested=maybe",
    "after=yesterday",
    "after=2026-13-45",
    "until=2026-02-30T25:00:00Z",
    `after=${"9".repeat(100)}`,
    "symbols=AAPL;DROP",
    "symbols=",
    `symbols=${"AAPL,".repeat(1000)}AAPL`,
    "asset_class=stocks",
    "asset_class=crypto,",
    "before_order_id=42",
    "before_order_id=1b4e28ba-2fa1-41d2-883f-0016d3cca427&after_order_id=1b4e28ba-2fa1-41d2-883f-0016d3cca428",
    "after_order_id=1b4e28ba-2fa1-41d2-883f-0016d3cca427&after=2026-01-01",
  ])("422 with 42210000 for %s", async (query) => {
    const response = await get("paper", `/v2/orders?${query}`, bearer(paperToken));
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body).toEqual({ code: 42210000, message: expect.stringMatching(/^query\./) });
  });
});
