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
import { type FailedCredentials, HttpError } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AccountEnv } from "../../domain/accountNumbers.ts";
import { requiredScope, SCOPES, type Scope } from "../../domain/scopes.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import { alpacaCode, NOT_AUTHORIZED } from "./errorFormat.ts";
import type { TradingRateLimit } from "./rateLimit.ts";
import { countRequest, credentialOf, refuseCredential, refuseIfThrottled, refuseScope } from "./requestCredentials.ts";

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
  /**
   * Unknown tokens and key pairs per client address (kernel's limit): over it, the anchor's 429 with
   * `Retry-After` before the credential is looked up. Without it nothing is counted.
   */
  failedCredentials?: FailedCredentials;
}

/** OpenAPI security schemes of the trading hosts, and the requirement every operation carries. */
export const tradingSecuritySchemes = {
  oauthToken: { type: "http", scheme: "bearer", description: "An OAuth 2.0 access token (Alpaca Connect)." },
  apiKeyId: { type: "apiKey", in: "header", name: "APCA-API-KEY-ID" },
  apiSecretKey: { type: "apiKey", in: "header", name: "APCA-API-SECRET-KEY" },
};
export const tradingSecurity: Record<string, string[]>[] = [{ oauthToken: [] }, { apiKeyId: [], apiSecretKey: [] }];

/** The principal of a request that passed the hook (a route outside the hook's scope is a bug: 401). */
export function principalOf(request: FastifyRequest): TradingPrincipal {
  if (!request.brokerage) throw new HttpError(401, NOT_AUTHORIZED, String(alpacaCode(401)));
  return request.brokerage;
}

/** The onRequest hook of the trading routes of the host of environment `env`. */
export function createTradingAuth({
  env,
  accountForBearer,
  keyPairs,
  rateLimit,
  failedCredentials,
}: TradingAuthParameters) {
  const refuse = async (request: FastifyRequest, reply: FastifyReply, error?: "invalid_token"): Promise<never> => {
    await failedCredentials?.recordFailure(request.ip);
    return refuseCredential(reply, error);
  };
  async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    const credential = credentialOf(request, reply);
    await refuseIfThrottled(failedCredentials, request, reply);
    if (credential.kind === "token") {
      const grant = await accountForBearer(credential.token, env);
      if (!grant || grant.account.env !== env) return refuse(request, reply, "invalid_token");
      return { credential, principal: { account: grant.account, scopes: grant.scopes, via: "oauth" } as const };
    }
    const account = await keyPairs.authenticate(credential.keyId, credential.secret);
    if (!account || account.env !== env) return refuse(request, reply);
    return { credential, principal: { account, scopes: SCOPES, via: "key" } as const };
  }

  return async function tradingAuth(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { credential, principal } = await authenticate(request, reply);
    await countRequest(reply, rateLimit, credential);
    const needed = requiredScope(request.method, request.routeOptions.url ?? request.url.split("?")[0] ?? "");
    if (needed && !principal.scopes.includes(needed)) refuseScope(reply, needed);
    request.brokerage = principal;
  };
}
