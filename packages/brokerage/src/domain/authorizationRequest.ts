/**
 * The authorization request of `GET /oauth/authorize` (RFC 6749 §4.1.1, RFC 7636 §4.3, Alpaca's `env`), read
 * from its raw parameters in two steps, because RFC 6749 §4.1.2.1 answers errors in two ways:
 * 1. `readTarget`: `client_id` and `redirect_uri`. While they are not proven (client known, URI registered),
 *    nothing may be sent to the URI: errors are `AuthorizationTargetError`, shown as a page, never redirected
 *    (an open redirector otherwise, RFC 9700 §4.11).
 * 2. `readAuthorizationParameters`: everything else, once the redirect URI is the client's. Errors are
 *    `OAuthError`s the caller redirects with (`AuthorizationRedirectError` carries where to).
 * Per RFC 6749 §3.1, a parameter sent without a value counts as omitted, unknown parameters are ignored and
 * none may be repeated.
 */
import type { AccountEnv } from "./accountNumbers.ts";
import { OAuthError } from "./oauthErrors.ts";
import { CODE_CHALLENGE_S256 } from "./pkce.ts";
import { InvalidScopeError, parseScope, type Scope } from "./scopes.ts";

/** The parameters of an authorization request, in the order they are carried through the login and consent forms. */
export const AUTHORIZATION_PARAMETERS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "env",
  "code_challenge",
  "code_challenge_method",
] as const;

/** Longest accepted values (characters). `redirect_uri` is as long as a registered one may be. */
export const PARAMETER_MAX_LENGTH = {
  client_id: 255,
  redirect_uri: 2000,
  state: 2048,
  scope: 500,
} as const;

export interface AuthorizationRequest {
  clientId: string;
  /** Exactly as sent, and one of the client's registered URIs. */
  redirectUri: string;
  /** Exactly as sent; undefined when not sent (or sent empty). */
  state: string | undefined;
  /** Requested scopes; none = read-only access. */
  scopes: Scope[];
  /** The account kind to authorize; undefined = one live and one paper account. */
  env: AccountEnv | undefined;
  /** PKCE S256 challenge, when the client sent one. */
  codeChallenge: string | undefined;
}

/** `client_id` or `redirect_uri` is missing, repeated, unknown or not registered: show a page, never redirect. */
export class AuthorizationTargetError extends Error {
  override name = "AuthorizationTargetError" as const;
  constructor(
    readonly parameter: "client_id" | "redirect_uri",
    message: string,
  ) {
    super(message);
  }
}
export type AuthorizationTargetErrorType = AuthorizationTargetError & { name: "AuthorizationTargetError" };

/** An error of a request whose redirect URI is proven: the client is told at `redirectUri` (with `state`). */
export class AuthorizationRedirectError extends Error {
  override name = "AuthorizationRedirectError" as const;
  constructor(
    readonly redirectUri: string,
    readonly state: string | undefined,
    readonly oauthError: OAuthError,
  ) {
    super(oauthError.message, { cause: oauthError });
  }
}
export type AuthorizationRedirectErrorType = AuthorizationRedirectError & { name: "AuthorizationRedirectError" };

type Lookup = { repeated: true } | { repeated: false; value: string | undefined };

/** One parameter: repeated, or its value (undefined when absent or empty, RFC 6749 §3.1). */
function lookup(parameters: URLSearchParams, name: string): Lookup {
  const values = parameters.getAll(name);
  if (values.length > 1) return { repeated: true };
  return { repeated: false, value: values[0] || undefined };
}

// Visible ASCII: what client ids are made of; also keeps NUL and control characters away from SQL.
const CLIENT_ID = /^[\x21-\x7E]+$/;
const CONTROL_CHARACTERS = /\p{Cc}/u;

/**
 * `client_id` and `redirect_uri` as sent, before the client is looked up.
 * @throws {AuthorizationTargetError}
 */
export function readTarget(parameters: URLSearchParams): { clientId: string; redirectUri: string } {
  const clientId = lookup(parameters, "client_id");
  if (clientId.repeated) throw new AuthorizationTargetError("client_id", "client_id is repeated");
  if (!clientId.value) throw new AuthorizationTargetError("client_id", "client_id is missing");
  if (clientId.value.length > PARAMETER_MAX_LENGTH.client_id || !CLIENT_ID.test(clientId.value)) {
    throw new AuthorizationTargetError("client_id", "client_id is not a client id");
  }
  const redirectUri = lookup(parameters, "redirect_uri");
  if (redirectUri.repeated) throw new AuthorizationTargetError("redirect_uri", "redirect_uri is repeated");
  if (!redirectUri.value) throw new AuthorizationTargetError("redirect_uri", "redirect_uri is missing");
  if (redirectUri.value.length > PARAMETER_MAX_LENGTH.redirect_uri) {
    throw new AuthorizationTargetError("redirect_uri", "redirect_uri is too long");
  }
  return { clientId: clientId.value, redirectUri: redirectUri.value };
}

