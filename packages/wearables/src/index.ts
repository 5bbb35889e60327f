/**
 * The wearable health data API (Open Wearables compatible) under `/api/v1`; `wearablesService` is what
 * `platform start` runs. A request goes route (`http/`) → service (`services/`) → repository (`store/`).
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import {
  createFailedCredentials,
  createHttpServer,
  createJobWorker,
  createRateCounter,
  failureLimitOf,
  type HttpServer,
  loadMigrations,
  type PlatformContext,
  type ServiceDefinition,
  type ServiceInstance,
} from "@platform/kernel";
import { apiKeySecuritySchemes, createApiKeyAuth } from "./http/apiKeyAuth.ts";
import { createDataReadServices, type DataReadServices, registerDataReadRoutes } from "./http/dataRoutes.ts";
import { errorBody, formatError } from "./http/errorFormat.ts";
import { openapiTags } from "./http/openapiTags.ts";
import { openWearablesRequestBodies } from "./http/requestBodies.ts";
import { registerSummaryRoutes } from "./http/summaries.ts";
import { registerUserRoutes } from "./http/users.ts";
import { IMPORT_QUEUE } from "./imports/importJobs.ts";
import { createImportsModule, type ImportsModule } from "./imports/importsModule.ts";
import { createScoresJob, SCORES_QUEUE } from "./jobs/scoresJob.ts";
import { createSummariesService, type SummariesService } from "./services/summaries.ts";
import { createUsersService, type UsersService } from "./services/users.ts";
import { createSummariesRepository } from "./store/summariesRepository.ts";
import { createUsersRepository } from "./store/usersRepository.ts";
import { createProvidersModule, type ProvidersModule } from "./sync/providersModule.ts";
import { createWebhooksModule, type WebhooksModule } from "./webhooks/webhooksModule.ts";

export const BASE_PATH = "/api/v1";
/** Whose data `platform wearables demo-data` writes when no user is named. */
export const DEMO_USER_EMAIL = "demo@example.com";

/**
 * The wearables service for one platform context. Its background work runs on ONE kernel job worker (started
 * by `startJobs`, i.e. on worker instances) serving two queues: `wearables.import` (file imports, enqueued by
 * the upload's transaction, the file stored in the database so any instance's worker runs them) and
 * `wearables.scores` (the internal scores, one job per user and night, enqueued by the writers' transactions).
 */
export async function createWearables({ config, db, logger, apiKeys }: PlatformContext): Promise<ServiceInstance> {
  const log = logger.child({ service: "wearables" });
  const users = createUsersService(createUsersRepository(db));
  const read = createDataReadServices({ db });
  const summaries = createSummariesService({ repository: createSummariesRepository(db) });
  const webhooks = createWebhooksModule({ config, db, logger: log });
  const imports = createImportsModule({ db, logger: log.child({ job: "imports" }), outbox: webhooks.outbox });
  // Where each host listens, for the URLs the configuration does not set (the OAuth callback, the sandbox).
  const listening = new Map<"" | "sandbox", HttpServer>();
  const originOf = (host: "" | "sandbox") => {
    const address = listening.get(host)?.server.address();
    const port =
      typeof address === "object" && address
        ? address.port
        : host === ""
          ? config.wearablesPort
          : config.wearablesSandboxPort;
    return `http://${config.publicHost ?? config.host}:${port}`;
  };
  const providers = createProvidersModule({ config, db, logger: log, originOf, outbox: webhooks.outbox });
  return {
    async createServer(host?: string) {
      const app =
        host === "sandbox"
          ? await providers.createSandboxServer()
          : await createServer({ config, logger, apiKeys }, { users, read, summaries, imports, providers, webhooks });
      listening.set(host === "sandbox" ? "sandbox" : "", app);
      return app;
    },
    close: async () => {
      webhooks.close();
      await providers.close();
    },
    operatorCommands: {
      ...imports.operatorCommands,
      /** `{email?}` → the demo user (`demo@example.com` by default), created the first time. */
      "demo-user": async (args) => {
        const email = typeof args.email === "string" ? args.email : DEMO_USER_EMAIL;
        const found = await users.list({ page: 1, limit: 1, email, sortBy: "created_at", sortOrder: "asc" });
        const user =
          found.items[0] ??
          (await users.create({ email, first_name: "Demo", last_name: "User", external_user_id: null }));
        return { id: user.id, email: user.email };
      },
    },
    async startJobs() {
      const scores = createScoresJob({ db, logger: log });
      const worker = createJobWorker({
        db,
        logger: log,
        queues: {
          [IMPORT_QUEUE]: imports.queue,
          [SCORES_QUEUE]: scores.queue,
          ...providers.queues,
          ...webhooks.queues,
        },
        schedules: [...providers.schedules, ...webhooks.schedules],
      });
      await worker.start();
      return {
        stop: () => worker.stop(),
        status: () => ({
          worker: worker.status(),
          imports: imports.status(),
          scores: scores.status(),
          providers: providers.status(),
          webhooks: webhooks.status(),
        }),
      };
    },
  };
}

