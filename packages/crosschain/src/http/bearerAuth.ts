/**
 * Every crosschain endpoint takes `Authorization: Bearer <API_KEY>` (keys of service `crosschain`). Wrong keys
 * count against the client's address (kernel's failed-credentials limit): over it, 429 `TOO_MANY_REQUESTS`
 * with `Retry-After`, before the key is looked up.
 */
import { type ApiKeyStore, type FailedCredentials, HttpError } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";

export const bearerSecurityScheme = { bearerAuth: { type: "http", scheme: "bearer" } };

export function createBearerAuth(apiKeys: ApiKeyStore, failedCredentials: FailedCredentials) {
  return async function requireBearer(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    const match = typeof header === "string" ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new HttpError(401, "Missing API key: send Authorization: Bearer <API_KEY>", "UNAUTHORIZED");
    await failedCredentials.assertAllowed(request, reply);
    if (!(await apiKeys.verify("crosschain", match[1] as string))) {
      await failedCredentials.recordFailure(request.ip);
      throw new HttpError(401, "Invalid API key", "UNAUTHORIZED");
    }
  };
}
