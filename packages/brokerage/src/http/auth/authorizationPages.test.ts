/**
 * The authorization host over HTTP (the service as `platform start` runs it): RFC 6749 §4.1.2.1 errors
 * (page vs redirect), login with its CSRF cookie and throttle, consent with its CSRF token and account
 * choices, the code's binding (exchanged with the tokens service), the applications page, logout, the
 * host's security headers, and bad input answered as pages, never 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedClient } from "../../services/clients.ts";
import type { UserWithAccounts } from "../../store/usersRepository.ts";
import { type AuthHost, BrowserSession, formFields, PASSWORD, startAuthHost } from "../../testing/authHost.ts";

const REDIRECT = "http://127.0.0.1:8765/callback";
const REDIRECT_WITH_QUERY = "https://app.example.com/cb?tenant=a%20b";
const CSP =
  "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

let host: AuthHost;
let client: CreatedClient;
let user: UserWithAccounts;

beforeAll(async () => {
  host = await startAuthHost();
  client = await host.services.clients.create({
    name: "<b>Evil & Co</b>",
    redirectUris: [REDIRECT, REDIRECT_WITH_QUERY],
  });
  user = await host.createUser(2);
});
afterAll(() => host?.close());

const query = (o: Record<string, string> = {}, c: CreatedClient = client) =>
  new URLSearchParams({ response_type: "code", client_id: c.client_id, redirect_uri: REDIRECT, ...o }).toString();

const newSession = () => new BrowserSession(host.url);

/** Logs in through the login page of an authorization request; returns the POST's answer. */
async function login(session: BrowserSession, q: string, email = user.email, password = PASSWORD) {
  const page = await session.get(`/oauth/authorize?${q}`);
  expect(page.status).toBe(200);
  const fields = formFields(await page.text(), "/login");
  return session.post("/login", [...fields, ["email", email], ["password", password]]);
}

/** A logged-in session on the consent page of `q`: its HTML. */
async function consent(session: BrowserSession, q: string): Promise<string> {
  if (!session.cookies.has("brokerage_session")) expect((await login(session, q)).status).toBe(303);
  const page = await session.get(`/oauth/authorize?${q}`);
  expect(page.status).toBe(200);
  return page.text();
}

const decide = (
  session: BrowserSession,
  page: string,
  decision: "allow" | "deny",
  change: (f: [string, string][]) => [string, string][] = (f) => f,
) =>
  session.post(
    "/oauth/authorize/consent",
    change([...formFields(page, "/oauth/authorize/consent"), ["decision", decision]]),
  );

const location = (response: Response) => new URL(response.headers.get("location") as string, host.url);

/** The path and the parameters (in any order) of a redirect within the host. */
const continuation = (response: Response) => {
  const target = location(response);
  return { path: target.pathname, parameters: [...target.searchParams].sort() };
};
const sameRequest = (q: string) => ({ path: "/oauth/authorize", parameters: [...new URLSearchParams(q)].sort() });

