/**
 * Child process of the webhook delivery kill test (deliveryJob.kill.test.ts), run with `node --import tsx`: a
 * kernel job worker of the delivery queue (`wearables.webhook-delivery`), built by the service's own webhooks
 * module, on the shared database given in DELIVERY_CHILD_CONFIG, sending to the test's receivers. The test
 * SIGKILLs it at an instant of its choice (just after one of its requests reached a receiver).
 *
 * Retries are made due at once: an attempt the schedule put seconds ahead (5 s after a 500) has its job's
 * `run_at` moved to now, as webhooks.test.ts's `advance` does; the short requeues of a busy endpoint keep their
 * own delay. Left alone, it runs until no delivery is pending, then prints `DONE` and exits (or `FAILED` and
 * exits 1 if a delivery failed or a delivery job went dead: a lost message).
 */
import { createJobWorker, createLogger, loadConfig } from "@platform/kernel";
import { type KillTestDatabaseLocation, startKillTestChild } from "@platform/kernel/testing";
import { waitFor } from "../testing/jobWorkers.ts";
import { WEBHOOK_DELIVERY_QUEUE } from "./webhookOutbox.ts";
import { createWebhooksModule } from "./webhooksModule.ts";

export interface DeliveryChildConfig extends KillTestDatabaseLocation {
  /** The test's `SECRETS_KEYS` entry: the endpoints' signing secrets are sealed with it. */
  secretsKeys: string;
}

/** A retry the schedule put further ahead than this is made due at once (the busy-endpoint requeues are not). */
const ADVANCE_BEYOND_MS = 1_500;

const logger = createLogger({ level: process.env.DELIVERY_TEST_LOG ?? "silent" });
const { config: child, db } = await startKillTestChild<DeliveryChildConfig>("DELIVERY_CHILD_CONFIG");
const config = loadConfig({
  env: { SECRETS_KEYS: child.secretsKeys },
  overrides: { logLevel: "silent", wearablesWebhookAllowedNetworks: ["127.0.0.0/8"], wearablesWebhookConcurrency: 8 },
});
const webhooks = createWebhooksModule({ config, db, logger });
// The killed process never gives its jobs back: the next one takes them once their locks expire (1 s after
// the last heartbeat), freed by the reaper at the next worker's start or poll.
const worker = createJobWorker({ db, logger, pollIntervalMs: 100, lockMs: 1_000, queues: webhooks.queues });
await worker.start();
let failed = false;
await waitFor(
  "every delivery to settle",
  async () => {
    const advanced = await db.query(
      `UPDATE platform.jobs SET run_at = now() WHERE queue = $1 AND state = 'queued'
         AND run_at > now() + make_interval(secs => $2::double precision / 1000)
       RETURNING 1`,
      [WEBHOOK_DELIVERY_QUEUE, ADVANCE_BEYOND_MS],
    );
    if (advanced.length > 0) worker.wake();
    const [state] = await db.query<{ pending: boolean; failed: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM wearables.webhook_deliveries WHERE status = 'pending') AS pending,
         EXISTS (SELECT 1 FROM wearables.webhook_deliveries WHERE status = 'failed')
           OR EXISTS (SELECT 1 FROM platform.jobs WHERE queue = $1 AND state = 'dead') AS failed`,
      [WEBHOOK_DELIVERY_QUEUE],
    );
    failed = state?.failed === true;
    return state?.pending === false || failed;
  },
  60_000,
);
await worker.stop();
webhooks.close();
process.stdout.write(failed ? "FAILED\n" : `DONE ${JSON.stringify(webhooks.status())}\n`);
await db.close();
process.exit(failed ? 1 : 0);
