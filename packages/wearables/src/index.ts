/**
 * The wearable health data API (Open Wearables compatible): `createServer` builds its HTTP server
 * under `/api/v1` from the platform context; `wearablesService` is what `platform start` runs.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { createHttpServer, loadMigrations, type PlatformContext, type ServiceDefinition } from "@platform/kernel";
import { apiKeySecuritySchemes, createApiKeyAuth } from "./http/apiKeyAuth.ts";
import { formatError } from "./http/errorFormat.ts";
import { registerUserRoutes } from "./http/users.ts";
import { createUsersRepository } from "./store/usersRepository.ts";

export const BASE_PATH = "/api/v1";

async function createServer({ config, db, logger, apiKeys }: PlatformContext) {
  const app = await createHttpServer({
    logger: logger.child({ service: "wearables" }),
    bodyLimit: config.bodyLimit,
    formatError,
    openapi: {
      title: "Wearable Health Data API",
      version: "1.0.0",
      description: "Users, provider connections and health data from wearables; compatible with Open Wearables.",
      securitySchemes: apiKeySecuritySchemes,
      security: [{ ServiceApiKey: [] }, { OpenWearablesApiKey: [] }],
    },
  });
  app.get("/", { schema: { hide: true } }, async () => ({ message: "Server is running!" }));
  const requireApiKey = createApiKeyAuth(apiKeys);
  await app.register(
    async (api) => {
      api.addHook("onRequest", requireApiKey);
      registerUserRoutes(api.withTypeProvider<TypeBoxTypeProvider>(), createUsersRepository(db));
    },
    { prefix: BASE_PATH },
  );
  return app;
}

export const wearablesService: ServiceDefinition = {
  name: "wearables",
  title: "Wearable health data API",
  migrations: loadMigrations("wearables", new URL("../migrations", import.meta.url).pathname),
  port: (config) => config.wearablesPort,
  basePath: BASE_PATH,
  createServer,
};
export { GET_USER_SQL, listUsersSql } from "./store/usersRepository.ts";
