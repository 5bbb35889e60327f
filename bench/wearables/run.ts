/**
 * Wearables benchmarks, on PGlite and on PostgreSQL (when the local server answers; `BENCH_DRIVERS` chooses):
 * - `storage` (`storage.ts`): the samples layout against the anchor's single numeric table, same rows:
 *   bytes per sample, COPY load rate, a one-day window and a year by the hour. Knobs:
 *   BENCH_STORAGE_SAMPLES_PGLITE (2M), BENCH_STORAGE_SAMPLES_POSTGRES (10M), BENCH_STORAGE_SOURCES (4),
 *   BENCH_ROUNDS (5).
 * - `timeseries` (`timeseries.ts`, `timeseriesDatabase.ts`): `GET /timeseries` of one user with N samples, a one-day
 *   window and a year by the hour, the real service against a bare route with the same SQL. Knobs:
 *   BENCH_TS_SAMPLES_PGLITE (10M), BENCH_TS_SAMPLES_POSTGRES (100M), BENCH_TS_SOURCES (4), BENCH_CONNECTIONS (16),
 *   BENCH_TS_FIRST_REPEATS (10), BENCH_DURATION (10), BENCH_TS_ROUNDS (2), BENCH_TS_WALK_WARMUP (1),
 *   BENCH_TS_BUCKET_LIMIT (1000). Seeded once, reused.
 * - `import` (`importBench.ts`, `importProcess.ts`): generated Apple Health exports of BENCH_IMPORT_DAYS days
 *   (default 365,2000: 175 MiB and 974 MiB) through the service's import runner, samples/s and peak RSS, against a
 *   raw COPY of the same rows and the XML reader alone.
 * - `summary` (`summary.ts`): `GET /summaries/activity` over the last year of the last import, one request at a
 *   time: BENCH_SUMMARY_REPEATS (20).
 * - `sync` (`syncBench.ts`): the provider sync's write path in process: BENCH_SYNC_DAYS (20) daily vendor pages
 *   (heart rate every BENCH_SYNC_HR_SEC (5) s, steps every minute, a workout and a night each) through
 *   `writeMappedRecords`, a page per transaction, samples/s against a raw COPY of the same rows; then the same
 *   pages again (a re-synced window).
 * Usage: npm run bench wearables   (BENCH_PARTS=storage,timeseries,import,summary,sync)
 */

import { existsSync, readFileSync } from "node:fs";
import { kernelMigrations, loadMigrations, migrate } from "@platform/kernel";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";
import { writeResults } from "../lib/results.ts";
import { type ImportSize, importBench, importBenchmark } from "./importBench.ts";
import { type StorageResult, storageBenchmark } from "./storage.ts";
import { type SummaryResult, summaryBenchmark } from "./summary.ts";
import { type SyncResult, syncBench, syncBenchmark } from "./syncBench.ts";
import { type TimeseriesResult, timeseriesBenchmark } from "./timeseries.ts";
import {
  prepareTimeseriesDatabase,
  type SeededTimeseries,
  samplesSizeMiB,
  timeseriesBench,
} from "./timeseriesDatabase.ts";

const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const parts = (process.env.BENCH_PARTS ?? "storage,timeseries,import,summary,sync").split(",");
const drivers = (process.env.BENCH_DRIVERS ?? "pglite,postgres").split(",") as Driver[];
const migrationsDir = new URL("../../packages/wearables/migrations", import.meta.url).pathname;

const results: {
  storage?: (StorageResult & { driver: Driver })[];
  timeseries?: { driver: Driver; seed: SeededTimeseries & { sizeMiB: number }; result: TimeseriesResult }[];
  import?: { driver: Driver; sizes: ImportSize[] }[];
  summary?: ({ driver: Driver } & SummaryResult)[];
  sync?: ({ driver: Driver } & SyncResult)[];
} = {};
/**
 * Adds a driver's row to a part and writes the results at once (a later failure keeps it). Only the parts run
 * now are written, and in them the rows of the drivers not run now are kept.
 */
