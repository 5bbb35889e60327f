/**
 * `npm run bench platform`: the platform as a whole (issue "Operations", item 6).
 * - `rss`: idle RSS of `platform start` (embedded PGlite on a fresh and on a reopened folder, and on
 *   PostgreSQL), sampled every 2 s for BENCH_IDLE_SEC with its slope; and by part (`probe.ts`: bare Node,
 *   the tsx loader, each package's import, the database, the servers, the jobs), against a bare `node`.
 * - `devnet`: the same idle run with the devnet (BENCH_DEVNET_CHAINS, default `1,10`), anvil apart.
 * - `jobs`: the job layer against a bare `FOR UPDATE SKIP LOCKED` loop on the same database (`jobs.ts`).
 * - `balancer`: req/s through HAProxy to one and three `--role api` instances, and straight to one.
 * Knobs: BENCH_PARTS (`rss,jobs,balancer`; add `devnet`), BENCH_IDLE_SEC (20), BENCH_IDLE_RUNS
 * (`probe,fresh,reopened,sb128,postgres,precompiled`: which idle runs the rss part makes), BENCH_DURATION (10 s per load),
 * BENCH_JOBS (1000), BENCH_LATENCY_JOBS (200), BENCH_JOB_CONCURRENCY (4), BENCH_JOB_ROUNDS (2), BENCH_DRIVERS.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchDatabase } from "../lib/benchDatabase.ts";
import { writeResults } from "../lib/results.ts";
import { balancer } from "./balancer.ts";
import { bareNode, type IdleRun, idleRun, type ProbeStep, runProbe } from "./idle.ts";
import { precompile } from "./precompile.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const parts = (process.env.BENCH_PARTS ?? "rss,jobs,balancer").split(",");
const idleSec = Number(process.env.BENCH_IDLE_SEC ?? 20);
const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const drivers = (process.env.BENCH_DRIVERS ?? "pglite,postgres").split(",");
/** Which `platform start` idle runs the rss part makes (all by default); `probe` = the probe by part. */
const idleRuns = (process.env.BENCH_IDLE_RUNS ?? "probe,fresh,reopened,sb128,postgres,precompiled").split(",");
const out = (s: string) => process.stdout.write(`${s}\n`);
const results: Record<string, unknown> = {};

const pgServer = benchDatabase("platform");
const postgres = drivers.includes("postgres") && (await pgServer.preparePostgres({ fresh: true }));

