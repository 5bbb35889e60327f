/**
 * Kill test: a kernel job worker of the import queue runs in a child process that is SIGKILLed in the middle
 * of a chunk's transaction (its samples written, its checkpoint not), at a random chunk, several times; each
 * next child's worker takes the job again once the dead one's lock expires (the kernel's reaper) and resumes
 * from the last committed chunk. In the end the database holds exactly what an uninterrupted import writes (no
 * sample twice, none missing), with the same counts on the import. The database outlives the killed
 * processes: a PGlite folder (or PostgreSQL with TEST_DATABASE_URL), as the platform runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, kernelMigrations, listJobs, migrate } from "@platform/kernel";
import {
  createKillTestDatabase,
  createTestDatabase,
  type KillTestDatabase,
  killTestChildren,
} from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { wearablesService } from "../index.ts";
import { createImportsService } from "../services/imports.ts";
import { createImportJobsRepository, type ImportJobRow } from "../store/importJobsRepository.ts";
import { appleExportXml } from "../testing/appleExport.ts";
import { importSnapshot } from "../testing/importSnapshot.ts";
import { drainQueue } from "../testing/jobWorkers.ts";
import { createImportQueue, IMPORT_QUEUE } from "./importJobs.ts";
import type { ImportChildConfig } from "./importKillChild.ts";

const CHILD = new URL("./importKillChild.ts", import.meta.url);
const CHUNK = 60;
const children = killTestChildren();
let database: KillTestDatabase;
let dir: string;

beforeAll(async () => {
  database = await createKillTestDatabase({
    name: "wearables-imports",
    migrations: [...kernelMigrations(), ...wearablesService.migrations],
  });
  dir = mkdtempSync(join(tmpdir(), "wearables-kill-"));
});
afterAll(async () => {
  children.killAll();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** `readerThread`: the child reads the export on a thread of its own (as large exports are), a chunk ahead. */
function spawnChild(crashAtChunk?: number, readerThread = false) {
  const config: ImportChildConfig = {
    url: database.url,
    dataDir: database.dataDir,
    chunkItems: CHUNK,
    crashAtChunk,
    readerThreadMinBytes: readerThread ? 0 : undefined,
  };
  let crashed = false;
  const child = children.spawn({
    script: CHILD,
    env: { IMPORT_CHILD_CONFIG: JSON.stringify(config) },
    onStdout(out) {
      if (!crashed && out.includes("CRASH ")) {
        crashed = true;
        child.kill();
      }
    },
  });
  return {
    async go(): Promise<"killed" | "done"> {
      const end = await child.go(60_000);
      if (crashed && end === "SIGKILL") return "killed";
      if (end === 0 && child.out.includes("DONE")) return "done";
      throw new Error(`child ended (${String(end)}):\n${child.out}\n${child.err}`);
    },
  };
}

it("an import SIGKILLed mid-chunk at random chunks resumes to exactly the rows of an uninterrupted import", async () => {
  const xml = appleExportXml({ extraHeartRates: 1_500 });
  const path = join(dir, "export.xml");
  writeFileSync(path, xml);

  // The reference: the same file imported without interruption, in a database of its own.
  const reference = await createTestDatabase();
  await migrate(reference.db, [...kernelMigrations(), ...wearablesService.migrations]);
  const queueImport = async (db: typeof reference.db) => {
    const [user] = await db.query<{ id: string }>(
      "INSERT INTO wearables.users (id) VALUES ('7d3c1a52-0b4e-4f7a-9c1d-2e3f4a5b6c7d') RETURNING id",
    );
    const service = createImportsService({ db, repository: createImportJobsRepository(db) });
    return service.importPath((user as { id: string }).id, path);
  };
  const refJob = await queueImport(reference.db);
  const logger = createLogger({ level: "silent" });
  const queue = createImportQueue({ db: reference.db, logger, chunkItems: CHUNK }).queue;
  await drainQueue(reference.db, logger, IMPORT_QUEUE, queue);
  const expected = await importSnapshot(reference.db);
  const expectedJob = (await createImportJobsRepository(reference.db).get(refJob.id)) as ImportJobRow;
  await reference.drop();
  expect(expectedJob.state).toBe("completed");

  let db = await database.open();
  const job = await queueImport(db);
  await database.close(db);

  // Kill at a random chunk of each run (chunk indexes count from each child's start).
  const crashes = [1 + Math.floor(Math.random() * 8), Math.floor(Math.random() * 8), 1 + Math.floor(Math.random() * 8)];
  const runs = [...crashes.map((c, i) => spawnChild(c, i % 2 === 1)), spawnChild(undefined, true)];
  const ends: string[] = [];
  for (const run of runs) ends.push(await run.go());
  expect(ends).toEqual(["killed", "killed", "killed", "done"]);

  db = await database.open();
  try {
    const done = (await createImportJobsRepository(db).get(job.id)) as ImportJobRow;
    expect(done.state).toBe("completed");
    expect(await importSnapshot(db)).toEqual(expected);
    expect(done.samples_written).toBe(expectedJob.samples_written);
    expect(done.events_written).toBe(expectedJob.events_written);
    expect(done.items_processed).toBe(expectedJob.items_processed);
    // The import's kernel job (or its slices' jobs) taken by each child in turn, completed by the last; the
    // killed children's claims count as attempts. The upload is deleted at the end.
    const runs = await listJobs(db, { queue: IMPORT_QUEUE });
    expect(runs.every((r) => r.state === "completed" && r.singleton_key === job.id)).toBe(true);
    expect(runs.reduce((n, r) => n + r.attempts, 0)).toBeGreaterThanOrEqual(4);
    expect(await db.query("SELECT 1 FROM wearables.import_files")).toEqual([]);
  } finally {
    await database.close(db);
  }
}, 240_000);
