/**
 * Child process of the import kill test (importJobs.kill.test.ts), run with `node --import tsx`: an import
 * runner on the shared database given in IMPORT_CHILD_CONFIG. With `crashAtChunk`, it prints `CRASH <n>` in the
 * middle of that chunk's transaction (its samples written, its checkpoint not yet) and stalls there until the
 * test SIGKILLs it; without, it runs until no job is left and prints `DONE`.
 */
import { createLogger } from "@platform/kernel";
import { type KillTestDatabaseLocation, startKillTestChild } from "@platform/kernel/testing";
import { createImportRunner } from "./importJobs.ts";

export interface ImportChildConfig extends KillTestDatabaseLocation {
  uploadsDir: string;
  chunkItems: number;
  crashAtChunk?: number;
}

const { config, db } = await startKillTestChild<ImportChildConfig>("IMPORT_CHILD_CONFIG");
const runner = createImportRunner({
  db,
  logger: createLogger({ level: process.env.IMPORT_TEST_LOG ?? "silent" }),
  dir: config.uploadsDir,
  chunkItems: config.chunkItems,
  // The killed process never hands its job back: the next one takes it over when the lease expires.
  leaseMs: 1_000,
  hooks: {
    async duringChunk(_job, index) {
      if (index !== config.crashAtChunk) return;
      process.stdout.write(`CRASH ${index}\n`);
      await new Promise(() => {}); // stall inside the transaction: the parent kills us
    },
  },
});
for (;;) {
  if (await runner.runOnce()) continue;
  const [left] = await db.query("SELECT 1 FROM wearables.import_jobs WHERE state IN ('queued', 'processing')");
  if (!left) break;
  await new Promise((r) => setTimeout(r, 100)); // a dead runner's lease has not expired yet
}
process.stdout.write("DONE\n");
await db.close();
process.exit(0);
