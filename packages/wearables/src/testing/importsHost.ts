/**
 * The wearables service with its import routes and import jobs, for the import tests (`startTestService`):
 * the routes and API key check as `src/index.ts` serves them, with a small upload limit and small chunks; its
 * `startJobs` runs a kernel job worker of the import queue (polling every 100 ms besides the notifications).
 */
import {
  createFailedCredentials,
  createHttpServer,
  createJobWorker,
  createMemoryRateCounter,
  failureLimitOf,
  type ServiceDefinition,
  type ServiceInstance,
} from "@platform/kernel";
import { apiKeySecuritySchemes, createApiKeyAuth } from "../http/apiKeyAuth.ts";
import { formatError } from "../http/errorFormat.ts";
import { importsTag } from "../http/openapiTags.ts";
import { openWearablesRequestBodies } from "../http/requestBodies.ts";
import { IMPORT_QUEUE } from "../imports/importJobs.ts";
import { createImportsModule, type ImportsModule } from "../imports/importsModule.ts";
import { BASE_PATH, wearablesService } from "../index.ts";

export interface ImportsTestInstance extends ServiceInstance {
  imports: ImportsModule;
}

/** `maxUploadBytes` small enough for a test to exceed it. */
export function importsTestService(maxUploadBytes = 4 * 1024 * 1024): ServiceDefinition<ImportsTestInstance> {
  return {
    ...wearablesService,
    async create({ config, db, logger, apiKeys }) {
      const imports = createImportsModule({ db, logger, maxUploadBytes, chunkItems: 100 });
      return {
        imports,
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
          const worker = createJobWorker({
            db,
            logger,
            pollIntervalMs: 100,
            queues: { [IMPORT_QUEUE]: imports.queue },
          });
          await worker.start();
          return { stop: () => worker.stop(), status: () => worker.status() };
        },
      };
    },
  };
}
