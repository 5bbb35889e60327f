/**
 * The whole OAuth flow against the running service (its three hosts on ephemeral ports), driven by a real
 * OAuth client library, oauth4webapi: discovery on the authorization host, the authorize URL with PKCE and
 * state, the login and consent pages submitted as a browser submits them (a cookie-keeping HTTP agent; the
 * playwright tests drive the same pages in Chromium), the callback validated, the code exchanged, and the
 * token used on the live and the paper trading hosts. Then RFC 9700's checks, one test each, and the token
 * endpoint's answers to bad input on the real live host.
 */

import { startTestService, type TestService } from "@platform/kernel/testing";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Brokerage, brokerageService } from "./index.ts";
import type { CreatedClient } from "./services/clients.ts";
import type { UserWithAccounts } from "./store/usersRepository.ts";
import { type AgentResponse, FormAgent, parseForms, throughAuthorizationPages } from "./testing/formAgent.ts";

const PASSWORD = "correct horse battery staple";
const REDIRECT = "http://127.0.0.1:8765/callback";
const REDIRECT_WITH_QUERY = "http://127.0.0.1:8765/cb?x=1";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let s: TestService<Brokerage>;
let authOrigin: string;
let liveOrigin: string;
let paperOrigin: string;
let as: oauth.AuthorizationServer;
let user: UserWithAccounts;
let app: CreatedClient;
let otherApp: CreatedClient;
/** A browser that signed in once, for the tests about what follows the login. */
let signedIn: FormAgent;

beforeAll(async () => {
  // These tests fail client authentication and grants on purpose, many times from one address: the limit on
  // failed credentials (failedCredentials.test.ts) is raised out of their way.
  s = await startTestService(brokerageService, { config: { authFailureLimit: 1_000 } });
  authOrigin = s.urls.auth as string;
  liveOrigin = s.urls[""] as string;
  paperOrigin = s.urls.paper as string;
  const { users, clients } = s.instance.services;
  user = await users.create({
    email: "flow@example.com",
    password: PASSWORD,
    paperAccounts: 2,
    startingCash: "25000.50",
  });
  app = await clients.create({ name: "Flow app", redirectUris: [REDIRECT, REDIRECT_WITH_QUERY] });
  otherApp = await clients.create({ name: "Other app", redirectUris: [REDIRECT] });
  const issuer = new URL(authOrigin);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
  signedIn = new FormAgent();
  await authorize({ scope: "trading" }, { agent: signedIn });
});
afterAll(() => s.close());

const accounts = () => ({
  live: user.accounts.find((a) => a.env === "live")!,
  paper: user.accounts.filter((a) => a.env === "paper"),
});
const clientOf = (c: CreatedClient): oauth.Client => ({ client_id: c.client_id });

interface Authorized {
  /** The redirect to the client, when there was one. */
  callback: URL | undefined;
  /** The last response of the authorization host. */
  last: AgentResponse;
  agent: FormAgent;
}

/**
 * Opens the authorize URL with `parameters` (response_type, client_id and redirect_uri by default) and goes
 * through the pages: the login form (the test user's credentials) and the consent form (`decision`, with
 * `choose` for the account radio buttons), until a redirect leaves the authorization host or a page has no
 * form to go on with.
 */
async function authorize(
  parameters: Record<string, string | undefined>,
  o: { agent?: FormAgent; decision?: "allow" | "deny"; choose?: Record<string, string> } = {},
): Promise<Authorized> {
  const agent = o.agent ?? new FormAgent();
  const url = new URL(as.authorization_endpoint as string);
  const all = { response_type: "code", client_id: app.client_id, redirect_uri: REDIRECT, ...parameters };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.append(k, v);
  const ended = await throughAuthorizationPages(agent, url, {
    credentials: { email: user.email, password: PASSWORD },
    decision: o.decision,
    choose: o.choose,
  });
  return { ...ended, agent };
}

