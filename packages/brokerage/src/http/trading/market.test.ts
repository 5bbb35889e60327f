/**
 * The market's reference data over HTTP on the running service (live and paper hosts as `platform start`
 * serves them): assets with their filters and lookup forms, the anchor's 404, the clock in both session modes
 * (`BROKERAGE_MARKET_SESSION` through the service's config), the NYSE calendar, and 422s for bad queries.
 */
import { type StartTestServiceParameters, startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccountEnv } from "../../domain/accountNumbers.ts";
import { type Brokerage, brokerageService } from "../../index.ts";
import { assetIdOf } from "../../market/assets.ts";
import { cusipOf } from "../../market/cusips.ts";
import { sessionPhaseAt } from "../../market/nyseCalendar.ts";

const REDIRECT = "http://127.0.0.1:8765/callback";

interface Host {
  s: TestService<Brokerage>;
  /** Credentials per host: a key pair on live, an OAuth token (no scope) on paper. */
  headers: Record<AccountEnv, Record<string, string>>;
}

async function startHost(parameters: StartTestServiceParameters): Promise<Host> {
  const s = await startTestService(brokerageService, parameters);
  const { services } = s.instance;
  const user = await services.users.create({
    email: `market-${Date.now()}@example.com`,
    password: "correct horse battery staple",
    startingCash: "100000",
  });
  const [live, paper] = user.accounts;
  const key = await services.keyPairs.create({ accountId: live!.id });
  const client = await services.clients.create({ name: "Market app", redirectUris: [REDIRECT] });
  const code = await services.codes.issue({
    clientId: client.client_id,
    userId: user.id,
    redirectUri: REDIRECT,
    scopes: [],
    paperAccountId: paper!.id,
  });
  const grant = await services.tokens.exchangeCode({ code, clientId: client.client_id, redirectUri: REDIRECT });
  return {
    s,
    headers: {
      live: { "APCA-API-KEY-ID": key.key_id, "APCA-API-SECRET-KEY": key.secret_key },
      paper: { Authorization: `Bearer ${grant.access_token}` },
    },
  };
}

let always: Host;
let nyse: Host;
beforeAll(async () => {
  always = await startHost({});
  nyse = await startHost({ config: { brokerageMarketSession: "nyse" } });
});
afterAll(async () => {
  await always?.s.close();
  await nyse?.s.close();
});

const origin = (host: Host, env: AccountEnv) => (env === "live" ? host.s.urls[""] : host.s.urls.paper) as string;
const get = (env: AccountEnv, path: string, host: Host = always) =>
  fetch(`${origin(host, env)}${path}`, { headers: host.headers[env] });
async function json(env: AccountEnv, path: string, host: Host = always) {
  const response = await get(env, path, host);
  expect(response.status, path).toBe(200);
  return response.json();
}

describe("GET /v2/assets", () => {
  it.each(["live", "paper"] as const)(
    "lists active and inactive US equities by default on the %s host",
    async (env) => {
      const assets: { symbol: string; class: string; status: string }[] = await json(env, "/v2/assets");
      expect(assets.length).toBeGreaterThanOrEqual(30);
      expect(assets.every((a) => a.class === "us_equity")).toBe(true);
      expect(assets.map((a) => a.symbol)).toEqual(expect.arrayContaining(["AAPL", "SPY", "TWTR"]));
      expect(assets.map((a) => a.symbol)).not.toContain("BTC/USD");
    },
  );

  it("answers the anchor's asset object", async () => {
    const assets = await json("live", "/v2/assets");
    expect(assets.find((a: { symbol: string }) => a.symbol === "AAPL")).toEqual({
      id: assetIdOf("AAPL"),
      class: "us_equity",
      exchange: "NASDAQ",
      symbol: "AAPL",
      name: "Apple Inc. Common Stock",
      cusip: cusipOf("AAPL"),
      status: "active",
      tradable: true,
      marginable: true,
      maintenance_margin_requirement: 30,
      margin_requirement_long: "30",
      margin_requirement_short: "30",
      shortable: true,
      easy_to_borrow: true,
      borrow_status: "easy_to_borrow",
      fractionable: true,
      attributes: ["fractional_eh_enabled", "has_options"],
    });
    expect(await json("live", "/v2/assets/GME")).toMatchObject({
      easy_to_borrow: false,
      borrow_status: "hard_to_borrow",
    });
    const btc = await json("live", "/v2/assets/BTC/USD");
    expect(btc.cusip).toBeNull();
    expect(btc).not.toHaveProperty("borrow_status");
  });

  it("filters by class, status, exchange and attributes", async () => {
    const crypto = await json("paper", "/v2/assets?asset_class=crypto");
    expect(crypto.map((a: { symbol: string }) => a.symbol)).toEqual(
      expect.arrayContaining(["BTC/USD", "ETH/USD", "SOL/USD"]),
    );
    expect(crypto[0]).toMatchObject({ class: "crypto", exchange: "CRYPTO", min_order_size: expect.any(String) });

    const inactive = await json("paper", "/v2/assets?status=inactive");
    expect(inactive.map((a: { symbol: string }) => a.symbol)).toEqual(["TWTR"]);
    const active = await json("paper", "/v2/assets?status=active");
    expect(active.map((a: { symbol: string }) => a.symbol)).not.toContain("TWTR");

    const arca = await json("live", "/v2/assets?exchange=ARCA");
    expect(arca.map((a: { symbol: string }) => a.symbol).sort()).toEqual(["GLD", "IWM", "SPY"]);

    const withOptions = await json("live", "/v2/assets?attributes=has_options,ipo");
    expect(withOptions.length).toBeGreaterThan(0);
    expect(withOptions.map((a: { symbol: string }) => a.symbol)).not.toContain("BRK.A");
    expect(withOptions.every((a: { attributes: string[] }) => a.attributes.includes("has_options"))).toBe(true);

    expect(await json("live", "/v2/assets?exchange=NASDAQ&asset_class=crypto")).toEqual([]);
  });

  it.each([
    "status=deleted",
    "asset_class=options",
    "exchange=LSE",
    "attributes=flying",
    "attributes=has_options,",
    "asset_class=crypto&asset_class=us_equity",
  ])("422 with 42210000 for %s", async (query) => {
    const response = await get("paper", `/v2/assets?${query}`);
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ code: 42210000, message: expect.stringMatching(/^query\./) });
  });

  it("needs credentials", async () => {
    const response = await fetch(`${origin(always, "live")}/v2/assets`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ code: 40110000, message: "request is not authorized" });
  });
});

