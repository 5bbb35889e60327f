/**
 * Benchmark plumbing: servers and load generators run in their own processes, so the load generator
 * never competes with the server's event loop.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const TSX = `${root}node_modules/tsx/dist/cli.mjs`;
const AUTOCANNON = `${root}node_modules/autocannon/autocannon.js`;

export interface ServerProcess {
  child: ChildProcess;
  /** The JSON object the script printed on its `READY ` line. */
  info: Record<string, string>;
  stop(): Promise<void>;
}

/** Runs a TypeScript server script that prints `READY {"url": ...}` once it listens. */
export function startServerScript(script: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [TSX, script], {
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

/** Resident memory of a process in MiB (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}