describe("security headers", () => {
  it("every answer of the host carries the CSP, no framing, no caching, no referrer, nosniff", async () => {
    const session = newSession();
    for (const response of [
      await session.get(`/oauth/authorize?${query()}`),
      await session.get("/oauth/authorize?client_id=nope"),
      await session.get("/no/such/page"),
      await session.get("/account/applications"),
      await session.get("/health"),
    ]) {
      expect(response.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect((await session.get("/no/such/page")).headers.get("content-security-policy")).toBe(CSP);
  });

  it("the login and consent pages allow their forms to end at the client's origin only", async () => {
    const session = newSession();
    const loginPage = await session.get(`/oauth/authorize?${query()}`);
    expect(loginPage.headers.get("content-security-policy")).toBe(
      CSP.replace("form-action 'self'", "form-action 'self' http://127.0.0.1:8765"),
    );
    await consent(session, query());
    const consentPage = await session.get(`/oauth/authorize?${query({ redirect_uri: REDIRECT_WITH_QUERY })}`);
    expect(consentPage.headers.get("content-security-policy")).toContain("form-action 'self' https://app.example.com;");
  });
});

describe("GET /oauth/authorize: errors shown as a page, never redirected (RFC 6749 §4.1.2.1)", () => {
  it.each([
    ["unknown client_id", { client_id: "0".repeat(32) }],
    ["malformed client_id", { client_id: "<script>" }],
    ["redirect_uri with a trailing slash", { redirect_uri: `${REDIRECT}/` }],
    ["redirect_uri with another path", { redirect_uri: "http://127.0.0.1:8765/callback/../evil" }],
    ["redirect_uri with another query", { redirect_uri: "https://app.example.com/cb?tenant=b" }],
    ["redirect_uri of another host", { redirect_uri: "https://evil.example/cb" }],
  ])("%s → 400 page, no Location", async (_name, o) => {
    const response = await newSession().get(`/oauth/authorize?${query(o)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await response.text();
    expect(page).toContain("cannot be authorized");
    expect(page).not.toContain("evil.example");
    expect(page).not.toContain("<script>");
  });

  it.each([
    ["missing client_id", `response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}`],
    ["missing redirect_uri", () => `response_type=code&client_id=${client.client_id}`],
    ["repeated client_id", () => `${query()}&client_id=${client.client_id}`],
    ["repeated redirect_uri", () => `${query()}&redirect_uri=${encodeURIComponent(REDIRECT)}`],
    ["no parameters at all", ""],
  ])("%s → 400 page, no Location", async (_name, q) => {
    const response = await newSession().get(`/oauth/authorize?${typeof q === "function" ? q() : q}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });

  it("a revoked client is refused with a page", async () => {
    const revoked = await host.services.clients.create({ name: "Gone", redirectUris: [REDIRECT] });
    await host.services.clients.revoke(revoked.client_id);
    const response = await newSession().get(`/oauth/authorize?${query({}, revoked)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });
});

describe("GET /oauth/authorize: other errors redirected with error, error_description, state and iss", () => {
  it.each([
    ["response_type missing", (q: URLSearchParams) => q.delete("response_type"), "invalid_request"],
    ["response_type token", (q: URLSearchParams) => q.set("response_type", "token"), "unsupported_response_type"],
    ["unknown scope", (q: URLSearchParams) => q.set("scope", "trading admin"), "invalid_scope"],
    ["env neither live nor paper", (q: URLSearchParams) => q.set("env", "both"), "invalid_request"],
    [
      "PKCE plain",
      (q: URLSearchParams) => {
        q.set("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        q.set("code_challenge_method", "plain");
      },
      "invalid_request",
    ],
    [
      "malformed challenge",
      (q: URLSearchParams) => {
        q.set("code_challenge", "x");
        q.set("code_challenge_method", "S256");
      },
      "invalid_request",
    ],
    [
      "repeated scope",
      (q: URLSearchParams) => {
        q.append("scope", "data");
        q.append("scope", "data");
      },
      "invalid_request",
    ],
    ["state too long", (q: URLSearchParams) => q.set("state", "s".repeat(2049)), "invalid_request"],
  ])("%s → %s", async (_name, change, error) => {
    const q = new URLSearchParams(query({ state: "st" }));
    change(q);
    const response = await newSession().get(`/oauth/authorize?${q}`);
    expect(response.status).toBe(303);
    const target = location(response);
    expect(`${target.origin}${target.pathname}`).toBe(REDIRECT);
    expect(target.searchParams.get("error")).toBe(error);
    expect(target.searchParams.get("error_description")).toMatch(/^[\x20-\x7E]+$/);
    expect(target.searchParams.get("iss")).toBe(host.url);
    expect(target.searchParams.get("state")).toBe(q.get("state"));
    expect(target.searchParams.has("code")).toBe(false);
  });

  it("echoes an odd state exactly and keeps the registered URI's own query", async () => {
    const state = "a b&c=d+e%25f/ü😀?#x";
    const response = await newSession().get(
      `/oauth/authorize?${query({ redirect_uri: REDIRECT_WITH_QUERY, state, scope: "nope" })}`,
    );
    const raw = response.headers.get("location") as string;
    expect(raw.startsWith(`${REDIRECT_WITH_QUERY}&error=invalid_scope&`)).toBe(true);
    expect(new URL(raw).searchParams.get("state")).toBe(state);
    expect(new URL(raw).searchParams.get("tenant")).toBe("a b");
  });

  it("a repeated state is an invalid_request and no state is sent back", async () => {
    const response = await newSession().get(`/oauth/authorize?${query({ state: "a" })}&state=b`);
    expect(location(response).searchParams.get("error")).toBe("invalid_request");
    expect(location(response).searchParams.has("state")).toBe(false);
  });
});

describe("login", () => {
  it("shows the login page with the application's name escaped and a Strict CSRF cookie", async () => {
    const session = newSession();
    const response = await session.get(`/oauth/authorize?${query({ state: "s1" })}`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain("&lt;b&gt;Evil &amp; Co&lt;/b&gt;");
    expect(page).not.toContain("<b>Evil");
    expect(page).toMatch(/<html lang="en">/);
    expect(page).toMatch(/<label for="email">/);
    expect(page).toMatch(/autofocus/);
    expect(page).not.toMatch(/<script/i);
    const cookie = session.setCookies.find((c) => c.startsWith("brokerage_login_csrf="));
    expect(cookie).toMatch(/; Path=\/; Max-Age=3600; HttpOnly; SameSite=Strict$/);
  });

  it("a successful login opens a Lax HttpOnly session and continues to the same authorization request", async () => {
    const session = newSession();
    const q = query({ state: "s&2", scope: "trading" });
    const response = await login(session, q);
    expect(response.status).toBe(303);
    expect(continuation(response)).toEqual(sameRequest(q));
    const cookie = session.setCookies.find((c) => c.startsWith("brokerage_session="));
    expect(cookie).toMatch(/^brokerage_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
    expect(session.cookies.has("brokerage_login_csrf")).toBe(false);
    const consentPage = await session.get(response.headers.get("location") as string);
    expect(await consentPage.text()).toContain("Allow");
  });

  it("logs in without an authorization request, with any case of the email, to the applications page", async () => {
    const session = newSession();
    const page = await (await session.get("/login")).text();
    const response = await session.post("/login", [
      ...formFields(page, "/login"),
      ["email", user.email.toUpperCase()],
      ["password", PASSWORD],
    ]);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/account/applications");
  });

  it("refuses a wrong password (422) and keeps the email typed", async () => {
    const session = newSession();
    const response = await login(session, query(), user.email, "wrong password");
    expect(response.status).toBe(422);
    const page = await response.text();
    expect(page).toContain("Incorrect email or password.");
    expect(page).toContain(`value="${user.email}"`);
    expect(session.cookies.has("brokerage_session")).toBe(false);
  });

  it("refuses a login form without its CSRF cookie or token (400), and one bound to another request", async () => {
    const session = newSession();
    const page = await (await session.get(`/oauth/authorize?${query({ state: "one" })}`)).text();
    const fields = formFields(page, "/login");
    const credentials: [string, string][] = [
      ["email", user.email],
      ["password", PASSWORD],
    ];
    const withoutToken = fields.filter(([k]) => k !== "csrf_token");
    expect((await session.post("/login", [...withoutToken, ...credentials])).status).toBe(400);
    const otherRequest = fields.map(([k, v]): [string, string] => [k, k === "state" ? "two" : v]);
    expect((await session.post("/login", [...otherRequest, ...credentials])).status).toBe(400);
    const noCookie = new BrowserSession(host.url);
    expect((await noCookie.post("/login", [...fields, ...credentials])).status).toBe(400);
    expect(session.cookies.has("brokerage_session") || noCookie.cookies.has("brokerage_session")).toBe(false);
  });

  it("answers bad input with a page, never a 500", async () => {
    const session = newSession();
    const page = await (await session.get(`/oauth/authorize?${query()}`)).text();
    const fields = formFields(page, "/login");
    const cases: [string, [string, string][]][] = [
      ["empty fields", [...fields, ["email", ""], ["password", ""]]],
      ["repeated email", [...fields, ["email", user.email], ["email", user.email], ["password", PASSWORD]]],
      ["NUL in the email", [...fields, ["email", "a\u0000@example.com"], ["password", PASSWORD]]],
      ["very long email", [...fields, ["email", `${"a".repeat(5000)}@example.com`], ["password", PASSWORD]]],
      ["very long password", [...fields, ["email", user.email], ["password", "p".repeat(5000)]]],
    ];
    for (const [name, form] of cases) {
      const response = await session.post("/login", form);
      expect(response.status, name).toBe(422);
      expect(response.headers.get("content-type"), name).toBe("text/html; charset=utf-8");
    }
    const json = await session.request("/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(415);
    expect(json.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const huge = await session.post("/login", [...fields, ["email", "x".repeat(20_000)]]);
    expect(huge.status).toBe(413);
    expect(huge.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const empty = await session.request("/login", { method: "POST" });
    expect(empty.status).toBe(400);
  });

  it("throttles an account after 5 failures: the 6th attempt gets 429 without its password being checked", async () => {
    const victim = await host.createUser();
    const session = newSession();
    for (let i = 0; i < 5; i++) expect((await login(session, query(), victim.email, `wrong ${i}`)).status).toBe(422);
    const throttled = await login(session, query(), victim.email, PASSWORD);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("900");
    expect(await throttled.text()).toContain("Too many failed sign-in attempts");
    expect(session.cookies.has("brokerage_session")).toBe(false);
    // Other accounts from the same address still log in.
    expect((await login(newSession(), query())).status).toBe(303);
  });
});

describe("consent", () => {
  it("env=live offers only the live account, env=paper only the paper accounts (first preselected), none: both", async () => {
    const session = newSession();
    const { live, paper } = { live: user.accounts[0], paper: user.accounts.slice(1) };
    const livePage = await consent(session, query({ env: "live" }));
    expect(livePage).toContain(live?.account_number);
    expect(livePage).not.toContain(paper[0]?.account_number);
    const paperPage = await consent(session, query({ env: "paper" }));
    expect(paperPage).not.toContain(live?.account_number);
    expect(paperPage).toMatch(new RegExp(`value="${paper[0]?.id}" required checked`));
    expect(paperPage).toMatch(new RegExp(`value="${paper[1]?.id}" required>`));
    const bothPage = await consent(session, query());
    for (const a of user.accounts) expect(bothPage).toContain(a.account_number);
  });

  it("names the scopes in words (read-only always) and the application escaped", async () => {
    const page = await consent(newSession(), query({ scope: "trading data" }));
    expect(page).toContain("See your account, orders and positions");
    expect(page).toContain("Place, cancel or modify orders");
    expect(page).toContain("Access market data");
    expect(page).not.toContain("Change your account configuration");
    expect(page).toContain("&lt;b&gt;Evil &amp; Co&lt;/b&gt;");
  });

  it("Allow redirects with a code and the exact state; the code is bound to the accounts chosen (the second paper one)", async () => {
    const session = newSession();
    const state = "odd state & = ü";
    const page = await consent(session, query({ state, scope: "trading" }));
    const paper2 = user.accounts[2]?.id as string;
    const response = await decide(session, page, "allow", (f) =>
      f.map(([k, v]): [string, string] => [k, k === "paper_account" ? paper2 : v]),
    );
    expect(response.status).toBe(303);
    const target = location(response);
    expect(`${target.origin}${target.pathname}`).toBe(REDIRECT);
    expect(target.searchParams.get("state")).toBe(state);
    expect(target.searchParams.get("iss")).toBe(host.url);
    const code = target.searchParams.get("code") as string;
    const grant = await host.services.tokens.exchangeCode({ code, clientId: client.client_id, redirectUri: REDIRECT });
    expect(grant).toMatchObject({ token_type: "bearer", scope: "trading" });
    const verified = await host.services.tokens.verifyAccessToken(grant.access_token);
    expect(verified).toMatchObject({ userId: user.id, liveAccountId: user.accounts[0]?.id, paperAccountId: paper2 });
  });

  it("Deny redirects with access_denied and the state", async () => {
    const session = newSession();
    const page = await consent(session, query({ state: "deny me" }));
    const target = location(await decide(session, page, "deny"));
    expect(target.searchParams.get("error")).toBe("access_denied");
    expect(target.searchParams.get("state")).toBe("deny me");
    expect(target.searchParams.has("code")).toBe(false);
  });

  it("refuses a consent without its CSRF token, with another request's token, or from another session: 400, no redirect", async () => {
    const session = newSession();
    const page = await consent(session, query({ state: "one" }));
    const otherPage = await consent(session, query({ state: "two" }));
    const otherToken = formFields(otherPage, "/oauth/authorize/consent").find(
      ([k]) => k === "csrf_token",
    )?.[1] as string;
    const attempts = [
      (f: [string, string][]) => f.filter(([k]) => k !== "csrf_token"),
      (f: [string, string][]) => f.map(([k, v]): [string, string] => [k, k === "csrf_token" ? otherToken : v]),
      (f: [string, string][]) => f.map(([k, v]): [string, string] => [k, k === "csrf_token" ? "A".repeat(43) : v]),
    ];
    for (const change of attempts) {
      const response = await decide(session, page, "allow", change);
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
    }
    const intruder = newSession();
    await consent(intruder, query({ state: "one" }));
    const stolen = await decide(intruder, page, "allow");
    expect(stolen.status).toBe(400);
    expect(stolen.headers.get("location")).toBeNull();
  });

  it("a consent POST without a session shows the login page, not a redirect", async () => {
    const session = newSession();
    const page = await consent(session, query());
    const anonymous = new BrowserSession(host.url);
    const response = await decide(anonymous, page, "allow");
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("Sign in");
  });

  it("re-checks everything the form carries: another user's account, a missing choice, a changed redirect URI", async () => {
    const other = await host.createUser();
    const session = newSession();
    const page = await consent(session, query());
    const replace = (name: string, value: string) => (f: [string, string][]) =>
      f.map(([k, v]): [string, string] => [k, k === name ? value : v]);
    const cases = [
      replace("paper_account", other.accounts[1]?.id as string),
      replace("live_account", other.accounts[0]?.id as string),
      (f: [string, string][]) => f.filter(([k]) => k !== "paper_account"),
      (f: [string, string][]) => [...f, ["paper_account", user.accounts[2]?.id as string]] as [string, string][],
    ];
    for (const change of cases) {
      const response = await decide(session, page, "allow", change);
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
    }
    // A changed request no longer matches its CSRF token.
    const evil = await decide(session, page, "allow", replace("redirect_uri", "https://evil.example/cb"));
    expect(evil.status).toBe(400);
    expect(evil.headers.get("location")).toBeNull();
    const noDecision = await session.post("/oauth/authorize/consent", formFields(page, "/oauth/authorize/consent"));
    expect(noDecision.status).toBe(400);
  });

  it("a client revoked between the consent page and Allow gets no code: a page, no redirect", async () => {
    const app = await host.services.clients.create({ name: "Short-lived", redirectUris: [REDIRECT] });
    const session = newSession();
    const page = await consent(session, query({}, app));
    await host.services.clients.revoke(app.client_id);
    const response = await decide(session, page, "allow");
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });
});

describe("applications page and logout", () => {
  it("lists authorized applications and revokes one (CSRF-checked); its tokens stop working at once", async () => {
    const owner = await host.createUser();
    const app = await host.services.clients.create({ name: "Revocable app", redirectUris: [REDIRECT] });
    const session = newSession();
    const q = query({ env: "paper", scope: "data" }, app);
    expect((await login(session, q, owner.email)).status).toBe(303);
    const response = await decide(session, await consent(session, q), "allow");
    const code = location(response).searchParams.get("code") as string;
    const { access_token } = await host.services.tokens.exchangeCode({
      code,
      clientId: app.client_id,
      redirectUri: REDIRECT,
    });

    const list = await (await session.get("/account/applications")).text();
    expect(list).toContain("Revocable app");
    expect(list).toContain(owner.accounts[1]?.account_number);
    expect(list).toContain("Access market data");
    const fields = formFields(list, "/account/applications/revoke");
    const forged = fields.map(([k, v]): [string, string] => [k, k === "csrf_token" ? "A".repeat(43) : v]);
    expect((await session.post("/account/applications/revoke", forged)).status).toBe(400);
    expect(await host.services.tokens.verifyAccessToken(access_token)).toBeDefined();

    const revoked = await session.post("/account/applications/revoke", fields);
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe("/account/applications");
    expect(await host.services.tokens.verifyAccessToken(access_token)).toBeUndefined();
    expect(await (await session.get("/account/applications")).text()).toContain(
      "You have not authorized any application.",
    );
  });

  it("without a session the applications page is the login page", async () => {
    const response = await newSession().get("/account/applications");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('name="next" value="applications"');
  });

  it("logout ends the session (CSRF-checked) and returns to the authorization request", async () => {
    const session = newSession();
    const q = query({ state: "bye" });
    const page = await consent(session, q);
    const sessionCookie = session.cookies.get("brokerage_session") as string;
    const fields = formFields(page, "/logout");
    const forged = fields.filter(([k]) => k !== "csrf_token");
    expect((await session.post("/logout", forged)).status).toBe(400);
    const out = await session.post("/logout", fields);
    expect(out.status).toBe(303);
    expect(continuation(out)).toEqual(sameRequest(q));
    expect(session.cookies.has("brokerage_session")).toBe(false);
    // The old cookie is dead on the server too.
    const replay = new BrowserSession(host.url);
    replay.cookies.set("brokerage_session", sessionCookie);
    expect(await (await replay.get(`/oauth/authorize?${q}`)).text()).toContain("Sign in");
  });
});

describe("behind https", () => {
  it("cookies are Secure when the host's public URL is https, and iss is that URL", async () => {
    const secure = await startAuthHost({ config: { brokerageAuthUrl: "https://auth.example.com" } });
    try {
      const app = await secure.services.clients.create({ name: "App", redirectUris: [REDIRECT] });
      const owner = await secure.createUser();
      const session = new BrowserSession(secure.url);
      const q = query({ state: "s" }, app);
      const page = await (await session.get(`/oauth/authorize?${q}`)).text();
      expect(session.setCookies.find((c) => c.startsWith("brokerage_login_csrf="))).toMatch(/; Secure$/);
      const response = await session.post("/login", [
        ...formFields(page, "/login"),
        ["email", owner.email],
        ["password", PASSWORD],
      ]);
      expect(response.status).toBe(303);
      expect(session.setCookies.find((c) => c.startsWith("brokerage_session="))).toMatch(
        /; HttpOnly; SameSite=Lax; Secure$/,
      );
      const denied = await session.get(`/oauth/authorize?${query({ scope: "nope" }, app)}`);
      expect(location(denied).searchParams.get("iss")).toBe("https://auth.example.com");
    } finally {
      await secure.close();
    }
  });
});
