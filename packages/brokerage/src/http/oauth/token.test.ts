/**
 * The token, revocation and metadata endpoints over HTTP, on a server built as the live host is (kernel's
 * server with the trading hosts' `{code, message}` error format): every answer of the OAuth endpoints is
 * RFC 6749 §5.2 JSON whatever the input, never a 500 and never the trading format.
 */
import { createHash } from "node:crypto";
import { createHttpServer, createLogger, type ErrorFormatter, type HttpServer } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedClient } from "../../services/clients.ts";
import type { UserWithAccounts } from "../../store/usersRepository.ts";
import { accountsOf, createOAuthFixture, type OAuthFixture } from "../../testing/oauthFixture.ts";
import { registerMetadataRoute } from "./metadata.ts";
import { registerRevocationRoute } from "./revoke.ts";
import { registerTokenRoute } from "./token.ts";

const REDIRECT = "http://127.0.0.1:8765/callback";
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");
const FORM = "application/x-www-form-urlencoded";

/** The live host's own error format (Alpaca's), which the OAuth endpoints must not use. */
const formatHostError: ErrorFormatter = (error) => ({
  statusCode: error.statusCode,
  body: { code: error.statusCode * 100_000 + 10_000, message: error.message },
});

let f: OAuthFixture;
let app: HttpServer;
let base: string;
let user: UserWithAccounts;
let client: CreatedClient;
let otherClient: CreatedClient;