/** A code for `app` through the pages (signed in already), with PKCE unless `challenge` is null. */
async function codeFor(o: { scope?: string; env?: string; challenge?: string | null; redirectUri?: string } = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const challenge =
    o.challenge === null ? undefined : (o.challenge ?? (await oauth.calculatePKCECodeChallenge(verifier)));
  const state = oauth.generateRandomState();
  const { callback, last } = await authorize(
    {
      scope: o.scope ?? "trading",
      env: o.env,
      state,
      redirect_uri: o.redirectUri ?? REDIRECT,
      code_challenge: challenge,
      code_challenge_method: challenge ? "S256" : undefined,
    },
    { agent: signedIn },
  );
  if (!callback) throw new Error(`no callback: ${last.status} ${last.body}`);
  return { params: oauth.validateAuthResponse(as, clientOf(app), callback, state), verifier };
}

/** Exchanges through oauth4webapi; the token response or the OAuth error code. */
async function exchange(
  params: URLSearchParams,
  o: { client?: CreatedClient; redirectUri?: string; verifier?: string | typeof oauth.nopkce; basic?: boolean } = {},
): Promise<oauth.TokenEndpointResponse | { error: string }> {
  const c = o.client ?? app;
  const auth = o.basic ? oauth.ClientSecretBasic(c.client_secret) : oauth.ClientSecretPost(c.client_secret);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    clientOf(c),
    auth,
    params,
    o.redirectUri ?? REDIRECT,
    o.verifier ?? oauth.nopkce,
    insecure,
  );
  try {
    return await oauth.processAuthorizationCodeResponse(as, clientOf(c), response);
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return { error: error.error };
    throw error;
  }
}

const tokenOf = (r: oauth.TokenEndpointResponse | { error: string }): string => {
  if (!("access_token" in r)) throw new Error(`no token: ${r.error}`);
  return r.access_token;
};

