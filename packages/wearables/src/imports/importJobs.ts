/**
 * File imports on the kernel's job layer: an import is a record in `wearables.import_jobs` (its user-facing
 * state, progress and checkpoint) and a kernel job of queue `IMPORT_QUEUE` (singleton key = the import's id),
 * both created in the upload's transaction (`enqueueImport`). Whichever worker takes the job, on any
 * instance, copies the upload from the database to a temporary file and imports it in chunks. Each chunk is
 * ONE transaction that asserts the job's claim, writes its data through the health data writer AND moves the
 * import's progress and checkpoint, so a worker killed at any instant leaves the import at its last committed
 * chunk; once the dead worker's lock expires the kernel queues the job again and the next run resumes from
 * there without writing a sample twice (a worker whose claim was lost has its chunk refused).
 *
 * Long imports run in slices: `sliceMs` after its first chunk a run stops between chunks, completes its job
 * and enqueues the next one in one transaction, so no run nears the queue's `timeoutMs` (a killed worker's
 * job waits out only the kernel worker's `lockMs` after its last heartbeat, not the timeout). A file that cannot be imported fails its import with a clear error and completes its job (it
 * would fail again): the chunks committed before stay, nothing of the failing chunk does. Other errors (the
 * database, the disk) are retried with the kernel's backoff; the last attempt's error fails the import.
 *
 * @example
 * const imports = createImportQueue({ db, logger });
 * const worker = createJobWorker({ db, logger, queues: { [IMPORT_QUEUE]: imports.queue } });
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BackoffOptions,
  type Database,
  enqueueJob,
  type JobContext,
  JobLockLostError,
  type JobStatus,
  type Logger,
  type Queryable,
  type QueueDefinition,
  toJobStatus,
  WorkerStoppingError,
} from "@platform/kernel";
import { createConnectionsStore } from "../store/connectionsRepository.ts";
import { createHealthDataWriter, type HealthDataWriter } from "../store/healthDataWriter.ts";
import {
  createImportJobsRepository,
  type ImportJobRow,
  type ImportJobsRepository,
  type ImportKind,
} from "../store/importJobsRepository.ts";
import { withWebhookEvents } from "../webhooks/eventingWriter.ts";
import { createWebhookOutbox, type WebhookOutbox } from "../webhooks/webhookOutbox.ts";
import { importAppleHealth } from "./appleHealthImport.ts";
import { DEFAULT_WORKOUT_FILE_PARSERS, importWorkoutFile, type WorkoutFileParsers } from "./workoutFile.ts";

/** The kernel queue of file imports: payload `{importId}`, singleton key = the import's id. */
export const IMPORT_QUEUE = "wearables.import";

export interface ImportJobPayload {
  importId: string;
}

/** In the upload's transaction `tx`: the job that runs import `importId`. */
export async function enqueueImport(tx: Queryable, importId: string): Promise<void> {
  await enqueueJob(tx, IMPORT_QUEUE, { importId } satisfies ImportJobPayload, { singletonKey: importId });
}

/** What one chunk wrote. */
export interface ChunkWrites {
  samples: number;
  events: number;
}

/** Where the import stands once the chunk commits. */
export interface ChunkPosition {
  bytesRead: number;
  itemsProcessed: number;
  checkpoint: Record<string, unknown>;
}

/** What a processor gets to import one job's file. */
export interface ImportContext {
  /** The import's record; `file_path` is the local copy of its upload. */
  job: ImportJobRow & { file_path: string };
  /** Aborted when the worker stops or the run times out: stop at once (what is committed stays). */
  signal: AbortSignal;
  writer: HealthDataWriter;
  repository: ImportJobsRepository;
  /** Largest number of items (records, samples) per chunk. */
  chunkItems: number;
  /** Apple Health exports at least this large are read on a thread of their own (appleThreadedReader.ts). */
  readerThreadMinBytes: number;
  /** Commits one chunk: `write` runs in the transaction, and the import's progress moves to `position` with it. */
  commit(write: (tx: Queryable) => Promise<ChunkWrites>, position: ChunkPosition): Promise<void>;
}

/** Imports one job's file from its checkpoint; answers the bytes read in the end. */
export type ImportProcessor = (context: ImportContext) => Promise<{ bytesRead: number }>;

