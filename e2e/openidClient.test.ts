/**
 * End to end with panva's `openid-client` 6, unmodified, against the brokerage as `platform start` runs it
 * (ephemeral ports), with a user and an OAuth client made by the operator commands (`platform brokerage
 * users|clients create`): discovery of the authorization server from its RFC 8414 metadata, the
 * authorization code flow with PKCE (S256) and `state` through our real login and consent pages (submitted
 * as a browser submits them: cookies and CSRF tokens kept by a form agent), the callback's `iss` checked
 * (RFC 9207), the code exchanged with `client_secret_post` and with `client_secret_basic`, the token used on
 * the live and the paper trading hosts through the library's `fetchProtectedResource`, revoked through its
 * `tokenRevocation` (RFC 7009), and refused afterwards.
 *
 * The library's one concession to a development setup: our hosts speak plain HTTP on 127.0.0.1, so every
 * configuration carries its documented `allowInsecureRequests` (RFC 8414 §2 wants an https issuer in
 * production, which `BROKERAGE_AUTH_URL` provides).
 */
import { FormAgent, throughAuthorizationPages } from "@platform/brokerage/testing";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CommandResult,
  createPlatformEnv,
  EPHEMERAL_PORTS,
  hostOrigin,
  type PlatformProcess,
  runPlatform,
  startPlatformProcess,
} from "./support/platformProcess.ts";

const REDIRECT_URI = "http://127.0.0.1:8765/callback";
const PASSWORD = "openid client e2e password";
const EMAIL = "openid-client@example.com";
const METADATA_PATH = "/.well-known/oauth-authorization-server";

let env: Record<string, string>;
let removeEnv: () => Promise<void>;
let platform: PlatformProcess;
/** Origins of the brokerage's hosts, as the banner printed them. */
let auth: string;
let live: string;
let paper: string;
let user: { accounts: { id: string; env: string }[] };
let app: { client_id: string; client_secret: string };

/** Parses a command's `--json` output, failing with its stderr when it did not succeed. */
function json<T>(result: CommandResult): T {
  if (result.code !== 0) throw new Error(`platform exited with ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  ({ env, remove: removeEnv } = await createPlatformEnv("openid-client", {
    SERVICES: "brokerage",
    ...EPHEMERAL_PORTS,
    BROKERAGE_DATA_BACKFILL_DAYS: "0",
    DEVNET: "false",
    LOG_LEVEL: "warn",
  }));
  platform = await startPlatformProcess(env);
  [auth, live, paper] = [
    hostOrigin(platform, "brokerage", "auth"),
    hostOrigin(platform, "brokerage"),
    hostOrigin(platform, "brokerage", "paper"),
  ];
  const brokerage = (args: string[]) => runPlatform(["brokerage", ...args], env);
  const [createdUser, createdClient] = await Promise.all([
    brokerage(["users", "create", "--email", EMAIL, "--password", PASSWORD, "--json"]),
    brokerage(["clients", "create", "--name", "openid-client", "--redirect-uri", REDIRECT_URI, "--json"]),
  ]);
  user = json(createdUser);
  app = json(createdClient);
}, 180_000); // a platform start and two `platform` commands (each loads every service): slow on a busy machine
afterAll(async () => {
  if (platform) expect(await platform.stop("SIGTERM")).toBe(0);
  await removeEnv?.();
});

const accountOf = (accountEnv: "live" | "paper") => user.accounts.find((a) => a.env === accountEnv)?.id;

const METHODS = {
  client_secret_post: client.ClientSecretPost,
  client_secret_basic: client.ClientSecretBasic,
} as const;
type Method = keyof typeof METHODS;

/** What the library sent to the token endpoint, seen through its documented `customFetch` hook. */
interface SentTokenRequest {
  authorization: string | undefined;
  form: URLSearchParams;
}
const tokenRequests: SentTokenRequest[] = [];

const recordingFetch: client.CustomFetch = (url, options) => {
  if (new URL(url).pathname === "/oauth/token") {
    const headers = new Headers(options.headers);
    tokenRequests.push({
      authorization: headers.get("authorization") ?? undefined,
      form: new URLSearchParams(String(options.body)),
    });
  }
  // The library's `FetchBody` includes `Uint8Array<ArrayBufferLike>`, which TypeScript's DOM `BodyInit` types refuse.
  return fetch(url, options as RequestInit);
};

/** openid-client's configuration of our client, discovered from `server` (the issuer, or a metadata URL). */
function discover(server: string, method: Method = "client_secret_post", secret = app.client_secret) {
  return client.discovery(new URL(server), app.client_id, secret, METHODS[method](secret), {
    algorithm: "oauth2",
    execute: [client.allowInsecureRequests],
    [client.customFetch]: recordingFetch,
  });
}

/**
 * A callback of the real pages for an authorization URL built by openid-client with PKCE (S256) and `state`:
 * the URL the user agent is sent to, the verifier and the state to check it with.
 */
async function authorize(config: client.Configuration, parameters: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: "trading data",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    ...parameters,
  });
  const { callback, last } = await throughAuthorizationPages(new FormAgent(), url, {
    credentials: { email: EMAIL, password: PASSWORD },
  });
  if (!callback) throw new Error(`the pages did not redirect: ${last.status} ${last.body}`);
  return { callback, checks: { pkceCodeVerifier: verifier, expectedState: state } };
}

/** `GET /v2/account` on a trading host through openid-client: the status and the body. */
async function readAccount(config: client.Configuration, origin: string, token: string) {
  const response = await client.fetchProtectedResource(config, token, new URL("/v2/account", origin), "GET");
  return { status: response.status, body: (await response.json()) as { id?: string } };
}

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("it did not fail");
}

/** The Bearer challenge a trading host answers an unusable token with (RFC 6750 §3). */
async function refusal(config: client.Configuration, origin: string, token: string) {
  const error = await rejection(readAccount(config, origin, token));
  expect(error).toBeInstanceOf(client.WWWAuthenticateChallengeError);
  const challenge = error as client.WWWAuthenticateChallengeError;
  return { status: challenge.response.status, challenges: challenge.cause };
}

describe("discovery (RFC 8414)", () => {
  it("finds the authorization server from its issuer, the authorization host", async () => {
    const config = await discover(auth);
    expect(config.serverMetadata()).toMatchObject({
      issuer: auth,
      authorization_endpoint: `${auth}/oauth/authorize`,
      token_endpoint: `${live}/oauth/token`,
      revocation_endpoint: `${live}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      authorization_response_iss_parameter_supported: true,
    });
    expect(config.serverMetadata().supportsPKCE()).toBe(true);
  });

  it("reads the same metadata at either trading host's metadata URL, naming the authorization host", async () => {
    const canonical = (await discover(auth)).serverMetadata();
    for (const origin of [live, paper]) {
      expect((await discover(`${origin}${METADATA_PATH}`)).serverMetadata()).toEqual(canonical);
    }
  });

  it("refuses a trading host taken for the issuer (RFC 8414 §3.3): the issuer is the authorization host", async () => {
    for (const origin of [live, paper]) {
      const error = await rejection(discover(origin));
      expect(error).toBeInstanceOf(client.ClientError);
      expect(error).toMatchObject({
        code: "OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED",
        cause: { expected: `${origin}/`, attribute: "issuer" },
      });
    }
  });

  it("finds no OpenID Connect discovery document: the server is OAuth 2.0 only", async () => {
    const error = await rejection(
      client.discovery(new URL(auth), app.client_id, app.client_secret, undefined, {
        execute: [client.allowInsecureRequests],
      }),
    );
    expect(error).toMatchObject({ code: "OAUTH_RESPONSE_IS_NOT_CONFORM", cause: { status: 404 } });
  });
});

