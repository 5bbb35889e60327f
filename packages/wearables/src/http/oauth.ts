/**
 * The vendors' OAuth as the anchor's `oauth.py`: `GET /oauth/providers`, `GET /oauth/{provider}/authorize`
 * (API key, as the spec requires of every endpoint; the anchor leaves these two open), and the browser's side,
 * which no API key can reach: the callback the vendor redirects to (`GET`, and `HEAD` for vendors that probe
 * it) and the success and error pages it ends on.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import type { VendorDirectory } from "../providers/registry.ts";
import type { ProviderConnections } from "../services/providerConnections.ts";
import { SyncRequestError } from "../services/providerSync.ts";
import { unauthorized } from "./dataEnvelope.ts";
import { ErrorBody, Nullable } from "./schemas.ts";

export const providersTag = {
  name: "Providers",
  description: "Wearable vendors: which are available, connecting a user to one (OAuth 2.0), syncing their data.",
};

const PROVIDER_EXAMPLE = {
  provider: "strava",
  name: "Strava",
  has_cloud_api: true,
  is_enabled: true,
  icon_url: "/static/provider-icons/strava.svg",
  live_sync_mode: "pull",
  live_sync_configurable: false,
  data_granularity: null,
};

const ProviderSettingRead = Type.Object(
  {
    provider: Type.String(),
    name: Type.String(),
    has_cloud_api: Type.Boolean(),
    is_enabled: Type.Boolean({ description: "False for a cloud vendor whose OAuth client is not configured." }),
    icon_url: Type.String(),
    live_sync_mode: Nullable(Type.Union([Type.Literal("pull"), Type.Literal("webhook")])),
    live_sync_configurable: Type.Boolean({ default: false }),
    data_granularity: Nullable(Type.Union([Type.Literal("daily"), Type.Literal("hourly"), Type.Literal("raw")])),
  },
  { examples: [PROVIDER_EXAMPLE] },
);

const ProviderPath = Type.Object({ provider: Type.String({ maxLength: 64 }) });

/** SyncRequestError → the answer the anchor gives. */
export function throwAsHttpError(error: unknown): never {
  if (error instanceof SyncRequestError) throw new HttpError(error.statusCode, error.message);
  throw error;
}

/** The routes behind the API key. */
export function registerOAuthRoutes(
  app: HttpServer,
  p: { directory: VendorDirectory; connections: ProviderConnections },
) {
  app.get(
    "/oauth/providers",
    {
      schema: {
        operationId: "listProviders",
        tags: [providersTag.name],
        summary: "List providers",
        description:
          "Every provider of the anchor (and the `sandbox` offline vendor when it runs), with whether it can be " +
          "connected here: a cloud vendor is enabled once its OAuth client is configured.",
        querystring: Type.Object({
          enabled_only: Type.Boolean({ default: false }),
          cloud_only: Type.Boolean({ default: false }),
        }),
        response: { 200: Type.Array(ProviderSettingRead, { examples: [[PROVIDER_EXAMPLE]] }), ...unauthorized },
      },
    },
    async (request) =>
      p.directory
        .providers()
        .filter((r) => (!request.query.enabled_only || r.is_enabled) && (!request.query.cloud_only || r.has_cloud_api)),
  );

  app.get(
    "/oauth/:provider/authorize",
    {
      schema: {
        operationId: "authorizeProvider",
        tags: [providersTag.name],
        summary: "Get provider authorization URL",
        description:
          "The vendor's consent URL to send the user's browser to, and its `state` (single use, valid 15 minutes; " +
          "PKCE where the vendor uses it). After consent the vendor redirects to this API's callback, which " +
          "stores the connection, starts its historical sync, and redirects the browser to `redirect_uri`.",
        params: ProviderPath,
        querystring: Type.Object({
          user_id: Type.String({ format: "uuid" }),
          redirect_uri: Type.Optional(
            Nullable(
              Type.String({
                format: "uri",
                pattern: "^https?://",
                maxLength: 2000,
                description: "Where the user lands at the end.",
              }),
            ),
          ),
        }),
        response: {
          200: Type.Object(
            { authorization_url: Type.String(), state: Type.String() },
            {
              examples: [
                {
                  authorization_url:
                    "https://www.strava.com/oauth/authorize?response_type=code&client_id=12345&redirect_uri=…&state=…",
                  state: "6Qk0…",
                },
              ],
            },
          ),
          400: ErrorBody("Provider 'apple' does not support OAuth"),
          404: ErrorBody("User not found"),
          ...unauthorized,
        },
      },
    },
    async (request) =>
      p.connections
        .authorize(request.params.provider, request.query.user_id, request.query.redirect_uri ?? null)
        .catch(throwAsHttpError),
  );
}

