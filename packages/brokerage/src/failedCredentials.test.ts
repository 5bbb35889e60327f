/**
 * Failed credentials per client address (kernel's limit) on the running brokerage behind a trusted proxy
 * (TRUST_PROXY=1 from 127.0.0.1): key pairs and tokens on the trading and data hosts, client credentials at
 * the token endpoint, and the WebSocket streams' authentication (the trade-update stream, the market data
 * streams) on the same counters as their host's REST routes. Over the limit: 429 in the host's format with
 * `Retry-After` on REST, the stream protocol's refusal and a close on the streams; other addresses still pass.
 */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Brokerage, brokerageService } from "./index.ts";
import { connectDataStream } from "./testing/dataStreamHost.ts";
import { connectTradeStream } from "./testing/tradeStreamClient.ts";

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
const ws = (url: string | undefined) => (url as string).replace(/^http/, "ws");

/** Opens `/stream` of the live host from `from` and authenticates with `credentials`; the answer and the close. */
async function tradeStreamAuth(credentials: Record<string, string>, from: string) {
  const client = await connectTradeStream(`${ws(s.urls[""])}/stream`, { headers: { "x-forwarded-for": from } });
  client.send({ action: "authenticate", data: credentials });
  const answer = await client.next((m) => m.stream === "authorization");
  if ((answer.data as { status: string }).status === "authorized") {
    await client.close();
    return { answer, closed: undefined };
  }
  return { answer, closed: await client.closed };
}

/** Opens `/v2/iex` of the data host from `from` and authenticates (by `auth`, or by the handshake's headers). */
async function dataStreamAuth(credentials: { key: string; secret: string }, from: string, by: "message" | "headers") {
  const headers: Record<string, string> = { "x-forwarded-for": from };
  if (by === "headers")
    Object.assign(headers, { "APCA-API-KEY-ID": credentials.key, "APCA-API-SECRET-KEY": credentials.secret });
  const client = await connectDataStream(`${ws(s.urls.data)}/v2/iex`, { headers });
  await client.next((m) => m.msg === "connected");
  if (by === "message") client.send({ action: "auth", ...credentials });
  const answer = await client.next();
  if (answer.msg === "authenticated") {
    await client.close();
    return { answer, closed: undefined };
  }
  return { answer, closed: await client.closed };
}

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

  it("trade stream: failed `authenticate`s share the trading host's count; over it, even a good pair is `unauthorized` and closed", async () => {
    const from = "203.0.113.7";
    const bad = { "APCA-API-KEY-ID": "PKNOSUCHKEY", "APCA-API-SECRET-KEY": "nope" };
    const good = { key_id: keyPair["APCA-API-KEY-ID"] as string, secret_key: keyPair["APCA-API-SECRET-KEY"] as string };
    const unauthorized = { stream: "authorization", data: { status: "unauthorized", action: "authenticate" } };
    // A missing credential is not a guess: not counted, as on REST.
    expect((await tradeStreamAuth({}, from)).closed).toEqual({ code: 1008, reason: "unauthorized" });
    for (let i = 0; i < LIMIT - 1; i++) expect((await live("/v2/account", bad, from)).status).toBe(401);
    const failed = await tradeStreamAuth({ key_id: "PKNOSUCHKEY", secret_key: "nope" }, from);
    expect(failed).toEqual({ answer: unauthorized, closed: { code: 1008, reason: "unauthorized" } });

    const refused = await tradeStreamAuth(good, from);
    expect(refused).toEqual({
      answer: unauthorized,
      closed: { code: 1008, reason: "too many failed authentication attempts" },
    });
    expect((await live("/v2/account", keyPair, from)).status).toBe(429);
    const elsewhere = await tradeStreamAuth(good, "203.0.113.8");
    expect(elsewhere.answer).toEqual({
      stream: "authorization",
      data: { status: "authorized", action: "authenticate" },
    });
  });

  it("data streams: failed `auth`s and handshake credentials share the data host's count; over it, 402 and close", async () => {
    const from = "203.0.113.9";
    const bad = { key: "PKNOSUCHKEY", secret: "nope" };
    const good = { key: keyPair["APCA-API-KEY-ID"] as string, secret: keyPair["APCA-API-SECRET-KEY"] as string };
    const authFailed = { T: "error", code: 402, msg: "auth failed" };
    const closed = { code: 1008, reason: "auth failed" };
    expect(await dataStreamAuth(bad, from, "message")).toEqual({ answer: authFailed, closed });
    expect(await dataStreamAuth(bad, from, "headers")).toEqual({ answer: authFailed, closed });
    expect((await data("/v2/stocks/bars/latest?symbols=AAPL", { authorization: "Bearer nope" }, from)).status).toBe(
      401,
    );

    // The good pair is refused as a bad one before it is looked up, by message and by headers.
    expect(await dataStreamAuth(good, from, "message")).toEqual({ answer: authFailed, closed });
    expect(await dataStreamAuth(good, from, "headers")).toEqual({ answer: authFailed, closed });
    expect((await data("/v2/stocks/bars/latest?symbols=AAPL", keyPair, from)).status).toBe(429);
    const elsewhere = await dataStreamAuth(good, "203.0.113.10", "message");
    expect(elsewhere.answer).toEqual({ T: "success", msg: "authenticated" });
  });
});
