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
import { VENDOR_ADAPTERS, type VendorDirectory } from "../providers/registry.ts";
import type { SyncKind, VendorQuery } from "../providers/types.ts";
import { resolveVendorQuery, type VendorKnobsInput, VendorQueryError } from "../providers/vendorQuery.ts";
import type { ConnectionForSync, ConnectionsStore } from "../store/connectionsRepository.ts";
import type { SyncRunRow, SyncRunsRepository, SyncScope, SyncSource } from "../store/syncRunsRepository.ts";
import { SYNC_QUEUE, type SyncJobPayload } from "../sync/syncJob.ts";

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

/** The knobs of a run, as its message names them (`limit 20, offset 40`). */
function describeQuery(q: VendorQuery | undefined): string {
  if (!q) return "";
  const parts: string[] = [];
  if (q.limit !== undefined) parts.push(`limit ${q.limit}`);
  if (q.offset !== undefined) parts.push(`offset ${q.offset}`);
  if (q.byModificationTime !== undefined) parts.push(q.byModificationTime ? "by modification time" : "by start time");
  if (q.detail) {
    const d = (["samples", "zones", "route"] as const).filter((k) => q.detail?.[k]);
    if (d.length > 0) parts.push(`with ${d.join(", ")}`);
  }
  if (q.summaryWindow)
    parts.push(
      `summary window ${new Date(q.summaryWindow.start * 1000).toISOString()}–${new Date(q.summaryWindow.end * 1000).toISOString()}`,
    );
  return parts.join(", ");
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
    r: {
      source: SyncSource;
      scope: SyncScope;
      kinds: SyncKind[];
      start: number;
      end: number;
      message: string;
      /** The vendor knobs the run's pages honour (job payload; absent: the adapter's own choices). */
      query?: VendorQuery;
    },
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
    const payload: SyncJobPayload =
      r.query && Object.keys(r.query).length > 0 ? { runId: run.id, query: r.query } : { runId: run.id };
    await enqueueJob(q, SYNC_QUEUE, payload, { maxAttempts: 5 });
    return run;
  }

  return {
    enqueueRun,

    /**
     * `POST /providers/{provider}/users/{user_id}/sync`: a live pull of what the connection lacks. `knobs` are
     * the anchor's vendor parameters: refused (400) unless the provider's adapter takes them; Garmin's summary
     * window replaces the run's window.
     */
    async sync(
      provider: string,
      userId: string,
      o: { dataType: SyncDataType; since: number; knobs?: VendorKnobsInput },
    ) {
      const adapter = p.directory.adapter(provider);
      if (!adapter) throw new SyncRequestError(400, `Provider '${provider}' does not support data sync`);
      let query: VendorQuery | undefined;
      try {
        query = o.knobs
          ? resolveVendorQuery({ adapter, target: "sync", raw: o.knobs, adapters: VENDOR_ADAPTERS, now: now() })
          : undefined;
      } catch (error) {
        if (error instanceof VendorQueryError) throw new SyncRequestError(400, error.message);
        throw error;
      }
      if (query?.summaryWindow && o.since > 0)
        throw new SyncRequestError(400, "Give `since` or the summary window (`summary_start_time`), not both");
      const connection = await activeConnection(provider, userId);
      const kinds = kindsOf(adapter.kinds, o.dataType);
      if (kinds.length === 0) throw new SyncRequestError(400, `${provider} has no ${o.dataType} data to sync`);
      let end = now();
      let start =
        o.since > 0 ? o.since * 1000 : (connection.synced_until?.getTime() ?? end - FIRST_LIVE_WINDOW_DAYS * DAY_MS);
      if (query?.summaryWindow) {
        start = query.summaryWindow.start * 1000;
        end = query.summaryWindow.end * 1000;
      }
      const asked = describeQuery(query);
      const run = await p.db.transaction((tx) =>
        enqueueRun(tx, connection, {
          source: "pull",
          scope: "live",
          kinds,
          start: Math.min(start, end - 1),
          end,
          message: `Sync task queued for ${provider}${asked ? ` (${asked})` : ""}`,
          query,
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

    /** The adapter of an enabled provider (the workout passthrough checks its knobs before the connection). */
    adapter: (provider: string) => p.directory.adapter(provider),

    runs: p.runs,
  };
}

export type ProviderSyncService = ReturnType<typeof createProviderSyncService>;
