/**
 * A small vendor cloud: an OAuth 2.0 authorization server (consent page, code, PKCE, token and refresh with
 * rotation, revocation) plus the bearer check of a data API. The `sandbox` provider runs on it (sandbox.ts),
 * and so does every vendor stand-in the adapters are tested against (testing/standins/): each adds its
 * vendor's data routes and token dialect on top.
 *
 * What real clouds do and the stand-ins must too: codes are single-use and expire in 10 minutes, an access
 * token expires (`accessTtlSec`), a refresh token rotates and the old one stops working, a revoked grant
 * answers 401, and `throttle()` makes the next data requests answer 429 with `Retry-After`.
 *
 * @example
 * const cloud = await startVendorCloud({
 *   paths: { authorize: "/oauth/authorize", token: "/oauth/token" },
 *   clients: { "client-1": "secret-1" },
 *   routes: (c) => c.app.get("/api/v3/athlete/activities", async (req, reply) => {
 *     const grant = c.authenticate(req, reply);
 *     if (!grant) return reply;
 *     …
 *   }),
 * });
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";

export interface VendorCloudPaths {
  authorize: string;
  token: string;
  revoke?: string;
}

export interface StartVendorCloudParameters {
  paths: VendorCloudPaths;
  /** client_id → client_secret. */
  clients: Record<string, string>;
  /** Access token lifetime; default 3600 s. */
  accessTtlSec?: number;
  /** `standard` (RFC 6749 JSON) or `withings` (`action=requesttoken`, `{status, body}` envelope). */
  dialect?: "standard" | "withings";
  /** Requires `code_challenge` on authorize (Garmin, Fitbit). */
  requirePkce?: boolean;
  /** Extra fields of a token answer for the grant's user (e.g. Strava's `athlete`, Polar's `x_user_id`). */
  tokenExtras?: (grant: Grant) => Record<string, unknown>;
  /**
   * The server to add the routes to (the platform's own, with its OpenAPI document); default a bare Fastify.
   * Its `application/x-www-form-urlencoded` parsing is replaced by the form decoding the token endpoint needs.
   */
  app?: FastifyInstance;
  /** OpenAPI schemas of the token and revocation endpoints (the consent pages are not documented). */
  schemas?: { token?: Record<string, unknown>; revoke?: Record<string, unknown> };
  /** Adds the vendor's data routes (called before the server listens; `cloud.origin` is not known yet). */
  routes?: (cloud: VendorCloud) => void;
  /** Consent page title (the vendor's name). */
  title?: string;
  host?: string;
  port?: number;
}

/** A user's authorization of a client: what a token resolves to. */
export interface Grant {
  clientId: string;
  /** The vendor's user id (consent picks one per `login_hint`, default "1001"). */
  userId: string;
  scope: string;
  revoked: boolean;
}

export interface VendorCloud {
  app: FastifyInstance;
  /** `http://host:port` once listening. */
  origin: string;
  /**
   * The grant behind the request's bearer token; undefined after it replied 401 (missing, unknown, expired or
   * revoked token) or 429 (throttled): the route then returns the reply as it is.
   */
  authenticate(req: FastifyRequest, reply: FastifyReply): Grant | undefined;
  /** The next `count` data requests answer 429 with `Retry-After: retryAfterSec`. */
  throttle(count: number, retryAfterSec: number): void;
  /** Expires every access token now (refresh still works). */
  expireAccessTokens(): void;
  /** Revokes every grant of the vendor user (tokens and refresh tokens stop working). */
  revokeUser(userId: string): void;
  /** Requests seen per path (data, token), for tests. */
  hits: Map<string, number>;
  /**
   * The query (and form body) of each request seen on `path`, oldest first (the last 10,000 of the cloud), for
   * tests that check what an adapter asked the vendor for.
   */
  seen(path: string): Record<string, string>[];
  /** The grants not revoked, each once (a vendor pushes to the accounts that authorized an app). */
  grants(): Grant[];
  close(): Promise<void>;
}

interface CodeRecord {
  grant: Grant;
  redirectUri: string;
  challenge?: string;
  expiresAt: number;
}

const token = () => randomBytes(24).toString("base64url");
const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};
const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** Listens on `host`/`port` (default 127.0.0.1, ephemeral) and sets `origin`. */
export async function startVendorCloud(p: StartVendorCloudParameters): Promise<VendorCloud> {
  const cloud = await createVendorCloud(p);
  await cloud.app.listen({ host: p.host ?? "127.0.0.1", port: p.port ?? 0 });
  const address = cloud.app.server.address();
  cloud.origin = `http://${p.host ?? "127.0.0.1"}:${typeof address === "object" && address ? address.port : 0}`;
  return cloud;
}

