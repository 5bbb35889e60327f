/**
 * The market data REST API over HTTP against a real server and database: shapes of every endpoint (multi vs
 * single symbol, stock vs crypto), pagination without gap or repeat, sort, merged timeframes checked against
 * bars computed by hand, every error with its body, authentication, scope, plan and rate limit.
 */
import { marketData } from "@alpacahq/alpaca-trade-api";
import { createLogger, createMemoryRateCounter } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatFindings, lintOpenApi } from "../../../../../e2e/support/openapiLint.ts";
import type { UserWithAccounts } from "../../store/usersRepository.ts";
import { type DataHost, type StoredBar, startDataHost } from "../../testing/dataHost.ts";
import { accountsOf } from "../../testing/oauthFixture.ts";
import type { JsonBody } from "../../testing/tradingHost.ts";
import { createTradingRateLimit } from "../trading/rateLimit.ts";

const NOW = new Date("2026-11-25T16:00:00Z");
const RANGE = "start=2026-11-25T15:00:00Z&end=2026-11-25T15:59:00Z";
const minute = (m: number) => new Date(Date.parse("2026-11-25T15:00:00Z") + m * 60_000);

/** AAPL minute i: o 100+i, h 101+i, l 99+i, c 100.5+i, v 10(i+1), n i+1, notional (100.25+i)·v. */
const aaplMinute = (i: number): StoredBar => ({
  symbol: "AAPL",
  timeframe: "1Min",
  t: minute(i),
  o: 100 + i,
  h: 101 + i,
  l: 99 + i,
  c: 100.5 + i,
  v: 10 * (i + 1),
  n: i + 1,
  notional: (100.25 + i) * 10 * (i + 1),
});

let host: DataHost;
let user: UserWithAccounts;
let dataToken: string;
let readOnlyToken: string;
let keyHeaders: Record<string, string>;

async function get(path: string, headers: Record<string, string> = { authorization: `Bearer ${dataToken}` }) {
  const response = await fetch(`${host.origin}${path}`, { headers });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : undefined) as JsonBody,
  };
}

beforeAll(async () => {
  host = await startDataHost({
    rateLimit: createTradingRateLimit({
      counter: createMemoryRateCounter(),
      limitPerMinute: 1_000,
      logger: createLogger({ level: "silent" }),
    }),
  });
  host.setNow(NOW);
  user = await host.bed.fixture.createUser();
  const { live, paper } = accountsOf(user);
  dataToken = await host.bed.token(user.id, { live, paper: paper[0] }, ["data"]);
  readOnlyToken = await host.bed.token(user.id, { live }, ["trading"]);
  const pair = await host.bed.keyPair(paper[0]);
  keyHeaders = { "apca-api-key-id": pair.key_id, "apca-api-secret-key": pair.secret_key };

  await host.insertBars([
    ...Array.from({ length: 10 }, (_, i) => aaplMinute(i)),
    ...[0, 1, 2].map((i) => ({ ...aaplMinute(i), symbol: "MSFT", o: 400 + i, h: 401 + i, l: 399 + i, c: 400 + i })),
    // Daily bars at New York midnight (05:00Z in November): Friday 20th, Monday 23rd to Wednesday 25th.
    ...["2026-11-20", "2026-11-23", "2026-11-24", "2026-11-25"].map((day, i) => ({
      symbol: "AAPL",
      timeframe: "1Day" as const,
      t: new Date(`${day}T05:00:00Z`),
      o: 200 + i,
      h: 210 + i,
      l: 190 + i,
      c: 205 + i,
      v: 1000,
      n: 100,
      notional: 200_000 + i * 1000,
    })),
    { symbol: "BTC/USD", timeframe: "1Min", t: minute(1), o: 67000, h: 67100, l: 66900, c: 67050, v: 2, n: 2 },
  ]);
  await host.insertTrades([
    { symbol: "AAPL", id: 1, at: new Date("2026-11-25T15:00:00.000Z"), price: 100, size: 10 },
    { symbol: "AAPL", id: 2, at: new Date("2026-11-25T15:00:01.000Z"), price: 100.5, size: 5 },
    { symbol: "AAPL", id: 3, at: new Date("2026-11-25T15:00:01.000Z"), price: 100.6, size: 7, conditions: ["@", "I"] },
    { symbol: "AAPL", id: 4, at: new Date("2026-11-25T15:00:02.500Z"), price: 100.7, size: 1 },
    { symbol: "MSFT", id: 1, at: new Date("2026-11-25T15:00:00.000Z"), price: 400, size: 3 },
    { symbol: "BTC/USD", id: 9, at: new Date("2026-11-25T15:01:00.000Z"), price: 67050, size: 0.5, takerSide: "S" },
  ]);
  await host.insertQuotes([
    { symbol: "AAPL", at: new Date("2026-11-25T15:00:00Z"), bid: 99.9, bidSize: 100, ask: 100.1, askSize: 200 },
    { symbol: "AAPL", at: new Date("2026-11-25T15:00:01Z"), bid: 100, bidSize: 300, ask: 100.2, askSize: 100 },
    { symbol: "BTC/USD", at: new Date("2026-11-25T15:01:00Z"), bid: 67000, bidSize: 1, ask: 67010, askSize: 2 },
  ]);
});

