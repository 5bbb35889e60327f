/**
 * Every wearables endpoint takes an API key in `X-Service-API-Key` (the spec) or
 * `X-Open-Wearables-API-Key` (the anchor's header, accepted so its clients work unchanged). Wrong keys count
 * against the client's address (kernel's failed-credentials limit): over it, 429 `{detail}` with
 * `Retry-After`, before the key is looked up.
 */
import { type ApiKeyStore, type FailedCredentials, HttpError } from "@platform/kernel";
import type { FastifyReply, FastifyRequest } from "fastify";

export const API_KEY_HEADERS = ["x-service-api-key", "x-open-wearables-api-key"] as const;

export const apiKeySecuritySchemes = {
  ServiceApiKey: { type: "apiKey", in: "header", name: "X-Service-API-Key" },
  OpenWearablesApiKey: { type: "apiKey", in: "header", name: "X-Open-Wearables-API-Key" },
};

export function createApiKeyAuth(apiKeys: ApiKeyStore, failedCredentials: FailedCredentials) {
  return async function requireApiKey(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const presented = API_KEY_HEADERS.map((h) => request.headers[h]).find((v) => typeof v === "string" && v !== "");
    if (typeof presented !== "string") {
      throw new HttpError(401, "Authentication required: provide an API key in the X-Service-API-Key header");
    }
    await failedCredentials.assertAllowed(request, reply);
    const key = await apiKeys.verify("wearables", presented);
    if (!key) {
      await failedCredentials.recordFailure(request.ip);
      throw new HttpError(401, "Invalid or missing API key");
    }
  };
}
