/**
 * One side of the `import` part, in its own process so that its peak RSS is its own (on PGlite the database runs
 * in this process too): `tsx importProcess.ts <file>` on `BENCH_DRIVER`'s `bench_wearables_import`, then
 * prints one JSON line `{rows, seconds, rowsPerSec, peakRssMiB, …}`. Modes (`BENCH_IMPORT_MODE`):
 * - `import`: an `apple_xml` job of the benchmark user for `<file>` (an export.xml) through the service's import
 *   job (a kernel job worker of `wearables.import` until the import ends: streamed parse, mapping, chunked
 *   upserts with checkpoints; the file read where it is, not stored in the database first);
 * - `copy`: `<file>` holds the rows that import wrote, in COPY text form; each batch of `BENCH_COPY_BATCH` lines
 *   (default 50,000) is one `COPY wearables.samples … FROM STDIN` in its own transaction: no staging table, no
 *   upsert, no dedup, no progress row;
 * - `parse`: the export read by the same streaming XML reader, nothing written (the parser's own ceiling).
 */
import { randomUUID } from "node:crypto";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { createJobWorker, createLogger } from "@platform/kernel";
import { readAppleHealthXml } from "../../packages/wearables/src/imports/appleHealthXml.ts";
import { createImportQueue, enqueueImport, IMPORT_QUEUE } from "../../packages/wearables/src/imports/importJobs.ts";
import { createImportJobsRepository } from "../../packages/wearables/src/store/importJobsRepository.ts";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";
import { copySamplesFrom } from "./sampleRows.ts";

const mode = (process.env.BENCH_IMPORT_MODE ?? "import") as "import" | "copy" | "parse";
const file = process.argv[2] as string;
const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
const peakRssMiB = () =>
  Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]) / 102.4) / 10;

let started = performance.now();
let rows = 0;
let seconds = 0;
let extra: Record<string, unknown> = {};
if (mode === "parse") {
  for await (const _ of readAppleHealthXml(createReadStream(file))) rows++;
} else {
  const db = await benchDatabase("wearables_import").open(driver);
  started = performance.now(); // not the database's opening (PGlite's takes seconds)
  if (mode === "import") {
    const userId = process.env.BENCH_USER_ID as string;
    const jobs = createImportJobsRepository(db);
    const id = randomUUID();
    await db.transaction(async (tx) => {
      await jobs.create(tx, { id, userId, kind: "apple_xml", fileName: "export.xml", fileBytes: statSync(file).size });
      // Read where it is (the import's local-path case), not stored in the database first: the import alone is timed.
      await tx.query("UPDATE wearables.import_jobs SET file_path = $2 WHERE id = $1", [id, file]);
      await enqueueImport(tx, id);
    });
    const logger = createLogger({ level: "warn" });
    // One run (no slices: a slice re-reads the export up to its checkpoint).
    const imports = createImportQueue({ db, logger, sliceMs: 86_400_000, timeoutMs: 86_400_000 });
    const worker = createJobWorker({ db, logger, queues: { [IMPORT_QUEUE]: imports.queue } });
    await worker.start();
    const finished = async () => ["completed", "failed"].includes((await jobs.get(id))?.state ?? "");
    while (!(await finished())) await new Promise((r) => setTimeout(r, 100));
    await worker.stop();
    const done = await jobs.get(id);
    if (done?.state !== "completed") throw new Error(`import ${done?.state}: ${JSON.stringify(done?.errors)}`);
    rows = Number(done.samples_written);
    extra = { events: Number(done.events_written), items: Number(done.items_processed) };
  } else {
    rows = await copySamplesFrom(db, file, Number(process.env.BENCH_COPY_BATCH ?? 50_000));
  }
  seconds = (performance.now() - started) / 1000;
  await db.close();
}
seconds ||= (performance.now() - started) / 1000;
process.stdout.write(
  `${JSON.stringify({ mode, rows, seconds: Math.round(seconds * 100) / 100, rowsPerSec: Math.round(rows / seconds), peakRssMiB: peakRssMiB(), ...extra })}\n`,
);
process.exit(0);
