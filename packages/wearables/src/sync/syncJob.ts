/**
 * A sync run is a kernel job (queue `wearables.sync`, one queued or running per connection): it pulls each
 * kind of the run's window page by page, and each page's rows, the run's checkpoint (`kind_index`, `cursor`,
 * counts) and its status event commit in one transaction that asserts the job's claim. A worker killed at any
 * instant leaves the last committed page as the checkpoint; the job runs again elsewhere (kernel `lockMs`
 * after its last heartbeat) and fetches from that cursor. A page fetched but not committed is fetched again,
 * and the writer's deduplication makes a page written twice change nothing: nothing lost, nothing duplicated.
 *
 * The kernel counts every claim as an attempt, a killed worker's too, and a job whose lock expires on its last
 * attempt goes `dead` without its handler running again: a long run killed `maxAttempts` times in all (deploys,
 * crashes) would stay `in_progress` forever, and the scheduled pull would skip its connection as busy. So a
 * retried job (attempt > 1) that commits a page hands the run over, in that page's transaction, to a new job
 * (its attempts from zero) and returns: only attempts that made no progress count towards `maxAttempts`. (A
 * run whose job is claimed `maxAttempts` times in a row without a page committed, the last claim's worker
 * killed, still stays open: its job is dead and nothing runs it again.)
 *
 * Ends:
 * - every kind done → run `completed/success`, the connection's `last_synced_at` and synced span move;
 * - the vendor refuses the tokens and their refresh → connection `revoked` (tokens forgotten) with the reason
 *   (`refresh_failed`, or `refresh_interrupted` when an earlier refresh died before storing its answer), run
 *   `failed`;
 * - any other error → the job retries with backoff (run stays `in_progress`, the error is an event); after
 *   its last attempt the run is `failed` (also when that attempt times out or loses its claim: its job is dead).
 */
import {
  type Database,
  enqueueJob,
  type JobContext,
  type Logger,
  type QueueDefinition,
  WorkerStoppingError,
} from "@platform/kernel";
import { type SyncKind, VendorAuthError, type VendorQuery } from "../providers/types.ts";
import type { ConnectionsStore } from "../store/connectionsRepository.ts";
import type { HealthDataWriter } from "../store/healthDataWriter.ts";
import type { SyncRunRow, SyncRunsRepository } from "../store/syncRunsRepository.ts";
import { connectionRevoked, type WebhookEvent } from "../webhooks/webhookEvents.ts";
import type { WebhookOutbox } from "../webhooks/webhookOutbox.ts";
import type { SyncRunLifecycle } from "./syncRunLifecycle.ts";
import type { VendorSessions } from "./vendorSession.ts";
import { writeMappedRecords } from "./writeMappedRecords.ts";

export const SYNC_QUEUE = "wearables.sync";

export interface SyncJobPayload {
  runId: string;
  /**
   * The vendor knobs the API's sync was asked for (`POST …/sync`), handed to every page; absent in the jobs
   * of other syncs (and of payloads written before knobs existed): the adapter's own choices.
   */
  query?: VendorQuery;
}

export interface CreateSyncJobParameters {
  db: Database;
  logger: Logger;
  runs: SyncRunsRepository;
  connections: ConnectionsStore;
  sessions: VendorSessions;
  /** Starts and ends runs with their webhook events. */
  lifecycle: SyncRunLifecycle;
  /** The health data writer pages go through (with webhook events). */
  writer: HealthDataWriter;
  outbox: WebhookOutbox;
  /** Hook for kill tests: called after each committed page. */
  afterPage?: (run: SyncRunRow, pages: number) => Promise<void> | void;
}

