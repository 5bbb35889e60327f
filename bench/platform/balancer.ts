/**
 * Requests per second through HAProxy to one and to three `platform start --role api` instances on one
 * PostgreSQL database and Redis, against the same load sent straight to one instance (the baseline): on two
 * cores the point is the balancer's overhead and that every instance answers, not scaling.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PlatformProcess, startPlatformProcess } from "../../e2e/support/platformProcess.ts";
import { benchDatabase } from "../lib/benchDatabase.ts";
import { assertCleanLoad, type LoadResult, runLoad } from "../lib/processes.ts";
import { processMemory } from "./idle.ts";

const HAPROXY = process.env.HAPROXY_BIN ?? "/usr/sbin/haproxy";
const PATH = "/api/v1/users?limit=10";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      s.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function startHaproxy(
  dir: string,
  backends: string[],
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const cfg = join(dir, `haproxy-${backends.length}.cfg`);
  writeFileSync(
    cfg,
    [
      "global",
      "  maxconn 4096",
      "defaults",
      "  mode http",
      "  timeout connect 5s",
      "  timeout client 30s",
      "  timeout server 30s",
      "frontend bench",
      `  bind 127.0.0.1:${port}`,
      "  default_backend api",
      "backend api",
      "  balance roundrobin",
      "  http-reuse safe",
      ...backends.map((b, i) => `  server api${i + 1} ${b}`),
      "",
    ].join("\n"),
  );
  const child = spawn(HAPROXY, ["-f", cfg, "-db"], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr?.on("data", (c) => {
    err += c;
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${url}/`);
      break;
    } catch {
      if (i > 100 || child.exitCode !== null) throw new Error(`haproxy did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    child,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export interface BalancerRow {
  round: number;
  setup: string;
  load: LoadResult;
  /** Share of the instances' CPU time during the load, per instance (every instance served). */
  cpuShare: number[];
  ratioToDirect: number;
}

export async function balancer(
  durationSec: number,
  connections: number,
  rounds: number,
): Promise<
  | {
      rows: BalancerRow[];
      instanceRssMiB: number[];
    }
  | undefined
> {
  const bench = benchDatabase("platform_api");
  if (!(await bench.preparePostgres({ fresh: true }))) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "bench-platform-api-"));
  const env = {
    DATABASE_URL: bench.url(),
    REDIS_URL: process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379",
    DATA_DIR: dir,
    DEVNET: "false",
    SERVICES: "wearables",
    WEARABLES_PORT: "0",
    WEARABLES_SANDBOX_PORT: "0",
    LOG_LEVEL: "warn",
    // api instances refuse to start without shared secret keys.
    SECRETS_KEYS: `bench:${Buffer.alloc(32, 3).toString("base64")}`,
  };
  const instances: PlatformProcess[] = [];
  try {
    // The first migrates and seeds the demo key; the others find both done.
    const start = () => startCommand(env);
    instances.push(await start());
    instances.push(...(await Promise.all([start(), start()])));
    const key = instances[0]?.demoKeys.wearables;
    if (!key) throw new Error(`no wearables demo key in:\n${instances[0]?.output()}`);
    const headers = { "X-Service-API-Key": key };
    const origins = instances.map((p) => new URL(p.baseUrls.wearables as string).origin);
    const rows: BalancerRow[] = [];
    let round = 0;
    const measure = async (setup: string, url: string, pids: number[]) => {
      await runLoad(`${url}${PATH}`, { durationSec: 2, headers, connections });
      const before = pids.map(cpuSeconds);
      const load = await runLoad(`${url}${PATH}`, { durationSec, headers, connections });
      assertCleanLoad(setup, load);
      const used = pids.map((p, i) => cpuSeconds(p) - (before[i] as number));
      const total = used.reduce((a, b) => a + b, 0) || 1;
      rows.push({
        round,
        setup,
        load,
        cpuShare: used.map((u) => Math.round((u / total) * 100) / 100),
        ratioToDirect: 0,
      });
    };
    const pids = instances.map((p) => p.child.pid as number);
    for (round = 1; round <= rounds; round++) {
      await measure("direct, 1 instance", origins[0] as string, [pids[0] as number]);
      for (const n of [1, 3]) {
        const proxy = await startHaproxy(
          dir,
          origins.slice(0, n).map((o) => new URL(o).host),
        );
        try {
          await measure(`HAProxy, ${n} instance${n > 1 ? "s" : ""}`, proxy.url, pids.slice(0, n));
        } finally {
          await proxy.stop();
        }
      }
    }
    for (const r of rows) {
      const direct = rows.find((d) => d.round === r.round)?.load.rps ?? 1;
      r.ratioToDirect = Math.round((r.load.rps / direct) * 1000) / 1000;
    }
    return { rows, instanceRssMiB: pids.map((p) => processMemory(p).rss) };
  } finally {
    for (const p of instances) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `platform start --role api`, through PLATFORM_ROLE (what `--role` sets). */
function startCommand(env: Record<string, string>): Promise<PlatformProcess> {
  return startPlatformProcess({ ...env, PLATFORM_ROLE: "api" }, 300_000);
}
