/**
 * Authentication of the data host, as the trading hosts' (tradingAuth.ts) but for the end user rather than
 * one account: `Authorization: Bearer <token>` (an OAuth access token of either environment, which must
 * carry the `data` scope) or an operator key pair (`APCA-API-KEY-ID` + `APCA-API-SECRET-KEY`, every scope).
 * Failures are the anchor's bodies: 401 `{"code":40110000,"message":"request is not authorized"}`, and for a
 * token without `data` 401 `{"code":40110000,"message":"token is not authorized for this scope"}`. Every
 * authenticated request is counted against its credential's rate limit (the data API's budget per token or
 * key pair), with the `X-Ratelimit-*` headers and the anchor's 429. Who the credential is comes from
 * services/dataPrincipals.ts, as for the streams.
 */
import { HttpError } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { DataPrincipal, DataPrincipals } from "../../services/dataPrincipals.ts";
import { alpacaCode, NOT_AUTHORIZED, SCOPE_NOT_AUTHORIZED } from "../trading/errorFormat.ts";
import { bearerRateKey, keyPairRateKey, TOO_MANY_REQUESTS, type TradingRateLimit } from "../trading/rateLimit.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the data host's authentication hook (`createMarketDataAuth`); null before it ran. */
    marketData?: DataPrincipal | null;
  }
}

export interface MarketDataAuthParameters {
  /** Who a credential is (services/dataPrincipals.ts). */
  principals: DataPrincipals;
  /** The per-credential request limit (the data API's budget); without it nothing is counted. */
  rateLimit?: TradingRateLimit;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{1,512}=*) *$/i;
const REALM = 'Bearer realm="brokerage"';

const headerValue = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === "string" && value !== "" ? value : undefined;
};

function refuse(reply: FastifyReply, challenge: string, message = NOT_AUTHORIZED): never {
  reply.header("www-authenticate", challenge);
  throw new HttpError(401, message, String(alpacaCode(401)));
}

/** The principal of a request that passed the hook. */
export function dataPrincipalOf(request: FastifyRequest): DataPrincipal {
  if (!request.marketData) throw new HttpError(401, NOT_AUTHORIZED, String(alpacaCode(401)));
  return request.marketData;
}

/** The onRequest hook of the data host's routes. */
export function createMarketDataAuth({ principals, rateLimit }: MarketDataAuthParameters) {
  async function authenticate(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ principal: DataPrincipal; rateKey: string }> {
    const authorization = headerValue(request, "authorization");
    const keyId = headerValue(request, "apca-api-key-id");
    const secret = headerValue(request, "apca-api-secret-key");
    if (authorization !== undefined && (keyId !== undefined || secret !== undefined)) refuse(reply, REALM);
    if (authorization !== undefined) {
      const token = BEARER.exec(authorization)?.[1];
      if (!token) refuse(reply, `${REALM}, error="invalid_request"`);
      const principal = await principals.byAccessToken(token);
      if (!principal) refuse(reply, `${REALM}, error="invalid_token"`);
      return { principal, rateKey: bearerRateKey(token) };
    }
    if (keyId !== undefined && secret !== undefined) {
      const principal = await principals.byKeyPair(keyId, secret);
      if (!principal) refuse(reply, REALM);
      return { principal, rateKey: keyPairRateKey(keyId) };
    }
    return refuse(reply, REALM);
  }

  return async function marketDataAuth(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { principal, rateKey } = await authenticate(request, reply);
    if (rateLimit) {
      const decision = await rateLimit.check(rateKey);
      reply.header("X-Ratelimit-Limit", decision.limit);
      reply.header("X-Ratelimit-Remaining", decision.remaining);
      reply.header("X-Ratelimit-Reset", decision.reset);
      if (!decision.allowed) {
        reply.header("Retry-After", decision.retryAfter);
        throw new HttpError(429, TOO_MANY_REQUESTS, String(alpacaCode(429)));
      }
    }
    if (!principal.scopes.includes("data")) {
      refuse(reply, `${REALM}, error="insufficient_scope", scope="data"`, SCOPE_NOT_AUTHORIZED);
    }
    request.marketData = principal;
  };
}
