/**
 * Idle RSS of the real `platform start` (a child process, as a user runs it) and of the probe's steps
 * (`probe.ts`): where the memory goes.
 */
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const mib = (kb: number) => Math.round((kb / 1024) * 10) / 10;

/** VmRSS and VmHWM (MiB) and thread count of a process, from /proc/<pid>/status. */
export function processMemory(pid: number): { rss: number; hwm: number; threads: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: mib(field("VmRSS")), hwm: mib(field("VmHWM")), threads: field("Threads") };
}

/** RSS (MiB) of every descendant of `pid` by command name (anvil, the watchdogs' sh, …), summed per name. */
export function descendantsRss(pid: number): Record<string, number> {
  const parent = new Map<number, number>();
  const name = new Map<number, string>();
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      name.set(Number(p), stat.slice(stat.indexOf("(") + 1, close));
      parent.set(Number(p), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: Record<string, number> = {};
  for (const [p] of parent) {
    let q = parent.get(p);
    while (q && q !== pid) q = parent.get(q);
    if (q !== pid) continue;
    try {
      const n = name.get(p) as string;
      out[n] = Math.round(((out[n] ?? 0) + processMemory(p).rss) * 10) / 10;
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Least-squares slope of `samples` ([seconds, MiB]) in MiB per minute. */
export function slopePerMinute(samples: [number, number][]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mx = samples.reduce((s, [x]) => s + x, 0) / n;
  const my = samples.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = samples.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = samples.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return Math.round((sxx ? (sxy / sxx) * 60 : 0) * 100) / 100;
}

export interface IdleRun {
  label: string;
  readySec: number;
  /** RSS when the banner was printed, the peak (VmHWM) then and at the end, and the idle samples' summary. */
  rssAtReady: number;
  hwmAtReady: number;
  hwmAtEnd: number;
  rssIdleMedian: number;
  rssIdleMin: number;
  rssIdleMax: number;
  /** Slope of RSS over the idle window after its first 10 s, MiB/min. */
  slopeMiBPerMin: number;
  threads: number;
  /** Child processes' RSS by command (anvil on the devnet), summed, at the end. */
  children: Record<string, number>;
  samples: [number, number][];
}

const ZERO_PORTS = {
  WEARABLES_PORT: "0",
  WEARABLES_SANDBOX_PORT: "0",
  CHAINSTATS_PORT: "0",
  CROSSCHAIN_PORT: "0",
  BROKERAGE_AUTH_PORT: "0",
  BROKERAGE_LIVE_PORT: "0",
  BROKERAGE_PAPER_PORT: "0",
  BROKERAGE_DATA_PORT: "0",
};

const BIN = `${root}packages/platform/bin/platform.js`;

/** `platform start` (`entry`: the `platform` bin, or the precompiled copy's `start.mjs`) until its banner ends. */
function startPlatform(entry: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [entry, "start"], { env: { ...process.env, ...env }, stdio: "pipe" });
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise<{ pid: number; output: () => string; stop(): Promise<number | null> }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`platform start did not come up in time:\n${out}`));
    }, 300_000);
    const onData = (chunk: Buffer) => {
      out += chunk;
      if (!out.includes("Ctrl-C stops the platform")) return;
      child.stdout.off("data", onData);
      child.stderr.off("data", onData);
      child.stdout.resume();
      child.stderr.resume();
      clearTimeout(timer);
      resolve({
        pid: child.pid as number,
        output: () => out,
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`platform start exited with ${code}:\n${out}`));
    });
  });
}

/**
 * Starts `platform start` with `env` (from `entry`, default the `platform` bin), waits for its banner, idles
 * `idleSec` sampling RSS every 2 s, stops it.
 */
export async function idleRun(
  label: string,
  env: Record<string, string>,
  idleSec: number,
  entry = BIN,
): Promise<IdleRun> {
  const t0 = performance.now();
  const platform = await startPlatform(entry, { LOG_LEVEL: "warn", ...ZERO_PORTS, ...env });
  const readySec = Math.round((performance.now() - t0) / 100) / 10;
  const pid = platform.pid;
  const atReady = processMemory(pid);
  const samples: [number, number][] = [];
  const start = performance.now();
  for (;;) {
    const t = (performance.now() - start) / 1000;
    samples.push([Math.round(t * 10) / 10, processMemory(pid).rss]);
    if (t >= idleSec) break;
    await new Promise((r) => setTimeout(r, 2_000));
  }
  const end = processMemory(pid);
  const children = descendantsRss(pid);
  const code = await platform.stop();
  if (code !== 0) throw new Error(`platform start (${label}) exited with ${code}:\n${platform.output()}`);
  const idle = samples.filter(([t]) => t >= Math.min(10, idleSec / 2)).map(([, r]) => r);
  const sorted = [...idle].sort((a, b) => a - b);
  return {
    label,
    readySec,
    rssAtReady: atReady.rss,
    hwmAtReady: atReady.hwm,
    hwmAtEnd: end.hwm,
    rssIdleMedian: sorted[Math.floor(sorted.length / 2)] ?? 0,
    rssIdleMin: sorted[0] ?? 0,
    rssIdleMax: sorted.at(-1) ?? 0,
    slopeMiBPerMin: slopePerMinute(samples.filter(([t]) => t >= Math.min(10, idleSec / 2))),
    threads: end.threads,
    children,
    samples,
  };
}

export interface ProbeStep {
  step: string;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

/**
 * Runs `probe.ts` under the platform's loader (tsx, as `bin/platform.js` registers it), or its plain JavaScript
 * in the precompiled copy `precompiled` (see precompile.ts) without it, and returns its steps.
 */
export function runProbe(env: Record<string, string>, precompiled?: string): ProbeStep[] {
  const args = precompiled
    ? ["--expose-gc", `${precompiled}/bench/platform/probe.js`]
    : ["--expose-gc", "--import", "tsx", `${root}bench/platform/probe.ts`];
  const r = spawnSync(process.execPath, args, {
    cwd: precompiled ?? root,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 600_000,
  });
  if (r.status !== 0) throw new Error(`probe exited with ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout
    .split("\n")
    .filter((l) => l.startsWith("STEP "))
    .map((l) => JSON.parse(l.slice(5)) as ProbeStep);
}

/** RSS and heap of a bare `node` that does nothing (the floor every Node process pays). */
export function bareNode(): ProbeStep {
  const r = spawnSync(
    process.execPath,
    [
      "--expose-gc",
      "-e",
      "setTimeout(() => { gc(); const m = process.memoryUsage(); const f = (b) => Math.round(b / 104857.6) / 10; console.log(JSON.stringify({ step: 'bare node', rss: f(m.rss), heapUsed: f(m.heapUsed), heapTotal: f(m.heapTotal), external: f(m.external), arrayBuffers: f(m.arrayBuffers) })); }, 500)",
    ],
    { encoding: "utf8" },
  );
  return JSON.parse(r.stdout.trim());
}
