/**
 * SQL for `wearables.import_jobs` (an import's user-facing record: state, progress, checkpoint, errors), the
 * uploaded file's bytes (`wearables.import_files`) and the personal record an Apple export carries. Who runs
 * an import is the kernel's business (a job of queue `wearables.import`, imports/importJobs.ts); every chunk's
 * progress and checkpoint are written in the chunk's own transaction, which also asserts that job's claim.
 */
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
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
  /** Only for imports queued before the upload was kept in the database: a file on the receiving instance. */
  file_path: string | null;
  file_name: string | null;
  file_bytes: number;
  bytes_read: number;
  items_processed: number;
  samples_written: number;
  events_written: number;
  checkpoint: Record<string, unknown> | null;
  errors: ImportError[];
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

export interface NewImportJob {
  id: string;
  userId: string;
  kind: ImportKind;
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

/** Size of the parts an upload is stored in. */
export const FILE_PART_BYTES = 1024 * 1024;

const COLUMNS = `id, user_id, kind, state, file_path, file_name, file_bytes, bytes_read, items_processed, samples_written,
  events_written, checkpoint, errors, created_at, started_at, finished_at, updated_at`;

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
    /** In `tx`: the import's record, queued. */
    async create(tx: Queryable, job: NewImportJob): Promise<ImportJobRow> {
      const [row] = await tx.query<RawRow>(
        `INSERT INTO wearables.import_jobs (id, user_id, kind, file_name, file_bytes)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [job.id, job.userId, job.kind, job.fileName, job.fileBytes],
      );
      if (!row) throw new Error("import job insert returned nothing");
      return toRow(row);
    },

    /** In `tx`: stores the file at `path` as the import's upload, in parts; answers its size. */
    async storeFile(tx: Queryable, id: string, path: string): Promise<number> {
      let part = 0;
      let bytes = 0;
      for await (const chunk of createReadStream(path, { highWaterMark: FILE_PART_BYTES })) {
        const data = chunk as Buffer;
        await tx.query("INSERT INTO wearables.import_files (import_id, part, data) VALUES ($1, $2, $3)", [
          id,
          part++,
          data,
        ]);
        bytes += data.length;
      }
      return bytes;
    },

    /** Whether the import's upload is stored (false for imports queued before it was). */
    async hasFile(id: string): Promise<boolean> {
      const rows = await db.query("SELECT 1 FROM wearables.import_files WHERE import_id = $1 LIMIT 1", [id]);
      return rows.length > 0;
    },

    /** Writes the import's stored upload to `path`, part by part (never the whole file in memory). */
    async copyFileTo(id: string, path: string): Promise<void> {
      const out = createWriteStream(path);
      try {
        for (let part = 0; ; part++) {
          const [row] = await db.query<{ data: Buffer }>(
            "SELECT data FROM wearables.import_files WHERE import_id = $1 AND part = $2",
            [id, part],
          );
          if (!row) break;
          if (!out.write(row.data)) await once(out, "drain");
        }
      } finally {
        out.end();
        await once(out, "close");
      }
    },

    /** In `tx`: the upload is no longer needed (its import ended). */
    async deleteFile(tx: Queryable, id: string): Promise<void> {
      await tx.query("DELETE FROM wearables.import_files WHERE import_id = $1", [id]);
    },

    async get(id: string): Promise<ImportJobRow | undefined> {
      const [row] = await db.query<RawRow>(`SELECT ${COLUMNS} FROM wearables.import_jobs WHERE id = $1`, [id]);
      return row && toRow(row);
    },

    async userExists(userId: string): Promise<boolean> {
      const rows = await db.query("SELECT 1 FROM wearables.users WHERE id = $1", [userId]);
      return rows.length > 0;
    },

    /**
     * A run of the import begins (or resumes): `processing`. Answers the record, undefined when it ended. A
     * failed import whose upload is still stored (it failed on the kernel's last attempt, not for its file)
     * resumes too: its dead job was retried.
     */
    async start(id: string): Promise<ImportJobRow | undefined> {
      const [row] = await db.query<RawRow>(
        `UPDATE wearables.import_jobs i SET state = 'processing', started_at = coalesce(started_at, now()),
           finished_at = NULL, updated_at = now()
         WHERE id = $1 AND (state IN ('queued', 'processing')
           OR (state = 'failed' AND EXISTS (SELECT 1 FROM wearables.import_files f WHERE f.import_id = i.id)))
         RETURNING ${COLUMNS}`,
        [id],
      );
      return row && toRow(row);
    },

    /** In the chunk's transaction: moves progress and checkpoint. */
    async commitChunk(tx: Queryable, id: string, p: ChunkProgress): Promise<void> {
      const rows = await tx.query(
        `UPDATE wearables.import_jobs SET bytes_read = $2, items_processed = $3,
           samples_written = samples_written + $4, events_written = events_written + $5, checkpoint = $6::jsonb,
           updated_at = now()
         WHERE id = $1 AND state = 'processing' RETURNING 1`,
        [id, p.bytesRead, p.itemsProcessed, p.samplesAdded, p.eventsAdded, JSON.stringify(p.checkpoint)],
      );
      if (rows.length === 0) throw new Error(`import ${id} is no longer in progress`);
    },

    async complete(tx: Queryable, id: string, bytesRead: number): Promise<void> {
      await tx.query(
        `UPDATE wearables.import_jobs SET state = 'completed', bytes_read = $2, finished_at = now(), updated_at = now()
         WHERE id = $1`,
        [id, bytesRead],
      );
    },

    async fail(tx: Queryable, id: string, message: string): Promise<void> {
      await tx.query(
        `UPDATE wearables.import_jobs SET state = 'failed', errors = errors || $2::jsonb, finished_at = now(),
           updated_at = now()
         WHERE id = $1`,
        [id, JSON.stringify([{ message, at: new Date().toISOString() } satisfies ImportError])],
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
