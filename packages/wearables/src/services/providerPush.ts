/**
 * A vendor's push notification (`POST /providers/{provider}/webhooks`), after its adapter verified it: every
 * notice goes to each active connection of the vendor account it names (one account may feed several users).
 * - data carried inline (Garmin, Suunto's 24/7) is written at once through the shared writer, as a run of
 *   source `webhook` that commits with the data;
 * - a ping queues a sync run of source `webhook` for the window it names (the vendor's rate budget paces it);
 * - a deauthorization revokes the connection; deleted records are deleted.
 * The vendor gets its answer as soon as the notices are stored: the work is the job layer's.
 */
import type { Database } from "@platform/kernel";
import type { PushNotice } from "../providers/types.ts";
import type { ConnectionsStore } from "../store/connectionsRepository.ts";
import type { HealthDataWriter } from "../store/healthDataWriter.ts";
import type { SyncRunsRepository } from "../store/syncRunsRepository.ts";
import type { SyncRunLifecycle } from "../sync/syncRunLifecycle.ts";
import { writeMappedRecords } from "../sync/writeMappedRecords.ts";
import { connectionRevoked } from "../webhooks/webhookEvents.ts";
import type { WebhookOutbox } from "../webhooks/webhookOutbox.ts";
import type { ProviderSyncService } from "./providerSync.ts";

export interface PushOutcome {
  notices: number;
  connections: number;
  written: number;
  runsQueued: number;
  revoked: number;
}

export function createProviderPush(p: {
  db: Database;
  connections: ConnectionsStore;
  runs: SyncRunsRepository;
  lifecycle: SyncRunLifecycle;
  sync: ProviderSyncService;
  writer: HealthDataWriter;
  outbox: WebhookOutbox;
}) {
  return {
    async handle(provider: string, notices: readonly PushNotice[]): Promise<PushOutcome> {
      const outcome: PushOutcome = { notices: notices.length, connections: 0, written: 0, runsQueued: 0, revoked: 0 };
      for (const notice of notices) {
        const targets = await p.connections.findActiveByProviderUser(provider, notice.providerUserId);
        for (const c of targets) {
          outcome.connections += 1;
          await p.db.transaction(async (tx) => {
            if (notice.deauthorized) {
              await p.connections.revoke(tx, c.id, "revoked", "deauthorized");
              await p.outbox.emit(tx, [
                connectionRevoked({
                  userId: c.user_id,
                  provider,
                  connectionId: c.id,
                  at: new Date(),
                  reason: "deauthorized",
                }),
              ]);
              outcome.revoked += 1;
              return;
            }
            for (const d of notice.deleted ?? [])
              await tx.query(
                `DELETE FROM wearables.events e USING wearables.data_sources s
                 WHERE e.data_source_id = s.id AND s.user_id = $1 AND s.provider = $2 AND e.external_id = $3
                   AND e.category = $4`,
                [c.user_id, provider, d.externalId, d.kind === "sleep" ? "sleep" : "workout"],
              );
            const r = notice.records;
            if (r && r.workouts.length + r.sleeps.length + r.samples.length > 0) {
              const times = [...r.workouts, ...r.sleeps]
                .flatMap((e) => [e.start, e.end])
                .concat(r.samples.map((s) => s.recordedAt));
              const start = Math.min(...times);
              const end = Math.max(...times) + 1;
              const run = await p.runs.create(tx, {
                userId: c.user_id,
                connectionId: c.id,
                provider,
                source: "webhook",
                scope: "live",
                kinds: [],
                windowStart: new Date(start),
                windowEnd: new Date(end),
                message: "pushed by the vendor",
              });
              await p.lifecycle.start(tx, run);
              const written = await writeMappedRecords(tx, p.writer, {
                userId: c.user_id,
                provider,
                connectionId: c.id,
                records: r,
              });
              outcome.written += written;
              await p.lifecycle.finish(
                tx,
                { ...run, items_processed: written },
                { status: "success", message: `wrote ${written} pushed records` },
              );
              await p.connections.markSynced(tx, c.id, null);
            }
            if (notice.pull && notice.pull.kinds.length > 0) {
              await p.sync.enqueueRun(tx, c, {
                source: "webhook",
                scope: "live",
                kinds: notice.pull.kinds,
                start: notice.pull.window.start,
                end: notice.pull.window.end,
                message: "a vendor notification asked for a pull",
              });
              outcome.runsQueued += 1;
            }
          });
        }
      }
      return outcome;
    },
  };
}

export type ProviderPush = ReturnType<typeof createProviderPush>;
