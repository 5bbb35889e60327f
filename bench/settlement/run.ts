/**
 * Settlement benchmark: building a bundle of BENCH_SETTLEMENT_DEPOSITS (100k) deposits with their fills over
 * 7 chains and 5 tokens, step by step as `buildNextBundle` runs them, against the time to read the same rows
 * plainly from the same database (the baseline), on PGlite and, when a server answers (BENCH_POSTGRES_URL,
 * default the local one), on PostgreSQL. Goal: construction (loadBundleItems + buildBundle) under 10 % of
 * the bundle interval. Each driver runs in a child process of its own (construction.ts), so the peak RSS
 * reported is that driver's. BENCH_DRIVERS (pglite,postgres), BENCH_ROUNDS (3).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchDatabase } from "../lib/benchDatabase.ts";
import { writeResults } from "../lib/results.ts";

const drivers = (process.env.BENCH_DRIVERS ?? "pglite,postgres").split(",");
/** The devnet's default CROSSCHAIN_SETTLEMENT_INTERVAL_SEC, and Across mainnet's bundle frequency (~1 h). */
const INTERVALS = { devnetSec: 5, mainnetSec: 3600 };
const tsx = fileURLToPath(new URL("../../node_modules/tsx/dist/cli.mjs", import.meta.url));
const worker = fileURLToPath(new URL("./construction.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "platform-bench-settlement-"));
const results: Record<string, unknown> = { intervals: INTERVALS };
let failed = false;
for (const driver of drivers) {
  if (driver === "postgres" && !(await benchDatabase("settlement").preparePostgres())) {
    process.stdout.write("settlement bench: no PostgreSQL server answers; skipped\n");
    continue;
  }
  process.stdout.write(`settlement bench on ${driver}...\n`);
  const file = join(dir, `${driver}.json`);
  const r = spawnSync(process.execPath, [tsx, worker, driver, file], { stdio: "inherit" });
  if (r.status !== 0) {
    failed = true;
    continue;
  }
  const m = JSON.parse(readFileSync(file, "utf8"));
  results[driver] = m;
  const c = m.construction;
  process.stdout.write(
    `  ${driver}: baseline ${m.baseline.ms} ms | LP fees first time ${Math.round(m.lpFees.loadUnpricedMs + m.lpFees.ensureMs)} ms ` +
      `(${m.lpFees.ratio}×) | loadBundleItems ${m.loadBundleItems.ms} ms (${m.loadBundleItems.ratio}×) | ` +
      `buildBundle ${m.buildBundle.ms} ms (${m.buildBundle.ratio}×) | booking ${m.booking.ms} ms (${m.booking.ratio}×) | ` +
      `peak RSS ${m.peakRssMB} MB (by phase ${JSON.stringify(m.phasePeakRssMB)})\n` +
      `  ${driver}: the next bundle with nothing new, ${m.rows.deposits} deposits booked: ${m.nextBundleNothingNew.ms} ms ` +
      `(${m.nextBundleNothingNew.devnetIntervalPct} % of ${INTERVALS.devnetSec} s)\n` +
      `  ${driver}: construction ${c.ms} ms = ${c.ratio}× the baseline; ${c.devnetIntervalPct} % of the devnet's ` +
      `${INTERVALS.devnetSec} s interval (goal < 10 %: ${c.devnetIntervalPct < 10 ? "met" : "missed"}), ` +
      `${c.mainnetIntervalPct} % of mainnet's ${INTERVALS.mainnetSec / 60} min (${c.mainnetIntervalPct < 10 ? "met" : "missed"})\n`,
  );
}
rmSync(dir, { recursive: true, force: true });
const file = writeResults("settlement", results);
process.stdout.write(`results: ${file}\n`);
process.exit(failed ? 1 : 0);