async function getAccount(origin: string, token: string) {
  const res = await fetch(`${origin}/v2/account`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const NOT_AUTHORIZED = { status: 401, body: { code: 40110000, message: "request is not authorized" } };

describe("the flow with oauth4webapi", () => {
  it("discovers the authorization server on its host (RFC 8414) and finds the same document on both trading hosts", async () => {
    expect(as).toMatchObject({
      issuer: authOrigin,
      authorization_endpoint: `${authOrigin}/oauth/authorize`,
      token_endpoint: `${liveOrigin}/oauth/token`,
      revocation_endpoint: `${liveOrigin}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
    });
    const metadataOf = (origin: string) => fetch(`${origin}/.well-known/oauth-authorization-server`);
    const canonical = await (await metadataOf(authOrigin)).json();
    for (const origin of [liveOrigin, paperOrigin]) {
      // The copies name the authorization host as issuer: valid when the issuer is the one expected (§3.3) ...
      const copy = await oauth.processDiscoveryResponse(new URL(authOrigin), await metadataOf(origin));
      expect(copy).toEqual(canonical);
      // ... and refused by a client that took the trading host for the issuer: it is not one.
      await expect(oauth.processDiscoveryResponse(new URL(origin), await metadataOf(origin))).rejects.toThrow(
        /"issuer" property does not match the expected value/,
      );
    }
  });

  it("logs in, consents, exchanges the code with PKCE and client_secret_post, and reads both accounts", async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const { live, paper } = accounts();
    const { callback, last } = await authorize(
      {
        scope: "trading data",
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
      },
      { choose: { paper_account: paper[1]!.id } },
    );
    expect(callback, last.body).toBeDefined();
    expect(`${callback?.origin}${callback?.pathname}`).toBe(REDIRECT);
    const params = oauth.validateAuthResponse(as, clientOf(app), callback as URL, state);
    const grant = await exchange(params, { verifier });
    expect(grant).toMatchObject({ token_type: "bearer", scope: "trading data" });
    const token = tokenOf(grant);

    const onLive = await getAccount(liveOrigin, token);
    expect(onLive.status).toBe(200);
    expect(onLive.body).toMatchObject({
      id: live.id,
      account_number: live.account_number,
      cash: "25000.5",
      currency: "USD",
    });
    const onPaper = await getAccount(paperOrigin, token);
    expect(onPaper.status).toBe(200);
    expect(onPaper.body).toMatchObject({ id: paper[1]!.id, account_number: paper[1]!.account_number });
    const orders = await fetch(`${paperOrigin}/v2/orders`, { headers: { authorization: `Bearer ${token}` } });
    expect({ status: orders.status, body: await orders.json() }).toEqual({ status: 200, body: [] });
  });

  it("with env=live and client_secret_basic the token opens the live account only", async () => {
    const { params, verifier } = await codeFor({ env: "live" });
    const token = tokenOf(await exchange(params, { verifier, basic: true }));
    expect((await getAccount(liveOrigin, token)).body.id).toBe(accounts().live.id);
    expect(await getAccount(paperOrigin, token)).toEqual(NOT_AUTHORIZED);
  });

  it("with env=paper the token opens the chosen paper account only", async () => {
    const { params, verifier } = await codeFor({ env: "paper" });
    const token = tokenOf(await exchange(params, { verifier }));
    expect(await getAccount(liveOrigin, token)).toEqual(NOT_AUTHORIZED);
    expect((await getAccount(paperOrigin, token)).body.id).toBe(accounts().paper[0]!.id);
  });

  it("revokes the token with oauth4webapi (RFC 7009): it stops working at once", async () => {
    const { params, verifier } = await codeFor();
    const token = tokenOf(await exchange(params, { verifier }));
    expect((await getAccount(liveOrigin, token)).status).toBe(200);
    const response = await oauth.revocationRequest(
      as,
      clientOf(app),
      oauth.ClientSecretPost(app.client_secret),
      token,
      insecure,
    );
    await oauth.processRevocationResponse(response);
    expect(await getAccount(liveOrigin, token)).toEqual(NOT_AUTHORIZED);
    expect(await getAccount(paperOrigin, token)).toEqual(NOT_AUTHORIZED);
  });
});

describe("RFC 9700", () => {
  it("a replayed code fails and revokes the token issued from it", async () => {
    const { params, verifier } = await codeFor();
    const token = tokenOf(await exchange(params, { verifier }));
    expect(await exchange(params, { verifier })).toEqual({ error: "invalid_grant" });
    expect(await getAccount(liveOrigin, token)).toEqual(NOT_AUTHORIZED);
  });

  const differentUris = [
    `${REDIRECT}/`,
    `${REDIRECT}?x=1`,
    `${REDIRECT}/more`,
    "http://127.0.0.1:8765/callbacks",
    "http://127.0.0.1:8765/Callback",
    "http://127.0.0.1:8765/cb",
    "http://127.0.0.1:8765/cb?x=1&y=2",
    "http://127.0.0.1:8765/cb?x=2",
    "http://127.0.0.1:8765/cb/?x=1",
    "http://localhost:8765/callback",
    "http://127.0.0.1:8766/callback",
    "http://127.0.0.1:8765/callback#fragment",
    "https://127.0.0.1:8765/callback",
  ];

  it("a redirect URI that differs by a path, a query or a trailing slash is refused at authorize: a page, no redirect", async () => {
    for (const agent of [new FormAgent(), signedIn]) {
      for (const redirectUri of differentUris) {
        const { callback, last } = await authorize({ redirect_uri: redirectUri, state: "s" }, { agent });
        expect({ redirectUri, callback, status: last.status, location: last.location }).toEqual({
          redirectUri,
          callback: undefined,
          status: 400,
          location: undefined,
        });
        expect(last.headers.get("content-type")).toMatch(/^text\/html/);
      }
    }
  });

  it("... and at the token endpoint (invalid_grant), where the code stays good for the right URI", async () => {
    const { params, verifier } = await codeFor({ redirectUri: REDIRECT_WITH_QUERY });
    for (const redirectUri of [...differentUris, REDIRECT]) {
      expect(await exchange(params, { verifier, redirectUri })).toEqual({ error: "invalid_grant" });
    }
    expect(await exchange(params, { verifier, redirectUri: REDIRECT_WITH_QUERY })).toMatchObject({
      token_type: "bearer",
    });
  });

  it("no parameter makes an open redirect: every redirect goes to a registered URI or stays on the host", async () => {
    const evil = "https://evil.example/cb";
    const registered = new Set([REDIRECT, REDIRECT_WITH_QUERY]);
    let redirects = 0;
    const check = (label: string, res: AgentResponse) => {
      if (!res.location) return;
      redirects++;
      const target = res.location;
      const sameHost = target.origin === authOrigin;
      const toClient = [...registered].some((uri) => {
        const r = new URL(uri);
        return target.origin === r.origin && target.pathname === r.pathname;
      });
      expect({ label, location: target.href, allowed: sameHost || toClient }).toMatchObject({ allowed: true });
    };
    const cases: Record<string, string | undefined>[] = [
      { client_id: "unknown", redirect_uri: evil },
      { client_id: undefined, redirect_uri: evil },
      { redirect_uri: evil },
      { redirect_uri: evil, response_type: "token" },
      { redirect_uri: evil, scope: "admin" },
      { redirect_uri: undefined },
      { redirect_uri: "//evil.example/cb" },
      { redirect_uri: "javascript:alert(1)" },
      { response_type: "token", state: "a" },
      { response_type: undefined },
      { scope: "admin" },
      { env: "prod" },
      { code_challenge_method: "plain", code_challenge: "x".repeat(43) },
      { code_challenge: "short", code_challenge_method: "S256" },
      { state: evil },
      { next: evil, return_to: evil, redirect: evil },
    ];
    for (const agent of [new FormAgent(), signedIn]) {
      for (const parameters of cases) {
        // `last` is the response of every redirect that left the host (its Location is the callback).
        check(JSON.stringify(parameters), (await authorize(parameters, { agent })).last);
      }
    }
    // Hidden fields of the login form changed by hand: the login continues on this host only.
    const login = await new FormAgent().request(
      `${as.authorization_endpoint}?response_type=code&client_id=${app.client_id}&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    );
    const form = parseForms(login.body).find((f) => f.action === "/login");
    expect(form).toBeDefined();
    for (const [name, value] of [
      ["next", evil],
      ["next", "//evil.example"],
      ["next", "/\\evil.example"],
      ["redirect_uri", evil],
    ] as const) {
      const agent = new FormAgent();
      const page = await agent.request(login.url);
      const body = new URLSearchParams();
      for (const [k, v] of parseForms(page.body).find((f) => f.action === "/login")?.fields ?? []) {
        body.append(k, k === name ? value : v);
      }
      body.set("email", user.email);
      body.set("password", PASSWORD);
      check(`login ${name}=${value}`, await agent.request(new URL("/login", authOrigin), { form: body }));
    }
    // The cases above did redirect (errors to the client, logins within the host): the check was exercised.
    expect(redirects).toBeGreaterThan(10);
  });

  it("state comes back exactly as sent, odd characters included, on allow, deny and error redirects", async () => {
    const states = [
      "a b",
      "a&b=c",
      "x=y&state=forged",
      "100%25 %",
      "+plus+",
      "é ü 日本 🚀",
      "#not-a-fragment",
      `'"<>\`{}|\\^`,
      "?q=1/2;3,4",
      "x".repeat(2048),
    ];
    for (const state of states) {
      const allowed = await authorize({ state, scope: "trading" }, { agent: signedIn });
      expect(allowed.callback?.searchParams.get("state")).toBe(state);
      expect(oauth.validateAuthResponse(as, clientOf(app), allowed.callback as URL, state).get("code")).toBeTruthy();
      const denied = await authorize({ state }, { agent: signedIn, decision: "deny" });
      expect(denied.callback?.searchParams.get("state")).toBe(state);
      expect(denied.callback?.searchParams.get("error")).toBe("access_denied");
      const failed = await authorize({ state, scope: "admin" }, { agent: signedIn });
      expect(failed.callback?.searchParams.get("state")).toBe(state);
      expect(failed.callback?.searchParams.get("error")).toBe("invalid_scope");
    }
  });

  it("PKCE downgrade is refused both ways", async () => {
    // Issued with a challenge, exchanged without a verifier.
    const withChallenge = await codeFor();
    expect(await exchange(withChallenge.params, { verifier: oauth.nopkce })).toEqual({ error: "invalid_grant" });
    // Issued without a challenge, exchanged with a verifier.
    const without = await codeFor({ challenge: null });
    expect(await exchange(without.params, { verifier: oauth.generateRandomCodeVerifier() })).toEqual({
      error: "invalid_grant",
    });
    // Both codes still work the right way.
    expect(await exchange(withChallenge.params, { verifier: withChallenge.verifier })).toMatchObject({
      token_type: "bearer",
    });
    expect(await exchange(without.params)).toMatchObject({ token_type: "bearer" });
  });

  it("the consent form without its CSRF token, or with another one, is refused without a redirect", async () => {
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      state: "s",
    }).toString();
    const consent = await signedIn.request(url);
    const form = parseForms(consent.body).find((f) => f.action === "/oauth/authorize/consent");
    expect(form).toBeDefined();
    for (const csrf of [undefined, "forged", "A".repeat(43)]) {
      const body = new URLSearchParams();
      for (const [k, v] of form?.fields ?? []) if (k !== "csrf_token") body.append(k, v);
      if (csrf !== undefined) body.append("csrf_token", csrf);
      body.append("decision", "allow");
      const res = await signedIn.request(new URL("/oauth/authorize/consent", authOrigin), { form: body });
      expect({ status: res.status, location: res.location }).toEqual({ status: 400, location: undefined });
    }
  });

  it("a code used by another client is refused, and stays good for its own client", async () => {
    const { params, verifier } = await codeFor();
    expect(await exchange(params, { verifier, client: otherApp })).toEqual({ error: "invalid_grant" });
    expect(await exchange(params, { verifier })).toMatchObject({ token_type: "bearer" });
  });
});

describe("the token endpoint on the live host", () => {
  const post = async (body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${liveOrigin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body,
    });
    return {
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
      cacheControl: res.headers.get("cache-control"),
    };
  };

  it("answers every missing, repeated, oversized or ill-typed parameter with its OAuth error, never a 500", async () => {
    const { params } = await codeFor({ challenge: null });
    const good: Record<string, string> = {
      grant_type: "authorization_code",
      code: params.get("code") as string,
      redirect_uri: REDIRECT,
      client_id: app.client_id,
      client_secret: app.client_secret,
    };
    const form = (o: Record<string, string | undefined>, extra = "") => {
      const f = new URLSearchParams();
      for (const [k, v] of Object.entries({ ...good, ...o })) if (v !== undefined) f.append(k, v);
      return `${f}${extra}`;
    };
    const expected: Record<string, [number, string]> = {
      grant_type: [400, "invalid_request"],
      code: [400, "invalid_request"],
      redirect_uri: [400, "invalid_request"],
      client_id: [401, "invalid_client"],
      client_secret: [401, "invalid_client"],
    };
    for (const [name, [status, error]] of Object.entries(expected)) {
      const missing = await post(form({ [name]: undefined }));
      expect({ name, status: missing.status, error: missing.body.error }).toEqual({ name, status, error });
      const repeated = await post(form({}, `&${name}=${encodeURIComponent(good[name] as string)}`));
      expect({ name, status: repeated.status, error: repeated.body.error }).toEqual({
        name,
        status: 400,
        error: "invalid_request",
      });
      const long = await post(form({ [name]: "x".repeat(2049) }));
      expect({ name, status: long.status, error: long.body.error }).toEqual({
        name,
        status: 400,
        error: "invalid_request",
      });
      expect(long.cacheControl).toBe("no-store");
    }
    expect((await post(form({ grant_type: "implicit" }))).body.error).toBe("unsupported_grant_type");
    expect((await post(form({ code_verifier: "!" }))).body.error).toBe("invalid_request");
    expect((await post(JSON.stringify(good), { "content-type": "application/json" })).body).toMatchObject({
      error: "invalid_request",
    });
    // The trading hosts read JSON without a type or as text/plain (as Alpaca); the token endpoint stays
    // form-only (RFC 6749 §4.1.3), whatever the label, or none.
    expect((await post(JSON.stringify(good), { "content-type": "text/plain" })).body).toMatchObject({
      error: "invalid_request",
    });
    const untyped = await fetch(`${liveOrigin}/oauth/token`, {
      method: "POST",
      body: new TextEncoder().encode(form({})),
    });
    expect({ status: untyped.status, body: await untyped.json() }).toMatchObject({
      status: 400,
      body: { error: "invalid_request" },
    });
    expect((await post(form({ code: "x" }))).body.error).toBe("invalid_grant");
    // After all that, the code is still good.
    const ok = await post(form({}));
    expect({ status: ok.status, keys: Object.keys(ok.body).sort() }).toEqual({
      status: 200,
      keys: ["access_token", "scope", "token_type"],
    });
  });
});
