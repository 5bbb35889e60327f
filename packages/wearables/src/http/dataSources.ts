/** `GET /users/{user_id}/data-sources`: the devices and apps a user's data came from. */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { PROVIDER_NAMES } from "../domain/providers.ts";
import type { DataSourcesService } from "../services/dataSources.ts";
import { unauthorized } from "./dataEnvelope.ts";
import { ErrorBody, Nullable, StringEnum } from "./schemas.ts";

export const dataSourcesTag = {
  name: "Data sources",
  description: "One per user, provider, device model and source app; every sample and event names one.",
};

const DATA_SOURCE_EXAMPLE = {
  id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
  user_id: "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12",
  provider: "garmin",
  user_connection_id: null,
  device_model: "Forerunner 255",
  software_version: "21.19",
  source: "fit_file",
  device_type: "watch",
  original_source_name: null,
  display_name: "Garmin - Forerunner 255",
};

const DataSource = Type.Object({
  id: Type.String({ format: "uuid" }),
  user_id: Type.String({ format: "uuid" }),
  provider: StringEnum(PROVIDER_NAMES, { description: "The anchor's 0.9 provider name." }),
  user_connection_id: Nullable(Type.String({ format: "uuid" })),
  device_model: Nullable(Type.String()),
  software_version: Nullable(Type.String()),
  source: Nullable(Type.String()),
  device_type: Nullable(Type.String()),
  original_source_name: Nullable(Type.String()),
  display_name: Type.String({ description: "Provider, then device model or original source name." }),
});

const UserPath = Type.Object({ user_id: Type.String({ format: "uuid" }) });

export function registerDataSourceRoutes(app: HttpServer, dataSources: DataSourcesService) {
  app.get(
    "/users/:user_id/data-sources",
    {
      schema: {
        operationId: "listDataSources",
        tags: [dataSourcesTag.name],
        summary: "Get user data sources",
        description: "Ordered by provider, then device model; an unknown user has none.",
        params: UserPath,
        response: {
          200: Type.Object(
            { items: Type.Array(DataSource), total: Type.Integer() },
            { examples: [{ items: [DATA_SOURCE_EXAMPLE], total: 1 }] },
          ),
          400: ErrorBody('path.user_id: must match format "uuid"'),
          ...unauthorized,
        },
      },
    },
    async (request) => dataSources.list(request.params.user_id),
  );
}
