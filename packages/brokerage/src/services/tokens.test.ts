/**
 * Codes and tokens services on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): issuing,
 * the exchange's rules (single use, replay revokes, expiry, client, redirect URI, PKCE both ways),
 * verification, revocation by the client and by the user.
 */
import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { OAuthError } from "../domain/oauthErrors.ts";
import type { CreatedClient } from "../services/clients.ts";
import type { UserWithAccounts } from "../store/usersRepository.ts";
import { accountsOf, createOAuthFixture, type OAuthFixture } from "../testing/oauthFixture.ts";
import { CODE_LIFETIME_MS } from "./codes.ts";

const REDIRECT = "http://127.0.0.1:8765/callback";
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");

let f: OAuthFixture;
let user: UserWithAccounts;
let client: CreatedClient;
let otherClient: CreatedClient;

beforeAll(async () => {
  f = await createOAuthFixture();
  user = await f.createUser(2);
  client = await f.createClient([REDIRECT, "https://app.example.com/cb?x=1"]);
  otherClient = await f.createClient();
});
afterAll(() => f.close());
afterEach(() => {
  vi.useRealTimers();
});

const issue = (o: Partial<Parameters<OAuthFixture["codes"]["issue"]>[0]> = {}) =>
  f.codes.issue({
    clientId: client.client_id,
    userId: user.id,
    redirectUri: REDIRECT,
    scopes: ["trading"],
    liveAccountId: accountsOf(user).live.id,
    paperAccountId: accountsOf(user).paper[0].id,
    ...o,
  });

const exchange = (code: string, o: Partial<Parameters<OAuthFixture["tokens"]["exchangeCode"]>[0]> = {}) =>
  f.tokens.exchangeCode({ code, clientId: client.client_id, redirectUri: REDIRECT, ...o });

/** The OAuthError `promise` rejects with, as `{error, description}`. */
async function oauthError(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthError);
  const { error: code, description } = error as OAuthError;
  return { error: code, description };
}

describe("codes.issue", () => {
  it("stores only the code's hash, bound to client, user, redirect URI, scope, accounts, 10 minutes", async () => {
    const before = Date.now();
    const code = await issue({ scopes: ["data", "trading", "trading"], codeChallenge: CHALLENGE });
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await f.database.db.query<Record<string, unknown>>(
      "SELECT * FROM brokerage.authorization_codes WHERE code_hash = $1",
      [createHash("sha256").update(code).digest()],
    );
    expect(rows).toHaveLength(1);
    const row = rows[0] as Record<string, unknown>;
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row).toMatchObject({
      client_id: client.client_id,
      user_id: user.id,
      redirect_uri: REDIRECT,
      scope: "trading data",
      live_account_id: accountsOf(user).live.id,
      paper_account_id: accountsOf(user).paper[0].id,
      code_challenge: CHALLENGE,
      used_at: null,
    });
    const expires = (row.expires_at as Date).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + CODE_LIFETIME_MS - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + CODE_LIFETIME_MS + 1000);
  });

  it("refuses a code without an account, with another user's account, or an account of the wrong env", async () => {
    const other = await f.createUser();
    const { live, paper } = accountsOf(user);
    const cases = [
      { liveAccountId: undefined, paperAccountId: undefined },
      { liveAccountId: accountsOf(other).live.id, paperAccountId: undefined },
      { liveAccountId: undefined, paperAccountId: accountsOf(other).paper[0].id },
      { liveAccountId: paper[0].id, paperAccountId: undefined },
      { liveAccountId: undefined, paperAccountId: live.id },
      { liveAccountId: "not-a-uuid", paperAccountId: undefined },
      { liveAccountId: "00000000-0000-4000-8000-000000000000", paperAccountId: undefined },
    ];
    for (const c of cases) expect((await oauthError(issue(c))).error).toBe("invalid_request");
    expect((await oauthError(issue({ clientId: "0".repeat(32) }))).error).toBe("invalid_request");
    expect((await oauthError(issue({ codeChallenge: "short" }))).error).toBe("invalid_request");
    expect((await oauthError(issue({ scopes: ["admin" as never] }))).error).toBe("invalid_scope");
    const [{ n }] = (await f.database.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM brokerage.authorization_codes WHERE user_id = $1",
      [other.id],
    )) as [{ n: string }];
    expect(n).toBe("0");
  });
});