if (parts.includes("rss")) {
  const bare = bareNode();
  const dir = mkdtempSync(join(tmpdir(), "bench-platform-rss-"));
  const probeDir = mkdtempSync(join(tmpdir(), "bench-platform-probe-"));
  const probeIdle = String(Math.min(idleSec, 10));
  const probes: Record<string, ProbeStep[]> = {};
  const runs: IdleRun[] = [];
  try {
    out("platform bench: probe by part (fresh PGlite folder, reopened, PostgreSQL)...");
    const wanted = (run: string) => idleRuns.includes(run);
    if (wanted("probe")) {
      probes.pgliteFresh = runProbe({ PROBE_DATA_DIR: probeDir, PROBE_FOLDER: "fresh", PROBE_IDLE_SEC: probeIdle });
      probes.pgliteReopened = runProbe({
        PROBE_DATA_DIR: probeDir,
        PROBE_FOLDER: "reopened",
        PROBE_IDLE_SEC: probeIdle,
      });
      if (postgres) {
        await pgServer.preparePostgres({ fresh: true });
        probes.postgres = runProbe({
          PROBE_DRIVER: "postgres",
          PROBE_DATABASE_URL: pgServer.url(),
          PROBE_DATA_DIR: probeDir,
          PROBE_IDLE_SEC: probeIdle,
        });
      }
    }
    out(`platform bench: platform start, idle ${idleSec} s each...`);
    const pglite = { DATA_DIR: dir, DEVNET: "false" };
    if (wanted("fresh")) runs.push(await idleRun("PGlite, fresh folder", pglite, idleSec));
    else if (wanted("reopened") || wanted("sb128")) await idleRun("PGlite, first start", pglite, 0);
    if (wanted("reopened")) runs.push(await idleRun("PGlite, reopened folder", pglite, idleSec));
    // PGlite's own shared_buffers (128MB, what its initdb writes), against the platform's default (32MB).
    if (wanted("sb128")) {
      runs.push(await idleRun("PGlite, reopened, 128MB", { ...pglite, PGLITE_SHARED_BUFFERS: "128MB" }, idleSec));
    }
    if (postgres && wanted("postgres")) {
      await pgServer.preparePostgres({ fresh: true });
      const pgDir = mkdtempSync(join(tmpdir(), "bench-platform-rss-pg-"));
      runs.push(
        await idleRun(
          "PostgreSQL, tsx loader (PLATFORM_TSX=1)",
          { DATA_DIR: pgDir, DEVNET: "false", DATABASE_URL: pgServer.url(), PLATFORM_TSX: "1" },
          idleSec,
        ),
      );
      rmSync(pgDir, { recursive: true, force: true });
    }
    if (postgres && wanted("precompiled")) {
      // What the tsx loader costs: the same as the `platform` bin runs it by default, its JavaScript build
      // (packages/platform/build/compile.mjs); the probe runs in this bench's own precompiled copy (precompile.ts).
      out("platform bench: the same, precompiled (no tsx loader), on PostgreSQL...");
      const precompiled = precompile();
      if (wanted("probe")) {
        await pgServer.preparePostgres({ fresh: true });
        probes.postgresPrecompiled = runProbe(
          {
            PROBE_DRIVER: "postgres",
            PROBE_DATABASE_URL: pgServer.url(),
            PROBE_DATA_DIR: probeDir,
            PROBE_IDLE_SEC: probeIdle,
          },
          precompiled,
        );
      }
      await pgServer.preparePostgres({ fresh: true });
      const pgDir = mkdtempSync(join(tmpdir(), "bench-platform-rss-pg-"));
      runs.push(
        await idleRun(
          "PostgreSQL, JavaScript build (the default)",
          { DATA_DIR: pgDir, DEVNET: "false", DATABASE_URL: pgServer.url() },
          idleSec,
        ),
      );
      rmSync(pgDir, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(probeDir, { recursive: true, force: true });
  }
  const byPart = (steps: ProbeStep[] = []) => {
    const rows = [bare, ...steps];
    return rows.map((s, i) => ({
      ...s,
      deltaRss: i === 0 ? s.rss : Math.round((s.rss - (rows[i - 1] as ProbeStep).rss) * 10) / 10,
    }));
  };
  // A subset of the runs (a longer idle, say) is kept beside the default set, not over it.
  results[process.env.BENCH_IDLE_RUNS ? `rss ${idleRuns.join(",")} ${idleSec}s` : "rss"] = {
    idleSec,
    bareNodeMiB: bare.rss,
    runs,
    probe: Object.fromEntries(Object.entries(probes).map(([k, v]) => [k, byPart(v)])),
  };
  for (const [k, steps] of Object.entries(probes)) {
    out(`\nby part (${k}): step, RSS MiB (+delta), heapUsed, external`);
    for (const s of byPart(steps)) {
      out(
        `  ${s.step.padEnd(44)} ${String(s.rss).padStart(6)} (+${s.deltaRss})  heap ${s.heapUsed}  ext ${s.external}`,
      );
    }
  }
  out("\nplatform start idle:");
  for (const r of runs) {
    out(
      `  ${r.label.padEnd(24)} ready ${r.readySec} s; RSS at ready ${r.rssAtReady} MiB (peak ${r.hwmAtReady}), ` +
        `idle median ${r.rssIdleMedian} (${r.rssIdleMin}–${r.rssIdleMax}), slope ${r.slopeMiBPerMin} MiB/min, peak at end ${r.hwmAtEnd}, ${r.threads} threads`,
    );
  }
}

if (parts.includes("devnet")) {
  const dir = mkdtempSync(join(tmpdir(), "bench-platform-devnet-"));
  const chains = (process.env.BENCH_DEVNET_CHAINS ?? "1,10").split(",");
  try {
    out(`platform bench: platform start with the devnet (${chains.join(",")}), idle ${idleSec} s...`);
    const run = await idleRun(
      `PGlite + devnet ${chains.join(",")}`,
      {
        DATA_DIR: dir,
        DEVNET: "true",
        DEVNET_CHAINS: chains.join(","),
        DEVNET_PORTS: chains.map((c) => `${c}=0`).join(","),
      },
      idleSec,
    );
    results.devnet = { idleSec, chains, run };
    out(
      `  ready ${run.readySec} s; platform RSS idle median ${run.rssIdleMedian} MiB (slope ${run.slopeMiBPerMin} MiB/min); children ${JSON.stringify(run.children)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (parts.includes("jobs")) {
  const rows: unknown[] = [];
  for (const driver of drivers.filter((d) => d === "pglite" || postgres)) {
    out(`platform bench: job layer on ${driver}...`);
    const r = spawnSync(process.execPath, [`${root}node_modules/tsx/dist/cli.mjs`, `${root}bench/platform/jobs.ts`], {
      env: { ...process.env, BENCH_DRIVER: driver },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (r.status !== 0) throw new Error(`jobs.ts on ${driver} exited with ${r.status}`);
    const result = JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as {
      rounds: {
        kernel: { jobsPerSec: number; latency: { p50: number; p99: number } };
        bare: { jobsPerSec: number; latency: { p50: number; p99: number } };
      }[];
    };
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;
    const ratios = result.rounds.map((x) => Math.round((x.kernel.jobsPerSec / x.bare.jobsPerSec) * 1000) / 1000);
    rows.push({ ...result, throughputRatio: median(ratios), throughputRatios: ratios });
    for (const [i, x] of result.rounds.entries()) {
      out(
        `  round ${i + 1}: job layer ${x.kernel.jobsPerSec} jobs/s (enqueue→start p50 ${x.kernel.latency.p50} ms, p99 ${x.kernel.latency.p99} ms); ` +
          `bare SKIP LOCKED ${x.bare.jobsPerSec} jobs/s (p50 ${x.bare.latency.p50} ms, p99 ${x.bare.latency.p99} ms); ratio ${ratios[i]}`,
      );
    }
  }
  results.jobs = { rows };
}

if (parts.includes("balancer")) {
  if (!postgres) out("platform bench: balancer part needs PostgreSQL; skipped");
  else {
    out("platform bench: --role api instances through HAProxy...");
    const r = await balancer(durationSec, 32, Number(process.env.BENCH_BALANCER_ROUNDS ?? 2));
    if (r) {
      results.balancer = {
        durationSec,
        connections: 32,
        path: "GET /api/v1/users?limit=10 (wearables, demo key)",
        ...r,
      };
      for (const row of r.rows) {
        out(
          `  round ${row.round}: ${row.setup.padEnd(22)} ${String(row.load.rps).padStart(6)} req/s (p50 ${row.load.p50} ms, p99 ${row.load.p99} ms), ` +
            `${(row.ratioToDirect * 100).toFixed(1)} % of direct; CPU share per instance ${row.cpuShare.join(" / ")}`,
        );
      }
      out(`  instances' RSS after the loads: ${r.instanceRssMiB.join(", ")} MiB`);
    }
  }
}

out(`written ${writeResults("platform", results)}`);
process.exit(0);