afterAll(async () => {
  await host?.close();
});

describe("authentication", () => {
  it("refuses a request without credentials with the anchor's 401", async () => {
    const { status, body } = await get("/v2/stocks/bars/latest?symbols=AAPL", {});
    expect(status).toBe(401);
    expect(body).toEqual({ code: 40110000, message: "request is not authorized" });
  });

  it("refuses an unknown token and a wrong key pair", async () => {
    expect((await get("/v2/stocks/AAPL/trades/latest", { authorization: "Bearer nope" })).status).toBe(401);
    const wrong = { ...keyHeaders, "apca-api-secret-key": "wrong" };
    expect((await get("/v2/stocks/AAPL/trades/latest", wrong)).body).toEqual({
      code: 40110000,
      message: "request is not authorized",
    });
  });

  it("refuses a token without the data scope", async () => {
    const { status, body, headers } = await get("/v2/stocks/AAPL/trades/latest", {
      authorization: `Bearer ${readOnlyToken}`,
    });
    expect(status).toBe(401);
    expect(body).toEqual({ code: 40110000, message: "token is not authorized for this scope" });
    expect(headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });

  it("serves a token with data and a key pair, with the rate limit headers", async () => {
    const byToken = await get("/v2/stocks/AAPL/trades/latest");
    expect(byToken.status).toBe(200);
    expect(byToken.headers.get("x-ratelimit-limit")).toBe("1000");
    expect((await get("/v2/stocks/AAPL/trades/latest", keyHeaders)).body).toEqual(byToken.body);
  });
});

describe("rate limit", () => {
  it("answers the anchor's 429 with Retry-After past the credential's limit", async () => {
    const limited = await startDataHost({
      rateLimit: createTradingRateLimit({
        counter: createMemoryRateCounter(),
        limitPerMinute: 2,
        logger: createLogger({ level: "silent" }),
      }),
    });
    try {
      const someone = await limited.bed.fixture.createUser();
      const token = await limited.bed.token(someone.id, { live: accountsOf(someone).live }, ["data"]);
      const call = () =>
        fetch(`${limited.origin}/v2/stocks/meta/exchanges`, { headers: { authorization: `Bearer ${token}` } });
      expect((await call()).status).toBe(200);
      const second = await call();
      expect(second.headers.get("x-ratelimit-remaining")).toBe("0");
      const third = await call();
      expect(third.status).toBe(429);
      expect(await third.json()).toEqual({ code: 42910000, message: "too many requests" });
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });
});

describe("historical bars", () => {
  it("answers multi-symbol bars keyed by symbol, as stored", async () => {
    const { status, body } = await get(`/v2/stocks/bars?symbols=MSFT,AAPL&timeframe=1Min&${RANGE}`);
    expect(status).toBe(200);
    expect(Object.keys(body.bars)).toEqual(["AAPL", "MSFT"]);
    expect(body.bars.AAPL).toHaveLength(10);
    expect(body.bars.AAPL[2]).toEqual({
      t: "2026-11-25T15:02:00.000Z",
      o: 102,
      h: 103,
      l: 101,
      c: 102.5,
      v: 30,
      n: 3,
      vw: 102.25,
    });
    expect(body.next_page_token).toBeNull();
  });

  it("answers a single symbol with its symbol", async () => {
    const { body } = await get(`/v2/stocks/aapl/bars?timeframe=1T&${RANGE}&limit=2`);
    expect(body.symbol).toBe("AAPL");
    expect(body.bars.map((b: JsonBody) => b.t)).toEqual(["2026-11-25T15:00:00.000Z", "2026-11-25T15:01:00.000Z"]);
    expect(typeof body.next_page_token).toBe("string");
  });

  it("pages across symbols with the limit counted across them: no gap, no repeat", async () => {
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const suffix: string = token ? `&page_token=${encodeURIComponent(token)}` : "";
      const { status, body } = await get(`/v2/stocks/bars?symbols=AAPL,MSFT&timeframe=1Min&${RANGE}&limit=4${suffix}`);
      expect(status).toBe(200);
      const count = Object.values(body.bars as Record<string, unknown[]>).reduce((n, bars) => n + bars.length, 0);
      expect(count).toBeLessThanOrEqual(4);
      for (const [symbol, bars] of Object.entries(body.bars as Record<string, JsonBody[]>)) {
        for (const bar of bars) seen.push(`${symbol} ${bar.t}`);
      }
      token = body.next_page_token;
      pages += 1;
    } while (token && pages < 10);
    const expected = [
      ...Array.from({ length: 10 }, (_, i) => `AAPL ${minute(i).toISOString()}`),
      ...[0, 1, 2].map((i) => `MSFT ${minute(i).toISOString()}`),
    ];
    expect(seen).toEqual(expected);
    expect(pages).toBe(4);
  });

  it("sorts each symbol's bars newest first with sort=desc, and pages that way", async () => {
    const first = await get(`/v2/stocks/AAPL/bars?timeframe=1Min&${RANGE}&sort=desc&limit=3`);
    expect(first.body.bars.map((b: JsonBody) => b.o)).toEqual([109, 108, 107]);
    const next = await get(
      `/v2/stocks/AAPL/bars?timeframe=1Min&${RANGE}&sort=desc&limit=3&page_token=${encodeURIComponent(first.body.next_page_token)}`,
    );
    expect(next.body.bars.map((b: JsonBody) => b.o)).toEqual([106, 105, 104]);
  });

  it("merges minute bars into 5Min bars as computed by hand, and pages merged bars", async () => {
    const { body } = await get(`/v2/stocks/AAPL/bars?timeframe=5Min&${RANGE}`);
    // Minutes 0–4: o 100, h max 105, l min 99, c 104.5, v 10+20+30+40+50, n 1+…+5.
    const notional0 = [0, 1, 2, 3, 4].reduce((s, i) => s + (100.25 + i) * 10 * (i + 1), 0);
    const notional1 = [5, 6, 7, 8, 9].reduce((s, i) => s + (100.25 + i) * 10 * (i + 1), 0);
    expect(body.bars).toHaveLength(2);
    expect(body.bars[0]).toMatchObject({
      t: "2026-11-25T15:00:00.000Z",
      o: 100,
      h: 105,
      l: 99,
      c: 104.5,
      v: 150,
      n: 15,
    });
    expect(body.bars[0].vw).toBeCloseTo(notional0 / 150, 9);
    expect(body.bars[1]).toMatchObject({
      t: "2026-11-25T15:05:00.000Z",
      o: 105,
      h: 110,
      l: 104,
      c: 109.5,
      v: 400,
      n: 40,
    });
    expect(body.bars[1].vw).toBeCloseTo(notional1 / 400, 9);

    const page1 = await get(`/v2/stocks/AAPL/bars?timeframe=5Min&${RANGE}&limit=1`);
    expect(page1.body.bars).toEqual([body.bars[0]]);
    const page2 = await get(
      `/v2/stocks/AAPL/bars?timeframe=5Min&${RANGE}&limit=1&page_token=${encodeURIComponent(page1.body.next_page_token)}`,
    );
    expect(page2.body.bars).toEqual([body.bars[1]]);
    expect(page2.body.next_page_token).toBeNull();
    const desc = await get(`/v2/stocks/AAPL/bars?timeframe=5Min&${RANGE}&sort=desc`);
    expect(desc.body.bars).toEqual([body.bars[1], body.bars[0]]);
  });

  it("merges daily bars into weeks (Monday, New York midnight) and months", async () => {
    const range = "start=2026-11-01&end=2026-11-30";
    const weeks = await get(`/v2/stocks/AAPL/bars?timeframe=1Week&${range}`);
    expect(weeks.body.bars).toEqual([
      { t: "2026-11-16T05:00:00.000Z", o: 200, h: 210, l: 190, c: 205, v: 1000, n: 100, vw: 200 },
      { t: "2026-11-23T05:00:00.000Z", o: 201, h: 213, l: 191, c: 208, v: 3000, n: 300, vw: 606_000 / 3000 },
    ]);
    const month = await get(`/v2/stocks/AAPL/bars?timeframe=1Month&${range}`);
    expect(month.body.bars).toEqual([
      { t: "2026-11-01T04:00:00.000Z", o: 200, h: 213, l: 190, c: 208, v: 4000, n: 400, vw: 806_000 / 4000 },
    ]);
    const days = await get(`/v2/stocks/AAPL/bars?timeframe=1D&${range}&adjustment=split,dividend`);
    expect(days.body.bars).toHaveLength(4);
  });

  it("defaults start to New York midnight today and end to now", async () => {
    const { body } = await get("/v2/stocks/AAPL/bars?timeframe=1Day");
    expect(body.bars.map((b: JsonBody) => b.t)).toEqual(["2026-11-25T05:00:00.000Z"]);
  });

  it("answers crypto bars of location us", async () => {
    const { status, body } = await get(`/v1beta3/crypto/us/bars?symbols=BTC/USD&timeframe=1Min&${RANGE}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      bars: {
        "BTC/USD": [{ t: minute(1).toISOString(), o: 67000, h: 67100, l: 66900, c: 67050, v: 2, n: 2, vw: 67000 }],
      },
      next_page_token: null,
    });
  });
});

describe("historical trades and quotes", () => {
  it("answers stock trades with the anchor's fields, pages trades of one millisecond apart by id", async () => {
    const all = await get(`/v2/stocks/AAPL/trades?${RANGE}`);
    expect(all.body.trades).toHaveLength(4);
    expect(all.body.trades[2]).toEqual({
      t: "2026-11-25T15:00:01.000Z",
      x: "V",
      p: 100.6,
      s: 7,
      c: ["@", "I"],
      i: 3,
      z: "C",
    });
    const ids: number[] = [];
    let token: string | null = null;
    do {
      const suffix: string = token ? `&page_token=${encodeURIComponent(token)}` : "";
      const { body } = await get(`/v2/stocks/trades?symbols=AAPL,MSFT&${RANGE}&limit=2${suffix}`);
      for (const trades of Object.values(body.trades as Record<string, JsonBody[]>))
        ids.push(...trades.map((t) => t.i));
      token = body.next_page_token;
    } while (token);
    expect(ids).toEqual([1, 2, 3, 4, 1]);
    const desc = await get(`/v2/stocks/AAPL/trades?${RANGE}&sort=desc&limit=3`);
    expect(desc.body.trades.map((t: JsonBody) => t.i)).toEqual([4, 3, 2]);
  });

  it("answers crypto trades with the taker side", async () => {
    const { body } = await get(`/v1beta3/crypto/us/trades?symbols=BTC/USD&${RANGE}`);
    expect(body).toEqual({
      trades: { "BTC/USD": [{ t: "2026-11-25T15:01:00.000Z", p: 67050, s: 0.5, i: 9, tks: "S" }] },
      next_page_token: null,
    });
  });

  it("answers stock and crypto quotes", async () => {
    const stock = await get(`/v2/stocks/AAPL/quotes?${RANGE}&limit=1`);
    expect(stock.body.quotes).toEqual([
      { t: "2026-11-25T15:00:00.000Z", ax: "V", ap: 100.1, as: 200, bx: "V", bp: 99.9, bs: 100, c: ["R"], z: "C" },
    ]);
    const next = await get(
      `/v2/stocks/AAPL/quotes?${RANGE}&page_token=${encodeURIComponent(stock.body.next_page_token)}`,
    );
    expect(next.body.quotes.map((q: JsonBody) => q.bp)).toEqual([100]);
    const crypto = await get(`/v1beta3/crypto/us/quotes?symbols=BTC/USD&${RANGE}`);
    expect(crypto.body.quotes["BTC/USD"]).toEqual([
      { t: "2026-11-25T15:01:00.000Z", bp: 67000, bs: 1, ap: 67010, as: 2 },
    ]);
  });
});

describe("latest values and snapshots", () => {
  it("answers the latest trade, quote and bar, multi and single", async () => {
    const trades = await get("/v2/stocks/trades/latest?symbols=AAPL,MSFT,NVDA");
    expect(Object.keys(trades.body.trades)).toEqual(["AAPL", "MSFT"]);
    expect(trades.body.trades.AAPL.i).toBe(4);
    const trade = await get("/v2/stocks/AAPL/trades/latest");
    expect(trade.body).toEqual({ symbol: "AAPL", trade: trades.body.trades.AAPL });
    const quote = await get("/v2/stocks/AAPL/quotes/latest");
    expect(quote.body.quote.bp).toBe(100);
    const bar = await get("/v2/stocks/AAPL/bars/latest");
    expect(bar.body.bar.t).toBe(minute(9).toISOString());
    const bars = await get("/v2/stocks/bars/latest?symbols=AAPL,MSFT");
    expect(bars.body.bars.MSFT.t).toBe(minute(2).toISOString());
  });

  it("answers 404 for a single symbol without data", async () => {
    const { status, body } = await get("/v2/stocks/NVDA/trades/latest");
    expect(status).toBe(404);
    expect(body).toEqual({ code: 40410000, message: "no trade found for NVDA" });
  });

  it("answers crypto latest values", async () => {
    const { body } = await get("/v1beta3/crypto/us/latest/trades?symbols=BTC/USD");
    expect(body.trades["BTC/USD"]).toEqual({ t: "2026-11-25T15:01:00.000Z", p: 67050, s: 0.5, i: 9, tks: "S" });
    expect((await get("/v1beta3/crypto/us/latest/bars?symbols=BTC/USD")).body.bars["BTC/USD"].c).toBe(67050);
    expect((await get("/v1beta3/crypto/us/latest/quotes?symbols=BTC/USD")).body.quotes["BTC/USD"].ap).toBe(67010);
    expect((await get("/v1beta3/crypto/us/latest/orderbooks?symbols=BTC/USD,ETH/USD")).body).toEqual({
      orderbooks: { "BTC/USD": { t: "2026-11-25T15:01:00.000Z", b: [{ p: 67000, s: 1 }], a: [{ p: 67010, s: 2 }] } },
    });
  });

  it("answers snapshots: latest trade and quote, minute bar, daily and previous daily bar", async () => {
    const single = await get("/v2/stocks/AAPL/snapshot");
    expect(single.status).toBe(200);
    expect(single.body.symbol).toBe("AAPL");
    expect(single.body.latestTrade.i).toBe(4);
    expect(single.body.latestQuote.bp).toBe(100);
    expect(single.body.minuteBar.t).toBe(minute(9).toISOString());
    expect(single.body.dailyBar.t).toBe("2026-11-25T05:00:00.000Z");
    expect(single.body.prevDailyBar.t).toBe("2026-11-24T05:00:00.000Z");
    const multi = await get("/v2/stocks/snapshots?symbols=AAPL,MSFT,NVDA");
    expect(Object.keys(multi.body)).toEqual(["AAPL", "MSFT"]);
    expect(multi.body.MSFT.dailyBar).toBeUndefined();
    const crypto = await get("/v1beta3/crypto/us/snapshots?symbols=BTC/USD");
    expect(crypto.body.snapshots["BTC/USD"].latestTrade.tks).toBe("S");
    expect((await get("/v2/stocks/NVDA/snapshot")).status).toBe(404);
  });

  it("answers the exchange and condition codes", async () => {
    expect((await get("/v2/stocks/meta/exchanges")).body.V).toBe("IEX");
    expect((await get("/v2/stocks/meta/conditions/trade?tape=C")).body["@"]).toBe("Regular Sale");
    expect((await get("/v2/stocks/meta/conditions/trade")).status).toBe(422);
  });
});

describe("errors", () => {
  it.each([
    ["an invalid timeframe", `/v2/stocks/AAPL/bars?timeframe=1Sec&${RANGE}`, 422, "invalid timeframe"],
    ["a symbol not of the market", `/v2/stocks/bars?symbols=AAPL,ZZZZ&timeframe=1Min`, 400, "invalid symbol: ZZZZ"],
    ["a crypto pair on a stock path", "/v2/stocks/trades/latest?symbols=BTC/USD", 400, "invalid symbol: BTC/USD"],
    ["a stock on a crypto path", "/v1beta3/crypto/us/latest/trades?symbols=AAPL", 400, "invalid symbol: AAPL"],
    ["a list in a single-symbol path", "/v2/stocks/AAPL,MSFT/trades/latest", 400, "invalid symbol: AAPL,MSFT"],
    ["a tampered page token", `/v2/stocks/AAPL/bars?timeframe=1Min&page_token=QUFQTHxCfHg=`, 400, "invalid page_token"],
    [
      "a page token of another symbol",
      `/v2/stocks/MSFT/bars?timeframe=1Min&page_token=${Buffer.from("AAPL|B|2026-11-25T15:00:00.000Z").toString("base64")}`,
      400,
      "invalid page_token",
    ],
    [
      "a trade token on bars",
      `/v2/stocks/AAPL/bars?timeframe=1Min&page_token=${Buffer.from("AAPL|T|2026-11-25T15:00:00.000Z|1").toString("base64")}`,
      400,
      "invalid page_token",
    ],
    ["an unknown location", "/v1beta3/crypto/eu-1/latest/trades?symbols=BTC/USD", 400, "invalid location: eu-1"],
    ["a currency other than USD", "/v2/stocks/AAPL/trades/latest?currency=EUR", 400, "invalid currency: EUR"],
    [
      "an end before the start",
      "/v2/stocks/AAPL/trades?start=2026-11-25&end=2026-11-24",
      422,
      "end should not be before start",
    ],
    ["an impossible date", "/v2/stocks/AAPL/trades?start=2026-02-30", 422, "invalid start: 2026-02-30"],
    ["an undeclared parameter", "/v2/stocks/AAPL/trades/latest?symbol=MSFT", 400, "query.symbol: unknown field"],
    ["a trading parameter", "/v2/stocks/bars?symbols=AAPL&timeframe=1Min&side=buy", 400, "query.side: unknown field"],
    ["a parameter of a path without any", "/v2/stocks/meta/exchanges?tape=A", 400, "query.tape: unknown field"],
  ])("answers %s with its status and message", async (_, path, status, message) => {
    const answer = await get(path);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ code: status * 100_000 + 10_000, message });
  });

  it.each([
    ["limit 0", `/v2/stocks/AAPL/bars?timeframe=1Min&limit=0`],
    ["limit 10001", `/v2/stocks/AAPL/bars?timeframe=1Min&limit=10001`],
    ["a malformed start", `/v2/stocks/AAPL/bars?timeframe=1Min&start=yesterday`],
    ["no timeframe", "/v2/stocks/AAPL/bars"],
    ["no symbols", "/v2/stocks/trades"],
    ["an unknown feed", "/v2/stocks/AAPL/trades?feed=otc2"],
    ["an unknown sort", "/v2/stocks/AAPL/trades?sort=up"],
  ])("answers %s with a 422 in the error format", async (_, path) => {
    const answer = await get(path);
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe(42210000);
    expect(typeof answer.body.message).toBe("string");
  });

  it("refuses recent sip data to the basic plan, serves it to plus", async () => {
    const recent = await get("/v2/stocks/AAPL/trades?feed=sip&start=2026-11-25T15:00:00Z&end=2026-11-25T15:50:00Z");
    expect(recent.status).toBe(403);
    expect(recent.body).toEqual({ code: 40310000, message: "subscription does not permit querying recent SIP data" });
    expect((await get("/v2/stocks/AAPL/trades/latest?feed=sip")).status).toBe(403);
    // Without an end, the basic plan's sip reads stop 15 minutes ago (15:45): every trade is older.
    const delayed = await get("/v2/stocks/AAPL/trades?feed=sip&start=2026-11-25T15:00:00Z");
    expect(delayed.body.trades).toHaveLength(4);
    expect((await get("/v2/stocks/AAPL/trades/latest?feed=delayed_sip")).body.trade.i).toBe(4);
    await host.bed.fixture.database.db.query("UPDATE brokerage.users SET data_plan = 'plus' WHERE id = $1", [user.id]);
    try {
      expect((await get("/v2/stocks/AAPL/trades/latest?feed=sip")).status).toBe(200);
    } finally {
      await host.bed.fixture.database.db.query("UPDATE brokerage.users SET data_plan = 'basic' WHERE id = $1", [
        user.id,
      ]);
    }
  });
});

describe("the anchor's client", () => {
  it("reads bars, trades, latest values and snapshots through basePath", async () => {
    const configuration = new marketData.Configuration({ basePath: host.origin, accessToken: dataToken });
    const stocks = new marketData.StockApi(configuration);
    const start = new Date("2026-11-25T15:00:00Z");
    const end = new Date("2026-11-25T15:59:00Z");
    const bars = await stocks.stockBars({ symbols: "AAPL,MSFT", timeframe: "5Min", start, end, limit: 1 });
    // The generated model leaves the bars map as JSON (t stays a string).
    expect(bars.bars.AAPL?.[0]).toMatchObject({ o: 100, c: 104.5, n: 15, t: "2026-11-25T15:00:00.000Z" });
    expect(bars.nextPageToken).toEqual(expect.any(String));
    const single = await stocks.stockTradeSingle({ symbol: "AAPL", start, end, sort: "desc", limit: 1 });
    expect(single.trades[0]).toMatchObject({ i: 4, x: "V", z: "C" });
    const latest = await stocks.stockLatestQuoteSingle({ symbol: "AAPL" });
    expect(latest.quote.bp).toBe(100);
    const snapshots = await stocks.stockSnapshots({ symbols: "AAPL" });
    expect(snapshots.AAPL?.dailyBar?.t).toEqual(new Date("2026-11-25T05:00:00Z"));
    const crypto = new marketData.CryptoApi(configuration);
    const trades = await crypto.cryptoLatestTrades({ loc: "us", symbols: "BTC/USD" });
    expect(trades.trades["BTC/USD"]).toMatchObject({ p: 67050, tks: "S" });
    const cryptoBars = await crypto.cryptoBars({ loc: "us", symbols: "BTC/USD", timeframe: "1Min", start, end });
    expect(cryptoBars.bars["BTC/USD"]).toHaveLength(1);
    const books = await crypto.cryptoLatestOrderbooks({ loc: "us", symbols: "BTC/USD" });
    expect(books.orderbooks["BTC/USD"]?.b).toEqual([{ p: 67000, s: 1 }]);
  });
});

describe("OpenAPI", () => {
  it("documents every operation so that spectral:oas finds nothing", async () => {
    const document = (await (await fetch(`${host.origin}/openapi.json`)).json()) as JsonBody;
    const findings = await lintOpenApi(document);
    expect(findings, formatFindings(findings)).toEqual([]);
    const operations = Object.values(document.paths as Record<string, Record<string, JsonBody>>).flatMap((item) =>
      Object.values(item),
    );
    expect(
      operations
        .map((o) => o.operationId)
        .filter((id) => id !== "getHealth")
        .sort(),
    ).toEqual(
      [
        "cryptoBars",
        "cryptoLatestBars",
        "cryptoLatestOrderbooks",
        "cryptoLatestQuotes",
        "cryptoLatestTrades",
        "cryptoQuotes",
        "cryptoSnapshots",
        "cryptoTrades",
        "stockBarSingle",
        "stockBars",
        "stockLatestBarSingle",
        "stockLatestBars",
        "stockLatestQuoteSingle",
        "stockLatestQuotes",
        "stockLatestTradeSingle",
        "stockLatestTrades",
        "stockMetaConditions",
        "stockMetaExchanges",
        "stockQuoteSingle",
        "stockQuotes",
        "stockSnapshotSingle",
        "stockSnapshots",
        "stockTradeSingle",
        "stockTrades",
      ].sort(),
    );
  });
});
