/**
 * Every wearables endpoint takes an API key in `X-Service-API-Key` (the spec) or
 * `X-Open-Wearables-API-Key` (the anchor's header, accepted so its clients work unchanged).
 */
import { type ApiKeyStore, HttpError } from "@platform/kernel";
import type { FastifyRequest } from "fastify";

export const API_KEY_HEADERS = ["x-service-api-key", "x-open-wearables-api-key"] as const;

export const apiKeySecuritySchemes = {
  ServiceApiKey: { type: "apiKey", in: "header", name: "X-Service-API-Key" },
  OpenWearablesApiKey: { type: "apiKey", in: "header", name: "X-Open-Wearables-API-Key" },
};

export function createApiKeyAuth(apiKeys: ApiKeyStore) {
  return async function requireApiKey(request: FastifyRequest): Promise<void> {
    const presented = API_KEY_HEADERS.map((h) => request.headers[h]).find((v) => typeof v === "string" && v !== "");
    if (typeof presented !== "string") {
      throw new HttpError(401, "Authentication required: provide an API key in the X-Service-API-Key header");
    }
    const key = await apiKeys.verify("wearables", presented);
    if (!key) throw new HttpError(401, "Invalid or missing API key");
  };
}
