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
import { type FailedCredentials, HttpError } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { DataPrincipal, DataPrincipals } from "../../services/dataPrincipals.ts";
import { alpacaCode, NOT_AUTHORIZED } from "../trading/errorFormat.ts";
import type { TradingRateLimit } from "../trading/rateLimit.ts";
import {
  countRequest,
  credentialOf,
  refuseCredential,
  refuseIfThrottled,
  refuseScope,
} from "../trading/requestCredentials.ts";

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
  /** Unknown tokens and key pairs per client address (kernel's limit; 429 over it); none counted without. */
  failedCredentials?: FailedCredentials;
}

/** The principal of a request that passed the hook. */
export function dataPrincipalOf(request: FastifyRequest): DataPrincipal {
  if (!request.marketData) throw new HttpError(401, NOT_AUTHORIZED, String(alpacaCode(401)));
  return request.marketData;
}

/** The onRequest hook of the data host's routes. */
export function createMarketDataAuth({ principals, rateLimit, failedCredentials }: MarketDataAuthParameters) {
  return async function marketDataAuth(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const credential = credentialOf(request, reply);
    await refuseIfThrottled(failedCredentials, request, reply);
    const principal =
      credential.kind === "token"
        ? await principals.byAccessToken(credential.token)
        : await principals.byKeyPair(credential.keyId, credential.secret);
    if (!principal) {
      await failedCredentials?.recordFailure(request.ip);
      refuseCredential(reply, credential.kind === "token" ? "invalid_token" : undefined);
    }
    await countRequest(reply, rateLimit, credential);
    if (!principal.scopes.includes("data")) refuseScope(reply, "data");
    request.marketData = principal;
  };
}
