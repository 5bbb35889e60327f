/**
 * The trading hosts' rate limit: the window math on an injected clock, a failing counter (fail open, one
 * warning a minute), and over HTTP on live and paper servers sharing one limiter as the brokerage builds
 * them (limit 5): headers on every answer, the anchor's 429, a fresh window, counts per credential, one
 * count per token across both hosts. With TEST_REDIS_URL, two instances share a count through Redis.
 */
import { randomUUID } from "node:crypto";
import { createMemoryRateCounter, createRedisRateCounter, type RateCounter } from "@platform/kernel";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { AccountEnv } from "../../domain/accountNumbers.ts";
import type { Scope } from "../../domain/scopes.ts";
import { hashSecret } from "../../domain/secrets.ts";
import { createDefaultAssetUniverse } from "../../market/assetListings.ts";
import { createMarketService } from "../../services/market.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import type { UserWithAccounts } from "../../store/usersRepository.ts";
import { createTradingTestBed, type TradingTestBed } from "../../testing/tradingTestHosts.ts";
import { registerAccountRoutes } from "./account.ts";
import { registerClockRoutes } from "./clock.ts";
import {
  bearerRateKey,
  COUNTER_TIMEOUT_MS,
  createTradingRateLimit,
  keyPairRateKey,
  type TradingRateLimit,
} from "./rateLimit.ts";
import { principalOf } from "./tradingAuth.ts";

/** 2026-01-01T00:00:00Z, a window boundary (a whole minute). */
const MINUTE_START = 1_767_225_600_000;
const silent = { warn: () => {} };

afterEach(() => {
  vi.useRealTimers();
});

