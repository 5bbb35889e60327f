import { describe, expect, it } from "vitest";
import {
  AuthorizationTargetError,
  authorizationResponseUri,
  carriedParameters,
  readAuthorizationParameters,
  readTarget,
  stateToEcho,
} from "./authorizationRequest.ts";
import { OAuthError } from "./oauthErrors.ts";

const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const target = { clientId: "0123456789abcdef0123456789abcdef", redirectUri: "https://app.example/cb" };
const base = { response_type: "code", client_id: target.clientId, redirect_uri: target.redirectUri };
const q = (extra: Record<string, string> | string[][] = {}) =>
  Array.isArray(extra)
    ? new URLSearchParams([...Object.entries(base), ...extra] as [string, string][])
    : new URLSearchParams({ ...base, ...extra });

function oauthError(parameters: URLSearchParams): OAuthError {
  try {
    readAuthorizationParameters(parameters, target);
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error("expected an OAuthError");
}

describe("readTarget (errors shown as a page, never redirected)", () => {
  it.each([
    ["missing client_id", "redirect_uri=https%3A%2F%2Fapp.example%2Fcb", "client_id"],
    ["empty client_id (counts as omitted)", "client_id=&redirect_uri=x", "client_id"],
    ["repeated client_id", "client_id=a&client_id=a&redirect_uri=x", "client_id"],
    ["client_id with a control character", "client_id=a%00b&redirect_uri=x", "client_id"],
    ["client_id too long", `client_id=${"a".repeat(256)}&redirect_uri=x`, "client_id"],
    ["missing redirect_uri", "client_id=a", "redirect_uri"],
    ["repeated redirect_uri", "client_id=a&redirect_uri=x&redirect_uri=x", "redirect_uri"],
    ["redirect_uri too long", `client_id=a&redirect_uri=${"x".repeat(2001)}`, "redirect_uri"],
  ])("%s", (_name, query, parameter) => {
    expect(() => readTarget(new URLSearchParams(query))).toThrow(AuthorizationTargetError);
    try {
      readTarget(new URLSearchParams(query));
    } catch (error) {
      expect((error as AuthorizationTargetError).parameter).toBe(parameter);
    }
  });

  it("returns both values exactly as sent", () => {
    expect(readTarget(q())).toEqual(target);
  });
});

describe("readAuthorizationParameters (errors redirected to the client)", () => {
  it("reads a full request", () => {
    const request = readAuthorizationParameters(
      q({
        scope: "data trading",
        state: "s t&=ü",
        env: "paper",
        code_challenge: CHALLENGE,
        code_challenge_method: "S256",
      }),
      target,
    );
    expect(request).toEqual({
      ...target,
      state: "s t&=ü",
      scopes: ["trading", "data"],
      env: "paper",
      codeChallenge: CHALLENGE,
    });
  });

  it("treats parameters sent without a value as omitted (RFC 6749 §3.1) and ignores unknown ones", () => {
    const request = readAuthorizationParameters(
      q({ scope: "", state: "", env: "", code_challenge: "", nonce: "n" }),
      target,
    );
    expect(request).toEqual({ ...target, state: undefined, scopes: [], env: undefined, codeChallenge: undefined });
  });

  it.each([
    ["missing response_type", new URLSearchParams({ client_id: "a", redirect_uri: "x" }), "invalid_request"],
    ["response_type token", q({ response_type: "token" }), "unsupported_response_type"],
    ["response_type code id_token", q({ response_type: "code id_token" }), "unsupported_response_type"],
    ["unknown scope", q({ scope: "trading admin" }), "invalid_scope"],
    ["scope too long", q({ scope: "data ".repeat(101) }), "invalid_request"],
    ["env other than live or paper", q({ env: "both" }), "invalid_request"],
    ["plain PKCE", q({ code_challenge: CHALLENGE, code_challenge_method: "plain" }), "invalid_request"],
    ["challenge without a method (plain by default)", q({ code_challenge: CHALLENGE }), "invalid_request"],
    ["method without a challenge", q({ code_challenge_method: "S256" }), "invalid_request"],
    ["malformed challenge", q({ code_challenge: "short", code_challenge_method: "S256" }), "invalid_request"],
    ["state too long", q({ state: "s".repeat(2049) }), "invalid_request"],
    ["state with a line break", q({ state: "a\nb" }), "invalid_request"],
    ["repeated response_type", q([["response_type", "code"]]), "invalid_request"],
    [
      "repeated scope",
      q([
        ["scope", "data"],
        ["scope", "data"],
      ]),
      "invalid_request",
    ],
    [
      "repeated state",
      q([
        ["state", "a"],
        ["state", "b"],
      ]),
      "invalid_request",
    ],
    [
      "repeated env",
      q([
        ["env", "live"],
        ["env", "live"],
      ]),
      "invalid_request",
    ],
    [
      "repeated code_challenge",
      q([
        ["code_challenge", CHALLENGE],
        ["code_challenge", CHALLENGE],
        ["code_challenge_method", "S256"],
      ]),
      "invalid_request",
    ],
  ])("%s → %s", (_name, parameters, code) => {
    expect(oauthError(parameters).error).toBe(code);
  });

  it("echoes the state when it was sent once, not when repeated", () => {
    expect(stateToEcho(q({ state: "a b" }))).toBe("a b");
    expect(
      stateToEcho(
        q([
          ["state", "a"],
          ["state", "b"],
        ]),
      ),
    ).toBeUndefined();
    expect(stateToEcho(q())).toBeUndefined();
  });
});

describe("authorizationResponseUri", () => {
  it("appends to the registered URI, keeping its own query as it is", () => {
    expect(authorizationResponseUri("https://app.example/cb", { code: "c", state: undefined })).toBe(
      "https://app.example/cb?code=c",
    );
    expect(authorizationResponseUri("https://app.example/cb?x=a%20b", { code: "c" })).toBe(
      "https://app.example/cb?x=a%20b&code=c",
    );
    expect(authorizationResponseUri("https://app.example/cb?", { code: "c" })).toBe("https://app.example/cb?code=c");
    expect(authorizationResponseUri("com.example.app:/cb", { code: "c" })).toBe("com.example.app:/cb?code=c");
  });

  it("encodes odd state values so that they come back exactly", () => {
    const state = "a b&c=d+e%f/ü😀?#";
    const uri = authorizationResponseUri("https://app.example/cb", { code: "c", state, iss: "http://127.0.0.1:8200" });
    expect(new URL(uri).searchParams.get("state")).toBe(state);
    expect(new URL(uri).hash).toBe("");
    expect(new URL(uri).searchParams.get("iss")).toBe("http://127.0.0.1:8200");
  });
});

describe("carriedParameters", () => {
  it("keeps the known parameters in a fixed order with every value, and drops unknown ones", () => {
    const p = new URLSearchParams("state=s&client_id=c&foo=1&scope=data&state=t&redirect_uri=r&response_type=code");
    expect(carriedParameters(p)).toEqual([
      ["response_type", "code"],
      ["client_id", "c"],
      ["redirect_uri", "r"],
      ["scope", "data"],
      ["state", "s"],
      ["state", "t"],
    ]);
  });
});