describe("tokens.exchangeCode", () => {
  it("answers Alpaca's grant and the token reaches exactly the code's accounts and scopes", async () => {
    const code = await issue({ scopes: ["trading", "account:write"], paperAccountId: accountsOf(user).paper[1]!.id });
    const grant = await exchange(code);
    expect(Object.keys(grant).sort()).toEqual(["access_token", "scope", "token_type"]);
    expect(grant).toMatchObject({ token_type: "bearer", scope: "account:write trading" });
    expect(grant.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await f.tokens.verifyAccessToken(grant.access_token)).toEqual({
      tokenId: expect.any(String),
      userId: user.id,
      clientId: client.client_id,
      scopes: ["account:write", "trading"],
      liveAccountId: accountsOf(user).live.id,
      paperAccountId: accountsOf(user).paper[1]!.id,
    });
    const stored = await f.database.db.query<Record<string, unknown>>("SELECT * FROM brokerage.access_tokens");
    expect(JSON.stringify(stored)).not.toContain(grant.access_token);
  });

  it("binds a token to a paper account only, read-only when no scope was granted", async () => {
    const code = await issue({ scopes: [], liveAccountId: undefined });
    const grant = await exchange(code);
    expect(grant.scope).toBe("");
    expect(await f.tokens.verifyAccessToken(grant.access_token)).toMatchObject({
      scopes: [],
      liveAccountId: null,
      paperAccountId: accountsOf(user).paper[0].id,
    });
  });

  it("refuses a replayed code and revokes the token issued from it", async () => {
    const code = await issue();
    const { access_token } = await exchange(code);
    expect(await f.tokens.verifyAccessToken(access_token)).toBeDefined();
    expect(await oauthError(exchange(code))).toEqual({
      error: "invalid_grant",
      description: "authorization code was already used; the tokens issued from it are revoked",
    });
    expect(await f.tokens.verifyAccessToken(access_token)).toBeUndefined();
    // A replay by another client revokes as well: the code leaked.
    const code2 = await issue();
    const second = await exchange(code2);
    expect((await oauthError(exchange(code2, { clientId: otherClient.client_id }))).error).toBe("invalid_grant");
    expect(await f.tokens.verifyAccessToken(second.access_token)).toBeUndefined();
  });

  it("lets one of two simultaneous exchanges of a code succeed, and the other revokes its token", async () => {
    const code = await issue();
    const results = await Promise.allSettled([exchange(code), exchange(code), exchange(code)]);
    const fulfilled = results.filter((r) => r.status === "fulfilled");
    expect(fulfilled).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ error: "invalid_grant" });
    }
    const token = (fulfilled[0] as PromiseFulfilledResult<{ access_token: string }>).value.access_token;
    expect(await f.tokens.verifyAccessToken(token)).toBeUndefined();
    const [{ n }] = (await f.database.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM brokerage.access_tokens WHERE code_hash = $1",
      [createHash("sha256").update(code).digest()],
    )) as [{ n: string }];
    expect(n).toBe("1");
  });

  it("refuses an expired code (10 minutes) and accepts it just before", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const code = await issue();
    const late = await issue();
    vi.setSystemTime(Date.now() + CODE_LIFETIME_MS - 1_000);
    await expect(exchange(code)).resolves.toMatchObject({ token_type: "bearer" });
    vi.setSystemTime(Date.now() + 1_000);
    expect(await oauthError(exchange(late))).toEqual({
      error: "invalid_grant",
      description: "authorization code expired",
    });
  });

  it("refuses a code at another client, an unknown code, and leaves the code usable by its client", async () => {
    const code = await issue();
    expect(await oauthError(exchange(code, { clientId: otherClient.client_id }))).toEqual({
      error: "invalid_grant",
      description: "authorization code was not issued to this client",
    });
    expect((await oauthError(exchange("A".repeat(43)))).error).toBe("invalid_grant");
    expect((await oauthError(exchange(""))).error).toBe("invalid_grant");
    await expect(exchange(code)).resolves.toMatchObject({ token_type: "bearer" });
  });

  it("refuses a redirect URI that differs by a path, a query, a trailing slash, or case", async () => {
    const code = await issue({ redirectUri: "https://app.example.com/cb?x=1" });
    for (const redirectUri of [
      "https://app.example.com/cb?x=1/",
      "https://app.example.com/cb/?x=1",
      "https://app.example.com/cb",
      "https://app.example.com/cb?x=1&y=2",
      "https://app.example.com/cb/other?x=1",
      "https://APP.example.com/cb?x=1",
      "https://app.example.com:443/cb?x=1",
      REDIRECT,
    ]) {
      expect(await oauthError(exchange(code, { redirectUri }))).toEqual({
        error: "invalid_grant",
        description: "redirect_uri differs from the one of the authorization request",
      });
    }
    await expect(exchange(code, { redirectUri: "https://app.example.com/cb?x=1" })).resolves.toBeDefined();
  });

  it("enforces PKCE when the code has a challenge, and refuses a verifier when it has none", async () => {
    const withChallenge = await issue({ codeChallenge: CHALLENGE });
    expect(await oauthError(exchange(withChallenge))).toEqual({
      error: "invalid_grant",
      description: "code_verifier required: the code was issued with a code_challenge",
    });
    expect(await oauthError(exchange(withChallenge, { codeVerifier: `${VERIFIER.slice(0, -1)}A` }))).toEqual({
      error: "invalid_grant",
      description: "code_verifier does not match code_challenge",
    });
    await expect(exchange(withChallenge, { codeVerifier: VERIFIER })).resolves.toBeDefined();

    const without = await issue();
    expect(await oauthError(exchange(without, { codeVerifier: VERIFIER }))).toEqual({
      error: "invalid_grant",
      description: "code_verifier sent for a code issued without code_challenge",
    });
    await expect(exchange(without)).resolves.toBeDefined();
  });
});

