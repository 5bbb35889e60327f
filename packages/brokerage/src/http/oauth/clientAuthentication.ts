/**
 * Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1): `client_secret_basic`
 * (HTTP Basic with the form-urlencoded client_id and client_secret) or `client_secret_post` (both in the
 * body), never both at once (RFC 6749 §2.3). Every failure is `invalid_client` (401), except a request that
 * mixes the two methods, which is malformed (`invalid_request`).
 */
import type { FailedCredentials } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";
import { OAuthError } from "../../domain/oauthErrors.ts";
import { type FormParameters, MAX_PARAMETER_LENGTH } from "./formEndpoint.ts";

/** How the client's secret is checked (the clients service: constant time; unknown or revoked → undefined). */
export interface ClientAuthenticator {
  authenticate(clientId: string, clientSecret: string): Promise<{ client_id: string } | undefined>;
}

export type ClientAuthenticationMethod = "client_secret_basic" | "client_secret_post";

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  method: ClientAuthenticationMethod;
}

const invalidClient = (description: string) => new OAuthError("invalid_client", description);

/** `application/x-www-form-urlencoded` decoding of one Basic credential (`+` is a space); undefined if malformed. */
function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}

/**
 * The client's credentials from the `Authorization` header or the body.
 * @throws {OAuthError} `invalid_client` (none, malformed, or another scheme), `invalid_request` (both methods).
 */
export function clientCredentials(authorization: string | undefined, form: FormParameters): ClientCredentials {
  if (authorization === undefined) {
    const { client_id: clientId, client_secret: clientSecret } = form;
    if (clientId === undefined || clientSecret === undefined) {
      throw invalidClient("client authentication required (client_secret_basic or client_secret_post)");
    }
    return { clientId, clientSecret, method: "client_secret_post" };
  }
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization);
  if (!match) throw invalidClient("the Authorization header is not HTTP Basic client authentication");
  const decoded = Buffer.from(match[1] as string, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const clientId = colon > 0 ? formDecode(decoded.slice(0, colon)) : undefined;
  const clientSecret = colon > 0 ? formDecode(decoded.slice(colon + 1)) : undefined;
  if (
    !clientId ||
    !clientSecret ||
    clientId.length > MAX_PARAMETER_LENGTH ||
    clientSecret.length > MAX_PARAMETER_LENGTH
  ) {
    throw invalidClient("malformed HTTP Basic client credentials");
  }
  if (form.client_secret !== undefined) {
    throw new OAuthError(
      "invalid_request",
      "use one client authentication method: HTTP Basic or client_secret, not both",
    );
  }
  if (form.client_id !== undefined && form.client_id !== clientId) {
    throw new OAuthError("invalid_request", "client_id differs from the client of the Authorization header");
  }
  return { clientId, clientSecret, method: "client_secret_basic" };
}

/**
 * Authenticates the request's client; its client_id.
 * @throws {OAuthError} as {@link clientCredentials}, and `invalid_client` for an unknown or revoked client or
 * a wrong secret (one message for all three: which one it was is no business of the caller).
 */
export async function authenticateClient(
  clients: ClientAuthenticator,
  authorization: string | undefined,
  form: FormParameters,
): Promise<string> {
  const { clientId, clientSecret } = clientCredentials(authorization, form);
  const client = await clients.authenticate(clientId, clientSecret);
  if (!client) throw invalidClient("client authentication failed");
  return client.client_id;
}

/**
 * Runs the handling of a token or revocation request under kernel's limit on failed credentials per client
 * address: over it, 429 `temporarily_unavailable` with `Retry-After` before the client is looked up;
 * `invalid_client` (client authentication failed) and `invalid_grant` (a wrong code) count as failures.
 * Without a limit (`failedCredentials` undefined) it just runs `handle`.
 */
export async function underFailureLimit<T>(
  failedCredentials: FailedCredentials | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  handle: () => Promise<T>,
): Promise<T> {
  if (!failedCredentials) return handle();
  await failedCredentials.assertAllowed(request, reply);
  try {
    return await handle();
  } catch (error) {
    if (error instanceof OAuthError && (error.error === "invalid_client" || error.error === "invalid_grant")) {
      await failedCredentials.recordFailure(request.ip);
    }
    throw error;
  }
}
