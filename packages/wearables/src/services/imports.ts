/**
 * File imports: what the import routes and the CLI ask for. An upload is streamed to a temporary file (never
 * held in memory) with a size limit and its kind told from its first bytes (a zip or XML for Apple Health);
 * then ONE transaction creates the import's record, stores the file in the database (`wearables.import_files`,
 * so that a worker on any instance reads it) and enqueues the kernel job that imports it. Progress is read back
 * from the import's record.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, resolve } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Database } from "@platform/kernel";
import { UserNotFoundError } from "../domain/userErrors.ts";
import { enqueueImport } from "../imports/importJobs.ts";
import type { ImportJobRow, ImportJobsRepository, ImportKind, NewImportJob } from "../store/importJobsRepository.ts";

/** No import job with this id for this user. */
export class ImportJobNotFoundError extends Error {
  override name = "ImportJobNotFoundError" as const;
  constructor(readonly taskId: string) {
    super("Import job not found");
  }
}

/** The upload is refused before any job exists (empty, too large, not the announced kind). */
export class ImportUploadError extends Error {
  override name = "ImportUploadError" as const;
  constructor(
    message: string,
    readonly statusCode: 400 | 413 = 400,
  ) {
    super(message);
  }
}

export type UploadKind = "apple" | "fit" | "gpx" | "tcx";

export interface CreateImportsServiceParameters {
  db: Database;
  repository: ImportJobsRepository;
  /** Where an upload is spooled before it is stored in the database (default the OS's temporary folder). */
  tmpDir?: string;
  /** Largest accepted upload (default 5 GiB, the anchor's raised limit). */
  maxUploadBytes?: number;
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

/** The job kind of an upload for `kind`, from the file's first bytes. */
export function jobKindOf(kind: UploadKind, head: Uint8Array): ImportKind {
  if (kind !== "apple") return kind;
  return ZIP_MAGIC.every((b, i) => head[i] === b) ? "apple_zip" : "apple_xml";
}

export function createImportsService({
  db,
  repository,
  tmpDir = tmpdir(),
  maxUploadBytes = 5 * 1024 ** 3,
}: CreateImportsServiceParameters) {
  const requireUser = async (userId: string) => {
    if (!(await repository.userExists(userId))) throw new UserNotFoundError(userId);
  };

  /** One transaction: the import's record, its file (read from `path`) and its kernel job. */
  const queueImport = (job: Omit<NewImportJob, "id">, path: string) =>
    db.transaction(async (tx) => {
      const created = await repository.create(tx, { id: randomUUID(), ...job });
      await repository.storeFile(tx, created.id, path);
      await enqueueImport(tx, created.id);
      return created;
    });

  return {
    maxUploadBytes,

    /**
     * Saves an uploaded file and queues its import.
     * @throws {UserNotFoundError} {ImportUploadError}
     */
    async upload(userId: string, kind: UploadKind, fileName: string | null, file: Readable): Promise<ImportJobRow> {
      await requireUser(userId);
      const folder = await mkdtemp(join(tmpDir, "wearables-upload-"));
      const path = join(folder, "upload");
      let bytes = 0;
      const head: number[] = [];
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          for (let i = 0; head.length < 4 && i < chunk.length; i++) head.push(chunk[i] as number);
          if (bytes > maxUploadBytes)
            done(new ImportUploadError(`The file is larger than ${maxUploadBytes} bytes`, 413));
          else done(null, chunk);
        },
      });
      try {
        await pipeline(file, counter, createWriteStream(path));
        // A multipart file stream cut at the size limit says so (busboy's `truncated`).
        if ((file as { truncated?: boolean }).truncated) {
          throw new ImportUploadError(`The file is larger than ${maxUploadBytes} bytes`, 413);
        }
        if (bytes === 0) throw new ImportUploadError("The uploaded file is empty");
        const jobKind = jobKindOf(kind, Uint8Array.from(head));
        return await queueImport({ userId, kind: jobKind, fileName, fileBytes: bytes }, path);
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },

    /**
     * Queues the import of a file on this machine (the CLI): it is stored like an upload (any worker may run
     * the job) and left where it is.
     * @throws {UserNotFoundError} {ImportUploadError}
     */
    async importPath(userId: string, path: string, kind?: UploadKind): Promise<ImportJobRow> {
      await requireUser(userId);
      const absolute = resolve(path);
      const info = await stat(absolute).catch(() => undefined);
      if (!info?.isFile()) throw new ImportUploadError(`No such file: ${path}`);
      if (info.size === 0) throw new ImportUploadError(`The file is empty: ${path}`);
      const uploadKind = kind ?? kindFromName(absolute);
      const handle = await open(absolute, "r");
      const head = Buffer.alloc(4);
      try {
        await handle.read(head, 0, 4, 0);
      } finally {
        await handle.close();
      }
      const fileName = absolute.split(/[\\/]/).pop() ?? null;
      return queueImport({ userId, kind: jobKindOf(uploadKind, head), fileName, fileBytes: info.size }, absolute);
    },

    /** @throws {ImportJobNotFoundError} */
    async get(userId: string, taskId: string): Promise<ImportJobRow> {
      const job = await repository.get(taskId);
      if (!job || job.user_id !== userId) throw new ImportJobNotFoundError(taskId);
      return job;
    },
  };
}

/** The upload kind of a file name: .fit, .gpx, .tcx, else Apple Health (export.xml or export.zip). */
export function kindFromName(name: string): UploadKind {
  const ext = extname(name).toLowerCase();
  return ext === ".fit" ? "fit" : ext === ".gpx" ? "gpx" : ext === ".tcx" ? "tcx" : "apple";
}

export type ImportsService = ReturnType<typeof createImportsService>;
