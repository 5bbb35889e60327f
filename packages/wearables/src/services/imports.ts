/**
 * File imports: what the import routes and the CLI ask for. An upload is streamed to
 * `<dir>/<task_id>` (never held in memory) with a size limit, its kind is told from its first bytes (a zip or
 * XML for Apple Health), and a queued job is created for the runner, which is woken at once. Progress is read
 * back from the job row.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, open, stat, unlink } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { UserNotFoundError } from "../domain/userErrors.ts";
import type { ImportJobRow, ImportJobsRepository, ImportKind } from "../store/importJobsRepository.ts";

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
  repository: ImportJobsRepository;
  /** Uploads folder (`<DATA_DIR>/wearables/imports`). */
  dir: string;
  /** Largest accepted upload (default 5 GiB, the anchor's raised limit). */
  maxUploadBytes?: number;
  /** Called after a job is queued (the runner's `wake`). */
  onQueued?: () => void;
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

/** The job kind of an upload for `kind`, from the file's first bytes. */
export function jobKindOf(kind: UploadKind, head: Uint8Array): ImportKind {
  if (kind !== "apple") return kind;
  return ZIP_MAGIC.every((b, i) => head[i] === b) ? "apple_zip" : "apple_xml";
}

export function createImportsService({
  repository,
  dir,
  maxUploadBytes = 5 * 1024 ** 3,
  onQueued,
}: CreateImportsServiceParameters) {
  const requireUser = async (userId: string) => {
    if (!(await repository.userExists(userId))) throw new UserNotFoundError(userId);
  };

  return {
    maxUploadBytes,

    /**
     * Saves an uploaded file and queues its import.
     * @throws {UserNotFoundError} {ImportUploadError}
     */
    async upload(userId: string, kind: UploadKind, fileName: string | null, file: Readable): Promise<ImportJobRow> {
      await requireUser(userId);
      await mkdir(dir, { recursive: true });
      const id = randomUUID();
      const path = join(dir, id);
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
      } catch (error) {
        await unlink(path).catch(() => undefined);
        throw error;
      }
      const job = await repository
        .create({
          id,
          userId,
          kind: jobKindOf(kind, Uint8Array.from(head)),
          filePath: path,
          fileName,
          fileBytes: bytes,
        })
        .catch(async (error) => {
          await unlink(path).catch(() => undefined);
          throw error;
        });
      onQueued?.();
      return job;
    },

    /**
     * Queues the import of a file already on this machine (the CLI): the job reads it where it is and leaves it.
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
      const job = await repository.create({
        id: randomUUID(),
        userId,
        kind: jobKindOf(uploadKind, head),
        filePath: absolute,
        fileName: absolute.split(/[\\/]/).pop() ?? null,
        fileBytes: info.size,
      });
      onQueued?.();
      return job;
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
