/**
 * A sync run's start and end, with their webhook events in the same transaction: `sync.started` once per run
 * (a retried job starts it again, its event id does not change), `sync.completed` with the status and count,
 * or `sync.failed` with the error. Every place that starts or ends a run goes through here.
 */
import type { Queryable } from "@platform/kernel";
import type { SyncRunRow, SyncRunsRepository, SyncStatus } from "../store/syncRunsRepository.ts";
import { syncCompleted, syncFailed, syncStarted } from "../webhooks/webhookEvents.ts";
import type { WebhookOutbox } from "../webhooks/webhookOutbox.ts";

export interface RunOutcome {
  status: SyncStatus;
  message: string;
  error?: string | null;
}

export function createSyncRunLifecycle(p: { runs: SyncRunsRepository; outbox: WebhookOutbox }) {
  const about = (run: SyncRunRow) => ({
    userId: run.user_id,
    provider: run.provider,
    source: run.source,
    runId: run.id,
    metadata: { scope: run.scope, kinds: run.kinds },
  });
  return {
    async start(tx: Queryable, run: SyncRunRow): Promise<void> {
      await p.runs.start(tx, run);
      await p.outbox.emit(tx, [syncStarted({ ...about(run), message: run.message })]);
    },

    async finish(tx: Queryable, run: SyncRunRow, outcome: RunOutcome): Promise<void> {
      await p.runs.finish(tx, run, outcome);
      await p.outbox.emit(tx, [
        outcome.status === "failed"
          ? syncFailed({ ...about(run), message: outcome.message, error: outcome.error ?? outcome.message })
          : syncCompleted({
              ...about(run),
              message: outcome.message,
              status: outcome.status,
              itemsProcessed: run.items_processed,
            }),
      ]);
    },
  };
}

export type SyncRunLifecycle = ReturnType<typeof createSyncRunLifecycle>;
