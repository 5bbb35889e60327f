/**
 * Child process of the sync kill test (syncJob.kill.test.ts), run with `node --import tsx`: a kernel job
 * worker of the sync queue (`wearables.sync`) on the shared database given in SYNC_CHILD_CONFIG, pulling from
 * the sandbox vendor at `sandboxOrigin` (the test's). It prints `RUN <attempt>` when a run of the job begins
 * and `PAGE <pages of this run> <items of the sync run>` after each committed page; the test SIGKILLs it at an instant of its choice.
 * Left alone, it runs until the run `runId` has ended, then prints `DONE` and exits (or `DEAD` and exits 1 if
 * the run's job went dead while the run is still open: a stuck run).
 */
import {
  createConfiguredSecretBox,
  createJobWorker,
  createLeases,
  createLogger,
  createMemoryRateCounter,
  loadConfig,
  type QueueDefinition,
} from "@platform/kernel";
import { type KillTestDatabaseLocation, startKillTestChild } from "@platform/kernel/testing";
import { createVendorDirectory } from "../providers/registry.ts";
import { createConnectionsStore } from "../store/connectionsRepository.ts";
import { createHealthDataWriter } from "../store/healthDataWriter.ts";
import { createSyncRunsRepository } from "../store/syncRunsRepository.ts";
import { waitFor } from "../testing/jobWorkers.ts";
import { withWebhookEvents } from "../webhooks/eventingWriter.ts";
import { createWebhookOutbox } from "../webhooks/webhookOutbox.ts";
import { createSyncJob, SYNC_QUEUE, type SyncJobPayload } from "./syncJob.ts";
import { createSyncRunLifecycle } from "./syncRunLifecycle.ts";
import { createVendorSessions } from "./vendorSession.ts";

export interface SyncChildConfig extends KillTestDatabaseLocation {
  sandboxOrigin: string;
  runId: string;
}

// Everything is built before the go line: the child loads while the previous one runs.
const config = loadConfig({ env: {}, overrides: { logLevel: "silent" } });
const logger = createLogger({ level: process.env.SYNC_TEST_LOG ?? "silent" });
const { config: child, db } = await startKillTestChild<SyncChildConfig>("SYNC_CHILD_CONFIG");
const directory = createVendorDirectory({ config, sandboxOrigin: () => child.sandboxOrigin });
const store = createConnectionsStore(db);
const runs = createSyncRunsRepository(db);
const sessions = createVendorSessions({
  directory,
  secrets: createConfiguredSecretBox(config),
  store,
  leases: createLeases({ db }),
  counter: createMemoryRateCounter(),
});
/** When this process's current run of the job began (for the PAGE lines' times). */
let ranAt = performance.now();
// The service's own wiring: data with its webhook events, runs with theirs.
const outbox = createWebhookOutbox();
const sync = createSyncJob({
  db,
  logger,
  runs,
  connections: store,
  sessions,
  lifecycle: createSyncRunLifecycle({ runs, outbox }),
  writer: withWebhookEvents(createHealthDataWriter(), outbox),
  outbox,
  afterPage(run, pages) {
    process.stdout.write(`PAGE ${pages} ${run.items_processed} +${Math.round(performance.now() - ranAt)}ms\n`);
  },
});
const queue: QueueDefinition<SyncJobPayload> = {
  ...sync.queue,
  async handler(job) {
    ranAt = performance.now();
    process.stdout.write(`RUN ${job.attempt}\n`);
    await sync.queue.handler(job);
  },
};
// The killed process never gives its job back: the next one takes it once its lock expires (1 s after the
// last heartbeat), freed by the reaper at the next worker's start or poll.
const worker = createJobWorker({ db, logger, pollIntervalMs: 100, lockMs: 1_000, queues: { [SYNC_QUEUE]: queue } });
await worker.start();
let dead = false;
await waitFor(
  "the sync run to end",
  async () => {
    const [run] = await db.query<{ ended: boolean; dead: boolean }>(
      `SELECT r.ended_at IS NOT NULL AS ended,
         EXISTS (SELECT 1 FROM platform.jobs WHERE queue = $2 AND payload->>'runId' = r.id::text AND state = 'dead') AS dead
       FROM wearables.sync_runs r WHERE r.id = $1`,
      [child.runId, SYNC_QUEUE],
    );
    dead = !run?.ended && run?.dead === true;
    return run?.ended === true || dead;
  },
  60_000,
);
await worker.stop();
process.stdout.write(dead ? "DEAD\n" : "DONE\n");
await db.close();
process.exit(dead ? 1 : 0);