describe.each(Object.keys(METHODS) as Method[])("the code flow with %s", (method) => {
  let config: client.Configuration;
  beforeAll(async () => {
    config = await discover(auth, method);
  });

  it("logs in, consents, exchanges the code with PKCE, reads both accounts, revokes the token", async () => {
    const { callback, checks } = await authorize(config);
    expect(callback.searchParams.get("iss")).toBe(auth);
    tokenRequests.length = 0;
    const grant = await client.authorizationCodeGrant(config, callback, checks);
    expect(grant).toMatchObject({ token_type: "bearer", scope: "trading data" });
    // The method under test is the one on the wire (RFC 6749 §2.3.1), with PKCE's verifier.
    const [sent] = tokenRequests as [SentTokenRequest];
    expect(tokenRequests).toHaveLength(1);
    expect(sent.form.get("code_verifier")).toBe(checks.pkceCodeVerifier);
    expect(sent.form.get("redirect_uri")).toBe(REDIRECT_URI);
    if (method === "client_secret_basic") {
      expect(sent.authorization).toMatch(/^Basic /);
      expect(sent.form.has("client_secret")).toBe(false);
    } else {
      expect(sent.authorization).toBeUndefined();
      expect(Object.fromEntries(sent.form)).toMatchObject({
        client_id: app.client_id,
        client_secret: app.client_secret,
      });
    }
    expect(grant.expiresIn()).toBeUndefined(); // tokens last until revoked
    const token = grant.access_token;

    const onLive = await readAccount(config, live, token);
    expect(onLive).toMatchObject({ status: 200, body: { id: accountOf("live") } });
    const onPaper = await readAccount(config, paper, token);
    expect(onPaper).toMatchObject({ status: 200, body: { id: accountOf("paper") } });

    await client.tokenRevocation(config, token, { token_type_hint: "access_token" });
    for (const origin of [live, paper]) {
      expect(await refusal(config, origin, token)).toEqual({
        status: 401,
        challenges: [{ scheme: "bearer", parameters: { realm: "brokerage", error: "invalid_token" } }],
      });
    }
  });

  it.each(["live", "paper"] as const)("with env=%s the token opens that account only", async (accountEnv) => {
    const { callback, checks } = await authorize(config, { env: accountEnv });
    const { access_token: token } = await client.authorizationCodeGrant(config, callback, checks);
    const [allowed, refused] = accountEnv === "live" ? [live, paper] : [paper, live];
    expect(await readAccount(config, allowed, token)).toMatchObject({
      status: 200,
      body: { id: accountOf(accountEnv) },
    });
    expect((await refusal(config, refused, token)).status).toBe(401);
  });

  it("a wrong client secret is invalid_client, 401 with a Basic challenge and the RFC 6749 §5.2 body", async () => {
    const wrong = await discover(
      auth,
      method,
      `${app.client_secret.slice(0, -1)}${app.client_secret.endsWith("A") ? "B" : "A"}`,
    );
    const { callback, checks } = await authorize(wrong);
    const error = await rejection(client.authorizationCodeGrant(wrong, callback, checks));
    // oauth4webapi (under openid-client) reports a 401 carrying WWW-Authenticate as the challenge, body unread.
    expect(error).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    const { response, cause } = error as client.WWWAuthenticateChallengeError;
    expect(cause).toEqual([{ scheme: "basic", parameters: { realm: "brokerage", charset: "UTF-8" } }]);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "invalid_client", error_description: expect.any(String) });
    // The code was not spent: the right client still exchanges it.
    expect(await client.authorizationCodeGrant(config, callback, checks)).toMatchObject({ token_type: "bearer" });
  });
});

