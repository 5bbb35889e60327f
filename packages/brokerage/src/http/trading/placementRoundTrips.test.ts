/**
 * The database round trips of `POST /v2/orders`, through HTTP as a client sends it (a bearer token on the
 * paper host, a key pair on the live host), every statement the service runs while it answers counted (the
 * jobs are not started; the trade stream hub's reads of the event feed are left out). The rate limit counts in process or in
 * Redis, never in the database.
 */
import { recordStatements, startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccountEnv } from "../../domain/accountNumbers.ts";
import { type Brokerage, brokerageService } from "../../index.ts";

const REDIRECT = "http://127.0.0.1:8765/callback";

let s: TestService<Brokerage>;
let headers: Record<AccountEnv, Record<string, string>>;
let statements: string[] = [];

beforeAll(async () => {
  s = await startTestService(brokerageService, { config: { brokerageDataBackfillDays: 0 } });
  const { services } = s.instance;
  const user = await services.users.create({
    email: `round-trips-${Date.now()}@example.com`,
    password: "correct horse battery staple",
    startingCash: "100000",
  });
  const [live, paper] = user.accounts;
  const key = await services.keyPairs.create({ accountId: live?.id as string });
  const client = await services.clients.create({ name: "Round trips", redirectUris: [REDIRECT] });
  const code = await services.codes.issue({
    clientId: client.client_id,
    userId: user.id,
    redirectUri: REDIRECT,
    scopes: ["trading"],
    paperAccountId: paper?.id as string,
  });
  const grant = await services.tokens.exchangeCode({ code, clientId: client.client_id, redirectUri: REDIRECT });
  headers = {
    live: { "APCA-API-KEY-ID": key.key_id, "APCA-API-SECRET-KEY": key.secret_key },
    paper: { Authorization: `Bearer ${grant.access_token}` },
  };
  // In place: the service holds this very object.
  const { db, log } = recordStatements(s.database.db);
  Object.assign(s.database.db, { query: db.query, transaction: db.transaction });
  statements = log.statements;
}, 60_000);
afterAll(async () => {
  await s?.close();
});

/** Places `body` on the host of `env`; answers the status and the statements it cost. */
async function place(env: AccountEnv, body: unknown): Promise<{ status: number; statements: string[] }> {
  statements.length = 0;
  const response = await fetch(new URL("/v2/orders", env === "live" ? s.urls[""] : s.urls.paper), {
    method: "POST",
    headers: { ...headers[env], "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await response.text();
  // The trade stream's hub reads the event feed on its own schedule (its cursor at start-up), not the request.
  return { status: response.status, statements: statements.filter((sql) => !/FROM brokerage\.trade_events/.test(sql)) };
}

const restingBuy = { symbol: "AAPL", qty: "1", side: "buy", type: "limit", limit_price: "10", time_in_force: "gtc" };

describe("POST /v2/orders", () => {
  it.each(["paper", "live"] as const)(
    "costs three round trips on the %s host: the credential, the account's state, the order",
    async (env) => {
      const { status, statements: run } = await place(env, restingBuy);
      expect(status).toBe(200);
      expect(run).toHaveLength(3);
      expect(run.some((sql) => /\bBEGIN\b|\bCOMMIT\b/.test(sql))).toBe(false);
    },
  );

  it("costs two for a bracket order after an order of the same account (the state it left is remembered)", async () => {
    const { status, statements: run } = await place("paper", {
      ...restingBuy,
      time_in_force: "day",
      order_class: "bracket",
      take_profit: { limit_price: "2000" },
      stop_loss: { stop_price: "5" },
    });
    expect(status).toBe(200);
    expect(run).toHaveLength(2);
  });

  it("costs two for a refused order (nothing written; a refusal is checked against a fresh read)", async () => {
    const { status, statements: run } = await place("paper", { ...restingBuy, qty: "100000" });
    expect(status).toBe(403);
    expect(run).toHaveLength(2);
  });
});
