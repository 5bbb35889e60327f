/**
 * Authentication of the data host, as the trading hosts' (tradingAuth.ts) but for the end user rather than
 * one account: `Authorization: Bearer <token>` (an OAuth access token of either environment, which must
 * carry the `data` scope) or an operator key pair (`APCA-API-KEY-ID` + `APCA-API-SECRET-KEY`, every scope).
 * Failures are the anchor's bodies: 401 `{"code":40110000,"message":"request is not authorized"}`, and for a
 * token without `data` 401 `{"code":40110000,"message":"token is not authorized for this scope"}`. Every
 * authenticated request is counted against its credential's rate limit (the trading hosts' limiter: one
 * budget per token or key pair), with the `X-Ratelimit-*` headers and the anchor's 429.
 */
import { HttpError } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AccountEnv } from "../../domain/accountNumbers.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { AccountRow } from "../../store/accountsRepository.ts";
import { alpacaCode, NOT_AUTHORIZED, SCOPE_NOT_AUTHORIZED } from "../trading/errorFormat.ts";
import { bearerRateKey, keyPairRateKey, TOO_MANY_REQUESTS, type TradingRateLimit } from "../trading/rateLimit.ts";

/** Who a market data request is made for: the end user behind the credentials. */
export interface DataPrincipal {
  userId: string;
  via: "oauth" | "key";
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the data host's authentication hook (`createMarketDataAuth`); null before it ran. */
    marketData?: DataPrincipal | null;
  }
}

export interface MarketDataAuthParameters {
  /** The account (of `env`) an active access token opens, with its scopes (accounts service's `forAccessToken`). */
  accountForBearer(
    token: string,
    env: AccountEnv,
  ): Promise<{ account: AccountRow; scopes: readonly Scope[] } | undefined>;
  /** The account a key pair opens, or undefined (key pairs service). */
  keyPairs: { authenticate(keyId: string, secret: string): Promise<AccountRow | undefined> };
  /** The per-credential request limit (the trading hosts' one); without it nothing is counted. */
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
export function createMarketDataAuth({ accountForBearer, keyPairs, rateLimit }: MarketDataAuthParameters) {
  async function authenticate(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ principal: DataPrincipal; rateKey: string; scopes: readonly Scope[] | "all" }> {
    const authorization = headerValue(request, "authorization");
    const keyId = headerValue(request, "apca-api-key-id");
    const secret = headerValue(request, "apca-api-secret-key");
    if (authorization !== undefined && (keyId !== undefined || secret !== undefined)) refuse(reply, REALM);
    if (authorization !== undefined) {
      const token = BEARER.exec(authorization)?.[1];
      if (!token) refuse(reply, `${REALM}, error="invalid_request"`);
      // A token is bound to a live and/or a paper account of one user: either opens the user's data.
      const grant = (await accountForBearer(token, "live")) ?? (await accountForBearer(token, "paper"));
      if (!grant) refuse(reply, `${REALM}, error="invalid_token"`);
      return {
        principal: { userId: grant.account.user_id, via: "oauth" },
        rateKey: bearerRateKey(token),
        scopes: grant.scopes,
      };
    }
    if (keyId !== undefined && secret !== undefined) {
      const account = await keyPairs.authenticate(keyId, secret);
      if (!account) refuse(reply, REALM);
      return { principal: { userId: account.user_id, via: "key" }, rateKey: keyPairRateKey(keyId), scopes: "all" };
    }
    return refuse(reply, REALM);
  }

  return async function marketDataAuth(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { principal, rateKey, scopes } = await authenticate(request, reply);
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
    if (scopes !== "all" && !scopes.includes("data")) {
      refuse(reply, `${REALM}, error="insufficient_scope", scope="data"`, SCOPE_NOT_AUTHORIZED);
    }
    request.marketData = principal;
  };
}
