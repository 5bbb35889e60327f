/**
 * Failed credentials per client address (kernel's limit) on the running brokerage behind a trusted proxy
 * (TRUST_PROXY=1 from 127.0.0.1): key pairs and tokens on the trading and data hosts, client credentials at
 * the token endpoint. Over the limit: 429 in the host's format with `Retry-After`; other addresses still pass.
 */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Brokerage, brokerageService } from "./index.ts";

const LIMIT = 3;
const REDIRECT = "http://127.0.0.1:8765/callback";
let s: TestService<Brokerage>;
let keyPair: Record<string, string>;
let client: { client_id: string; client_secret: string };
let issueCode: () => Promise<string>;

beforeAll(async () => {
  s = await startTestService(brokerageService, { config: { trustProxy: 1, authFailureLimit: LIMIT } });
  const { services } = s.instance;
  const user = await services.users.create({
    email: "limits@example.com",
    password: "correct horse battery staple",
    startingCash: "100000",
  });
  const [live, paper] = user.accounts;
  const key = await services.keyPairs.create({ accountId: live!.id });
  keyPair = { "APCA-API-KEY-ID": key.key_id, "APCA-API-SECRET-KEY": key.secret_key };
  client = await services.clients.create({ name: "Limits app", redirectUris: [REDIRECT] });
  issueCode = () =>
    services.codes.issue({
      clientId: client.client_id,
      userId: user.id,
      redirectUri: REDIRECT,
      scopes: ["trading", "data"],
      paperAccountId: paper!.id,
    });
});
afterAll(async () => {
  await s?.close();
});

const live = (path: string, headers: Record<string, string>, from: string) =>
  fetch(`${s.urls[""]}${path}`, { headers: { ...headers, "x-forwarded-for": from } });
const data = (path: string, headers: Record<string, string>, from: string) =>
  fetch(`${s.urls.data}${path}`, { headers: { ...headers, "x-forwarded-for": from } });
const token = (form: Record<string, string>, from: string) =>
  fetch(`${s.urls[""]}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": from },
    body: new URLSearchParams(form).toString(),
  });

const ALPACA_429 = { code: 42910000, message: "too many requests" };

describe("failed credentials per client address", () => {
  it("trading host: bad key pairs → the anchor's 429 with Retry-After; a good pair from another address works", async () => {
    const bad = { "APCA-API-KEY-ID": "PKNOSUCHKEY", "APCA-API-SECRET-KEY": "nope" };
    for (let i = 0; i < LIMIT; i++) expect((await live("/v2/account", bad, "203.0.113.1")).status).toBe(401);
    const refused = await live("/v2/account", keyPair, "203.0.113.1");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual(ALPACA_429);
    expect((await live("/v2/account", keyPair, "203.0.113.2")).status).toBe(200);
  });

  it("data host: bad bearer tokens → 429; a good key pair from another address works", async () => {
    const bad = { authorization: "Bearer not-a-token" };
    for (let i = 0; i < LIMIT; i++)
      expect((await data("/v2/stocks/bars/latest?symbols=AAPL", bad, "203.0.113.3")).status).toBe(401);
    const refused = await data("/v2/stocks/bars/latest?symbols=AAPL", keyPair, "203.0.113.3");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual(ALPACA_429);
    expect((await data("/v2/stocks/bars/latest?symbols=AAPL", keyPair, "203.0.113.4")).status).toBe(200);
  });

  it("token endpoint: bad client secrets → 429 OAuth error with Retry-After; the client from elsewhere gets its token", async () => {
    const grant = async () => ({
      grant_type: "authorization_code",
      code: await issueCode(),
      redirect_uri: REDIRECT,
      client_id: client.client_id,
    });
    for (let i = 0; i < LIMIT; i++) {
      const failed = await token({ ...(await grant()), client_secret: "wrong" }, "203.0.113.5");
      expect(failed.status).toBe(401);
    }
    const refused = await token({ ...(await grant()), client_secret: client.client_secret }, "203.0.113.5");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable" });
    const ok = await token({ ...(await grant()), client_secret: client.client_secret }, "203.0.113.6");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ token_type: "bearer" });
  });
});
