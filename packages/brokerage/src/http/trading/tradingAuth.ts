/**
 * Authentication of the trading hosts (live and paper), as the anchor's: `Authorization: Bearer <token>`
 * (an OAuth access token, RFC 6750 §2.1) selects the token's account of THIS host's environment; an
 * operator-issued key pair (`APCA-API-KEY-ID` + `APCA-API-SECRET-KEY`) opens its own account, which must be
 * of this environment. Then the scope the request needs (`requiredScope`, the one place of scope rules) is
 * checked against the token's. Failures are the anchor's bodies: 401 `{"code":40110000,"message":"request is
 * not authorized"}`, and for a missing scope 401 `{"code":40110000,"message":"token is not authorized for this
 * scope"}` (the body the anchor answers; its codes start with the HTTP status, so 401 rather than RFC 6750's
 * 403), with RFC 6750 §3's `WWW-Authenticate` challenge (`error="insufficient_scope"`).
 *
 * Between authentication and the scope check, a request is counted against its credential's rate limit
 * (rateLimit.ts): every authenticated request counts, whatever its answer. Each answer then carries
 * `X-Ratelimit-Limit`, `X-Ratelimit-Remaining` and `X-Ratelimit-Reset`; over the limit it is the anchor's 429
 * `{"code":42910000,"message":"too many requests"}` with `Retry-After`. Requests that fail to authenticate are
 * not counted (they are 401s, and there is no credential to count them against).
 */
import { HttpError } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AccountEnv } from "../../domain/accountNumbers.ts";
import { requiredScope, SCOPES, type Scope } from "../../domain/scopes.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import { alpacaCode, NOT_AUTHORIZED, SCOPE_NOT_AUTHORIZED } from "./errorFormat.ts";
import {
  bearerRateKey,
  keyPairRateKey,
  type RateLimitDecision,
  TOO_MANY_REQUESTS,
  type TradingRateLimit,
} from "./rateLimit.ts";

/** Who a trading request acts for, set by the hook on every request of the trading routes. */
export interface TradingPrincipal {
  /** The account of this host's environment the credentials open. */
  account: AccountRow;
  /** The token's scopes; every scope for a key pair. */
  scopes: readonly Scope[];
  via: "oauth" | "key";
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the trading hosts' authentication hook (`createTradingAuth`); null before it ran. */
    brokerage?: TradingPrincipal | null;
  }
}

export interface TradingAuthParameters {
  /** The environment of the host the hook guards. */
  env: AccountEnv;
  /**
   * The account of `env` an active access token opens, with the token's scopes; undefined for an unknown or
   * revoked token or one without an account of `env` (accounts service's `forAccessToken`).
   */
  accountForBearer(
    token: string,
    env: AccountEnv,
  ): Promise<{ account: AccountRow; scopes: readonly Scope[] } | undefined>;
  /** The account a key pair opens, or undefined (key pairs service). */
  keyPairs: { authenticate(keyId: string, secret: string): Promise<AccountRow | undefined> };
  /**
   * The per-credential request limit, shared by the live and the paper host (one count per token across
   * both); without it nothing is counted.
   */
  rateLimit?: TradingRateLimit;
}

/** OpenAPI security schemes of the trading hosts, and the requirement every operation carries. */
export const tradingSecuritySchemes = {
  oauthToken: { type: "http", scheme: "bearer", description: "An OAuth 2.0 access token (Alpaca Connect)." },
  apiKeyId: { type: "apiKey", in: "header", name: "APCA-API-KEY-ID" },
  apiSecretKey: { type: "apiKey", in: "header", name: "APCA-API-SECRET-KEY" },
};
export const tradingSecurity: Record<string, string[]>[] = [{ oauthToken: [] }, { apiKeyId: [], apiSecretKey: [] }];

/** RFC 6750 §2.1 b64token, bounded (our tokens are 43 characters). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{1,512}=*) *$/i;
const REALM = 'Bearer realm="brokerage"';

const headerValue = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === "string" && value !== "" ? value : undefined;
};

function refuse(reply: FastifyReply, challenge: string): never {
  reply.header("www-authenticate", challenge);
  throw new HttpError(401, NOT_AUTHORIZED, String(alpacaCode(401)));
}

/** The principal of a request that passed the hook (a route outside the hook's scope is a bug: 401). */
export function principalOf(request: FastifyRequest): TradingPrincipal {
  if (!request.brokerage) throw new HttpError(401, NOT_AUTHORIZED, String(alpacaCode(401)));
  return request.brokerage;
}

/** The rate limit headers of an answer (the anchor's names and casing). */
function setRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  reply.header("X-Ratelimit-Limit", decision.limit);
  reply.header("X-Ratelimit-Remaining", decision.remaining);
  reply.header("X-Ratelimit-Reset", decision.reset);
}

/** An authenticated request: its principal, and the key its rate limit counts it under (no secret in it). */
interface Authenticated {
  principal: TradingPrincipal;
  rateKey: string;
}

/** The onRequest hook of the trading routes of the host of environment `env`. */
export function createTradingAuth({ env, accountForBearer, keyPairs, rateLimit }: TradingAuthParameters) {
  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<Authenticated> {
    const authorization = headerValue(request, "authorization");
    const keyId = headerValue(request, "apca-api-key-id");
    const secret = headerValue(request, "apca-api-secret-key");
    // One way of authenticating per request (RFC 6750 §2): both at once is ambiguous, so refused.
    if (authorization !== undefined && (keyId !== undefined || secret !== undefined)) refuse(reply, REALM);

    if (authorization !== undefined) {
      const token = BEARER.exec(authorization)?.[1];
      if (!token) refuse(reply, `${REALM}, error="invalid_request"`);
      const grant = await accountForBearer(token, env);
      if (!grant || grant.account.env !== env) refuse(reply, `${REALM}, error="invalid_token"`);
      return {
        principal: { account: grant.account, scopes: grant.scopes, via: "oauth" },
        rateKey: bearerRateKey(token),
      };
    }
    if (keyId !== undefined && secret !== undefined) {
      const account = await keyPairs.authenticate(keyId, secret);
      if (!account || account.env !== env) refuse(reply, REALM);
      return { principal: { account, scopes: SCOPES, via: "key" }, rateKey: keyPairRateKey(keyId) };
    }
    return refuse(reply, REALM);
  }

  return async function tradingAuth(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { principal, rateKey } = await authenticate(request, reply);
    if (rateLimit) {
      const decision = await rateLimit.check(rateKey);
      setRateLimitHeaders(reply, decision);
      if (!decision.allowed) {
        reply.header("Retry-After", decision.retryAfter);
        throw new HttpError(429, TOO_MANY_REQUESTS, String(alpacaCode(429)));
      }
    }
    const needed = requiredScope(request.method, request.routeOptions.url ?? request.url.split("?")[0] ?? "");
    if (needed && !principal.scopes.includes(needed)) {
      reply.header("www-authenticate", `${REALM}, error="insufficient_scope", scope="${needed}"`);
      throw new HttpError(401, SCOPE_NOT_AUTHORIZED, String(alpacaCode(401)));
    }
    request.brokerage = principal;
  };
}