/** Test seams: called inside each chunk's transaction after its writes, before its checkpoint moves. */
export interface ImportJobHooks {
  /** `chunkIndex` counts from the start of this run; `attempt` is the kernel job's (1 on the first run). */
  duringChunk?(job: ImportJobRow, chunkIndex: number, attempt: number): void | Promise<void>;
}

export interface CreateImportQueueParameters {
  db: Database;
  logger: Logger;
  /** FIT/GPX/TCX parsers by kind (default: `src/importers/*.ts`). */
  workoutFileParsers?: WorkoutFileParsers;
  /** Where the imported data's webhook events go (default: an outbox of its own; it keeps no state). */
  outbox?: WebhookOutbox;
  chunkItems?: number;
  /**
   * Apple Health exports of at least this many bytes are read (parsed and mapped) on a thread of their own,
   * while the import writes; default 16 MiB. Smaller ones are read on the import's thread: a thread's start
   * (its module loading) would cost them more than it saves.
   */
  readerThreadMinBytes?: number;
  /**
   * A run stops between chunks this long after its first chunk and continues in a new job; default 2 minutes.
   * Each slice re-reads the file up to its checkpoint (an Apple export is a stream): longer slices cost less.
   */
  sliceMs?: number;
  /** A run longer than this fails (and the lock of a killed worker's job lasts this long); default 5 minutes. */
  timeoutMs?: number;
  /** Imports run at once by one worker; default 1. */
  concurrency?: number;
  backoff?: BackoffOptions;
  /** Where the upload is copied for the run (default the OS's temporary folder). */
  tmpDir?: string;
  hooks?: ImportJobHooks;
}

export interface ImportQueue {
  /** The handler of `IMPORT_QUEUE` for a job worker. */
  readonly queue: QueueDefinition<ImportJobPayload>;
  status(): JobStatus;
}

/** A run's slice is over: its job is completed and the next one enqueued. */
class SliceEndError extends Error {
  override name = "SliceEndError" as const;
}

/**
 * Errors that are not the file's fault: the database's (a SQLSTATE `code`, but for data exceptions and
 * integrity violations, classes 22 and 23, which the file's values cause), the network's and the disk's (`E…`
 * codes), and the job's claim lost. These are retried; anything else is the file's.
 */
