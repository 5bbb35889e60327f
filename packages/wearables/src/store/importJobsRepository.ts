/**
 * SQL for `wearables.import_jobs` (and the personal record an Apple export carries). A job is claimed with a
 * lease (`FOR UPDATE SKIP LOCKED`, so two runners never take the same one; an expired lease is a dead
 * runner's job and is taken over); every chunk's progress and checkpoint are written in the chunk's own
 * transaction, and only while the lease is still ours.
 */
import type { Queryable } from "@platform/kernel";

export const IMPORT_KINDS = ["apple_xml", "apple_zip", "fit", "gpx", "tcx"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];
export type ImportState = "queued" | "processing" | "completed" | "failed";

/** One recorded failure: what went wrong, and when. */
export interface ImportError {
  message: string;
  at: string;
}

export interface ImportJobRow {
  id: string;
  user_id: string;
  kind: ImportKind;
  state: ImportState;
  file_path: string;
  file_name: string | null;
  file_bytes: number;
  bytes_read: number;
  items_processed: number;
  samples_written: number;
  events_written: number;
  checkpoint: Record<string, unknown> | null;
  errors: ImportError[];
  lease_holder: string | null;
  lease_expires_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

export interface NewImportJob {
  id: string;
  userId: string;
  kind: ImportKind;
  filePath: string;
  fileName: string | null;
  fileBytes: number;
}

/** What a committed chunk moves: the absolute position and the counts it adds. */
export interface ChunkProgress {
  bytesRead: number;
  itemsProcessed: number;
  samplesAdded: number;
  eventsAdded: number;
  checkpoint: Record<string, unknown>;
}

/** The runner no longer holds the job's lease (it expired and another runner took the job). */
export class LeaseLostError extends Error {
  override name = "LeaseLostError" as const;
  constructor(readonly jobId: string) {
    super(`import job ${jobId}: lease lost`);
  }
}

const COLUMNS = `id, user_id, kind, state, file_path, file_name, file_bytes, bytes_read, items_processed, samples_written,
  events_written, checkpoint, errors, lease_holder, lease_expires_at, created_at, started_at, finished_at, updated_at`;

type RawRow = Omit<
  ImportJobRow,
  "file_bytes" | "bytes_read" | "items_processed" | "samples_written" | "events_written"
> &
  Record<"file_bytes" | "bytes_read" | "items_processed" | "samples_written" | "events_written", string | number>;

const toRow = (r: RawRow): ImportJobRow => ({
  ...r,
  file_bytes: Number(r.file_bytes),
  bytes_read: Number(r.bytes_read),
  items_processed: Number(r.items_processed),
  samples_written: Number(r.samples_written),
  events_written: Number(r.events_written),
});

export function createImportJobsRepository(db: Queryable) {
  return {
    async create(job: NewImportJob): Promise<ImportJobRow> {
      const [row] = await db.query<RawRow>(
        `INSERT INTO wearables.import_jobs (id, user_id, kind, file_path, file_name, file_bytes)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [job.id, job.userId, job.kind, job.filePath, job.fileName, job.fileBytes],
      );
      if (!row) throw new Error("import job insert returned nothing");
      return toRow(row);
    },

    async get(id: string): Promise<ImportJobRow | undefined> {
      const [row] = await db.query<RawRow>(`SELECT ${COLUMNS} FROM wearables.import_jobs WHERE id = $1`, [id]);
      return row && toRow(row);
    },

    async userExists(userId: string): Promise<boolean> {
      const rows = await db.query("SELECT 1 FROM wearables.users WHERE id = $1", [userId]);
      return rows.length > 0;
    },

    /** Takes the oldest queued job, or one whose lease expired, for `holder` until `leaseMs` from now. */
    async claim(holder: string, leaseMs: number): Promise<ImportJobRow | undefined> {
      const [row] = await db.query<RawRow>(
        `UPDATE wearables.import_jobs SET state = 'processing', lease_holder = $1,
           lease_expires_at = now() + $2 * interval '1 millisecond', started_at = coalesce(started_at, now()),
           updated_at = now()
         WHERE id = (
           SELECT id FROM wearables.import_jobs
           WHERE state = 'queued' OR (state = 'processing' AND (lease_expires_at IS NULL OR lease_expires_at < now()))
           ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING ${COLUMNS}`,
        [holder, leaseMs],
      );
      return row && toRow(row);
    },

    /** Extends the lease; false when it is no longer ours. */
    async renewLease(id: string, holder: string, leaseMs: number): Promise<boolean> {
      const rows = await db.query(
        `UPDATE wearables.import_jobs SET lease_expires_at = now() + $3 * interval '1 millisecond'
         WHERE id = $1 AND lease_holder = $2 AND state = 'processing' RETURNING 1`,
        [id, holder, leaseMs],
      );
      return rows.length > 0;
    },

    /** In the chunk's transaction: moves progress and checkpoint; throws LeaseLostError (rolling it back). */
    async commitChunk(tx: Queryable, id: string, holder: string, p: ChunkProgress, leaseMs: number): Promise<void> {
      const rows = await tx.query(
        `UPDATE wearables.import_jobs SET bytes_read = $3, items_processed = $4,
           samples_written = samples_written + $5, events_written = events_written + $6, checkpoint = $7::jsonb,
           lease_expires_at = now() + $8 * interval '1 millisecond', updated_at = now()
         WHERE id = $1 AND lease_holder = $2 AND state = 'processing' RETURNING 1`,
        [
          id,
          holder,
          p.bytesRead,
          p.itemsProcessed,
          p.samplesAdded,
          p.eventsAdded,
          JSON.stringify(p.checkpoint),
          leaseMs,
        ],
      );
      if (rows.length === 0) throw new LeaseLostError(id);
    },

    async complete(id: string, holder: string, bytesRead: number): Promise<void> {
      await db.query(
        `UPDATE wearables.import_jobs SET state = 'completed', bytes_read = $3, lease_holder = NULL,
           lease_expires_at = NULL, finished_at = now(), updated_at = now()
         WHERE id = $1 AND lease_holder = $2`,
        [id, holder, bytesRead],
      );
    },

    async fail(id: string, holder: string, message: string): Promise<void> {
      await db.query(
        `UPDATE wearables.import_jobs SET state = 'failed', errors = errors || $3::jsonb, lease_holder = NULL,
           lease_expires_at = NULL, finished_at = now(), updated_at = now()
         WHERE id = $1 AND lease_holder = $2`,
        [id, holder, JSON.stringify([{ message, at: new Date().toISOString() } satisfies ImportError])],
      );
    },

    /** Hands the job back (a stopping runner): another runner may take it at once and resume it. */
    async release(id: string, holder: string): Promise<void> {
      await db.query(
        `UPDATE wearables.import_jobs SET lease_expires_at = now(), updated_at = now()
         WHERE id = $1 AND lease_holder = $2 AND state = 'processing'`,
        [id, holder],
      );
    },

    /** Apple's `Me` element: birth date and biological sex (true = male, as the anchor's column). */
    async upsertPersonalRecord(
      tx: Queryable,
      userId: string,
      record: { birthDate: string | null; sex: boolean | null },
    ): Promise<void> {
      await tx.query(
        `INSERT INTO wearables.personal_records (user_id, birth_date, sex) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET birth_date = coalesce(EXCLUDED.birth_date, personal_records.birth_date),
           sex = coalesce(EXCLUDED.sex, personal_records.sex)`,
        [userId, record.birthDate, record.sex],
      );
    },
  };
}

export type ImportJobsRepository = ReturnType<typeof createImportJobsRepository>;