/** The `state` to send back with an error: the value when it was sent exactly once. */
export function stateToEcho(parameters: URLSearchParams): string | undefined {
  const state = lookup(parameters, "state");
  return state.repeated ? undefined : state.value;
}

/**
 * Every parameter but the target, for a request whose `redirect_uri` is registered for `client_id`.
 * @throws {OAuthError} `invalid_request`, `unsupported_response_type` or `invalid_scope`.
 */
export function readAuthorizationParameters(
  parameters: URLSearchParams,
  target: { clientId: string; redirectUri: string },
): AuthorizationRequest {
  const values: Partial<Record<(typeof AUTHORIZATION_PARAMETERS)[number], string>> = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    const found = lookup(parameters, name);
    if (found.repeated) throw new OAuthError("invalid_request", `${name} is repeated`);
    if (found.value !== undefined) values[name] = found.value;
  }
  const { state, scope, env } = values;
  if (state !== undefined && state.length > PARAMETER_MAX_LENGTH.state) {
    throw new OAuthError("invalid_request", `state is longer than ${PARAMETER_MAX_LENGTH.state} characters`);
  }
  // Form submission turns a line break into CR LF, so such a state could not come back exactly as sent.
  if (state !== undefined && CONTROL_CHARACTERS.test(state)) {
    throw new OAuthError("invalid_request", "state contains control characters");
  }

  if (values.response_type === undefined) throw new OAuthError("invalid_request", "response_type is missing");
  if (values.response_type !== "code") {
    throw new OAuthError("unsupported_response_type", "response_type must be code (the authorization code grant)");
  }

  if (scope !== undefined && scope.length > PARAMETER_MAX_LENGTH.scope) {
    throw new OAuthError("invalid_request", `scope is longer than ${PARAMETER_MAX_LENGTH.scope} characters`);
  }
  let scopes: Scope[];
  try {
    scopes = parseScope(scope);
  } catch (error) {
    if (error instanceof InvalidScopeError) throw new OAuthError("invalid_scope", error.message, { cause: error });
    throw error;
  }

  if (env !== undefined && env !== "live" && env !== "paper") {
    throw new OAuthError("invalid_request", "env must be live or paper (or omitted for both)");
  }

  const { code_challenge: challenge, code_challenge_method: method } = values;
  if (method !== undefined && challenge === undefined) {
    throw new OAuthError("invalid_request", "code_challenge_method without code_challenge");
  }
  if (challenge !== undefined) {
    // RFC 7636 §4.3: no method means plain, which adds nothing over no PKCE (RFC 9700 §2.1.1): S256 only.
    if (method !== "S256") throw new OAuthError("invalid_request", "code_challenge_method must be S256");
    if (!CODE_CHALLENGE_S256.test(challenge)) {
      throw new OAuthError("invalid_request", "code_challenge must be 43 base64url characters (a S256 challenge)");
    }
  }

  return {
    clientId: target.clientId,
    redirectUri: target.redirectUri,
    state,
    scopes,
    env,
    codeChallenge: challenge,
  };
}

/**
 * The parameters of a request as they are carried through the login and consent forms and bound into their
 * CSRF tokens: the known ones only, in a fixed order, every value as received.
 */
export function carriedParameters(parameters: URLSearchParams): [name: string, value: string][] {
  return AUTHORIZATION_PARAMETERS.flatMap((name) => parameters.getAll(name).map((v): [string, string] => [name, v]));
}

/**
 * The redirect to the client: `redirectUri` exactly as registered, with `response` appended to its query
 * (form-encoded; existing query parameters kept as they are). Undefined values are left out.
 *
 * @example
 * authorizationResponseUri("https://app.example/cb?x=1", { code: "abc", state: "a b" });
 * // "https://app.example/cb?x=1&code=abc&state=a+b"
 */
export function authorizationResponseUri(redirectUri: string, response: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(response)) if (value !== undefined) query.append(name, value);
  const encoded = query.toString();
  if (!encoded) return redirectUri;
  const separator = !redirectUri.includes("?")
    ? "?"
    : redirectUri.endsWith("?") || redirectUri.endsWith("&")
      ? ""
      : "&";
  return `${redirectUri}${separator}${encoded}`;
}
