/**
 * What the trading hosts' and the data host's authentication hooks share: reading a request's one credential
 * (`Authorization: Bearer <token>`, RFC 6750 §2.1, or an `APCA-API-KEY-ID` + `APCA-API-SECRET-KEY` key pair),
 * the anchor's 401 with RFC 6750 §3's challenge, and counting a request against its credential's rate limit
 * with the `X-Ratelimit-*` headers and the anchor's 429.
 */
import { type FailedCredentials, HttpError } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import { alpacaCode, NOT_AUTHORIZED, SCOPE_NOT_AUTHORIZED } from "./errorFormat.ts";
import { bearerRateKey, keyPairRateKey, TOO_MANY_REQUESTS, type TradingRateLimit } from "./rateLimit.ts";

/** A request's credential, and the key its rate limit counts it under (no secret in it). */
export type RequestCredential =
  | { kind: "token"; token: string; rateKey: string }
  | { kind: "key"; keyId: string; secret: string; rateKey: string };

/** RFC 6750 §2.1 b64token, bounded (our tokens are 43 characters). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{1,512}=*) *$/i;
export const REALM = 'Bearer realm="brokerage"';

const headerValue = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === "string" && value !== "" ? value : undefined;
};

/**
 * Refuses, before any lookup, a request from an address over kernel's limit on failed credentials: 429 with
 * the anchor's body `{"code":42910000,"message":"too many requests"}` and `Retry-After`.
 */
export async function refuseIfThrottled(
  failedCredentials: FailedCredentials | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  if (!failedCredentials) return;
  const wait = await failedCredentials.retryAfterSec(request.ip);
  if (wait === 0) return;
  reply.header("Retry-After", String(wait));
  throw new HttpError(429, TOO_MANY_REQUESTS, String(alpacaCode(429)));
}

/** Answers 401 `request is not authorized` with the challenge `Bearer realm="brokerage"[, error=…]`. */
export function refuseCredential(reply: FastifyReply, error?: "invalid_request" | "invalid_token"): never {
  reply.header("www-authenticate", error ? `${REALM}, error="${error}"` : REALM);
  throw new HttpError(401, NOT_AUTHORIZED, String(alpacaCode(401)));
}

/** Answers 401 `token is not authorized for this scope` (the anchor's body) naming the scope needed. */
export function refuseScope(reply: FastifyReply, scope: string): never {
  reply.header("www-authenticate", `${REALM}, error="insufficient_scope", scope="${scope}"`);
  throw new HttpError(401, SCOPE_NOT_AUTHORIZED, String(alpacaCode(401)));
}

/**
 * The request's one credential. None, both kinds at once (ambiguous, RFC 6750 §2), half a key pair or a
 * malformed bearer value: 401.
 */
export function credentialOf(request: FastifyRequest, reply: FastifyReply): RequestCredential {
  const authorization = headerValue(request, "authorization");
  const keyId = headerValue(request, "apca-api-key-id");
  const secret = headerValue(request, "apca-api-secret-key");
  if (authorization !== undefined && (keyId !== undefined || secret !== undefined)) refuseCredential(reply);
  if (authorization !== undefined) {
    const token = BEARER.exec(authorization)?.[1];
    if (!token) refuseCredential(reply, "invalid_request");
    return { kind: "token", token, rateKey: bearerRateKey(token) };
  }
  if (keyId !== undefined && secret !== undefined)
    return { kind: "key", keyId, secret, rateKey: keyPairRateKey(keyId) };
  return refuseCredential(reply);
}

/**
 * Counts the request against its credential's limit (every authenticated request counts, whatever its
 * answer) and sets the anchor's headers; over the limit, 429 `{"code":42910000}` with `Retry-After`.
 */
export async function countRequest(
  reply: FastifyReply,
  rateLimit: TradingRateLimit | undefined,
  credential: RequestCredential,
): Promise<void> {
  if (!rateLimit) return;
  const decision = await rateLimit.check(credential.rateKey);
  reply.header("X-Ratelimit-Limit", decision.limit);
  reply.header("X-Ratelimit-Remaining", decision.remaining);
  reply.header("X-Ratelimit-Reset", decision.reset);
  if (!decision.allowed) {
    reply.header("Retry-After", decision.retryAfter);
    throw new HttpError(429, TOO_MANY_REQUESTS, String(alpacaCode(429)));
  }
}
