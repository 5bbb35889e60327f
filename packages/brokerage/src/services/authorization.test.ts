/**
 * The authorization endpoint's rules on a real database: which requests are answered with a page or a
 * redirect, what the consent offers per env, and what a consent may choose (the code it issues is bound to
 * the chosen accounts, checked in the stored row).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthorizationRedirectError,
  type AuthorizationRequest,
  AuthorizationTargetError,
} from "../domain/authorizationRequest.ts";
import { hashSecret } from "../domain/secrets.ts";
import { createAccountsRepository } from "../store/accountsRepository.ts";
import type { UserWithAccounts } from "../store/usersRepository.ts";
import { accountsOf, createOAuthFixture, type OAuthFixture } from "../testing/oauthFixture.ts";
import { type AuthorizationService, ConsentChoiceError, createAuthorizationService } from "./authorization.ts";
import type { CreatedClient } from "./clients.ts";

const REDIRECT = "http://127.0.0.1:8765/callback";
let f: OAuthFixture;
let authorization: AuthorizationService;
let client: CreatedClient;
let revoked: CreatedClient;
let user: UserWithAccounts;
let other: UserWithAccounts;

beforeAll(async () => {
  f = await createOAuthFixture();
  authorization = createAuthorizationService({
    clients: f.clients,
    accounts: createAccountsRepository(f.database.db),
    codes: f.codes,
  });
  client = await f.createClient([REDIRECT, "https://app.example.com/cb?x=1"]);
  revoked = await f.createClient();
  await f.clients.revoke(revoked.client_id);
  user = await f.createUser(2);
  other = await f.createUser(1);
});
afterAll(() => f.close());

const params = (o: Record<string, string> = {}) =>
  new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: REDIRECT, ...o });

async function rejection(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

describe("authorization.check", () => {
  it("accepts a request of an active client with a registered redirect URI", async () => {
    const checked = await authorization.check(params({ scope: "trading", state: "xyz", env: "paper" }));
    expect(checked.client).toEqual({ client_id: client.client_id, name: "Test app" });
    expect(checked.request).toMatchObject({ redirectUri: REDIRECT, state: "xyz", scopes: ["trading"], env: "paper" });
  });

  it.each([
    ["an unknown client", { client_id: "0".repeat(32) }, "client_id"],
    ["a malformed client_id", { client_id: "nope" }, "client_id"],
    ["a redirect URI differing by a trailing slash", { redirect_uri: `${REDIRECT}/` }, "redirect_uri"],
    ["a redirect URI differing by its path", { redirect_uri: "http://127.0.0.1:8765/callback2" }, "redirect_uri"],
    ["a redirect URI differing by its query", { redirect_uri: "https://app.example.com/cb?x=2" }, "redirect_uri"],
    ["a redirect URI with an added query", { redirect_uri: `${REDIRECT}?next=https://evil.example` }, "redirect_uri"],
    ["a redirect URI of another case", { redirect_uri: "HTTP://127.0.0.1:8765/callback" }, "redirect_uri"],
  ])("refuses %s with a page (never a redirect)", async (_name, o, parameter) => {
    const error = await rejection(authorization.check(params(o)));
    expect(error).toBeInstanceOf(AuthorizationTargetError);
    expect((error as AuthorizationTargetError).parameter).toBe(parameter);
  });

  it("refuses a revoked client with a page, even with its registered URI", async () => {
    const error = await rejection(authorization.check(params({ client_id: revoked.client_id })));
    expect(error).toBeInstanceOf(AuthorizationTargetError);
  });

  it("sends other errors to the registered URI, with the state as sent", async () => {
    const error = await rejection(authorization.check(params({ scope: "admin", state: "a b&c" })));
    expect(error).toBeInstanceOf(AuthorizationRedirectError);
    const { redirectUri, state, oauthError } = error as AuthorizationRedirectError;
    expect({ redirectUri, state, error: oauthError.error }).toEqual({
      redirectUri: REDIRECT,
      state: "a b&c",
      error: "invalid_scope",
    });
  });
});

describe("authorization.offer and approve", () => {
  const request = (
    env: AuthorizationRequest["env"],
    extra: Partial<AuthorizationRequest> = {},
  ): AuthorizationRequest => ({
    clientId: client.client_id,
    redirectUri: REDIRECT,
    state: undefined,
    scopes: ["trading"],
    env,
    codeChallenge: undefined,
    ...extra,
  });
  const codeRow = async (code: string) => {
    const [row] = await f.database.db.query<{
      live_account_id: string | null;
      paper_account_id: string | null;
      scope: string;
      user_id: string;
    }>(
      "SELECT live_account_id, paper_account_id, scope, user_id FROM brokerage.authorization_codes WHERE code_hash = $1",
      [hashSecret(code)],
    );
    return row;
  };

  it("offers only the live account for env=live, only paper accounts for env=paper, both otherwise", async () => {
    const { live, paper } = accountsOf(user);
    expect(await authorization.offer(user.id, request("live"))).toEqual({
      live,
      paper: [],
      wantsLive: true,
      wantsPaper: false,
    });
    expect(await authorization.offer(user.id, request("paper"))).toEqual({
      live: undefined,
      paper,
      wantsLive: false,
      wantsPaper: true,
    });
    expect(await authorization.offer(user.id, request(undefined))).toEqual({
      live,
      paper,
      wantsLive: true,
      wantsPaper: true,
    });
  });

  it("issues a code bound to the chosen accounts: the second paper account when chosen", async () => {
    const { live, paper } = accountsOf(user);
    const code = await authorization.approve(user.id, request(undefined), {
      liveAccountId: live.id,
      paperAccountId: paper[1]?.id,
    });
    expect(await codeRow(code)).toEqual({
      live_account_id: live.id,
      paper_account_id: paper[1]?.id,
      scope: "trading",
      user_id: user.id,
    });
    const paperOnly = await authorization.approve(user.id, request("paper"), { paperAccountId: paper[0].id });
    expect(await codeRow(paperOnly)).toMatchObject({ live_account_id: null, paper_account_id: paper[0].id });
    const liveOnly = await authorization.approve(user.id, request("live"), { liveAccountId: live.id });
    expect(await codeRow(liveOnly)).toMatchObject({ live_account_id: live.id, paper_account_id: null });
  });

  it("refuses choices the request or the user does not allow", async () => {
    const mine = accountsOf(user);
    const theirs = accountsOf(other);
    const refused = [
      [request("live"), { liveAccountId: mine.live.id, paperAccountId: mine.paper[0].id }],
      [request("live"), { liveAccountId: theirs.live.id }],
      [request("live"), {}],
      [request("paper"), { paperAccountId: theirs.paper[0].id }],
      [request("paper"), { paperAccountId: mine.live.id }],
      [request("paper"), { liveAccountId: mine.live.id, paperAccountId: mine.paper[0].id }],
      [request(undefined), { liveAccountId: mine.live.id }],
      [request(undefined), { paperAccountId: mine.paper[0].id }],
      [request(undefined), { liveAccountId: mine.live.id, paperAccountId: "not-a-uuid" }],
    ] as const;
    for (const [r, choice] of refused) {
      expect(await rejection(authorization.approve(user.id, r, choice))).toBeInstanceOf(ConsentChoiceError);
    }
  });
});