/** The browser's routes: no API key (a vendor's redirect cannot carry one); the state authenticates. */
export function registerOAuthBrowserRoutes(app: HttpServer, p: { connections: ProviderConnections }) {
  const CallbackQuery = Type.Object({
    code: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
    state: Type.Optional(Nullable(Type.String({ maxLength: 512 }))),
    error: Type.Optional(Nullable(Type.String({ maxLength: 512 }))),
    error_description: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  });
  app.get(
    "/oauth/:provider/callback",
    {
      // HEAD has its own answer (200 for a vendor's probe), not the callback's.
      exposeHeadRoute: false,
      schema: {
        operationId: "oauthCallback",
        tags: [providersTag.name],
        summary: "OAuth callback",
        description:
          "Where the vendor sends the browser after consent: exchanges the code, stores the connection (tokens " +
          "encrypted), queues its historical sync and answers 303 to the `redirect_uri` given to authorize (else " +
          "to `/oauth/success`). A vendor's error → 303 to `/oauth/error`. No API key: the state authenticates.",
        security: [],
        params: ProviderPath,
        querystring: CallbackQuery,
        response: {
          303: Type.Null({ description: "Redirect to the caller's redirect_uri, or the success or error page." }),
          400: ErrorBody("Invalid or expired state parameter"),
        },
      },
    },
    async (request, reply) => {
      const outcome = await p.connections.callback(request.params.provider, request.query).catch(throwAsHttpError);
      if ("redirect" in outcome) return reply.redirect(outcome.redirect, 303);
      throw new HttpError(outcome.statusCode, outcome.detail);
    },
  );
  app.head(
    "/oauth/:provider/callback",
    {
      // In the OpenAPI document (HEAD routes are left out unless a route asks), as the anchor's 0.9 has it.
      config: { swagger: { exposeHeadRoute: true } },
      schema: {
        operationId: "probeOauthCallback",
        tags: [providersTag.name],
        summary: "Probe OAuth callback",
        description: "Answers 200: some vendors check that the callback URL exists before they accept it.",
        security: [],
        params: ProviderPath,
        response: { 200: Type.Null({ description: "The callback exists." }) },
      },
    },
    async (_request, reply) => reply.code(200).send(null),
  );
  app.get(
    "/oauth/success",
    {
      schema: {
        operationId: "oauthSuccess",
        tags: [providersTag.name],
        summary: "OAuth success",
        description: "Where the browser ends when authorize was given no `redirect_uri`.",
        security: [],
        querystring: Type.Object({
          provider: Type.String({ maxLength: 64 }),
          user_id: Type.String({ format: "uuid" }),
        }),
        response: {
          200: Type.Object(
            { success: Type.Boolean(), message: Type.String(), user_id: Type.String(), provider: Type.String() },
            {
              examples: [
                {
                  success: true,
                  message: "Successfully connected to strava",
                  user_id: "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12",
                  provider: "strava",
                },
              ],
            },
          ),
        },
      },
    },
    async (request) => ({
      success: true,
      message: `Successfully connected to ${request.query.provider}`,
      user_id: request.query.user_id,
      provider: request.query.provider,
    }),
  );
  app.get(
    "/oauth/error",
    {
      schema: {
        operationId: "oauthError",
        tags: [providersTag.name],
        summary: "OAuth error",
        description:
          "Where the browser ends when the vendor refused or the callback lacked its parameters; no connection " +
          "was made.",
        security: [],
        querystring: Type.Object({ message: Type.Optional(Type.String({ maxLength: 2048 })) }),
        response: {
          200: Type.Object(
            { success: Type.Boolean(), message: Type.String() },
            { examples: [{ success: false, message: "access_denied: The user denied the request" }] },
          ),
        },
      },
    },
    async (request) => ({ success: false, message: request.query.message ?? "OAuth error" }),
  );
}