describe("GET /v2/assets/{symbol_or_asset_id}", () => {
  it.each([
    ["AAPL", "AAPL"],
    ["aapl", "AAPL"],
    ["AAPL:NASDAQ", "AAPL"],
    ["AAPL:NASDAQ:us_equity", "AAPL"],
    ["BRK.A", "BRK.A"],
    ["BTC%2FUSD", "BTC/USD"],
    ["BTC/USD", "BTC/USD"],
    ["BTCUSD", "BTC/USD"],
    [assetIdOf("ETH/USD"), "ETH/USD"],
    [assetIdOf("MSFT").toUpperCase(), "MSFT"],
  ])("finds %s", async (path, symbol) => {
    for (const env of ["live", "paper"] as const) {
      const asset = await json(env, `/v2/assets/${path}`);
      expect(asset).toMatchObject({ symbol, id: assetIdOf(symbol) });
    }
  });

  it.each([
    ["XYZ", "XYZ"],
    ["AAPL:NYSE", "AAPL:NYSE"],
    ["AAPL:NASDAQ:crypto", "AAPL:NASDAQ:crypto"],
    ["DOGE/EUR", "DOGE/EUR"],
    ["00000000-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000000"],
  ])("404 in the anchor's shape for %s", async (path, named) => {
    const response = await get("paper", `/v2/assets/${path}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 40410000, message: `asset not found for ${named}` });
  });

  it("422 for an oversized symbol", async () => {
    const response = await get("live", `/v2/assets/${"A".repeat(65)}`);
    expect(response.status).toBe(422);
    expect((await response.json()).code).toBe(42210000);
  });
});

describe("GET /v2/clock", () => {
  const CLOCK_FIELDS = {
    timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-0[45]:00$/),
    is_open: expect.any(Boolean),
    next_open: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T09:30:00-0[45]:00$/),
    next_close: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T1[36]:00:00-0[45]:00$/),
  };

  it.each(["live", "paper"] as const)("is open at any hour in mode always (the default), %s host", async (env) => {
    const before = Date.now();
    const clock = await json(env, "/v2/clock");
    expect(clock).toEqual({ ...CLOCK_FIELDS, is_open: true });
    const at = Date.parse(clock.timestamp);
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(clock.next_open)).toBeGreaterThan(at);
    expect(Date.parse(clock.next_close)).toBeGreaterThan(at);
  });

  it.each(["live", "paper"] as const)("follows the NYSE session in mode nyse, %s host", async (env) => {
    const clock = await json(env, "/v2/clock", nyse);
    expect(clock).toEqual(CLOCK_FIELDS);
    const at = Date.parse(clock.timestamp);
    expect(clock.is_open).toBe(sessionPhaseAt(at) === "regular");
    // Open: the close comes before the next open; closed: the open comes first.
    expect(Date.parse(clock.next_close) < Date.parse(clock.next_open)).toBe(clock.is_open);
  });
});

describe("GET /v2/calendar", () => {
  it("lists Thanksgiving week 2026: the holiday absent, the early close on the 27th", async () => {
    for (const env of ["live", "paper"] as const) {
      const days = await json(env, "/v2/calendar?start=2026-11-23&end=2026-11-30");
      const day = (date: string, close: string, sessionClose: string, settlement: string) => ({
        date,
        open: "09:30",
        close,
        session_open: "0400",
        session_close: sessionClose,
        settlement_date: settlement,
      });
      expect(days).toEqual([
        day("2026-11-23", "16:00", "2000", "2026-11-24"),
        day("2026-11-24", "16:00", "2000", "2026-11-25"),
        day("2026-11-25", "16:00", "2000", "2026-11-27"),
        day("2026-11-27", "13:00", "1700", "2026-11-30"),
        day("2026-11-30", "16:00", "2000", "2026-12-01"),
      ]);
    }
  });

  it("answers one day, an empty weekend, and a bounded default range", async () => {
    expect(
      (await json("paper", "/v2/calendar?start=2026-07-02&end=2026-07-02")).map((d: { date: string }) => d.date),
    ).toEqual(["2026-07-02"]);
    expect(await json("paper", "/v2/calendar?start=2026-07-04&end=2026-07-05")).toEqual([]);
    const year = await json("paper", "/v2/calendar");
    expect(year.length).toBeGreaterThan(240);
    expect(year.length).toBeLessThan(260);
    const fromStart = await json("paper", "/v2/calendar?start=2026-01-01");
    expect(fromStart[0].date).toBe("2026-01-02");
    expect(fromStart.at(-1).date).toBe("2026-12-31");
    const untilEnd = await json("paper", "/v2/calendar?end=2026-12-31");
    // 366 days ending on the 31st: 2025-12-31 (a trading day) through 2026-12-31.
    expect(untilEnd.slice(1)).toEqual(fromStart);
    expect(untilEnd[0].date).toBe("2025-12-31");
    const fiveYears = await json("live", "/v2/calendar?start=2025-01-01&end=2029-12-31");
    expect(fiveYears.length).toBeGreaterThan(1_240);
  });

  it.each([
    ["start=2026-13-01&end=2026-12-31", "query.start"],
    ["start=2026-02-30", "query.start"],
    ["start=2026-01-01&end=2026-02-29", "query.end"],
    ["start=26-01-01", "query.start"],
    ["start=2026-1-1", "query.start"],
    ["start=yesterday", "query.start"],
    ["end=2026-12-31T25:00:00Z", "query.end"],
    ["start=2026-12-01&end=2026-11-30", "query.end"],
    ["start=2020-01-01&end=2026-01-01", "query.end"],
    ["start=2026-01-01&start=2026-02-01", "query.start"],
  ])("422 with 42210000 for %s", async (query, param) => {
    const response = await get("live", `/v2/calendar?${query}`);
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body).toEqual({ code: 42210000, message: expect.stringMatching(new RegExp(`^${param}`)) });
  });

  it("bounds settlement dates with date_type=SETTLEMENT", async () => {
    // Settling Nov 27 – Dec 1: the trades of Nov 25 (settling after Thanksgiving), 27 and 30.
    const days = await json("paper", "/v2/calendar?start=2026-11-27&end=2026-12-01&date_type=SETTLEMENT");
    expect(days.map((d: { date: string; settlement_date: string }) => [d.date, d.settlement_date])).toEqual([
      ["2026-11-25", "2026-11-27"],
      ["2026-11-27", "2026-11-30"],
      ["2026-11-30", "2026-12-01"],
    ]);
    const trading = await json("paper", "/v2/calendar?start=2026-11-27&end=2026-12-01&date_type=TRADING");
    expect(trading.map((d: { date: string }) => d.date)).toEqual(["2026-11-27", "2026-11-30", "2026-12-01"]);
  });
});

describe("GET /v3/clock", () => {
  const NYSE = { acronym: "NYSE", mic: "XNYS", name: "New York Stock Exchange", timezone: "America/New_York" };

  it("answers the NYSE clock at a given time in mode nyse: phases and when they end", async () => {
    const at = async (time: string) => (await json("live", `/v3/clock?time=${time}`, nyse)).clocks;
    // Wednesday 2026-11-25, 10:15 EST: core until the close; Thanksgiving next, then Friday's early close.
    expect(await at("2026-11-25T15:15:00Z")).toEqual([
      {
        market: NYSE,
        timestamp: "2026-11-25T10:15:00.000-05:00",
        is_market_day: true,
        next_market_open: "2026-11-27T09:30:00-05:00",
        next_market_close: "2026-11-25T16:00:00-05:00",
        phase: "core",
        phase_until: "2026-11-25T16:00:00-05:00",
      },
    ]);
    const phase = async (time: string) => {
      const [clock] = await at(time);
      return [clock.phase, clock.phase_until, clock.is_market_day];
    };
    expect(await phase("2026-11-25T10:00:00Z")).toEqual(["pre", "2026-11-25T09:30:00-05:00", true]);
    expect(await phase("2026-11-25T22:00:00Z")).toEqual(["post", "2026-11-25T20:00:00-05:00", true]);
    // Thanksgiving: closed all day until Friday's pre-market; Friday's after-hours end at 17:00.
    expect(await phase("2026-11-26T15:00:00Z")).toEqual(["closed", "2026-11-27T04:00:00-05:00", false]);
    expect(await phase("2026-11-27T19:00:00Z")).toEqual(["post", "2026-11-27T17:00:00-05:00", true]);
    expect(await phase("2026-11-28T02:00:00Z")).toEqual(["closed", "2026-11-30T04:00:00-05:00", true]);
    expect(await phase("2026-11-28T15:00:00Z")).toEqual(["closed", "2026-11-30T04:00:00-05:00", false]);
  });

  it("answers several markets by acronym or MIC; in mode always the phase is core until midnight", async () => {
    const { clocks } = await json("paper", "/v3/clock?markets=XNAS,nyse&time=2026-11-26T15:00:00Z");
    expect(clocks.map((c: { market: { acronym: string } }) => c.market.acronym)).toEqual(["NASDAQ", "NYSE"]);
    expect(clocks[0]).toMatchObject({ phase: "core", phase_until: "2026-11-27T00:00:00-05:00", is_market_day: false });
    const now = await json("live", "/v3/clock");
    expect(now.clocks).toHaveLength(1);
    expect(Math.abs(Date.parse(now.clocks[0].timestamp) - Date.now())).toBeLessThan(60_000);
  });

  it.each([
    ["markets=LSE", "unknown market: LSE"],
    ["time=yesterday", "query.time"],
  ])("400 with 40010000 for %s", async (query, message) => {
    const response = await get("live", `/v3/clock?${query}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 40010000, message: expect.stringContaining(message) });
  });
});