beforeAll(async () => {
  f = await createOAuthFixture();
  app = await createHttpServer({
    logger: createLogger({ level: "silent" }),
    bodyLimit: 1_048_576,
    formatError: formatHostError,
    openapi: { title: "live", version: "1", description: "The live host's OAuth endpoints." },
  });
  registerTokenRoute(app, { tokens: f.tokens, clients: f.clients });
  registerRevocationRoute(app, { tokens: f.tokens, clients: f.clients });
  registerMetadataRoute(app, {
    issuer: () => "https://auth.example.com",
    authorizationEndpoint: () => "https://auth.example.com/oauth/authorize",
    tokenEndpoint: () => "https://api.example.com/oauth/token",
    revocationEndpoint: () => "https://api.example.com/oauth/revoke",
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  user = await f.createUser();
  client = await f.createClient();
  otherClient = await f.createClient();
});
afterAll(async () => {
  await app.close();
  await f.close();
});

const issue = (o: { codeChallenge?: string; clientId?: string } = {}) =>
  f.codes.issue({
    clientId: o.clientId ?? client.client_id,
    userId: user.id,
    redirectUri: REDIRECT,
    scopes: ["trading"],
    liveAccountId: accountsOf(user).live.id,
    paperAccountId: accountsOf(user).paper[0].id,
    codeChallenge: o.codeChallenge,
  });

/** RFC 6749 §2.3.1 / oauth4webapi's encoding of Basic credentials. */
const basic = (id: string, secret: string) => {
  const encode = (s: string) =>
    encodeURIComponent(s).replace(/[-_.!~*'()]|%20/g, (c) =>
      c === "%20" ? "+" : `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString("base64")}`;
};

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown> | undefined;
}

async function post(
  path: string,
  body: string | URLSearchParams,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": FORM, ...headers },
    body: typeof body === "string" ? body : body.toString(),
  });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A form of the client_secret_post token request for `code`, with `extra` appended raw. */
const tokenForm = (code: string, o: Record<string, string | undefined> = {}) => {
  const fields: Record<string, string | undefined> = {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    client_secret: client.client_secret,
    ...o,
  };
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.append(k, v);
  return form;
};

/** Every OAuth error answer: the JSON shape, printable description, no-store, never the trading format. */
function expectOAuthError(a: Answer, status: number, error: string) {
  expect({ status: a.status, error: a.json?.error }, a.text).toEqual({ status, error });
  expect(Object.keys(a.json ?? {}).sort()).toEqual(["error", "error_description"]);
  expect(a.json?.error_description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);
  expect(a.headers.get("content-type")).toMatch(/^application\/json/);
  expect(a.headers.get("cache-control")).toBe("no-store");
  expect(a.headers.get("pragma")).toBe("no-cache");
  if (status === 401) expect(a.headers.get("www-authenticate")).toMatch(/^Basic realm="brokerage"/);
}

describe("POST /oauth/token", () => {
  it("exchanges a code with client_secret_post: exactly {access_token, token_type, scope}, no-store", async () => {
    const a = await post("/oauth/token", tokenForm(await issue()));
    expect(a.status, a.text).toBe(200);
    expect(Object.keys(a.json ?? {}).sort()).toEqual(["access_token", "scope", "token_type"]);
    expect(a.json).toMatchObject({ token_type: "bearer", scope: "trading" });
    expect(a.headers.get("cache-control")).toBe("no-store");
    expect(a.headers.get("pragma")).toBe("no-cache");
    expect(a.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await f.tokens.verifyAccessToken(a.json?.access_token as string)).toMatchObject({ userId: user.id });
  });

  it("exchanges a code with client_secret_basic (form-urlencoded credentials), body client_id allowed if equal", async () => {
    const auth = { authorization: basic(client.client_id, client.client_secret) };
    const noCredentials = { client_id: undefined, client_secret: undefined };
    expect((await post("/oauth/token", tokenForm(await issue(), noCredentials), auth)).status).toBe(200);
    const plain = {
      authorization: `basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}`,
    };
    expect((await post("/oauth/token", tokenForm(await issue(), noCredentials), plain)).status).toBe(200);
    const sameId = tokenForm(await issue(), { client_secret: undefined });
    expect((await post("/oauth/token", sameId, auth)).status).toBe(200);
    // The charset parameter of the media type is fine.
    const charset = await post("/oauth/token", tokenForm(await issue()), { "content-type": `${FORM}; charset=UTF-8` });
    expect(charset.status).toBe(200);
  });

  it("refuses two authentication methods at once, or a body client_id that is not the Basic one", async () => {
    const auth = { authorization: basic(client.client_id, client.client_secret) };
    const code = await issue();
    expectOAuthError(await post("/oauth/token", tokenForm(code), auth), 400, "invalid_request");
    const otherId = tokenForm(code, { client_id: otherClient.client_id, client_secret: undefined });
    expectOAuthError(await post("/oauth/token", otherId, auth), 400, "invalid_request");
    expect((await post("/oauth/token", tokenForm(code))).status).toBe(200);
  });

  it("answers invalid_client (401, WWW-Authenticate) for missing, wrong, malformed or revoked credentials", async () => {
    const code = await issue();
    const cases: [Record<string, string | undefined>, Record<string, string>][] = [
      [{ client_id: undefined, client_secret: undefined }, {}],
      [{ client_id: undefined }, {}],
      [{ client_secret: undefined }, {}],
      [{ client_secret: "wrong" }, {}],
      [{ client_secret: otherClient.client_secret }, {}],
      [{ client_id: "0".repeat(32) }, {}],
      [{ client_id: "x".repeat(2048) }, {}],
      [{ client_id: undefined, client_secret: undefined }, { authorization: basic(client.client_id, "wrong") }],
      [{ client_id: undefined, client_secret: undefined }, { authorization: `Basic ${"%%%"}` }],
      [{ client_id: undefined, client_secret: undefined }, { authorization: "Basic " }],
      [
        { client_id: undefined, client_secret: undefined },
        { authorization: `Basic ${Buffer.from("no-colon").toString("base64")}` },
      ],
      [
        { client_id: undefined, client_secret: undefined },
        { authorization: `Basic ${Buffer.from(":secret").toString("base64")}` },
      ],
      [
        { client_id: undefined, client_secret: undefined },
        { authorization: `Basic ${Buffer.from("a%ZZ:b").toString("base64")}` },
      ],
      [{ client_id: undefined, client_secret: undefined }, { authorization: "Bearer abc" }],
      [{}, { authorization: "Digest username=x" }],
    ];
    for (const [fields, headers] of cases) {
      expectOAuthError(await post("/oauth/token", tokenForm(code, fields), headers), 401, "invalid_client");
    }
    const revoked = await f.createClient();
    const revokedCode = await issue({ clientId: revoked.client_id });
    await f.clients.revoke(revoked.client_id);
    const form = tokenForm(revokedCode, { client_id: revoked.client_id, client_secret: revoked.client_secret });
    expectOAuthError(await post("/oauth/token", form), 401, "invalid_client");
    expect((await post("/oauth/token", tokenForm(code))).status).toBe(200);
  });

  it("takes form bodies only: any other content type, or no body, is invalid_request in the OAuth shape", async () => {
    const code = await issue();
    const form = tokenForm(code).toString();
    for (const type of [
      "application/json",
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/xml",
      "x/y",
    ]) {
      expectOAuthError(await post("/oauth/token", form, { "content-type": type }), 400, "invalid_request");
    }
    const json = JSON.stringify(Object.fromEntries(tokenForm(code)));
    expectOAuthError(await post("/oauth/token", json, { "content-type": "application/json" }), 400, "invalid_request");
    const noBody = await fetch(`${base}/oauth/token`, { method: "POST" });
    const noBodyJson = await noBody.json();
    expectOAuthError(
      { status: noBody.status, headers: noBody.headers, text: "", json: noBodyJson },
      400,
      "invalid_request",
    );
    expect(noBodyJson.error_description).toBe("the request body must be application/x-www-form-urlencoded");
    const noType = await fetch(`${base}/oauth/token`, { method: "POST", body: new Uint8Array(Buffer.from(form)) });
    expectOAuthError(
      { status: noType.status, headers: noType.headers, text: "", json: await noType.json() },
      400,
      "invalid_request",
    );
    expect((await post("/oauth/token", tokenForm(code))).status).toBe(200);
  });

  it("refuses every repeated parameter, every parameter over 2,048 characters, and an oversized body", async () => {
    const code = await issue();
    for (const name of ["grant_type", "code", "redirect_uri", "client_id", "client_secret", "code_verifier"]) {
      const form = tokenForm(code);
      if (!form.has(name)) form.append(name, VERIFIER);
      form.append(name, form.get(name) as string);
      const a = await post("/oauth/token", form);
      expectOAuthError(a, 400, "invalid_request");
      expect(a.json?.error_description).toBe(`parameter ${name} is repeated`);
      // A repeated parameter with an empty value is repeated as well.
      expectOAuthError(await post("/oauth/token", `${form.toString()}&${name}=`), 400, "invalid_request");
      const long = tokenForm(code, { [name]: "a".repeat(2049) });
      expectOAuthError(await post("/oauth/token", long), 400, "invalid_request");
    }
    expectOAuthError(await post("/oauth/token", `${tokenForm(code)}&${"x".repeat(3000)}=1`), 400, "invalid_request");
    const huge = await post("/oauth/token", `${tokenForm(code)}&pad=${"a".repeat(20_000)}`);
    expectOAuthError(huge, 400, "invalid_request");
    // None of this consumed the code.
    expect((await post("/oauth/token", tokenForm(code))).status).toBe(200);
  });

  it("answers the documented error for each missing parameter or wrong value", async () => {
    const code = await issue();
    const cases: [Record<string, string | undefined>, number, string][] = [
      [{ grant_type: undefined }, 400, "invalid_request"],
      [{ grant_type: "" }, 400, "invalid_request"],
      [{ code: undefined }, 400, "invalid_request"],
      [{ code: "" }, 400, "invalid_request"],
      [{ redirect_uri: undefined }, 400, "invalid_request"],
      [{ grant_type: "password" }, 400, "unsupported_grant_type"],
      [{ grant_type: "client_credentials" }, 400, "unsupported_grant_type"],
      [{ grant_type: "refresh_token" }, 400, "unsupported_grant_type"],
      [{ grant_type: "AUTHORIZATION_CODE" }, 400, "unsupported_grant_type"],
      [{ code_verifier: "too-short" }, 400, "invalid_request"],
      [{ code_verifier: `${"a".repeat(42)} ` }, 400, "invalid_request"],
      [{ code_verifier: "a".repeat(129) }, 400, "invalid_request"],
      [{ code: "A".repeat(43) }, 400, "invalid_grant"],
      // A NUL is refused as a malformed parameter (kernel validation: no text may hold one), before the code.
      [{ code: "%FF\u0000\u{1F600}" }, 400, "invalid_request"],
      [{ code: "%FF\u{1F600}" }, 400, "invalid_grant"],
      [{ redirect_uri: `${REDIRECT}/` }, 400, "invalid_grant"],
      [{ redirect_uri: "http://127.0.0.1:8765/callback?x=1" }, 400, "invalid_grant"],
      [{ redirect_uri: "http://127.0.0.1:8765/other" }, 400, "invalid_grant"],
      [{ code_verifier: VERIFIER }, 400, "invalid_grant"],
    ];
    for (const [fields, status, error] of cases) {
      expectOAuthError(await post("/oauth/token", tokenForm(code, fields)), status, error);
    }
    // Malformed percent-encoding is decoded leniently (U+FFFD): an unknown code, not a crash.
    expectOAuthError(
      await post("/oauth/token", `${tokenForm(code, { code: undefined })}&code=%E0%A4%A`),
      400,
      "invalid_grant",
    );
    // Unknown parameters are ignored (RFC 6749 §3.1).
    expect((await post("/oauth/token", tokenForm(code, { scope: "anything", foo: "bar" }))).status).toBe(200);
  });

  it("checks PKCE over HTTP: verifier required with a challenge, refused without one", async () => {
    const withChallenge = await issue({ codeChallenge: CHALLENGE });
    expectOAuthError(await post("/oauth/token", tokenForm(withChallenge)), 400, "invalid_grant");
    const wrong = tokenForm(withChallenge, { code_verifier: "B".repeat(43) });
    expectOAuthError(await post("/oauth/token", wrong), 400, "invalid_grant");
    expect((await post("/oauth/token", tokenForm(withChallenge, { code_verifier: VERIFIER }))).status).toBe(200);
  });

  it("refuses a replayed code and the replay revokes the first token", async () => {
    const code = await issue();
    const first = await post("/oauth/token", tokenForm(code));
    expect(first.status).toBe(200);
    expectOAuthError(await post("/oauth/token", tokenForm(code)), 400, "invalid_grant");
    expect(await f.tokens.verifyAccessToken(first.json?.access_token as string)).toBeUndefined();
  });

  it("refuses a code used by another client", async () => {
    const code = await issue();
    const form = tokenForm(code, { client_id: otherClient.client_id, client_secret: otherClient.client_secret });
    expectOAuthError(await post("/oauth/token", form), 400, "invalid_grant");
    expect((await post("/oauth/token", tokenForm(code))).status).toBe(200);
  });

  it("has no other method: GET is the host's 404, not a 500", async () => {
    const res = await fetch(`${base}/oauth/token`);
    expect({ status: res.status, body: await res.json() }).toMatchObject({ status: 404, body: { code: 40410000 } });
  });
});

describe("POST /oauth/revoke", () => {
  const revokeForm = (token: string | undefined, c: CreatedClient = client, extra: Record<string, string> = {}) => {
    const form = new URLSearchParams({ client_id: c.client_id, client_secret: c.client_secret, ...extra });
    if (token !== undefined) form.set("token", token);
    return form;
  };
  const newToken = async () =>
    (await f.tokens.exchangeCode({ code: await issue(), clientId: client.client_id, redirectUri: REDIRECT }))
      .access_token;

  it("revokes the client's own token: 200, empty body, no-store", async () => {
    const token = await newToken();
    const a = await post("/oauth/revoke", revokeForm(token, client, { token_type_hint: "access_token" }));
    expect({ status: a.status, text: a.text }).toEqual({ status: 200, text: "" });
    expect(a.headers.get("cache-control")).toBe("no-store");
    expect(await f.tokens.verifyAccessToken(token)).toBeUndefined();
    expect((await post("/oauth/revoke", revokeForm(token))).status).toBe(200);
  });

  it("answers 200 for another client's token and leaves it alone; 200 for unknown tokens and any hint", async () => {
    const token = await newToken();
    expect((await post("/oauth/revoke", revokeForm(token, otherClient))).status).toBe(200);
    expect(await f.tokens.verifyAccessToken(token)).toBeDefined();
    expect((await post("/oauth/revoke", revokeForm("A".repeat(43)))).status).toBe(200);
    expect(await post("/oauth/revoke", revokeForm("not a token at all"))).toMatchObject({ status: 200 });
    const hinted = await post("/oauth/revoke", revokeForm(token, client, { token_type_hint: "refresh_token" }));
    expect(hinted.status).toBe(200);
    expect(await f.tokens.verifyAccessToken(token)).toBeUndefined();
    const basicAuth = await post("/oauth/revoke", new URLSearchParams({ token: await newToken() }), {
      authorization: basic(client.client_id, client.client_secret),
    });
    expect(basicAuth.status).toBe(200);
  });

  it("refuses a missing or repeated token, and unauthenticated clients", async () => {
    const token = await newToken();
    expectOAuthError(await post("/oauth/revoke", revokeForm(undefined)), 400, "invalid_request");
    expectOAuthError(await post("/oauth/revoke", `${revokeForm(token)}&token=${token}`), 400, "invalid_request");
    expectOAuthError(await post("/oauth/revoke", new URLSearchParams({ token })), 401, "invalid_client");
    const wrong = new URLSearchParams({ token, client_id: client.client_id, client_secret: "nope" });
    expectOAuthError(await post("/oauth/revoke", wrong), 401, "invalid_client");
    expectOAuthError(
      await post("/oauth/revoke", JSON.stringify({ token }), { "content-type": "application/json" }),
      400,
      "invalid_request",
    );
    expect(await f.tokens.verifyAccessToken(token)).toBeDefined();
  });
});

describe("GET /.well-known/oauth-authorization-server", () => {
  it("describes the endpoints and what they support (RFC 8414)", async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      issuer: "https://auth.example.com",
      authorization_endpoint: "https://auth.example.com/oauth/authorize",
      token_endpoint: "https://api.example.com/oauth/token",
      revocation_endpoint: "https://api.example.com/oauth/revoke",
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      scopes_supported: ["account:write", "trading", "data"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
  });
});

describe("OpenAPI", () => {
  it("documents the OAuth endpoints with form bodies and OAuth error bodies", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { operationId: string; requestBody?: { content: Record<string, unknown> } }>
      >;
    };
    expect(doc.paths["/oauth/token"]?.post?.operationId).toBe("createAccessToken");
    expect(Object.keys(doc.paths["/oauth/token"]?.post?.requestBody?.content ?? {})).toEqual([FORM]);
    expect(doc.paths["/oauth/revoke"]?.post?.operationId).toBe("revokeAccessToken");
    expect(doc.paths["/.well-known/oauth-authorization-server"]?.get?.operationId).toBe(
      "getAuthorizationServerMetadata",
    );
  });
});
