/**
 * SQL of sync runs (`wearables.sync_runs`: one sync of one connection, with its checkpoint) and their status
 * events (`wearables.sync_events`, ordered by `seq` across instances).
 */
import type { Queryable } from "@platform/kernel";
import type { SyncKind } from "../providers/types.ts";

export type SyncSource = "pull" | "webhook" | "sdk" | "backfill" | "xml_import" | "linked_account";
export type SyncScope = "historical" | "live";
export type SyncStage =
  | "queued"
  | "started"
  | "fetching"
  | "processing"
  | "saving"
  | "completed"
  | "failed"
  | "cancelled";
export type SyncStatus =
  | "in_progress"
  | "success"
  | "partial"
  | "failed"
  | "cancelled"
  | "skipped"
  | "unfinished"
  | "stale";

export interface SyncRunRow {
  id: string;
  user_id: string;
  connection_id: string | null;
  provider: string;
  source: SyncSource;
  scope: SyncScope;
  stage: SyncStage;
  status: SyncStatus;
  kinds: SyncKind[];
  kind_index: number;
  cursor: string | null;
  window_start: Date;
  window_end: Date;
  items_processed: number;
  items_inserted: number;
  message: string | null;
  error: string | null;
  started_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface SyncEventRow {
  seq: string;
  id: string;
  run_id: string;
  user_id: string;
  provider: string;
  source: SyncSource;
  scope: SyncScope;
  stage: SyncStage;
  status: SyncStatus;
  message: string | null;
  progress: number | null;
  items_processed: number | null;
  error: string | null;
  window_start: Date;
  window_end: Date;
  started_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
}

export interface NewSyncRun {
  userId: string;
  connectionId: string;
  provider: string;
  source: SyncSource;
  scope: SyncScope;
  kinds: readonly SyncKind[];
  windowStart: Date;
  windowEnd: Date;
  message: string;
}

const EVENT_COLUMNS = `e.seq::text AS seq, e.id, e.run_id, e.user_id, r.provider, r.source, r.scope, e.stage, e.status,
  e.message, e.progress, e.items_processed, e.error, r.window_start, r.window_end, r.started_at, r.ended_at, e.created_at`;

export function createSyncRunsRepository(db: Queryable) {
  const event = (
    q: Queryable,
    run: { id: string; user_id: string },
    e: {
      stage: SyncStage;
      status: SyncStatus;
      message?: string | null;
      progress?: number | null;
      items?: number | null;
      error?: string | null;
    },
  ) =>
    q.query(
      `INSERT INTO wearables.sync_events (run_id, user_id, stage, status, message, progress, items_processed, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [run.id, run.user_id, e.stage, e.status, e.message ?? null, e.progress ?? null, e.items ?? null, e.error ?? null],
    );
  return {
    /** A queued run and its first event, in the caller's transaction (with the job that runs it). */
    async create(q: Queryable, r: NewSyncRun): Promise<SyncRunRow> {
      const [row] = await q.query<SyncRunRow>(
        `INSERT INTO wearables.sync_runs (user_id, connection_id, provider, source, scope, stage, status, kinds,
           window_start, window_end, message)
         VALUES ($1, $2, $3, $4, $5, 'queued', 'in_progress', $6, $7, $8, $9) RETURNING *`,
        [r.userId, r.connectionId, r.provider, r.source, r.scope, r.kinds, r.windowStart, r.windowEnd, r.message],
      );
      const run = row as SyncRunRow;
      await event(q, run, { stage: "queued", status: "in_progress", message: r.message, progress: 0 });
      return run;
    },
    async get(q: Queryable, id: string): Promise<SyncRunRow | undefined> {
      const [row] = await q.query<SyncRunRow>("SELECT * FROM wearables.sync_runs WHERE id = $1", [id]);
      return row;
    },
    /** The run is being worked on (again, after a resume): stage `started` once, then `fetching`. */
    async start(q: Queryable, run: SyncRunRow) {
      await q.query(
        `UPDATE wearables.sync_runs SET stage = 'fetching', started_at = coalesce(started_at, now()), updated_at = now()
         WHERE id = $1`,
        [run.id],
      );
      await event(q, run, {
        stage: run.started_at ? "fetching" : "started",
        status: "in_progress",
        message: run.started_at ? "resumed from its checkpoint" : "started",
        items: run.items_processed,
      });
    },
    /** A page was written: the checkpoint moves with the data, in the same transaction. */
    async checkpoint(
      q: Queryable,
      run: SyncRunRow,
      c: {
        kindIndex: number;
        cursor: string | null;
        fetched: number;
        written: number;
        progress: number;
        message: string;
      },
    ) {
      await q.query(
        `UPDATE wearables.sync_runs SET stage = 'processing', kind_index = $2, cursor = $3,
           items_processed = items_processed + $4, items_inserted = items_inserted + $5, updated_at = now()
         WHERE id = $1`,
        [run.id, c.kindIndex, c.cursor, c.fetched, c.written],
      );
      await event(q, run, {
        stage: "processing",
        status: "in_progress",
        message: c.message,
        progress: c.progress,
        items: run.items_processed + c.fetched,
      });
    },
    async finish(q: Queryable, run: SyncRunRow, f: { status: SyncStatus; message: string; error?: string | null }) {
      const stage: SyncStage = f.status === "failed" ? "failed" : f.status === "cancelled" ? "cancelled" : "completed";
      await q.query(
        `UPDATE wearables.sync_runs SET stage = $2, status = $3, message = $4, error = $5, ended_at = now(),
           updated_at = now() WHERE id = $1`,
        [run.id, stage, f.status, f.message, f.error ?? null],
      );
      await event(q, run, {
        stage,
        status: f.status,
        message: f.message,
        error: f.error ?? null,
        progress: f.status === "success" ? 1 : null,
      });
    },
    /** Of the given runs, those still open (not ended), for closing the runs whose job died. */
    openRuns(q: Queryable, ids: readonly string[]): Promise<SyncRunRow[]> {
      return q.query<SyncRunRow>("SELECT * FROM wearables.sync_runs WHERE id = ANY($1::uuid[]) AND ended_at IS NULL", [
        ids,
      ]);
    },
    /** Runs newest first, of one user or of everyone, filtered as `/sync/runs` allows. */
    listRuns(f: { userId?: string; provider?: string; status?: string; source?: string; limit: number }) {
      return db.query<SyncRunRow>(
        `SELECT * FROM wearables.sync_runs
         WHERE ($1::uuid IS NULL OR user_id = $1) AND ($2::text IS NULL OR provider = $2)
           AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR source = $4)
         ORDER BY created_at DESC, id LIMIT $5`,
        [f.userId ?? null, f.provider ?? null, f.status ?? null, f.source ?? null, f.limit],
      );
    },
    /** The user's latest events, newest first. */
    recentEvents(userId: string, limit: number) {
      return db.query<SyncEventRow>(
        `SELECT ${EVENT_COLUMNS} FROM wearables.sync_events e JOIN wearables.sync_runs r ON r.id = e.run_id
         WHERE e.user_id = $1 ORDER BY e.seq DESC LIMIT $2`,
        [userId, limit],
      );
    },
    /** The user's events after `seq`, oldest first (the stream's next batch). */
    eventsAfter(userId: string, seq: string, limit = 500) {
      return db.query<SyncEventRow>(
        `SELECT ${EVENT_COLUMNS} FROM wearables.sync_events e JOIN wearables.sync_runs r ON r.id = e.run_id
         WHERE e.user_id = $1 AND e.seq > $2::bigint ORDER BY e.seq LIMIT $3`,
        [userId, seq, limit],
      );
    },
  };
}

export type SyncRunsRepository = ReturnType<typeof createSyncRunsRepository>;
