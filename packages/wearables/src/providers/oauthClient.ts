/**
 * The client side of a vendor's OAuth 2.0 authorization code flow, for every adapter: the authorize URL (state,
 * PKCE S256), the code exchange, refresh and revocation, with the vendor's client authentication (Basic or
 * body) and token dialect (RFC 6749 JSON, or Withings' `{status, body}` envelope where `status != 0` is an
 * error on HTTP 200). The anchor's `templates/base_oauth.py`, one implementation.
 */
import { createHash, randomBytes } from "node:crypto";
import { type VendorAdapter, VendorHttpError, type VendorTokens, type VendorUrls } from "./types.ts";

export interface VendorCredentials {
  clientId: string;
  clientSecret: string;
}

/** 32 random bytes, base64url: the anchor's `token_urlsafe(32)`. */
export const newState = () => randomBytes(32).toString("base64url");
/** A PKCE verifier (RFC 7636: 43–128 characters). */
export const newCodeVerifier = () => randomBytes(43).toString("base64url");
export const codeChallengeOf = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

/** The vendor's consent URL the user's browser is sent to. */
export function buildAuthorizeUrl(p: {
  adapter: VendorAdapter;
  urls: VendorUrls;
  credentials: VendorCredentials;
  redirectUri: string;
  state: string;
  codeVerifier?: string;
}): string {
  const url = new URL(p.urls.authorizeUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", p.credentials.clientId);
  url.searchParams.set("redirect_uri", p.redirectUri);
  url.searchParams.set("state", p.state);
  if (p.codeVerifier) {
    url.searchParams.set("code_challenge", codeChallengeOf(p.codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
  }
  if (p.adapter.oauth.scope) url.searchParams.set("scope", p.adapter.oauth.scope);
  for (const [k, v] of Object.entries(p.adapter.oauth.authorizeParams ?? {})) url.searchParams.set(k, v);
  return url.toString();
}

/** RFC 6749 §5.1 fields, for adapters without their own `parseTokens`. */
export function parseStandardTokens(body: Record<string, unknown>, now: number): VendorTokens {
  const accessToken = body.access_token;
  if (typeof accessToken !== "string" || accessToken === "") throw new Error("the token answer has no access_token");
  const expiresIn = Number(body.expires_in);
  return {
    accessToken,
    refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : undefined,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? now + expiresIn * 1000 : undefined,
    scope: typeof body.scope === "string" ? body.scope : undefined,
    providerUserId:
      body.user_id !== undefined && body.user_id !== null
        ? String(body.user_id)
        : body.userid !== undefined && body.userid !== null
          ? String(body.userid)
          : undefined,
  };
}

export interface TokenRequestParameters {
  adapter: VendorAdapter;
  urls: VendorUrls;
  credentials: VendorCredentials;
  fetch?: typeof fetch;
  /** Abort after this long; default 30 s (the anchor's timeout). */
  timeoutMs?: number;
}

/** Exchanges an authorization code for tokens. */
export function exchangeCode(
  p: TokenRequestParameters & { code: string; redirectUri: string; codeVerifier?: string },
): Promise<VendorTokens> {
  return tokenRequest(p, {
    grant_type: "authorization_code",
    code: p.code,
    redirect_uri: p.redirectUri,
    ...(p.codeVerifier ? { code_verifier: p.codeVerifier } : {}),
  });
}

/** Trades a refresh token for new tokens; a vendor that does not rotate it leaves `refreshToken` unset. */
export function refreshTokens(p: TokenRequestParameters & { refreshToken: string }): Promise<VendorTokens> {
  return tokenRequest(p, {
    grant_type: "refresh_token",
    refresh_token: p.refreshToken,
    ...(p.adapter.oauth.refreshParams ?? {}),
  });
}

/** Revokes a token where the vendor has an endpoint for it; best effort (a disconnect never fails on it). */
export async function revokeToken(p: TokenRequestParameters & { token: string }): Promise<boolean> {
  if (!p.urls.revokeUrl) return false;
  const signal = AbortSignal.timeout(p.timeoutMs ?? 30_000);
  const method = p.adapter.oauth.revokeMethod ?? "post-form";
  if (method !== "post-form") {
    const url = new URL(p.urls.revokeUrl);
    if (method === "get-query") url.searchParams.set("access_token", p.token);
    const res = await (p.fetch ?? fetch)(url, {
      method: method === "get-query" ? "GET" : "DELETE",
      headers: method === "delete-bearer" ? { authorization: `Bearer ${p.token}` } : {},
      signal,
    });
    await res.body?.cancel();
    return res.ok;
  }
  const { headers, form } = clientAuthentication(p, { token: p.token });
  const res = await (p.fetch ?? fetch)(p.urls.revokeUrl, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
    signal,
  });
  await res.body?.cancel();
  return res.ok;
}

function clientAuthentication(p: TokenRequestParameters, form: Record<string, string>) {
  const headers: Record<string, string> = {};
  if (p.adapter.oauth.clientAuth === "basic") {
    const pair = `${encodeURIComponent(p.credentials.clientId)}:${encodeURIComponent(p.credentials.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
    return { headers, form };
  }
  return { headers, form: { ...form, client_id: p.credentials.clientId, client_secret: p.credentials.clientSecret } };
}

async function tokenRequest(p: TokenRequestParameters, grant: Record<string, string>): Promise<VendorTokens> {
  const withings = p.adapter.oauth.dialect === "withings";
  const { headers, form } = clientAuthentication(p, withings ? { action: "requesttoken", ...grant } : grant);
  const res = await (p.fetch ?? fetch)(p.urls.tokenUrl, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(p.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  if (!res.ok) throw new VendorHttpError(res.status, text, p.urls.tokenUrl);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new VendorHttpError(502, `not JSON: ${text.slice(0, 200)}`, p.urls.tokenUrl);
  }
  if (withings) {
    // Withings answers HTTP 200 with a status: 0 is success, anything else an error (e.g. 503 invalid params).
    if (body.status !== 0) throw new VendorHttpError(400, text, p.urls.tokenUrl);
    body = (body.body ?? {}) as Record<string, unknown>;
  }
  const now = Date.now();
  return p.adapter.parseTokens ? p.adapter.parseTokens(body, now) : parseStandardTokens(body, now);
}