function add<K extends keyof typeof results>(part: K, row: NonNullable<(typeof results)[K]>[number]) {
  if (!results[part]) {
    const previous = readPrevious()[part] ?? [];
    results[part] = previous.filter((r) => !drivers.includes(r.driver)) as (typeof results)[K];
  }
  (results[part] as (typeof row)[]).push(row);
  writeResults("wearables", results);
}
function readPrevious(): Partial<Record<keyof typeof results, { driver: Driver }[]>> {
  const file = new URL("../results/wearables.json", import.meta.url);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")).results ?? {}) : {};
}
const bench = benchDatabase("wearables");
for (const driver of (["pglite", "postgres"] as const).filter(
  (d) => drivers.includes(d) && parts.includes("storage"),
)) {
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
      add("storage", { driver, ...r });
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

for (const driver of (["pglite", "postgres"] as const).filter(
  (d) => drivers.includes(d) && parts.includes("timeseries"),
)) {
  if (driver === "postgres" && !(await timeseriesBench.preparePostgres())) {
    process.stdout.write("wearables bench: no PostgreSQL server answers; timeseries skipped\n");
    continue;
  }
  const samples = knob(`BENCH_TS_SAMPLES_${driver.toUpperCase()}`, driver === "pglite" ? 10_000_000 : 100_000_000);
  process.stdout.write(`wearables bench: timeseries with ${samples.toLocaleString()} samples on ${driver}...\n`);
  const seeded = await prepareTimeseriesDatabase(driver, { samples, sources: knob("BENCH_TS_SOURCES", 4) });
  const seed = { ...seeded, sizeMiB: await samplesSizeMiB(driver) };
  process.stdout.write(
    `  ${seeded.reused ? "reused" : `seeded in ${seeded.seedSec} s:`} ${seeded.samples.toLocaleString()} samples, ` +
      `${seeded.sources} sources, heart rate every ${seeded.heartRateIntervalSec} s, samples table ${seed.sizeMiB} MiB\n`,
  );
  const result = await timeseriesBenchmark({
    driver,
    userId: seeded.userId,
    connections: knob("BENCH_CONNECTIONS", 16),
    firstRepeats: knob("BENCH_TS_FIRST_REPEATS", 10),
    durationSec: knob("BENCH_DURATION", 10),
    rounds: knob("BENCH_TS_ROUNDS", 2),
    warmup: knob("BENCH_TS_WALK_WARMUP", 1) > 0,
    bucketLimit: knob("BENCH_TS_BUCKET_LIMIT", 1000),
  });
  add("timeseries", { driver, seed, result });
  printTimeseries(driver, result);
}

for (const driver of (["pglite", "postgres"] as const).filter(
  (d) => drivers.includes(d) && (parts.includes("import") || parts.includes("summary")),
)) {
  if (driver === "postgres" && !(await importBench.preparePostgres())) continue;
  const days = (process.env.BENCH_IMPORT_DAYS ?? "365,2000").split(",").map(Number);
  let userId: string | undefined;
  if (parts.includes("import")) {
    process.stdout.write(`wearables bench: import of ${days.join(", ")}-day exports on ${driver}...\n`);
    const r = await importBenchmark(driver, days);
    userId = r.userId;
    add("import", { driver, sizes: r.sizes });
    for (const s of r.sizes) {
      const side = (f: ImportSize["import"]) =>
        `${f.rowsPerSec.toLocaleString()} rows/s (${f.rows.toLocaleString()} in ${f.seconds} s, peak RSS ${f.peakRssMiB} MiB)`;
      process.stdout.write(
        `  ${driver} ${s.days} days, ${s.fileMiB} MiB: import ${side(s.import)}; raw COPY ${side(s.copy)}; ` +
          `ratio ${(s.ratio * 100).toFixed(1)} %; XML reader alone ${side(s.parse)}\n`,
      );
    }
  }
  if (parts.includes("summary")) {
    userId ??= await demoUserId(driver);
    const r: SummaryResult = userId
      ? await summaryBenchmark({
          driver,
          userId,
          repeats: knob("BENCH_SUMMARY_REPEATS", 20),
        })
      : { skipped: "no import to summarize: run the import part first" };
    add("summary", { driver, ...r });
    process.stdout.write(
      "skipped" in r
        ? `  ${driver} summary skipped: ${r.skipped}\n`
        : `  ${driver} ${r.route}: ${r.days} days, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms (${r.latency.count} requests one at a time)\n`,
    );
  }
}

for (const driver of (["pglite", "postgres"] as const).filter((d) => drivers.includes(d) && parts.includes("sync"))) {
  if (driver === "postgres" && !(await syncBench.preparePostgres())) continue;
  const days = knob("BENCH_SYNC_DAYS", 20);
  process.stdout.write(`wearables bench: sync of ${days} daily pages on ${driver}...\n`);
  const r = await syncBenchmark(driver, { days, heartRateEverySec: knob("BENCH_SYNC_HR_SEC", 5) });
  add("sync", { driver, ...r });
  const side = (f: { rows: number; seconds: number; rowsPerSec: number }) =>
    `${f.rowsPerSec.toLocaleString()} rows/s (${f.rows.toLocaleString()} in ${f.seconds} s)`;
  process.stdout.write(
    `  ${driver} ${r.pages} pages: sync ${side(r.sync)} + ${r.sync.events} events; raw COPY ${side(r.copy)}; ` +
      `ratio ${(r.ratio * 100).toFixed(1)} %; the same pages again ${side(r.replay)}, ${r.replay.written} rows changed\n`,
  );
}

/** The demo user an earlier import part left, if any. */
async function demoUserId(driver: Driver): Promise<string | undefined> {
  const db = await importBench.open(driver);
  try {
    const [row] = await db
      .query<{ id: string }>("SELECT id FROM wearables.users WHERE email = 'demo@bench.test'")
      .catch(() => []);
    return row?.id;
  } finally {
    await db.close();
  }
}

function printTimeseries(driver: Driver, r: TimeseriesResult) {
  const load = (l: { rps: number; p50: number; p99: number }) => `${l.rps} req/s (p50 ${l.p50} ms, p99 ${l.p99} ms)`;
  const walk = (w: TimeseriesResult["service"]["yearHourAll"]) =>
    `${w.yearSec.join("/")} s for ${w.buckets} buckets (page p50 ${w.pages.p50} ms, p99 ${w.pages.p99} ms)`;
  process.stdout.write(
    `  ${driver} one day, limit 100: service ${load(r.service.day)}, baseline ${load(r.baseline.day)}, ratio ${(r.ratios.day * 100).toFixed(1)} %\n`,
  );
  process.stdout.write(
    `  ${driver} 1hour over a year, first page: service ${load(r.service.yearHourFirst)}, baseline ${load(r.baseline.yearHourFirst)}, ratio ${(r.ratios.yearHourFirst * 100).toFixed(1)} %\n`,
  );
  process.stdout.write(
    `  ${driver} 1hour over a year, every page: service ${walk(r.service.yearHourAll)}, baseline ${walk(r.baseline.yearHourAll)}, ` +
      `ratio ${(r.ratios.yearHourAll * 100).toFixed(1)} %\n`,
  );
}
