/**
 * Wearables benchmarks, on PGlite and on PostgreSQL (when the local server answers; `BENCH_DRIVERS` chooses):
 * - `storage` (`storage.ts`): the samples layout against the anchor's single numeric table, same rows:
 *   bytes per sample, COPY load rate, a one-day window and a year by the hour. Knobs:
 *   BENCH_STORAGE_SAMPLES_PGLITE (2M), BENCH_STORAGE_SAMPLES_POSTGRES (10M), BENCH_STORAGE_SOURCES (4),
 *   BENCH_ROUNDS (5).
 * Usage: npm run bench wearables   (BENCH_PARTS=storage)
 */
import { kernelMigrations, loadMigrations, migrate } from "@platform/kernel";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";
import { writeResults } from "../lib/results.ts";
import { type StorageResult, storageBenchmark } from "./storage.ts";

const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const parts = (process.env.BENCH_PARTS ?? "storage").split(",");
const drivers = (process.env.BENCH_DRIVERS ?? "pglite,postgres").split(",") as Driver[];
const migrationsDir = new URL("../../packages/wearables/migrations", import.meta.url).pathname;

const results: { storage: (StorageResult & { driver: Driver })[] } = { storage: [] };
const bench = benchDatabase("wearables");
for (const driver of (["pglite", "postgres"] as const).filter((d) => drivers.includes(d))) {
  if (driver === "postgres" && !(await bench.preparePostgres({ fresh: true }))) {
    process.stdout.write("wearables bench: no PostgreSQL server answers; skipped\n");
    continue;
  }
  if (driver === "pglite") {
    const { rmSync } = await import("node:fs");
    rmSync(bench.pgliteDir, { recursive: true, force: true });
  }
  const db = await bench.open(driver);
  try {
    await migrate(db, [...kernelMigrations(), ...loadMigrations("wearables", migrationsDir)]);
    if (parts.includes("storage")) {
      const samples = knob(
        `BENCH_STORAGE_SAMPLES_${driver.toUpperCase()}`,
        driver === "pglite" ? 2_000_000 : 10_000_000,
      );
      process.stdout.write(`wearables bench: storage of ${samples.toLocaleString()} samples on ${driver}...\n`);
      const r = await storageBenchmark(db, {
        samples,
        sources: knob("BENCH_STORAGE_SOURCES", 4),
        rounds: knob("BENCH_ROUNDS", 5),
      });
      results.storage.push({ driver, ...r });
      for (const l of [r.ours, r.anchor]) {
        process.stdout.write(
          `  ${driver} ${l.layout.padEnd(6)} ${l.bytesPerSample} B/sample (table ${l.tableMiB} MiB + indexes ${l.indexMiB} MiB), ` +
            `COPY ${l.loadRowsPerSec.toLocaleString()} rows/s, one day ${l.dayWindowMs} ms, a year by the hour ${l.yearHourlyMs} ms\n`,
        );
      }
      process.stdout.write(`  ${driver}: the anchor's layout takes ${r.sizeRatio}× the bytes per sample\n`);
    }
  } finally {
    await db.close();
  }
}
writeResults("wearables", results);
