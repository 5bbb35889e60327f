/**
 * For the summaries routes' tests: the wearables service with the summaries routes registered the way
 * `index.ts` registers routes (same error format, same API key hook), until `index.ts` wires them itself —
 * then this definition is that service. `now` fixes the body summary's clock.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import {
  createFailedCredentials,
  createHttpServer,
  createMemoryRateCounter,
  failureLimitOf,
  type ServiceDefinition,
} from "@platform/kernel";
import { BASE_PATH, wearablesService } from "../index.ts";
import { createSummariesService } from "../services/summaries.ts";
import { createSummariesRepository } from "../store/summariesRepository.ts";
import { createApiKeyAuth } from "./apiKeyAuth.ts";
import { formatError } from "./errorFormat.ts";
import { openapiTags } from "./openapiTags.ts";
import { registerSummaryRoutes } from "./summaries.ts";

export function summariesTestService(now: () => number): ServiceDefinition {
  return {
    ...wearablesService,
    create: async (context) => {
      const base = await wearablesService.create(context);
      return {
        ...base,
        createServer: async () => {
          const app = await createHttpServer({
            logger: context.logger.child({ service: "wearables" }),
            bodyLimit: context.config.bodyLimit,
            formatError,
            openapi: {
              title: "Wearable Health Data API",
              version: "1.0.0",
              description: "Summaries routes under test.",
              tags: openapiTags,
            },
          });
          const requireApiKey = createApiKeyAuth(
            context.apiKeys,
            createFailedCredentials({
              counter: createMemoryRateCounter(),
              service: "wearables",
              limit: failureLimitOf(context.config),
            }),
          );
          const summaries = createSummariesService({ repository: createSummariesRepository(context.db), now });
          await app.register(
            async (api) => {
              api.addHook("onRequest", requireApiKey);
              registerSummaryRoutes(api.withTypeProvider<TypeBoxTypeProvider>(), summaries);
            },
            { prefix: BASE_PATH },
          );
          return app;
        },
      };
    },
  };
}
