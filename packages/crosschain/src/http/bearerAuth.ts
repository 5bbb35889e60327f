/** Every crosschain endpoint takes `Authorization: Bearer <API_KEY>` (keys of service `crosschain`). */
import { type ApiKeyStore, HttpError } from "@platform/kernel";
import type { FastifyRequest } from "fastify";

export const bearerSecurityScheme = { bearerAuth: { type: "http", scheme: "bearer" } };

export function createBearerAuth(apiKeys: ApiKeyStore) {
  return async function requireBearer(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    const match = typeof header === "string" ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new HttpError(401, "Missing API key: send Authorization: Bearer <API_KEY>", "UNAUTHORIZED");
    if (!(await apiKeys.verify("crosschain", match[1] as string))) {
      throw new HttpError(401, "Invalid API key", "UNAUTHORIZED");
    }
  };
}
