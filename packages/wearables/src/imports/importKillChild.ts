/**
 * Child process of the import kill test (importJobs.kill.test.ts), run with `node --import tsx`: a kernel job
 * worker of the import queue on the shared database given in IMPORT_CHILD_CONFIG. With `crashAtChunk`, it
 * prints `CRASH <n>` in the middle of that chunk's transaction (its samples written, its checkpoint not yet)
 * and stalls there until the test SIGKILLs it; without, it runs until no import is left and prints `DONE`.
 */
import { createJobWorker, createLogger } from "@platform/kernel";
import { type KillTestDatabaseLocation, startKillTestChild } from "@platform/kernel/testing";
import { waitFor } from "../testing/jobWorkers.ts";
import { createImportQueue, IMPORT_QUEUE } from "./importJobs.ts";

export interface ImportChildConfig extends KillTestDatabaseLocation {
  chunkItems: number;
  crashAtChunk?: number;
  readerThreadMinBytes?: number | undefined;
}

const { config, db } = await startKillTestChild<ImportChildConfig>("IMPORT_CHILD_CONFIG");
const logger = createLogger({ level: process.env.IMPORT_TEST_LOG ?? "silent" });
/** Chunks begun by this process, across its runs (a slice's next job is a new run). */
let chunks = 0;
const imports = createImportQueue({
  db,
  logger,
  chunkItems: config.chunkItems,
  ...(config.readerThreadMinBytes === undefined ? {} : { readerThreadMinBytes: config.readerThreadMinBytes }),
  // The killed process never gives its job back: the next one takes it once its lock (timeout + grace) expires.
  timeoutMs: 4_000,
  sliceMs: 1_500,
  hooks: {
    async duringChunk() {
      const index = chunks++;
      if (index !== config.crashAtChunk) return;
      process.stdout.write(`CRASH ${index}\n`);
      await new Promise(() => {}); // stall inside the transaction: the parent kills us
    },
  },
});
const worker = createJobWorker({
  db,
  logger,
  pollIntervalMs: 100,
  lockMs: 1_000,
  queues: { [IMPORT_QUEUE]: imports.queue },
});
await worker.start();
await waitFor(
  "every import to end",
  async () =>
    (await db.query("SELECT 1 FROM wearables.import_jobs WHERE state IN ('queued', 'processing')")).length === 0,
  60_000,
);
await worker.stop();
process.stdout.write("DONE\n");
await db.close();
process.exit(0);
