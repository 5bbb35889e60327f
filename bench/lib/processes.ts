/**
 * Benchmark plumbing: servers and load generators run in their own processes, so the load generator
 * never competes with the server's event loop.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import type autocannon from "autocannon";

const root = fileURLToPath(new URL("../..", import.meta.url));
const TSX = `${root}node_modules/tsx/dist/cli.mjs`;
const AUTOCANNON = `${root}node_modules/autocannon/autocannon.js`;

export interface ServerProcess {
  child: ChildProcess;
  /** The JSON object the script printed on its `READY ` line. */
  info: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Runs a TypeScript server script that prints `READY {"url": ...}` once it listens. With `BENCH_CPU_PROF_DIR`,
 * the server runs in one process (tsx as a loader) that writes a V8 CPU profile there when it stops.
 */
export function startServerScript(script: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const args = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--import", "tsx", script] : [TSX, script];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("READY "));
      if (!line) return;
      child.stdout?.removeAllListeners("data");
      child.stdout?.resume();
      resolve({
        child,
        info: JSON.parse(line.slice(6)),
        stop: async () => {
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
    child.on("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready:\n${out}`)));
  });
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Runs autocannon against `url` in a child process and returns its summary. */
export function runLoad(
  url: string,
  o: { connections?: number; durationSec?: number; headers?: Record<string, string> } = {},
): Promise<LoadResult> {
  const args = [AUTOCANNON, "--json", "-c", String(o.connections ?? 32), "-d", String(o.durationSec ?? 10)];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      const r = JSON.parse(out);
      resolve({
        requests: r.requests.total,
        rps: Math.round(r.requests.average),
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors: r.errors + r.timeouts,
        non2xx: r.non2xx,
      });
    });
  });
}

/** Throws when a load had errors, timeouts or non-2xx answers: its rate would not be the route's. */
export function assertCleanLoad(what: string, r: LoadResult): void {
  if (r.errors || r.non2xx) throw new Error(`${what}: ${r.errors} errors, ${r.non2xx} non-2xx`);
}

/**
 * Runs a load generator script of its own (`tsx <script> <url>`, for loads the autocannon command cannot
 * express) in a child process with `env` added; resolves to the LoadResult it printed on its last line
 * (`printLoadResult`).
 */
export function runLoadScript(script: string, url: string, env: Record<string, string>): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, script, url], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${basename(script, ".ts")} exited with ${code}`));
      resolve(JSON.parse(out.trim().split("\n").at(-1) as string));
    });
  });
}

/**
 * The end of a load generator script: prints autocannon's `result` as a LoadResult JSON line for
 * `runLoadScript`, its rate being the requests over the run's whole duration.
 */
export function printLoadResult(result: autocannon.Result): void {
  process.stdout.write(
    `${JSON.stringify({
      requests: result.requests.total,
      rps: Math.round(result.requests.total / result.duration),
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
    } satisfies LoadResult)}\n`,
  );
}

/** Resident memory of a process in MiB (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}
