/** `GET /users/{user_id}/connections`: a user's provider connections with the providers' capabilities. */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { currentProviderName, PROVIDER_INPUT_NAMES } from "../domain/providers.ts";
import type { ConnectionsService } from "../services/connections.ts";
import type { ProviderConnections } from "../services/providerConnections.ts";
import { unauthorized } from "./dataEnvelope.ts";
import { throwAsHttpError } from "./oauth.ts";
import { ErrorBody, Nullable, StringEnum } from "./schemas.ts";

export const connectionsTag = { name: "Connections", description: "A user's links to wearable providers." };

const CONNECTION_EXAMPLE = {
  id: "0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
  user_id: "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12",
  provider: "garmin",
  provider_user_id: "garmin-user-42",
  provider_username: null,
  scope: null,
  status: "active",
  last_synced_at: "2026-05-01T06:00:00.000Z",
  created_at: "2026-04-01T10:00:00.000Z",
  updated_at: "2026-05-01T06:00:00.000Z",
  icon_url: "/static/provider-icons/garmin.svg",
  max_historical_days: 30,
  rest_pull: false,
  webhook_stream: true,
  webhook_ping: false,
  webhook_callback: true,
  live_sync_mode: "webhook",
  linked_user_ids: [],
};

const Connection = Type.Object({
  id: Type.String({ format: "uuid" }),
  user_id: Type.String({ format: "uuid" }),
  provider: Type.String(),
  provider_user_id: Nullable(Type.String()),
  provider_username: Nullable(Type.String()),
  scope: Nullable(Type.String()),
  status: Type.Union([Type.Literal("active"), Type.Literal("revoked"), Type.Literal("expired")]),
  last_synced_at: Nullable(Type.String({ format: "date-time" })),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
  icon_url: Nullable(Type.String({ description: "Relative URL of the provider's icon." })),
  max_historical_days: Nullable(Type.Integer()),
  rest_pull: Type.Boolean(),
  webhook_stream: Type.Boolean(),
  webhook_ping: Type.Boolean(),
  webhook_callback: Type.Boolean(),
  live_sync_mode: Nullable(Type.Union([Type.Literal("pull"), Type.Literal("webhook")])),
  linked_user_ids: Type.Array(Type.String({ format: "uuid" }), {
    description: "Other users connected to the same provider account.",
  }),
});

const UserPath = Type.Object({ user_id: Type.String({ format: "uuid" }) });

export function registerConnectionRoutes(app: HttpServer, connections: ConnectionsService) {
  app.get(
    "/users/:user_id/connections",
    {
      schema: {
        operationId: "listConnections",
        tags: [connectionsTag.name],
        summary: "Get connections",
        description: "The user's connections (tokens never included); an unknown user has none.",
        params: UserPath,
        response: {
          200: Type.Array(Connection, { examples: [[CONNECTION_EXAMPLE]] }),
          400: ErrorBody('path.user_id: must match format "uuid"'),
          ...unauthorized,
        },
      },
    },
    async (request) => connections.list(request.params.user_id),
  );
}

const UserProviderPath = Type.Object({
  user_id: Type.String({ format: "uuid" }),
  provider: StringEnum(PROVIDER_INPUT_NAMES),
});

/** `DELETE /users/{user_id}/connections/{provider}` and `…/data`: disconnecting, with or without the data. */
export function registerConnectionDeleteRoutes(app: HttpServer, providers: ProviderConnections) {
  for (const deleteData of [false, true]) {
    app.delete(
      deleteData ? "/users/:user_id/connections/:provider/data" : "/users/:user_id/connections/:provider",
      {
        schema: {
          operationId: deleteData ? "deleteProviderData" : "disconnectProvider",
          tags: [connectionsTag.name],
          summary: deleteData ? "Delete provider data" : "Disconnect provider",
          description: deleteData
            ? "Disconnects (as the route without `/data`) and deletes every data source, sample, workout, sleep " +
              "session and health score of the user that came from the provider."
            : "Revokes the connection's tokens at the vendor where it has an endpoint for it, forgets them and " +
              "removes the connection; the data it brought stays.",
          params: UserProviderPath,
          response: {
            204: Type.Null({ description: "Disconnected." }),
            400: ErrorBody('path.user_id: must match format "uuid"'),
            404: ErrorBody("No connection to strava found for user 3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12"),
            ...unauthorized,
          },
        },
      },
      async (request, reply) => {
        await providers
          .disconnect(request.params.user_id, currentProviderName(request.params.provider), { deleteData })
          .catch(throwAsHttpError);
        return reply.code(204).send(null);
      },
    );
  }
}
