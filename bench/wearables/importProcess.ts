/**
 * One side of the `import` part, in its own process so that its peak RSS is its own (on PGlite the database runs
 * in this process too): `tsx importProcess.ts <file>` on `BENCH_DRIVER`'s `bench_wearables_import`, then
 * prints one JSON line `{rows, seconds, rowsPerSec, peakRssMiB, …}`. Modes (`BENCH_IMPORT_MODE`):
 * - `import`: an `apple_xml` job of the benchmark user for `<file>` (an export.xml) through the service's import
 *   runner (`createImportRunner(…).runOnce()`: streamed parse, mapping, chunked upserts with checkpoints);
 * - `copy`: `<file>` holds the rows that import wrote, in COPY text form; each batch of `BENCH_COPY_BATCH` lines
 *   (default 50,000) is one `COPY wearables.samples … FROM STDIN` in its own transaction: no staging table, no
 *   upsert, no dedup, no progress row;
 * - `parse`: the export read by the same streaming XML reader, nothing written (the parser's own ceiling).
 */
import { randomUUID } from "node:crypto";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createLogger } from "@platform/kernel";
import { readAppleHealthXml } from "../../packages/wearables/src/imports/appleHealthXml.ts";
import { createImportRunner } from "../../packages/wearables/src/imports/importJobs.ts";
import { createImportJobsRepository } from "../../packages/wearables/src/store/importJobsRepository.ts";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";

export const SAMPLE_COLUMNS = "source_key, series_type, recorded_at, value, zone_offset, is_daily_total";

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
    const job = await jobs.create({
      id: randomUUID(),
      userId,
      kind: "apple_xml",
      filePath: file,
      fileName: "export.xml",
      fileBytes: statSync(file).size,
    });
    const logger = createLogger({ level: "warn" });
    // `dir` elsewhere: the runner deletes finished uploads from its own folder only.
    const runner = createImportRunner({ db, logger, dir: await mkdtemp(join(tmpdir(), "bench-imports-")) });
    if (!(await runner.runOnce())) throw new Error("the import runner found no job");
    const done = await jobs.get(job.id);
    if (done?.state !== "completed") throw new Error(`import ${done?.state}: ${JSON.stringify(done?.errors)}`);
    rows = Number(done.samples_written);
    extra = { events: Number(done.events_written), items: Number(done.items_processed) };
  } else {
    const batch = Number(process.env.BENCH_COPY_BATCH ?? 50_000);
    let lines: string[] = [];
    const flush = async () => {
      const text = lines.join("");
      lines = [];
      await db.transaction((tx) => tx.copyFrom(`COPY wearables.samples (${SAMPLE_COLUMNS}) FROM STDIN`, text));
    };
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
      lines.push(`${line}\n`);
      rows++;
      if (lines.length >= batch) await flush();
    }
    if (lines.length > 0) await flush();
  }
  seconds = (performance.now() - started) / 1000;
  await db.close();
}
seconds ||= (performance.now() - started) / 1000;
process.stdout.write(
  `${JSON.stringify({ mode, rows, seconds: Math.round(seconds * 100) / 100, rowsPerSec: Math.round(rows / seconds), peakRssMiB: peakRssMiB(), ...extra })}\n`,
);
process.exit(0);
