/**
 * Wearables users API against its baseline: `GET /users?limit=100` and `GET /users/{id}` with 100k
 * users, on PGlite and on PostgreSQL (when reachable); plus the idle RSS of `platform start`.
 * Usage: npx tsx bench/users/run.ts   (BENCH_DURATION=seconds, BENCH_USERS=count)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPlatformProcess } from "../../e2e/support/platformProcess.ts";
import { type LoadResult, rssMiB, runLoad, startServerScript } from "../lib/processes.ts";
import { writeResults } from "../lib/results.ts";
import { type Driver, postgresAvailable, prepareBenchDatabase } from "./database.ts";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const userCount = Number(process.env.BENCH_USERS ?? 100_000);

interface Row {
  driver: Driver;
  route: string;
  baseline: LoadResult;
  service: LoadResult;
  ratio: number;
}

async function measure(driver: Driver, sampleId: string): Promise<Row[]> {
  const routes = [
    { route: "GET /users?limit=100", path: "/users?limit=100", servicePath: "/api/v1/users?limit=100" },
    { route: "GET /users/{id}", path: `/users/${sampleId}`, servicePath: `/api/v1/users/${sampleId}` },
  ];
  const env = { BENCH_DRIVER: driver };
  const results: Record<string, { baseline?: LoadResult; service?: LoadResult }> = {};
  // One process at a time: a PGlite folder has one owner, and the two must not share the CPU.
  const baseline = await startServerScript(here("./baselineServer.ts"), env);
  for (const r of routes) {
    await runLoad(`${baseline.info.url}${r.path}`, { durationSec: 2 }); // warm-up
    results[r.route] = { baseline: await runLoad(`${baseline.info.url}${r.path}`, { durationSec }) };
  }
  await baseline.stop();
  const service = await startServerScript(here("./serviceServer.ts"), env);
  const headers = { "X-Service-API-Key": service.info.key as string };
  for (const r of routes) {
    await runLoad(`${service.info.url}${r.servicePath}`, { durationSec: 2, headers });
    (results[r.route] as { service?: LoadResult }).service = await runLoad(`${service.info.url}${r.servicePath}`, {
      durationSec,
      headers,
    });
  }
  await service.stop();
  return routes.map(({ route }) => {
    const { baseline, service } = results[route] as { baseline: LoadResult; service: LoadResult };
    for (const [name, r] of Object.entries({ baseline, service })) {
      if (r.errors || r.non2xx) throw new Error(`${driver} ${route} ${name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
    }
    return { driver, route, baseline, service, ratio: Math.round((service.rps / baseline.rps) * 1000) / 1000 };
  });
}

async function idleRss(): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-rss-"));
  const platform = await startPlatformProcess({
    DATA_DIR: dataDir,
    WEARABLES_PORT: "0",
    WEARABLES_SANDBOX_PORT: "0",
    CHAINSTATS_PORT: "0",
    CROSSCHAIN_PORT: "0",
    DEVNET: "false",
    LOG_LEVEL: "warn",
  });
  await new Promise((r) => setTimeout(r, 3_000));
  const rss = rssMiB(platform.child.pid as number);
  await platform.stop();
  return rss;
}

const rows: Row[] = [];
const available: Driver[] = (await postgresAvailable()) ? ["pglite", "postgres"] : ["pglite"];
// BENCH_DRIVERS=postgres (or pglite) measures one driver.
const drivers = available.filter((d) => (process.env.BENCH_DRIVERS ?? "pglite,postgres").split(",").includes(d));
for (const driver of drivers) {
  process.stdout.write(`users bench: preparing ${userCount} users on ${driver}...\n`);
  const sampleId = await prepareBenchDatabase(driver, userCount);
  rows.push(...(await measure(driver, sampleId)));
}
const platformIdleRssMiB = await idleRss();

const file = writeResults("users", { userCount, durationSec, connections: 32, rows, platformIdleRssMiB });
for (const r of rows) {
  process.stdout.write(
    `${r.driver.padEnd(8)} ${r.route.padEnd(22)} service ${String(r.service.rps).padStart(6)} req/s ` +
      `(p50 ${r.service.p50} ms, p99 ${r.service.p99} ms)  baseline ${String(r.baseline.rps).padStart(6)} req/s ` +
      `(p50 ${r.baseline.p50} ms, p99 ${r.baseline.p99} ms)  ratio ${(r.ratio * 100).toFixed(1)} %\n`,
  );
}
process.stdout.write(`platform start idle RSS: ${platformIdleRssMiB} MiB\nwritten ${file}\n`);
