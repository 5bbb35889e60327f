/**
 * The import job runner: takes queued jobs (and those of dead runners, whose lease expired) from
 * `wearables.import_jobs` and imports their files in chunks. Each chunk is ONE transaction that writes its data
 * through the health data writer AND moves the job's progress and checkpoint, so a runner killed at any instant
 * leaves the job at its last committed chunk, and the next runner resumes from there without writing a sample
 * twice. A file that cannot be imported fails its job with a clear error: the chunks committed before stay,
 * nothing of the failing chunk does.
 *
 * @example
 * const runner = createImportRunner({ db, logger, dir: join(dataDir, "wearables", "imports") });
 * runner.start(); … runner.wake(); … await runner.stop();
 */
import { randomUUID } from "node:crypto";
import { unlink } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { type Database, type JobStatus, type Logger, type Queryable, toJobStatus } from "@platform/kernel";
import { createHealthDataWriter, type HealthDataWriter } from "../store/healthDataWriter.ts";
import {
  createImportJobsRepository,
  type ImportJobRow,
  type ImportJobsRepository,
  type ImportKind,
  LeaseLostError,
} from "../store/importJobsRepository.ts";
import { importAppleHealth } from "./appleHealthImport.ts";
import { DEFAULT_WORKOUT_FILE_PARSERS, importWorkoutFile, type WorkoutFileParsers } from "./workoutFile.ts";

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
  job: ImportJobRow;
  /** Aborted when the runner stops or loses the lease: stop at once (what is committed stays). */
  signal: AbortSignal;
  writer: HealthDataWriter;
  repository: ImportJobsRepository;
  /** Largest number of items (records, samples) per chunk. */
  chunkItems: number;
  /** Commits one chunk: `write` runs in the transaction, and the job's progress moves to `position` with it. */
  commit(write: (tx: Queryable) => Promise<ChunkWrites>, position: ChunkPosition): Promise<void>;
}

/** Imports one job's file from its checkpoint; answers the bytes read in the end. */
export type ImportProcessor = (context: ImportContext) => Promise<{ bytesRead: number }>;

/** Test seams: called inside each chunk's transaction after its writes, before its checkpoint moves. */
export interface ImportRunnerHooks {
  duringChunk?(job: ImportJobRow, chunkIndex: number): void | Promise<void>;
}

export interface CreateImportRunnerParameters {
  db: Database;
  logger: Logger;
  /** Where uploads are kept (`<DATA_DIR>/wearables/imports`); a finished job's file there is deleted. */
  dir: string;
  /** FIT/GPX/TCX parsers by kind (default: helper FILES` `src/importers/*.ts`). */
  workoutFileParsers?: WorkoutFileParsers;
  holder?: string;
  /** Lease length (default 60 s), renewed every third of it while a job runs. */
  leaseMs?: number;
  /** How often to look for work when idle (default 1 s); `wake()` looks at once. */
  pollMs?: number;
  chunkItems?: number;
  hooks?: ImportRunnerHooks;
}

export interface ImportRunner {
  /** Starts looking for jobs in the background. */
  start(): void;
  /** Stops; a job in progress is handed back at its last committed chunk. */
  stop(): Promise<void>;
  /** Looks for a job at once (after an upload). */
  wake(): void;
  /** Takes one job and runs it to its end (or until stopped); false when there was none. For the CLI and tests. */
  runOnce(signal?: AbortSignal): Promise<boolean>;
  status(): JobStatus;
}

/** Stops a processor when the runner stops (not a failure of the file). */
class ImportStoppedError extends Error {
  override name = "ImportStoppedError" as const;
}