function isTransient(error: unknown): boolean {
  if (error instanceof JobLockLostError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  if (/^[0-9A-Z]{5}$/.test(code)) return !/^2[23]/.test(code);
  return /^E[A-Z]+$/.test(code);
}

export function createImportQueue({
  db,
  logger,
  workoutFileParsers = DEFAULT_WORKOUT_FILE_PARSERS,
  outbox = createWebhookOutbox(),
  chunkItems = 5_000,
  readerThreadMinBytes = 16 * 1024 * 1024,
  sliceMs = 120_000,
  timeoutMs = 300_000,
  concurrency = 1,
  backoff,
  tmpDir = tmpdir(),
  hooks = {},
}: CreateImportQueueParameters): ImportQueue {
  const log = logger.child({ job: "wearables-imports" });
  const repository = createImportJobsRepository(db);
  const connections = createConnectionsStore(db);
  const writer = withWebhookEvents(createHealthDataWriter(), outbox);
  const stats = {
    completed: 0,
    failed: 0,
    slices: 0,
    running: [] as string[],
    lastError: null as string | null,
  };

  const processors: Record<ImportKind, ImportProcessor> = {
    apple_xml: importAppleHealth,
    apple_zip: importAppleHealth,
    fit: (c) => importWorkoutFile(c, "fit", workoutFileParsers.fit),
    gpx: (c) => importWorkoutFile(c, "gpx", workoutFileParsers.gpx),
    tcx: (c) => importWorkoutFile(c, "tcx", workoutFileParsers.tcx),
  };

  /** The import's file on this machine: its stored upload copied to a temporary file, or its old local path. */
  async function localCopy(job: ImportJobRow): Promise<{ path: string; remove(): Promise<void> }> {
    if (!(await repository.hasFile(job.id)) && job.file_path) {
      return { path: job.file_path, remove: async () => undefined };
    }
    const folder = await mkdtemp(join(tmpDir, "wearables-import-"));
    const remove = () => rm(folder, { recursive: true, force: true });
    try {
      const path = join(folder, "upload");
      await repository.copyFileTo(job.id, path);
      return { path, remove };
    } catch (error) {
      await remove();
      throw error;
    }
  }

  /** In one transaction: the import's end (completed or failed), its upload deleted, its job completed. */
  async function finish(run: JobContext<ImportJobPayload>, id: string, end: (tx: Queryable) => Promise<void>) {
    await db.transaction(async (tx) => {
      await run.assertHeld(tx);
      await end(tx);
      await repository.deleteFile(tx, id);
      await run.complete(tx);
    });
  }

  async function handle(run: JobContext<ImportJobPayload>): Promise<void> {
    const id = run.payload.importId;
    const job = await repository.start(id);
    if (!job) return; // ended already (or gone with its user): nothing to do
    /** When this run's first chunk began: the slice counts from there, not from a resumed file's catch-up. */
    let sliceStart: number | undefined;
    const controller = new AbortController();
    const onAbort = () => controller.abort(run.signal.reason);
    run.signal.addEventListener("abort", onAbort, { once: true });
    if (run.signal.aborted) onAbort();
    stats.running.push(id);
    let file: { path: string; remove(): Promise<void> } | undefined;
    let chunkIndex = 0;
    try {
      file = await localCopy(job);
      const context: ImportContext = {
        job: { ...job, file_path: file.path },
        signal: controller.signal,
        writer,
        repository,
        chunkItems,
        readerThreadMinBytes,
        async commit(write, position) {
          if (controller.signal.aborted) throw controller.signal.reason;
          sliceStart ??= Date.now();
          if (chunkIndex > 0 && Date.now() - sliceStart >= sliceMs) throw new SliceEndError();
          const index = chunkIndex++;
          await db.transaction(async (tx) => {
            await run.assertHeld(tx);
            const written = await write(tx);
            await hooks.duringChunk?.(job, index, run.attempt);
            await repository.commitChunk(tx, id, {
              ...position,
              samplesAdded: written.samples,
              eventsAdded: written.events,
            });
          });
        },
      };
      const { bytesRead } = await processors[job.kind](context);
      if (controller.signal.aborted) throw controller.signal.reason;
      await finish(run, id, async (tx) => {
        await repository.complete(tx, id, bytesRead);
        // Apple Health has no cloud to connect: its imports are what syncs it (last_synced_at moves with them).
        if (job.kind === "apple_xml" || job.kind === "apple_zip")
          await connections.recordImport(tx, job.user_id, "apple");
      });
      stats.completed++;
      log.info({ importId: id, kind: job.kind }, "import completed");
    } catch (error) {
      if (error instanceof SliceEndError) {
        // The next slice continues from the checkpoint, in a job of its own.
        await db.transaction(async (tx) => {
          await run.complete(tx);
          await enqueueImport(tx, id);
        });
        stats.slices++;
        return;
      }
      if (controller.signal.aborted || isTransient(error)) {
        const message = (error as Error).message || String(error);
        stats.lastError = message;
        const stopping = run.signal.reason instanceof WorkerStoppingError;
        if (!stopping && run.attempt >= run.maxAttempts && !(error instanceof JobLockLostError)) {
          // The kernel's last attempt: the import fails with it; its job goes dead and its upload stays, so
          // `platform jobs retry <id>` resumes it from its checkpoint.
          await db
            .transaction((tx) => repository.fail(tx, id, message))
            .catch((e) => log.warn({ err: e, importId: id }, "recording an import's failure failed"));
        }
        throw error;
      }
      const message = (error as Error).message || String(error);
      stats.failed++;
      stats.lastError = message;
      log.warn({ importId: id, kind: job.kind, err: error }, "import failed");
      await finish(run, id, (tx) => repository.fail(tx, id, message));
    } finally {
      run.signal.removeEventListener("abort", onAbort);
      stats.running = stats.running.filter((r) => r !== id);
      await file?.remove();
    }
  }

  return {
    queue: { handler: handle, concurrency, timeoutMs, backoff },
    status: () => toJobStatus({ ...stats }),
  };
}