describe("tokens: verification and revocation", () => {
  it("does not verify unknown, malformed or revoked tokens, nor tokens of a revoked client", async () => {
    expect(await f.tokens.verifyAccessToken("A".repeat(43))).toBeUndefined();
    expect(await f.tokens.verifyAccessToken("")).toBeUndefined();
    expect(await f.tokens.verifyAccessToken("x".repeat(10_000))).toBeUndefined();
    const doomed = await f.createClient();
    const code = await issue({ clientId: doomed.client_id });
    const { access_token } = await exchange(code, { clientId: doomed.client_id });
    expect(await f.tokens.verifyAccessToken(access_token)).toBeDefined();
    await f.clients.revoke(doomed.client_id);
    expect(await f.tokens.verifyAccessToken(access_token)).toBeUndefined();
  });

  it("revokes a token for its own client only (RFC 7009)", async () => {
    const { access_token } = await exchange(await issue());
    expect(await f.tokens.revoke(access_token, otherClient.client_id)).toBe(false);
    expect(await f.tokens.verifyAccessToken(access_token)).toBeDefined();
    expect(await f.tokens.revoke(access_token, client.client_id)).toBe(true);
    expect(await f.tokens.verifyAccessToken(access_token)).toBeUndefined();
    expect(await f.tokens.revoke(access_token, client.client_id)).toBe(false);
    expect(await f.tokens.revoke("not a token", client.client_id)).toBe(false);
  });

  it("lists the applications a user authorized and revokes one of them, with its unused codes", async () => {
    const me = await f.createUser(2);
    const { live, paper } = accountsOf(me);
    const mine = (o: Parameters<typeof issue>[0] = {}) =>
      issue({ userId: me.id, liveAccountId: live.id, paperAccountId: paper[0].id, ...o });
    await exchange(await mine({ scopes: ["trading"], paperAccountId: paper[0].id }));
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 1_000);
    await exchange(await mine({ scopes: ["data"], liveAccountId: undefined, paperAccountId: paper[1]!.id }));
    vi.setSystemTime(Date.now() + 1_000);
    const other = await exchange(
      await mine({ clientId: otherClient.client_id, scopes: [], paperAccountId: undefined }),
      { clientId: otherClient.client_id },
    );
    vi.useRealTimers();
    const revokedToken = await exchange(await mine({ paperAccountId: paper[0].id }));
    await f.tokens.revoke(revokedToken.access_token, client.client_id);

    const apps = await f.tokens.listAuthorizedApps(me.id);
    expect(apps.map(({ authorizedAt, ...a }) => a)).toEqual([
      {
        clientId: otherClient.client_id,
        name: "Test app",
        scopes: [],
        accounts: [{ env: "live", account_number: live.account_number }],
      },
      {
        clientId: client.client_id,
        name: "Test app",
        scopes: ["trading", "data"],
        accounts: [
          { env: "live", account_number: live.account_number },
          { env: "paper", account_number: paper[1]!.account_number },
          { env: "paper", account_number: paper[0].account_number },
        ],
      },
    ]);
    expect(apps[0]?.authorizedAt).toBeInstanceOf(Date);

    const pending = await mine();
    expect(await f.tokens.revokeForUserAndClient(me.id, client.client_id)).toBe(2);
    expect((await f.tokens.listAuthorizedApps(me.id)).map((a) => a.clientId)).toEqual([otherClient.client_id]);
    expect(await f.tokens.verifyAccessToken(other.access_token)).toBeDefined();
    expect(await oauthError(exchange(pending))).toEqual({
      error: "invalid_grant",
      description: "authorization code expired",
    });
    expect(await f.tokens.revokeForUserAndClient(me.id, client.client_id)).toBe(0);
    // Another user's grants to the same client are untouched.
    expect((await f.tokens.listAuthorizedApps(user.id)).some((a) => a.clientId === client.client_id)).toBe(true);
  });
});