export function createImportRunner({
  db,
  logger,
  dir,
  workoutFileParsers = DEFAULT_WORKOUT_FILE_PARSERS,
  holder = `importer-${randomUUID()}`,
  leaseMs = 60_000,
  pollMs = 1_000,
  chunkItems = 5_000,
  hooks = {},
}: CreateImportRunnerParameters): ImportRunner {
  const log = logger.child({ job: "wearables-imports" });
  const repository = createImportJobsRepository(db);
  const writer = createHealthDataWriter();
  const uploadsDir = resolve(dir) + sep;
  const stats = { completed: 0, failed: 0, current: null as string | null, lastError: null as string | null };
  let stopController = new AbortController();
  let loop: Promise<void> | null = null;
  let wakeUp: (() => void) | null = null;

  const processors: Record<ImportKind, ImportProcessor> = {
    apple_xml: importAppleHealth,
    apple_zip: importAppleHealth,
    fit: (c) => importWorkoutFile(c, "fit", workoutFileParsers.fit),
    gpx: (c) => importWorkoutFile(c, "gpx", workoutFileParsers.gpx),
    tcx: (c) => importWorkoutFile(c, "tcx", workoutFileParsers.tcx),
  };

  async function runJob(job: ImportJobRow, outer: AbortSignal): Promise<void> {
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(new ImportStoppedError("the import runner stopped"));
    outer.addEventListener("abort", onOuterAbort, { once: true });
    if (outer.aborted) onOuterAbort();
    const heartbeat = setInterval(() => {
      repository.renewLease(job.id, holder, leaseMs).then(
        (ours) => ours || controller.abort(new LeaseLostError(job.id)),
        (error) => log.warn({ err: error, jobId: job.id }, "import lease renewal failed"),
      );
    }, leaseMs / 3);
    stats.current = job.id;
    let chunkIndex = 0;
    const context: ImportContext = {
      job,
      signal: controller.signal,
      writer,
      repository,
      chunkItems,
      async commit(write, position) {
        if (controller.signal.aborted) throw controller.signal.reason;
        const index = chunkIndex++;
        await db.transaction(async (tx) => {
          const written = await write(tx);
          await hooks.duringChunk?.(job, index);
          await repository.commitChunk(
            tx,
            job.id,
            holder,
            { ...position, samplesAdded: written.samples, eventsAdded: written.events },
            leaseMs,
          );
        });
      },
    };
    try {
      const { bytesRead } = await processors[job.kind](context);
      if (controller.signal.aborted) throw controller.signal.reason;
      await repository.complete(job.id, holder, bytesRead);
      stats.completed++;
      log.info({ jobId: job.id, kind: job.kind }, "import completed");
      await removeUpload(job);
    } catch (error) {
      if (controller.signal.aborted || error instanceof LeaseLostError) {
        const reason = controller.signal.reason ?? error;
        if (reason instanceof LeaseLostError || error instanceof LeaseLostError) {
          log.warn({ jobId: job.id }, "import lease lost; another runner continues the job");
        } else {
          await repository.release(job.id, holder).catch(() => undefined);
          log.info({ jobId: job.id }, "import stopped; it resumes from its checkpoint");
        }
        return;
      }
      const message = (error as Error).message || String(error);
      stats.failed++;
      stats.lastError = message;
      log.warn({ jobId: job.id, kind: job.kind, err: error }, "import failed");
      await repository.fail(job.id, holder, message);
      await removeUpload(job);
    } finally {
      clearInterval(heartbeat);
      outer.removeEventListener("abort", onOuterAbort);
      stats.current = null;
    }
  }

  async function removeUpload(job: ImportJobRow) {
    if (!resolve(job.file_path).startsWith(uploadsDir)) return;
    await unlink(job.file_path).catch(() => undefined);
  }

  async function runOnce(signal: AbortSignal = stopController.signal): Promise<boolean> {
    const job = await repository.claim(holder, leaseMs);
    if (!job) return false;
    await runJob(job, signal);
    return true;
  }

  async function background(signal: AbortSignal) {
    while (!signal.aborted) {
      try {
        if (await runOnce(signal)) continue;
      } catch (error) {
        stats.lastError = (error as Error).message;
        log.error({ err: error }, "import runner error");
      }
      if (signal.aborted) break;
      await new Promise<void>((done) => {
        const finish = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", finish);
          done();
        };
        const timer = setTimeout(finish, pollMs);
        wakeUp = finish;
        signal.addEventListener("abort", finish, { once: true });
      });
      wakeUp = null;
    }
  }

  return {
    start() {
      if (loop) return;
      if (stopController.signal.aborted) stopController = new AbortController();
      loop = background(stopController.signal);
    },
    async stop() {
      stopController.abort();
      await loop;
      loop = null;
    },
    wake: () => wakeUp?.(),
    runOnce,
    status: () => toJobStatus({ holder, running: loop !== null, ...stats }),
  };
}
