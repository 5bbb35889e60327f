/**
 * Everything about provider connections and sync, built once per platform context: the vendor directory
 * (adapters with their configured clients and origins), the sealed-token stores, the vendor sessions with their
 * shared rate budgets, the services behind the routes, the sync job and the scheduled pull, and the sandbox
 * vendor's cloud (a host of its own).
 *
 * @example
 * const providers = createProvidersModule({ config, db, logger, originOf });
 * // api routes: providers.registerRoutes(api); browser routes: providers.registerBrowserRoutes(app)
 * // jobs: createJobWorker({ …, queues: { ...providers.queues }, schedules: providers.schedules })
 */
import {
  type Config,
  createConfiguredSecretBox,
  createHttpServer,
  createLeases,
  createRateCounter,
  type Database,
  type HttpServer,
  type Logger,
  listJobs,
  type QueueDefinition,
  type ScheduleDefinition,
} from "@platform/kernel";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { registerConnectionDeleteRoutes } from "../http/connections.ts";
import { registerOAuthBrowserRoutes, registerOAuthRoutes } from "../http/oauth.ts";
import { registerProviderSyncRoutes } from "../http/providerSync.ts";
import { registerProviderWebhookRoutes } from "../http/providerWebhooks.ts";
import { registerSyncStatusRoutes } from "../http/syncStatus.ts";
import { createVendorDirectory, SANDBOX_CLIENT, type VendorDirectory } from "../providers/registry.ts";
import { createSandboxCloud } from "../sandbox/sandboxCloud.ts";
import { createProviderConnections, type ProviderConnections } from "../services/providerConnections.ts";
import { createProviderPush } from "../services/providerPush.ts";
import { createProviderSyncService, type ProviderSyncService } from "../services/providerSync.ts";
import { createConnectionsStore } from "../store/connectionsRepository.ts";
import { createHealthDataWriter } from "../store/healthDataWriter.ts";
import { createOAuthStatesRepository } from "../store/oauthStatesRepository.ts";
import { createSyncRunsRepository } from "../store/syncRunsRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { withWebhookEvents } from "../webhooks/eventingWriter.ts";
import { createWebhookOutbox, type WebhookOutbox } from "../webhooks/webhookOutbox.ts";
import { createSyncJob, SYNC_QUEUE } from "./syncJob.ts";
import { createSyncRunLifecycle } from "./syncRunLifecycle.ts";
import { createVendorSessions } from "./vendorSession.ts";

export const SCHEDULED_SYNC_QUEUE = "wearables.sync-schedule";

export interface CreateProvidersModuleParameters {
  config: Config;
  db: Database;
  logger: Logger;
  /** Where a host of the service listens now (`""` the API, `"sandbox"` the sandbox), for URLs not configured. */
  originOf(host: "" | "sandbox"): string;
  /** Where connection, sync and data events go (default: an outbox of its own; it keeps no state). */
  outbox?: WebhookOutbox;
  fetch?: typeof fetch;
}

export interface ProvidersModule {
  directory: VendorDirectory;
  connections: ProviderConnections;
  sync: ProviderSyncService;
  /** Routes behind the API key. */
  registerRoutes(api: HttpServer): void;
  /** Routes a browser or a vendor reaches without an API key (callback, success and error pages, pushes). */
  registerBrowserRoutes(app: HttpServer): Promise<void>;
  queues: Record<string, QueueDefinition<never>>;
  schedules: ScheduleDefinition[];
  /** The sandbox vendor's cloud as a server (not listening). */
  createSandboxServer(): Promise<HttpServer>;
  status(): Record<string, unknown>;
  close(): Promise<void>;
}

