/**
 * Outgoing webhooks, built once per platform context: the outbox the data paths write events into, the
 * endpoints service behind the routes, and the delivery queue (`wearables.webhook-delivery`) on the kernel's
 * job layer, sending through the SSRF-guarded client.
 *
 * @example
 * const webhooks = createWebhooksModule({ config, db, logger });
 * // writers: webhooks.outbox.emit(tx, events); routes: webhooks.registerRoutes(api)
 * // jobs: createJobWorker({ …, queues: { ...webhooks.queues } })
 */
import {
  type Config,
  createAddressPolicy,
  createConfiguredSecretBox,
  createGuardedHttpClient,
  type Database,
  type HttpServer,
  type Logger,
  type QueueDefinition,
  type ScheduleDefinition,
} from "@platform/kernel";
import { registerWebhookRoutes } from "../http/webhooks.ts";
import { createWebhookEndpointsService, type WebhookEndpointsService } from "../services/webhookEndpoints.ts";
import { createWebhookEndpointsRepository } from "../store/webhookEndpointsRepository.ts";
import { createWebhookMessagesRepository } from "../store/webhookMessagesRepository.ts";
import { createDeliveryHandler } from "./deliveryJob.ts";
import {
  createWebhookOutbox,
  type DeliveryJobPayload,
  WEBHOOK_DELIVERY_QUEUE,
  type WebhookOutbox,
} from "./webhookOutbox.ts";

/** The hourly deletion of messages past `WEARABLES_WEBHOOK_RETENTION_DAYS`. */
export const WEBHOOK_PRUNE_QUEUE = "wearables.webhook-prune";
const PRUNE_BATCH = 5_000;

export interface WebhooksModule {
  outbox: WebhookOutbox;
  service: WebhookEndpointsService;
  registerRoutes(api: HttpServer): void;
  queues: Record<string, QueueDefinition<never>>;
  schedules: ScheduleDefinition[];
  status(): Record<string, unknown>;
  close(): void;
}

export interface CreateWebhooksModuleParameters {
  config: Config;
  db: Database;
  logger: Logger;
  now?: () => number;
  random?: () => number;
}

export function createWebhooksModule(p: CreateWebhooksModuleParameters): WebhooksModule {
  const { config, db } = p;
  const log = p.logger.child({ component: "webhooks" });
  const secrets = createConfiguredSecretBox(config);
  const policy = createAddressPolicy({ allow: config.wearablesWebhookAllowedNetworks });
  const client = createGuardedHttpClient({ policy });
  const endpoints = createWebhookEndpointsRepository();
  const messages = createWebhookMessagesRepository();
  const outbox = createWebhookOutbox({ endpoints, messages });
  const service = createWebhookEndpointsService({ db, endpoints, messages, outbox, secrets, policy, now: p.now });
  const counts = { attempts: 0, pruned: 0 };
  const deliver = createDeliveryHandler({
    db,
    logger: log,
    endpoints,
    messages,
    outbox,
    secrets,
    client,
    timeoutMs: config.wearablesWebhookTimeoutSec * 1000,
    endpointConcurrency: config.wearablesWebhookEndpointConcurrency,
    now: p.now,
    random: p.random,
  });
  const queue: QueueDefinition<DeliveryJobPayload> = {
    concurrency: config.wearablesWebhookConcurrency,
    // Above the request's own deadline, so that a slow receiver ends as a timed-out attempt, not a dead job.
    timeoutMs: config.wearablesWebhookTimeoutSec * 1000 + 15_000,
    backoff: { baseMs: 1_000 },
    handler: async (job) => {
      await deliver(job);
      counts.attempts += 1;
    },
  };
  const prune: QueueDefinition<unknown> = {
    concurrency: 1,
    timeoutMs: 10 * 60_000,
    handler: async (job) => {
      const before = new Date((p.now ?? Date.now)() - config.wearablesWebhookRetentionDays * 86_400_000);
      // In batches, each its own statement: a large backlog never holds one long transaction.
      for (;;) {
        job.signal.throwIfAborted();
        const deleted = await messages.pruneMessages(db, before, PRUNE_BATCH);
        counts.pruned += deleted;
        if (deleted < PRUNE_BATCH) break;
      }
    },
  };
  return {
    outbox,
    service,
    registerRoutes: (api) => registerWebhookRoutes(api, service),
    queues: {
      [WEBHOOK_DELIVERY_QUEUE]: queue as QueueDefinition<never>,
      [WEBHOOK_PRUNE_QUEUE]: prune as QueueDefinition<never>,
    },
    schedules: [{ name: WEBHOOK_PRUNE_QUEUE, queue: WEBHOOK_PRUNE_QUEUE, everyMs: 3_600_000 }],
    status: () => ({ ...counts }),
    close: () => client.close(),
  };
}