/** The cloud, not listening yet (the platform listens on it as one of its hosts); `origin` is set by the caller. */
export async function createVendorCloud(p: StartVendorCloudParameters): Promise<VendorCloud> {
  const accessTtlMs = (p.accessTtlSec ?? 3600) * 1000;
  const codes = new Map<string, CodeRecord>();
  const access = new Map<string, { grant: Grant; expiresAt: number }>();
  const refresh = new Map<string, Grant>();
  const hits = new Map<string, number>();
  let throttled = { count: 0, retryAfterSec: 0 };
  const app = p.app ?? Fastify({ logger: false });
  if (app.hasContentTypeParser("application/x-www-form-urlencoded"))
    app.removeContentTypeParser("application/x-www-form-urlencoded");
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  const log: { path: string; query: Record<string, string> }[] = [];
  app.addHook("onRequest", async (req) => {
    const path = req.url.split("?")[0] as string;
    hits.set(path, (hits.get(path) ?? 0) + 1);
  });
  // After parsing: a form body's fields (Withings' data API is form POSTs) join the query.
  app.addHook("preHandler", async (req) => {
    const path = req.url.split("?")[0] as string;
    const query = Object.fromEntries(new URL(req.url, "http://x").searchParams);
    const body = req.body && typeof req.body === "object" ? (req.body as Record<string, unknown>) : {};
    for (const [k, v] of Object.entries(body)) if (typeof v === "string") query[k] = v;
    log.push({ path, query });
    if (log.length > 10_000) log.shift();
  });

  const grantOf = (body: Record<string, unknown>) => access.get(body.access_token as string)?.grant.userId;
  const issue = (grant: Grant) => {
    const accessToken = token();
    const refreshToken = token();
    access.set(accessToken, { grant, expiresAt: Date.now() + accessTtlMs });
    refresh.set(refreshToken, grant);
    return {
      access_token: accessToken,
      refresh_token: refreshToken,
      token_type: "Bearer",
      expires_in: Math.round(accessTtlMs / 1000),
      scope: grant.scope,
      ...(p.tokenExtras?.(grant) ?? {}),
    };
  };

  // The consent page: GET shows it, POST (the Allow or Deny button) redirects back with a code or an error.
  app.get(p.paths.authorize, { schema: { hide: true } }, async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    const problem = authorizeProblem(q);
    if (problem)
      return reply
        .code(400)
        .type("text/html")
        .send(`<p>${escapeHtml(problem)}</p>`);
    const fields = Object.entries(q)
      .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v ?? "")}">`)
      .join("");
    const title = escapeHtml(p.title ?? "Vendor");
    return reply.type("text/html").send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}: authorize</title></head><body>