describe("what openid-client refuses", () => {
  let config: client.Configuration;
  beforeAll(async () => {
    config = await discover(auth);
  });

  it("a callback whose iss is not the issuer, or that has none (RFC 9207), before using the code", async () => {
    const { callback, checks } = await authorize(config);
    for (const iss of [live, `${auth}/`, "https://evil.example", undefined]) {
      const forged = new URL(callback);
      if (iss === undefined) forged.searchParams.delete("iss");
      else forged.searchParams.set("iss", iss);
      const error = await rejection(client.authorizationCodeGrant(config, forged, checks));
      expect(error).toBeInstanceOf(client.ClientError);
      expect({ iss, error }).toMatchObject({
        iss,
        error: {
          code: "OAUTH_INVALID_RESPONSE",
          cause: { message: iss === undefined ? /"iss" \(issuer\) missing/ : /unexpected "iss"/ },
        },
      });
    }
    // The library refused before sending the code: the genuine callback still works.
    expect(await client.authorizationCodeGrant(config, callback, checks)).toMatchObject({ token_type: "bearer" });
  });

  it("a callback with another state", async () => {
    const { callback, checks } = await authorize(config);
    const error = await rejection(
      client.authorizationCodeGrant(config, callback, { ...checks, expectedState: client.randomState() }),
    );
    expect(error).toMatchObject({ code: "OAUTH_INVALID_RESPONSE", cause: { message: /unexpected "state"/ } });
  });

  it("the server's invalid_grant for a wrong PKCE verifier and for a replayed code, as ResponseBodyError", async () => {
    const { callback, checks } = await authorize(config);
    const wrongVerifier = await rejection(
      client.authorizationCodeGrant(config, callback, { ...checks, pkceCodeVerifier: client.randomPKCECodeVerifier() }),
    );
    expect(wrongVerifier).toBeInstanceOf(client.ResponseBodyError);
    expect(wrongVerifier).toMatchObject({ error: "invalid_grant", status: 400 });
    expect((wrongVerifier as client.ResponseBodyError).error_description).toEqual(expect.any(String));

    const { access_token: token } = await client.authorizationCodeGrant(config, callback, checks);
    const replayed = await rejection(client.authorizationCodeGrant(config, callback, checks));
    expect(replayed).toMatchObject({ error: "invalid_grant", status: 400 });
    // RFC 9700 §4.2.1: the replay revoked the token of the first exchange.
    expect((await refusal(config, live, token)).status).toBe(401);
  });

  it.each([
    ["the user's denial", { decision: "deny" as const }, {}, "access_denied"],
    ["an unknown scope", {}, { scope: "admin" }, "invalid_scope"],
  ])("%s as an AuthorizationResponseError, its iss and state checked first", async (_, pages, parameters, code) => {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      ...parameters,
    });
    const { callback, last } = await throughAuthorizationPages(new FormAgent(), url, {
      credentials: { email: EMAIL, password: PASSWORD },
      ...pages,
    });
    if (!callback) throw new Error(`the pages did not redirect: ${last.status} ${last.body}`);
    const checks = { pkceCodeVerifier: verifier, expectedState: state };
    const error = await rejection(client.authorizationCodeGrant(config, callback, checks));
    expect(error).toBeInstanceOf(client.AuthorizationResponseError);
    expect(error).toMatchObject({ error: code, error_description: expect.any(String) });
    // The error redirect carries iss as well (RFC 9207 §2): without it the library says so, not the error.
    callback.searchParams.delete("iss");
    expect(await rejection(client.authorizationCodeGrant(config, callback, checks))).toMatchObject({
      code: "OAUTH_INVALID_RESPONSE",
      cause: { message: /"iss" \(issuer\) missing/ },
    });
  });
});