async function createServer(
  { config, logger, apiKeys }: Pick<PlatformContext, "config" | "logger" | "apiKeys">,
  services: {
    users: UsersService;
    read: DataReadServices;
    summaries: SummariesService;
    imports: ImportsModule;
    providers: ProvidersModule;
    webhooks: WebhooksModule;
  },
) {
  const app = await createHttpServer({
    logger: logger.child({ service: "wearables" }),
    bodyLimit: config.bodyLimit,
    bodies: openWearablesRequestBodies,
    trustProxy: config.trustProxy,
    formatError,
    openapi: {
      title: "Wearable Health Data API",
      version: "1.0.0",
      description: "Users, provider connections and health data from wearables; compatible with Open Wearables.",
      tags: openapiTags,
      securitySchemes: apiKeySecuritySchemes,
      security: [{ ServiceApiKey: [] }, { OpenWearablesApiKey: [] }],
      errors: errorBody,
    },
  });
  app.get("/", { schema: { hide: true } }, async () => ({ message: "Server is running!" }));
  const authFailures = createRateCounter(config.redisUrl);
  app.addHook("onClose", () => authFailures.close());
  const requireApiKey = createApiKeyAuth(
    apiKeys,
    createFailedCredentials({ counter: authFailures, service: "wearables", limit: failureLimitOf(config) }),
  );
  await app.register(
    async (api) => {
      api.addHook("onRequest", requireApiKey);
      const typed = api.withTypeProvider<TypeBoxTypeProvider>();
      registerUserRoutes(typed, services.users);
      registerDataReadRoutes(typed, services.read);
      registerSummaryRoutes(typed, services.summaries);
      services.imports.registerRoutes(typed);
      services.providers.registerRoutes(typed);
      services.webhooks.registerRoutes(typed);
    },
    { prefix: BASE_PATH },
  );
  // What a browser or a vendor reaches without an API key: the OAuth callback and its pages, vendors' pushes.
  await app.register(async (open) => services.providers.registerBrowserRoutes(open), { prefix: BASE_PATH });
  return app;
}

export const wearablesService: ServiceDefinition = {
  name: "wearables",
  title: "Wearable health data API",
  migrations: loadMigrations("wearables", new URL("../migrations", import.meta.url).pathname),
  port: (config) => config.wearablesPort,
  basePath: BASE_PATH,
  hosts: [
    {
      name: "sandbox",
      title: "Sandbox vendor (offline)",
      port: (config) => config.wearablesSandboxPort,
      basePath: "",
      enabled: (config) => config.wearablesSandbox,
    },
  ],
  create: createWearables,
};
export { GET_USER_SQL, listUsersSql } from "./store/usersRepository.ts";