describe("GET /v3/calendar/{market}", () => {
  it("lists Thanksgiving week's sessions in New York's offset, or in UTC", async () => {
    const week = await json("live", "/v3/calendar/NYSE?start=2026-11-25&end=2026-11-27");
    expect(week.market).toMatchObject({ acronym: "NYSE", mic: "XNYS" });
    expect(week.calendar).toEqual([
      {
        date: "2026-11-25",
        pre_start: "2026-11-25T04:00:00-05:00",
        pre_end: "2026-11-25T09:30:00-05:00",
        core_start: "2026-11-25T09:30:00-05:00",
        core_end: "2026-11-25T16:00:00-05:00",
        post_start: "2026-11-25T16:00:00-05:00",
        post_end: "2026-11-25T20:00:00-05:00",
        settlement_date: "2026-11-27",
      },
      {
        date: "2026-11-27",
        pre_start: "2026-11-27T04:00:00-05:00",
        pre_end: "2026-11-27T09:30:00-05:00",
        core_start: "2026-11-27T09:30:00-05:00",
        core_end: "2026-11-27T13:00:00-05:00",
        post_start: "2026-11-27T13:00:00-05:00",
        post_end: "2026-11-27T17:00:00-05:00",
        settlement_date: "2026-11-30",
      },
    ]);
    const utc = await json("paper", "/v3/calendar/XNAS?start=2026-07-02&end=2026-07-02&timezone=UTC");
    expect(utc.market.acronym).toBe("NASDAQ");
    expect(utc.calendar[0]).toMatchObject({ core_start: "2026-07-02T13:30:00Z", core_end: "2026-07-02T20:00:00Z" });
  });

  it("answers a week from today by default", async () => {
    const { calendar } = await json("paper", "/v3/calendar/NYSE");
    expect(calendar.length).toBeGreaterThanOrEqual(4);
    expect(calendar.length).toBeLessThanOrEqual(6);
  });

  it.each([
    ["LSE", "", "unknown market: LSE"],
    ["NYSE", "?start=2026-02-30", "not a valid date"],
    ["NYSE", "?start=2026-1-1", "query.start"],
    ["NYSE", "?timezone=CET", "query.timezone"],
    ["NYSE", "?start=2026-12-01&end=2026-11-30", "is before start"],
  ])("400 with 40010000 for %s%s", async (market, query, message) => {
    const response = await get("paper", `/v3/calendar/${market}${query}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 40010000, message: expect.stringContaining(message) });
  });
});

describe("query parameters no operation declares", () => {
  // Ignored on the trading hosts, as Alpaca's trading API ignores them (the data host refuses them).
  it.each(["/v2/account?foo=1", "/v2/assets?asset=AAPL", "/v2/clock?markets=NYSE", "/v3/clock?market=NYSE"])(
    "200 for %s",
    async (path) => {
      const response = await get("live", path);
      expect(response.status).toBe(200);
    },
  );
});
