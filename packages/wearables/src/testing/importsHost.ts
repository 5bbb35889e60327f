/**
 * The wearables service with its import routes and import runner, for the import tests (`startTestService`):
 * the routes and API key check as `src/index.ts` serves them, the uploads in a temporary folder, the runner
 * polling every 50 ms. Once index.ts wires the imports module in, `wearablesService` itself serves the same.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createFailedCredentials,
  createHttpServer,
  createMemoryRateCounter,
  failureLimitOf,
  type ServiceDefinition,
  type ServiceInstance,
} from "@platform/kernel";
import { apiKeySecuritySchemes, createApiKeyAuth } from "../http/apiKeyAuth.ts";
import { formatError } from "../http/errorFormat.ts";
import { importsTag } from "../http/openapiTags.ts";
import { openWearablesRequestBodies } from "../http/requestBodies.ts";
import { createImportsModule, type ImportsModule } from "../imports/importsModule.ts";
import { BASE_PATH, wearablesService } from "../index.ts";

export interface ImportsTestInstance extends ServiceInstance {
  imports: ImportsModule;
  /** The uploads folder. */
  dir: string;
}

/** `maxUploadBytes` small enough for a test to exceed it. */
export function importsTestService(maxUploadBytes = 4 * 1024 * 1024): ServiceDefinition<ImportsTestInstance> {
  return {
    ...wearablesService,
    async create({ config, db, logger, apiKeys }) {
      const dir = mkdtempSync(join(tmpdir(), "wearables-uploads-"));
      const imports = createImportsModule({ db, logger, dir, maxUploadBytes, pollMs: 50, chunkItems: 100 });
      return {
        imports,
        dir,
        async createServer() {
          const app = await createHttpServer({
            logger,
            bodyLimit: config.bodyLimit,
            bodies: openWearablesRequestBodies,
            formatError,
            openapi: {
              title: "Wearable Health Data API",
              version: "1.0.0",
              description: "imports test host",
              tags: [importsTag],
              securitySchemes: apiKeySecuritySchemes,
              security: [{ ServiceApiKey: [] }],
            },
          });
          const requireApiKey = createApiKeyAuth(
            apiKeys,
            createFailedCredentials({
              counter: createMemoryRateCounter(),
              service: "wearables",
              limit: failureLimitOf(config),
            }),
          );
          await app.register(
            async (api) => {
              api.addHook("onRequest", requireApiKey);
              imports.registerRoutes(api);
            },
            { prefix: BASE_PATH },
          );
          return app;
        },
        async startJobs() {
          imports.runner.start();
          return { stop: () => imports.runner.stop(), status: () => imports.runner.status() };
        },
        async close() {
          await imports.runner.stop();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}
