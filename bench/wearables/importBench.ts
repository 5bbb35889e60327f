/**
 * The `import` part: generated Apple Health exports (`writeDemoExport`, the demo person, `days` days each, kept
 * in the temp directory once written) imported through the service's import runner (`importProcess.ts import`,
 * its own process: samples/s and peak RSS), against a raw COPY of the very rows that import wrote
 * (`importProcess.ts copy`: dumped from the table in primary key order, the table emptied, then COPY in
 * 50,000-row transactions), and the streaming XML reader alone (`parse`). Each size on a fresh
 * `bench_wearables_import` database. The database is left with the last (largest) import, for `summary`.
 */
import { createWriteStream, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { kernelMigrations, migrate } from "@platform/kernel";
import { wearablesService } from "@platform/wearables";
import { writeDemoExport } from "../../packages/wearables/src/demo/demoData.ts";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";
import { runLoadScript } from "../lib/processes.ts";
import { dumpAndEmptySamples } from "./sampleRows.ts";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
export const importBench = benchDatabase("wearables_import");
/** The demo export's last day: a fixed date, so that the files are the same from run to run. */
export const EXPORT_END_DATE = "2026-11-01";

export interface ProcessFigures {
  rows: number;
  seconds: number;
  rowsPerSec: number;
  peakRssMiB: number;
  events?: number;
  items?: number;
}

export interface ImportSize {
  days: number;
  fileMiB: number;
  import: ProcessFigures;
  copy: ProcessFigures;
  parse: ProcessFigures;
  /** Rows in the table after the import (what the raw COPY writes again). */
  tableRows: number;
  /** import samples/s over raw COPY rows/s (goal ≥ 0.5). */
  ratio: number;
}

/** The export of `days` days, written once into the temp directory. */
async function exportFile(days: number): Promise<string> {
  const file = join(tmpdir(), `platform-bench-wearables-export-${days}d.xml`);
  if (existsSync(file)) return file;
  process.stdout.write(`  writing a ${days}-day Apple Health export...\n`);
  const partial = `${file}.partial`;
  await writeDemoExport({ days, seed: 1, endDate: EXPORT_END_DATE, out: createWriteStream(partial) });
  renameSync(partial, file);
  return file;
}

/** `importProcess.ts` in `mode` on `file` (the shared runner of one-line-JSON scripts; it types the line as a load). */
const runSide = async (mode: string, file: string, env: Record<string, string>) =>
  (await runLoadScript(here("./importProcess.ts"), file, {
    ...env,
    BENCH_IMPORT_MODE: mode,
  })) as unknown as ProcessFigures;

/** A fresh migrated database with the demo user; answers the user's id. */
async function freshDatabase(driver: Driver): Promise<string> {
  if (driver === "postgres") await importBench.preparePostgres({ fresh: true });
  else rmSync(importBench.pgliteDir, { recursive: true, force: true });
  const db = await importBench.open(driver);
  try {
    await migrate(db, [...kernelMigrations(), ...wearablesService.migrations]);
    const [user] = await db.query<{ id: string }>(
      "INSERT INTO wearables.users (email, first_name, last_name) VALUES ('demo@bench.test', 'Demo', 'User') RETURNING id",
    );
    return user?.id as string;
  } finally {
    await db.close();
  }
}

async function dumpAndEmpty(driver: Driver, file: string): Promise<number> {
  const db = await importBench.open(driver);
  try {
    return await dumpAndEmptySamples(db, file);
  } finally {
    await db.close();
  }
}

/** Imports, dumps, re-COPYs and parses an export of each of `daysList`, on `driver`. */
export async function importBenchmark(
  driver: Driver,
  daysList: number[],
): Promise<{ userId: string; sizes: ImportSize[] }> {
  const sizes: ImportSize[] = [];
  let userId = "";
  for (const days of daysList) {
    const file = await exportFile(days);
    const fileMiB = Math.round(statSync(file).size / 1024 / 1024);
    userId = await freshDatabase(driver);
    const env = { BENCH_DRIVER: driver, BENCH_USER_ID: userId };
    process.stdout.write(`  ${driver}: importing ${days} days (${fileMiB} MiB)...\n`);
    const imported = await runSide("import", file, env);
    const rowsFile = `${file}.${driver}.rows`;
    const dumped = await dumpAndEmpty(driver, rowsFile);
    // The job counts the rows its upserts touched; the table holds the distinct ones.
    if (dumped !== imported.rows)
      process.stdout.write(`  note: the job counted ${imported.rows} samples, the table holds ${dumped}\n`);
    process.stdout.write(`  ${driver}: raw COPY of the same ${dumped.toLocaleString()} rows...\n`);
    const copy = await runSide("copy", rowsFile, env);
    rmSync(rowsFile, { force: true });
    const parse = await runSide("parse", file, env);
    sizes.push({
      days,
      fileMiB,
      tableRows: dumped,
      import: imported,
      copy,
      parse,
      ratio: Math.round((imported.rowsPerSec / copy.rowsPerSec) * 1000) / 1000,
    });
  }
  return { userId, sizes };
}