export function createSyncJob(p: CreateSyncJobParameters) {
  const log = p.logger.child({ job: "wearables-sync" });
  const counters = { runs: 0, pages: 0, failed: 0, continued: 0 };

  async function run(job: JobContext<SyncJobPayload>) {
    const run = await p.runs.get(p.db, job.payload.runId);
    if (!run || run.ended_at) return; // deleted with its user, or already finished before a crash
    const connection = run.connection_id ? await p.connections.get(run.connection_id) : undefined;
    if (connection?.status !== "active") {
      await p.db.transaction(async (tx) => {
        await p.lifecycle.finish(tx, run, {
          status: "failed",
          message: "the connection is not active",
          error: "connection_inactive",
        });
        await job.complete(tx);
      });
      return;
    }
    await p.db.transaction(async (tx) => {
      await job.assertHeld(tx);
      await p.lifecycle.start(tx, run);
    });
    const window = { start: run.window_start.getTime(), end: run.window_end.getTime() };
    try {
      const session = await p.sessions.open(connection, job.signal);
      let pages = 0;
      for (let k = run.kind_index; k < run.kinds.length; k++) {
        const kind = run.kinds[k] as SyncKind;
        let cursor = k === run.kind_index ? run.cursor : null;
        do {
          job.signal.throwIfAborted();
          const page = await session.adapter.fetchPage({
            client: session.client,
            urls: session.urls,
            kind,
            window,
            cursor,
            providerUserId: connection.provider_user_id,
            ...(job.payload.query ? { query: job.payload.query } : {}),
          });
          const done = page.nextCursor === null;
          // A retried job that commits a page goes on in a job of its own (see the header): `continued`.
          let continued = false;
          await p.db.transaction(async (tx) => {
            await job.assertHeld(tx);
            const written = await writeMappedRecords(tx, p.writer, {
              userId: run.user_id,
              provider: run.provider,
              connectionId: connection.id,
              records: page.records,
            });
            await p.runs.checkpoint(tx, run, {
              kindIndex: done ? k + 1 : k,
              cursor: done ? null : page.nextCursor,
              fetched: page.fetched,
              written,
              progress: (k + (done ? 1 : 0.5)) / run.kinds.length,
              message: `${kind}: ${page.fetched} records`,
            });
            run.items_processed += page.fetched;
            if (job.attempt > 1 && !(done && k === run.kinds.length - 1)) {
              const next: SyncJobPayload = job.payload.query
                ? { runId: run.id, query: job.payload.query }
                : { runId: run.id };
              await enqueueJob(tx, SYNC_QUEUE, next, {
                maxAttempts: job.maxAttempts,
              });
              await job.complete(tx);
              continued = true;
            }
          });
          pages += 1;
          counters.pages += 1;
          await p.afterPage?.(run, pages);
          if (continued) {
            counters.continued += 1;
            log.info(
              { runId: run.id, attempt: job.attempt },
              "sync run progressed after a retry: continues in a new job",
            );
            return;
          }
          cursor = page.nextCursor;
        } while (cursor !== null);
      }
      await p.db.transaction(async (tx) => {
        await job.assertHeld(tx);
        await p.lifecycle.finish(tx, run, { status: "success", message: `synced ${run.items_processed} records` });
        await p.connections.markSynced(tx, connection.id, { start: run.window_start, end: run.window_end });
        await job.complete(tx);
      });
      counters.runs += 1;
      log.info({ runId: run.id, provider: run.provider, items: run.items_processed }, "sync run completed");
    } catch (error) {
      if (error instanceof VendorAuthError) {
        await p.db.transaction(async (tx) => {
          await job.assertHeld(tx);
          // Revoked already (by another holder, a disconnect, a push): its status and reason stay as they are.
          if (error.reason !== "connection_inactive") {
            await p.connections.revoke(tx, connection.id, "revoked", error.reason);
            const revoked: WebhookEvent = connectionRevoked({
              userId: run.user_id,
              provider: run.provider,
              connectionId: connection.id,
              at: new Date(),
              reason: error.reason,
            });
            await p.outbox.emit(tx, [revoked]);
          }
          await p.lifecycle.finish(tx, run, {
            status: "failed",
            message:
              error.reason === "refresh_interrupted"
                ? "a token refresh was interrupted before its answer was stored: authorize the connection again"
                : "the vendor refused the connection's tokens",
            error: `${error.reason}: ${error.message}`,
          });
          await job.complete(tx);
        });
        counters.failed += 1;
        log.warn(
          { runId: run.id, provider: run.provider, reason: error.reason, err: error },
          "connection revoked: the vendor refused its tokens",
        );
        return;
      }
      // Given back (stopping), or timed out / lock lost before the last attempt: the job runs again from its
      // checkpoint. On the last attempt nothing would (the job is dead or cancelled): the run fails below.
      if (job.signal.aborted && (job.signal.reason instanceof WorkerStoppingError || job.attempt < job.maxAttempts))
        throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (job.attempt >= job.maxAttempts) {
        await p.db.transaction(async (tx) => {
          await p.lifecycle.finish(tx, run, {
            status: "failed",
            message: `failed after ${job.attempt} attempts`,
            error: message,
          });
        });
        counters.failed += 1;
      }
      log.warn({ runId: run.id, provider: run.provider, attempt: job.attempt, err: error }, "sync run attempt failed");
      throw error;
    }
  }

  const queue: QueueDefinition<SyncJobPayload> = {
    concurrency: 2,
    timeoutMs: 30 * 60_000,
    backoff: { baseMs: 15_000, maxMs: 600_000 },
    handler: run,
  };
  return { queue, status: () => ({ ...counters }) };
}