export function createProvidersModule(p: CreateProvidersModuleParameters): ProvidersModule {
  const { config, db } = p;
  const log = p.logger.child({ component: "providers" });
  const secrets = createConfiguredSecretBox(config);
  const directory = createVendorDirectory({ config, sandboxOrigin: () => p.originOf("sandbox") });
  const connectionsStore = createConnectionsStore(db);
  const runs = createSyncRunsRepository(db);
  const outbox = p.outbox ?? createWebhookOutbox();
  const writer = withWebhookEvents(createHealthDataWriter(), outbox);
  const lifecycle = createSyncRunLifecycle({ runs, outbox });
  const counter = createRateCounter(config.redisUrl);
  const sessions = createVendorSessions({
    directory,
    secrets,
    store: connectionsStore,
    leases: createLeases({ db }),
    counter,
    fetch: p.fetch,
  });
  const sync = createProviderSyncService({ db, directory, connections: connectionsStore, runs });
  const apiBaseUrl = () => `${(config.wearablesPublicUrl ?? p.originOf("")).replace(/\/+$/, "")}/api/v1`;
  const connections = createProviderConnections({
    db,
    directory,
    secrets,
    states: createOAuthStatesRepository(db),
    connections: connectionsStore,
    users: createUsersRepository(db),
    sync,
    outbox,
    apiBaseUrl,
    historicalDaysOnConnect: config.wearablesHistoricalDaysOnConnect,
    budgetOf: (adapter) => sessions.budgetOf(adapter),
    fetch: p.fetch,
  });
  const push = createProviderPush({ db, connections: connectionsStore, runs, lifecycle, sync, writer, outbox });
  const syncJob = createSyncJob({
    db,
    logger: log,
    runs,
    connections: connectionsStore,
    sessions,
    lifecycle,
    writer,
    outbox,
  });
  const scheduled = { passes: 0, queued: 0 };

  const pullProviders = () =>
    directory
      .providers()
      .filter((r) => r.is_enabled && r.live_sync_mode === "pull")
      .map((r) => r.provider);

  const scheduleQueue: QueueDefinition<unknown> = {
    concurrency: 1,
    timeoutMs: 10 * 60_000,
    handler: async (job) => {
      // A run whose job died (its attempts spent without a page committed, the last one killed) would stay
      // open and keep its connection "busy" for good: it is failed here, so the next pulls go on.
      // Dead jobs stay listed for good: only the runs among them still open are touched (one query a pass).
      const deadJobs = new Map<string, { attempts: number; last_error: string | null }>();
      for (const dead of await listJobs(db, { queue: SYNC_QUEUE, state: "dead", limit: 1_000 })) {
        const runId = (dead.payload as { runId?: unknown } | null)?.runId;
        if (typeof runId === "string" && /^[0-9a-f-]{36}$/.test(runId)) deadJobs.set(runId, dead);
      }
      const stuck = deadJobs.size ? await runs.openRuns(db, [...deadJobs.keys()]) : [];
      for (const run of stuck) {
        const dead = deadJobs.get(run.id);
        await db.transaction((tx) =>
          lifecycle.finish(tx, run, {
            status: "failed",
            message: `its job died after ${dead?.attempts ?? 0} attempts`,
            error: dead?.last_error ?? "job dead",
          }),
        );
      }
      // One live pull per active connection of a pulling vendor, unless one is queued or running already.
      for (const c of await connectionsStore.listActive(pullProviders())) {
        job.signal.throwIfAborted();
        const adapter = directory.adapter(c.provider);
        if (!adapter) continue;
        await db.transaction(async (tx) => {
          const [busy] = await tx.query(
            "SELECT 1 FROM wearables.sync_runs WHERE connection_id = $1 AND ended_at IS NULL LIMIT 1",
            [c.id],
          );
          if (busy) return;
          const end = Date.now();
          await sync.enqueueRun(tx, c, {
            source: "pull",
            scope: "live",
            kinds: [...adapter.kinds],
            start: c.synced_until?.getTime() ?? end - 7 * 86_400_000,
            end,
            message: "scheduled sync",
          });
          scheduled.queued += 1;
        });
      }
      scheduled.passes += 1;
    },
  };

  return {
    directory,
    connections,
    sync,
    registerRoutes(api) {
      registerOAuthRoutes(api, { directory, connections });
      registerProviderSyncRoutes(api, { sync, sessions, connections: connectionsStore });
      registerSyncStatusRoutes(api, runs);
      registerConnectionDeleteRoutes(api, connections);
    },
    async registerBrowserRoutes(app) {
      registerOAuthBrowserRoutes(app, { connections });
      await app.register(async (scope) => registerProviderWebhookRoutes(scope, { directory, push }));
    },
    queues: {
      [SYNC_QUEUE]: syncJob.queue as QueueDefinition<never>,
      [SCHEDULED_SYNC_QUEUE]: scheduleQueue as QueueDefinition<never>,
    },
    schedules:
      config.wearablesSyncIntervalSec > 0
        ? [{ name: SCHEDULED_SYNC_QUEUE, queue: SCHEDULED_SYNC_QUEUE, everyMs: config.wearablesSyncIntervalSec * 1000 }]
        : [],
    async createSandboxServer() {
      const clients = {
        [SANDBOX_CLIENT.clientId]: SANDBOX_CLIENT.clientSecret,
        ...(config.wearablesVendorClients.sandbox
          ? { [config.wearablesVendorClients.sandbox.clientId]: config.wearablesVendorClients.sandbox.clientSecret }
          : {}),
      };
      const app = await createHttpServer({
        logger: log.child({ host: "sandbox" }),
        bodyLimit: config.bodyLimit,
        trustProxy: config.trustProxy,
        formatError: (error) => ({ statusCode: error.statusCode, body: { message: error.message } }),
        openapi: {
          title: "Sandbox vendor (offline test vendor)",
          version: "1.0.0",
          description:
            "A wearable vendor's cloud that runs inside the platform, so that connecting a user and syncing works " +
            "offline: an OAuth 2.0 server (consent page at `/oauth/authorize`, PKCE required) and a paged data API " +
            "of plausible, reproducible data per account. Connect through the wearables API's " +
            "`/oauth/sandbox/authorize`.",
          tags: [{ name: "Sandbox vendor", description: "The sandbox's OAuth endpoints and data API." }],
          securitySchemes: {
            SandboxBearer: { type: "http", scheme: "bearer", description: "An access token of the sandbox." },
            SandboxClient: { type: "http", scheme: "basic", description: "The OAuth client's id and secret." },
          },
          security: [{ SandboxBearer: [] }],
          errors: {
            name: "SandboxError",
            schema: Type.Object({ message: Type.String() }, { description: "An error of the sandbox's data API." }),
          },
        },
      });
      await createSandboxCloud({
        clients,
        app: app as unknown as FastifyInstance,
        // Pushes go to this API's webhook, as a vendor's go to the URL an app registered with it.
        push: {
          url: () => `${apiBaseUrl()}/providers/sandbox/webhooks`,
          everyMs: config.wearablesSandboxPushIntervalSec * 1000,
        },
      });
      return app;
    },
    status: () => ({ sync: syncJob.status(), scheduled: { ...scheduled } }),
    close: () => counter.close(),
  };
}