describe("createTradingRateLimit", () => {
  it("counts a fixed minute per principal: remaining, reset, Retry-After, refusal past the limit", async () => {
    let clock = MINUTE_START + 15_500;
    const limit = createTradingRateLimit({
      counter: createMemoryRateCounter(),
      limitPerMinute: 3,
      logger: silent,
      now: () => clock,
    });
    const reset = MINUTE_START / 1000 + 60;
    expect(await limit.check("a")).toEqual({ limit: 3, remaining: 2, reset, retryAfter: 45, allowed: true });
    expect(await limit.check("a")).toMatchObject({ remaining: 1, allowed: true });
    expect(await limit.check("b")).toMatchObject({ remaining: 2, allowed: true });
    expect(await limit.check("a")).toMatchObject({ remaining: 0, allowed: true });
    expect(await limit.check("a")).toEqual({ limit: 3, remaining: 0, reset, retryAfter: 45, allowed: false });
    // The window's last millisecond is still the window: refused, retry in (at least) a second.
    clock = MINUTE_START + 59_999;
    expect(await limit.check("a")).toEqual({ limit: 3, remaining: 0, reset, retryAfter: 1, allowed: false });
    // The next minute starts afresh, with the next reset.
    clock = MINUTE_START + 60_000;
    expect(await limit.check("a")).toEqual({
      limit: 3,
      remaining: 2,
      reset: reset + 60,
      retryAfter: 60,
      allowed: true,
    });
  });

  it("counts under a key that names the brokerage, the principal and the minute, with a lifetime past it", async () => {
    const counted: [string, number][] = [];
    const counter: RateCounter = {
      increment: async (window, ttlSec) => counted.push([window, ttlSec]),
      count: async () => 0,
      close: async () => {},
    };
    const limit = createTradingRateLimit({
      counter,
      limitPerMinute: 200,
      logger: silent,
      now: () => MINUTE_START + 1,
    });
    await limit.check(keyPairRateKey("PKABCDEFGHIJKLMNOPQR"));
    expect(counted).toEqual([[`brokerage:trading:key:PKABCDEFGHIJKLMNOPQR:m:${MINUTE_START / 60_000}`, 120]]);
  });

  it("keys a token by a short hash of it, never the token", () => {
    const token = "tok_9b1deb4d3b7d4bad9bdd2b0d7b3dcb6d0000000";
    const key = bearerRateKey(token);
    expect(key).toBe(`token:${hashSecret(token).toString("hex").slice(0, 32)}`);
    expect(key).toMatch(/^token:[0-9a-f]{32}$/);
    expect(key).not.toContain(token.slice(4, 12));
    expect(bearerRateKey(`${token}x`)).not.toBe(key);
  });

  it("lets requests through when the counter fails, warning at most once a minute", async () => {
    let clock = MINUTE_START;
    const warn = vi.fn();
    const limit = createTradingRateLimit({
      counter: {
        increment: async () => {
          throw new Error("connect ECONNREFUSED 127.0.0.1:6379");
        },
        count: async () => 0,
        close: async () => {},
      },
      limitPerMinute: 2,
      logger: { warn },
      now: () => clock,
    });
    for (let i = 0; i < 5; i++) {
      expect(await limit.check("a")).toEqual({
        limit: 2,
        remaining: 2,
        reset: MINUTE_START / 1000 + 60,
        retryAfter: 60,
        allowed: true,
      });
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatchObject({ err: expect.any(Error), failures: 1 });
    clock += 59_999;
    await limit.check("a");
    expect(warn).toHaveBeenCalledTimes(1);
    clock += 1;
    await limit.check("a");
    expect(warn).toHaveBeenCalledTimes(2);
    // The second warning says how many failures went unreported since the first.
    expect(warn.mock.calls[1]?.[0]).toMatchObject({ failures: 6 });
  });

  it("lets a request through when the counter does not answer in time", async () => {
    vi.useFakeTimers();
    const warn = vi.fn();
    const limit = createTradingRateLimit({
      counter: { increment: () => new Promise(() => {}), count: async () => 0, close: async () => {} },
      limitPerMinute: 2,
      logger: { warn },
    });
    const decision = limit.check("a");
    await vi.advanceTimersByTimeAsync(COUNTER_TIMEOUT_MS);
    expect(await decision).toMatchObject({ allowed: true, remaining: 2 });
    expect(warn.mock.calls[0]?.[0].err.name).toBe("CounterTimeoutError");
  });
});

// ------------------------------------------------------------------------------------------------ over HTTP

const LIMIT = 5;
const TOO_MANY = { code: 42910000, message: "too many requests" };

let hosts: TradingTestBed;
const market = createMarketService({ universe: createDefaultAssetUniverse(), sessionMode: "always" });
const origin: Record<AccountEnv, string> = { live: "", paper: "" };
let user: UserWithAccounts;
/** The shared limiter's clock: tests move it to the next window. */
let clock = MINUTE_START + 10_000;
const counters: RateCounter[] = [];

/** A limiter as the brokerage creates it: once, over one counter, for both hosts. */
function newRateLimit(counter: RateCounter, now?: () => number): TradingRateLimit {
  counters.push(counter);
  return createTradingRateLimit({ counter, limitPerMinute: LIMIT, logger: silent, now });
}

/**
 * A trading host as `registerTradingApi` builds one (the hook on a plugin of the `/v2` routes), with the
 * account and clock routes (the order routes' services are not this test's subject), and a write route to
 * see the scope check come after the count.
 */
async function startHost(env: AccountEnv, rateLimit: TradingRateLimit): Promise<string> {
  const host = await hosts.startHost(env, {
    rateLimit,
    routes: (api) => {
      registerAccountRoutes(api, { positions: { valuationOf: async () => undefined } as never });
      registerClockRoutes(api, { market });
      api.post("/v2/orders", async (request) => ({ via: principalOf(request).via }));
    },
  });
  return host.origin;
}

beforeAll(async () => {
  hosts = await createTradingTestBed();
  user = await hosts.fixture.createUser(1);
  const shared = newRateLimit(createMemoryRateCounter(), () => clock);
  origin.live = await startHost("live", shared);
  origin.paper = await startHost("paper", shared);
});
afterAll(async () => {
  await hosts?.close();
  for (const counter of counters) await counter.close();
});

const live = () => user.accounts[0] as AccountRow;
const paper = () => user.accounts[1] as AccountRow;

/** A real access token for the user's live and paper accounts. */
const token = (scopes: Scope[] = []): Promise<string> => hosts.token(user.id, { live: live(), paper: paper() }, scopes);

const get = (base: string, path: string, headers: Record<string, string>) => fetch(`${base}${path}`, { headers });
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const keys = (k: { key_id: string; secret_key: string }) => ({
  "APCA-API-KEY-ID": k.key_id,
  "APCA-API-SECRET-KEY": k.secret_key,
});
const rateHeaders = (response: Response) => ({
  limit: response.headers.get("x-ratelimit-limit"),
  remaining: response.headers.get("x-ratelimit-remaining"),
  reset: response.headers.get("x-ratelimit-reset"),
});
const resetOf = (at: number) => String(Math.floor(at / 60_000) * 60 + 60);

async function expectTooMany(response: Response, retryAfter: string) {
  expect(response.status).toBe(429);
  expect(await response.json()).toEqual(TOO_MANY);
  expect(response.headers.get("retry-after")).toBe(retryAfter);
  expect(rateHeaders(response)).toEqual({ limit: String(LIMIT), remaining: "0", reset: resetOf(clock) });
}

describe("the rate limit over HTTP (limit 5 a minute)", () => {
  it("headers on every answer, the anchor's 429 on the 6th request, and a fresh window a minute on", async () => {
    const t = await token();
    for (let i = 1; i <= LIMIT; i++) {
      const response = await get(origin.live, "/v2/account", bearer(t));
      expect(response.status).toBe(200);
      expect(rateHeaders(response)).toEqual({ limit: "5", remaining: String(LIMIT - i), reset: resetOf(clock) });
      expect(response.headers.get("retry-after")).toBeNull();
    }
    await expectTooMany(await get(origin.live, "/v2/account", bearer(t)), "50");
    // Refused requests count too (the window only grows); still refused, still the same headers.
    await expectTooMany(await get(origin.live, "/v2/clock", bearer(t)), "50");

    clock += 60_000;
    const next = await get(origin.live, "/v2/account", bearer(t));
    expect(next.status).toBe(200);
    expect(rateHeaders(next)).toEqual({ limit: "5", remaining: "4", reset: resetOf(clock) });
  });

  it("carries the headers on answers that fail after authentication (a 422)", async () => {
    const t = await token();
    const response = await get(origin.paper, "/v2/calendar?start=nope", bearer(t));
    expect(response.status).toBe(422);
    expect(rateHeaders(response)).toEqual({ limit: "5", remaining: "4", reset: resetOf(clock) });
  });

  it("counts two tokens apart", async () => {
    const [first, second] = [await token(), await token()];
    for (let i = 0; i < LIMIT; i++) expect((await get(origin.live, "/v2/account", bearer(first))).status).toBe(200);
    expect((await get(origin.live, "/v2/account", bearer(first))).status).toBe(429);
    const other = await get(origin.live, "/v2/account", bearer(second));
    expect(other.status).toBe(200);
    expect(other.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("counts a token once across the live and the paper host (one credential, one count)", async () => {
    const t = await token();
    for (let i = 0; i < 3; i++) expect((await get(origin.live, "/v2/account", bearer(t))).status).toBe(200);
    const onPaper = await get(origin.paper, "/v2/account", bearer(t));
    expect(onPaper.status).toBe(200);
    expect(onPaper.headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await get(origin.paper, "/v2/clock", bearer(t))).status).toBe(200);
    expect((await get(origin.live, "/v2/account", bearer(t))).status).toBe(429);
    expect((await get(origin.paper, "/v2/account", bearer(t))).status).toBe(429);
  });

  it("counts a key pair by its key id, and never counts requests that fail to authenticate", async () => {
    const k = await hosts.keyPairs.create({ accountId: paper().id });
    // Someone who knows the key id but not the secret cannot use up the key's minute.
    for (let i = 0; i < LIMIT + 2; i++) {
      const refused = await get(origin.paper, "/v2/account", keys({ ...k, secret_key: "x".repeat(40) }));
      expect(refused.status).toBe(401);
      expect(refused.headers.get("x-ratelimit-remaining")).toBeNull();
    }
    for (let i = 1; i <= LIMIT; i++) {
      const response = await get(origin.paper, "/v2/account", keys(k));
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(LIMIT - i));
    }
    expect((await get(origin.paper, "/v2/account", keys(k))).status).toBe(429);
    // Another key of the same account has its own count.
    const other = await hosts.keyPairs.create({ accountId: paper().id });
    expect((await get(origin.paper, "/v2/account", keys(other))).status).toBe(200);
  });

  it("counts a request refused for its scope (the limit comes before the scope check)", async () => {
    const readOnly = await token();
    const post = () => fetch(`${origin.paper}/v2/orders`, { method: "POST", headers: bearer(readOnly) });
    for (let i = 1; i <= LIMIT; i++) {
      const response = await post();
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ code: 40110000, message: "token is not authorized for this scope" });
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(LIMIT - i));
    }
    await expectTooMany(await post(), String(60 - ((clock / 1000) % 60)));
  });

  it("lets a write through for a token with the scope, counted as any request", async () => {
    const trading = await token(["trading"]);
    const response = await fetch(`${origin.live}/v2/orders`, { method: "POST", headers: bearer(trading) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ via: "oauth" });
    expect(response.headers.get("x-ratelimit-remaining")).toBe("4");
  });
});

// Two instances of the live host, each with its own limiter and Redis connection, as two processes would be.
describe.runIf(process.env.TEST_REDIS_URL)("the rate limit through Redis", () => {
  it("is one count for two instances", async () => {
    // A prefix of this run (Redis outlives it) and a fixed clock (no minute may turn mid-test).
    const prefix = `test:${randomUUID()}:`;
    const instance = () =>
      startHost(
        "live",
        newRateLimit(createRedisRateCounter(process.env.TEST_REDIS_URL as string, prefix), () => MINUTE_START),
      );
    const instances = [await instance(), await instance()];
    const t = await token();
    for (let i = 1; i <= LIMIT; i++) {
      const response = await get(instances[i % 2] as string, "/v2/account", bearer(t));
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(LIMIT - i));
    }
    for (const base of instances) {
      const refused = await get(base, "/v2/account", bearer(t));
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual(TOO_MANY);
      expect(refused.headers.get("retry-after")).toBe("60");
    }
  });
});
