/**
 * Starting syncs (the API's sync and historical sync, a new connection's backfill, the schedule, a vendor's
 * push) and reading what they did. A sync is a run row and a kernel job enqueued in one transaction; the
 * job (sync/syncJob.ts) does the work.
 *
 * Windows: a live sync covers what the connection has not synced yet, from the end of its synced span (or
 * `since`) to now; a historical sync covers only the part of the last `days` before the span's start, so a
 * backfill never fetches twice what the connection already has.
 */
import { type Database, enqueueJob, type Queryable } from "@platform/kernel";
import type { VendorDirectory } from "../providers/registry.ts";
import type { SyncKind } from "../providers/types.ts";
import type { ConnectionForSync, ConnectionsStore } from "../store/connectionsRepository.ts";
import type { SyncRunRow, SyncRunsRepository, SyncScope, SyncSource } from "../store/syncRunsRepository.ts";
import { SYNC_QUEUE } from "../sync/syncJob.ts";

const DAY_MS = 86_400_000;
/** How far back a live sync of a connection that never synced reaches. */
const FIRST_LIVE_WINDOW_DAYS = 7;

/** A request the service refuses, with the status and detail the API answers. */
export class SyncRequestError extends Error {
  override name = "SyncRequestError";
  constructor(
    readonly statusCode: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

export type SyncDataType = "workouts" | "247" | "all";

/** The anchor's `data_type`: workouts only, the 24/7 data (sleep, daily, samples), or both. */
export function kindsOf(available: readonly SyncKind[], dataType: SyncDataType): SyncKind[] {
  if (dataType === "all") return [...available];
  return available.filter((k) => (dataType === "workouts" ? k === "workouts" : k !== "workouts"));
}

export interface ProviderSyncServiceParameters {
  db: Database;
  directory: VendorDirectory;
  connections: ConnectionsStore;
  runs: SyncRunsRepository;
  now?: () => number;
}

export function createProviderSyncService(p: ProviderSyncServiceParameters) {
  const now = p.now ?? Date.now;

  async function activeConnection(provider: string, userId: string): Promise<ConnectionForSync> {
    const adapter = p.directory.adapter(provider);
    if (!adapter) throw new SyncRequestError(400, `Provider '${provider}' does not support data sync`);
    const connection = await p.connections.findForUser(userId, provider);
    if (!connection) throw new SyncRequestError(404, `No connection to ${provider} found for user ${userId}`);
    if (connection.status !== "active")
      throw new SyncRequestError(400, `The connection to ${provider} is ${connection.status}: authorize again`);
    return connection;
  }

  /** A run and its job, in `q` (the caller's transaction, or the database). */
  async function enqueueRun(
    q: Queryable,
    c: ConnectionForSync,
    r: { source: SyncSource; scope: SyncScope; kinds: SyncKind[]; start: number; end: number; message: string },
  ): Promise<SyncRunRow> {
    const run = await p.runs.create(q, {
      userId: c.user_id,
      connectionId: c.id,
      provider: c.provider,
      source: r.source,
      scope: r.scope,
      kinds: r.kinds,
      windowStart: new Date(r.start),
      windowEnd: new Date(r.end),
      message: r.message,
    });
    await enqueueJob(q, SYNC_QUEUE, { runId: run.id }, { maxAttempts: 5 });
    return run;
  }

  return {
    enqueueRun,

    /** `POST /providers/{provider}/users/{user_id}/sync`: a live pull of what the connection lacks. */
    async sync(provider: string, userId: string, o: { dataType: SyncDataType; since: number }) {
      const connection = await activeConnection(provider, userId);
      const adapter = p.directory.adapter(provider);
      const kinds = kindsOf(adapter?.kinds ?? [], o.dataType);
      if (kinds.length === 0) throw new SyncRequestError(400, `${provider} has no ${o.dataType} data to sync`);
      const end = now();
      const start =
        o.since > 0 ? o.since * 1000 : (connection.synced_until?.getTime() ?? end - FIRST_LIVE_WINDOW_DAYS * DAY_MS);
      const run = await p.db.transaction((tx) =>
        enqueueRun(tx, connection, {
          source: "pull",
          scope: "live",
          kinds,
          start: Math.min(start, end - 1),
          end,
          message: `Sync task queued for ${provider}`,
        }),
      );
      return run;
    },

    /** `POST …/sync/historical?days`: the gap between `days` ago and the start of what is synced. */
    async historical(provider: string, userId: string, days: number) {
      const connection = await activeConnection(provider, userId);
      const adapter = p.directory.adapter(provider);
      const reach = Math.min(days, adapter?.maxHistoricalDays ?? days);
      const end = connection.synced_from?.getTime() ?? now();
      const start = now() - reach * DAY_MS;
      if (start >= end) return { run: undefined, start, end, days: reach };
      const run = await p.db.transaction((tx) =>
        enqueueRun(tx, connection, {
          source: "backfill",
          scope: "historical",
          kinds: [...(adapter?.kinds ?? [])],
          start,
          end,
          message: `Historical sync of ${reach} days queued for ${provider}`,
        }),
      );
      return { run, start, end, days: reach };
    },

    /** Waits for a run to end (the sync endpoint's `async=false`), at most `timeoutMs`. */
    async waitForRun(runId: string, timeoutMs: number, signal?: AbortSignal): Promise<SyncRunRow | undefined> {
      const until = now() + timeoutMs;
      for (;;) {
        const run = await p.runs.get(p.db, runId);
        if (!run || run.ended_at || now() >= until || signal?.aborted) return run;
        await new Promise((r) => setTimeout(r, 200));
      }
    },

    runs: p.runs,
  };
}

export type ProviderSyncService = ReturnType<typeof createProviderSyncService>;