<main><h1>${title}</h1><p>Allow <strong>${escapeHtml(q.client_id ?? "")}</strong> to read your data (${escapeHtml(q.scope ?? "default scope")})?</p>
<form method="post" action="${escapeHtml(p.paths.authorize)}">${fields}
<label>Account <input name="login_hint" value="${escapeHtml(q.login_hint ?? "1001")}"></label>
<button name="decision" value="allow">Allow</button> <button name="decision" value="deny">Deny</button></form></main></body></html>`,
    );
  });
  app.post(p.paths.authorize, { schema: { hide: true } }, async (req, reply) => {
    const q = req.body as Record<string, string | undefined>;
    const problem = authorizeProblem(q);
    if (problem)
      return reply
        .code(400)
        .type("text/html")
        .send(`<p>${escapeHtml(problem)}</p>`);
    const back = new URL(q.redirect_uri as string);
    if (q.state) back.searchParams.set("state", q.state);
    if (q.decision !== "allow") {
      back.searchParams.set("error", "access_denied");
      back.searchParams.set("error_description", "The user denied the request");
      return reply.redirect(back.toString(), 302);
    }
    const code = token();
    codes.set(code, {
      grant: {
        clientId: q.client_id as string,
        userId: q.login_hint || "1001",
        scope: q.scope ?? "",
        revoked: false,
      },
      redirectUri: q.redirect_uri as string,
      challenge: q.code_challenge,
      expiresAt: Date.now() + 600_000,
    });
    back.searchParams.set("code", code);
    return reply.redirect(back.toString(), 302);
  });
  function authorizeProblem(q: Record<string, string | undefined>): string | undefined {
    if (q.response_type !== "code") return "response_type must be code";
    if (!q.client_id || !(q.client_id in p.clients)) return "unknown client_id";
    if (!q.redirect_uri) return "redirect_uri is required";
    if (p.requirePkce && (!q.code_challenge || q.code_challenge_method !== "S256")) return "PKCE (S256) is required";
    return undefined;
  }

  app.post(p.paths.token, { schema: p.schemas?.token ?? {} }, async (req, reply) => {
    const form = (req.body ?? {}) as Record<string, string | undefined>;
    const fail = (status: number, error: string, description: string) =>
      p.dialect === "withings"
        ? reply.send({ status: 503, error: `${error}: ${description}` })
        : reply.code(status).send({ error, error_description: description });
    // Only Withings names the user in its token answer by itself; other vendors do through `tokenExtras`.
    const ok = (body: Record<string, unknown>) =>
      reply.send(p.dialect === "withings" ? { status: 0, body: { userid: grantOf(body), ...body } } : body);
    if (p.dialect === "withings" && form.action !== "requesttoken") return fail(400, "invalid_request", "action");
    let clientId = form.client_id;
    let secret = form.client_secret;
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "");
    if (basic) {
      const [id, s] = Buffer.from(basic[1] as string, "base64")
        .toString()
        .split(":");
      clientId = decodeURIComponent(id ?? "");
      secret = decodeURIComponent(s ?? "");
    }
    const expected = clientId ? p.clients[clientId] : undefined;
    if (expected === undefined || !secret || !sameSecret(expected, secret))
      return fail(401, "invalid_client", "bad client credentials");
    if (form.grant_type === "authorization_code") {
      const record = form.code ? codes.get(form.code) : undefined;
      if (form.code) codes.delete(form.code);
      if (!record || record.expiresAt < Date.now() || record.grant.clientId !== clientId)
        return fail(400, "invalid_grant", "unknown or used code");
      if (record.redirectUri !== form.redirect_uri) return fail(400, "invalid_grant", "redirect_uri mismatch");
      if (record.challenge && (!form.code_verifier || s256(form.code_verifier) !== record.challenge))
        return fail(400, "invalid_grant", "PKCE verification failed");
      return ok(issue(record.grant));
    }
    if (form.grant_type === "refresh_token") {
      const grant = form.refresh_token ? refresh.get(form.refresh_token) : undefined;
      if (!grant || grant.revoked || grant.clientId !== clientId)
        return fail(400, "invalid_grant", "unknown or revoked refresh token");
      refresh.delete(form.refresh_token as string);
      return ok(issue(grant));
    }
    return fail(400, "unsupported_grant_type", String(form.grant_type));
  });

  if (p.paths.revoke) {
    app.post(p.paths.revoke, { schema: p.schemas?.revoke ?? {} }, async (req, reply) => {
      const form = (req.body ?? {}) as Record<string, string | undefined>;
      const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
      const t = form.token ?? form.access_token ?? bearer;
      const grant = t ? (access.get(t)?.grant ?? refresh.get(t)) : undefined;
      if (grant) grant.revoked = true;
      return reply.send({});
    });
  }

  const cloud: VendorCloud = {
    app,
    origin: "",
    hits,
    seen: (path: string) => log.filter((r) => r.path === path).map((r) => r.query),
    authenticate(req, reply) {
      if (throttled.count > 0) {
        throttled.count -= 1;
        reply.code(429).header("retry-after", String(throttled.retryAfterSec)).send({ message: "Rate Limit Exceeded" });
        return undefined;
      }
      const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
      const found = bearer ? access.get(bearer) : undefined;
      if (!found || found.grant.revoked || found.expiresAt <= Date.now()) {
        reply.code(401).send({ message: "Authorization Error", errors: [{ code: "invalid", field: "access_token" }] });
        return undefined;
      }
      return found.grant;
    },
    grants: () => [...new Set([...refresh.values()].filter((g) => !g.revoked))],
    throttle(count, retryAfterSec) {
      throttled = { count, retryAfterSec };
    },
    expireAccessTokens() {
      for (const a of access.values()) a.expiresAt = 0;
    },
    revokeUser(userId) {
      for (const g of [...refresh.values(), ...[...access.values()].map((a) => a.grant)])
        if (g.userId === userId) g.revoked = true;
    },
    close: () => app.close(),
  };
  p.routes?.(cloud);
  return cloud;
}
