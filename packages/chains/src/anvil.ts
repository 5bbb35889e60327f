import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import type { Logger } from "@platform/kernel";

/** How to run one anvil node. */
export interface AnvilOptions {
  chainId: number;
  /** 0 picks a free ephemeral port. */
  port: number;
  host?: string;
  /** Interval mining in seconds on top of automine (`--mixed-mining`); 0 = automine only. */
  blockTimeSec?: number;
  /** State file loaded at start (if present). */
  loadState?: string;
  /** State file written when anvil exits (SIGTERM/SIGINT) and every `stateIntervalSec`. */
  dumpState?: string;
  stateIntervalSec?: number;
  /** Genesis timestamp (seconds); defaults to now. */
  genesisTimestamp?: number;
  /** Block gas limit; anvil's default is 30M. */
  gasLimit?: bigint;
  /** Keep only the last {@link STATES_KEPT} states in memory so a long-running devnet stays bounded (default true). */
  pruneHistory?: boolean;
  logger?: Logger;
}

/** A running anvil child process. */
export interface AnvilNode {
  chainId: number;
  pid: number;
  port: number;
  host: string;
  rpcUrl: string;
  /** Resolves with the exit code once anvil has exited (for whatever reason). */
  readonly exited: Promise<number | null>;
  /** SIGTERM (anvil then writes its state dump), SIGKILL after `timeoutMs`; resolves when the process is gone. */
  stop(timeoutMs?: number): Promise<void>;
}

const require = createRequire(import.meta.url);

/**
 * Path of the anvil binary shipped in `@foundry-rs/anvil-linux-amd64`. We spawn it directly: the node
 * wrapper of `@foundry-rs/anvil` forwards signals late and leaves anvil running when it is killed.
 */
export function anvilBinaryPath(): string {
  const fromEnv = process.env.ANVIL_BIN;
  if (fromEnv) return fromEnv;
  const platformPkg = `@foundry-rs/anvil-${process.platform === "win32" ? "win32" : process.platform}-${
    process.arch === "x64" ? "amd64" : process.arch
  }`;
  let pkgJson: string;
  try {
    pkgJson = require.resolve(`${platformPkg}/package.json`);
  } catch {
    // The platform package is an optional dependency of @foundry-rs/anvil: resolve it from there.
    const anvilDir = dirname(require.resolve("@foundry-rs/anvil/package.json"));
    pkgJson = createRequire(join(anvilDir, "package.json")).resolve(`${platformPkg}/package.json`);
  }
  const bin = join(dirname(pkgJson), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
  if (!existsSync(bin)) throw new Error(`anvil binary not found at ${bin} (is ${platformPkg} installed?)`);
  return bin;
}

/** A port that was free a moment ago (anvil binds it right after; a lost race is retried by startAnvil). */
function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

// Watchdog: a tiny shell whose stdin is a pipe from this process. The pipe closes when this process ends
// in any way, SIGKILL included (node cannot set PR_SET_PDEATHSIG), and the shell then stops anvil with
// SIGTERM, so anvil writes its state dump and no node outlives us.
const WATCHDOG_SCRIPT = 'while read -r _; do :; done; kill -TERM "$1" 2>/dev/null';

/**
 * States a pruned node keeps. Bare `--prune-history` keeps none but the newest, and a read of "latest" that
 * anvil resolves to block N just before it mines N+1 (an interval block) then fails with -32602
 * "BlockOutOfRangeError: block height is N+1 but requested was N": an idle platform logged it as a failed
 * chain-state refresh now and then. A few blocks back is all a read in flight needs.
 */
export const STATES_KEPT = 8;

function anvilArgs(o: AnvilOptions, port: number, host: string): string[] {
  const args = ["--chain-id", String(o.chainId), "--port", String(port), "--host", host, "--quiet"];
  if (o.blockTimeSec && o.blockTimeSec > 0) args.push("--block-time", String(o.blockTimeSec), "--mixed-mining");
  if (o.pruneHistory !== false) args.push("--prune-history", String(STATES_KEPT));
  if (o.loadState) args.push("--load-state", o.loadState);
  if (o.dumpState) args.push("--dump-state", o.dumpState);
  if (o.dumpState && o.stateIntervalSec) args.push("--state-interval", String(o.stateIntervalSec));
  if (o.genesisTimestamp !== undefined) args.push("--timestamp", String(o.genesisTimestamp));
  if (o.gasLimit !== undefined) args.push("--gas-limit", o.gasLimit.toString());
  return args;
}

/** True once a node with `chainId` answers at `url` (another node on a port taken meanwhile does not count). */
async function rpcReady(url: string, chainId: number): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      signal: AbortSignal.timeout(2000),
    });
    if (!res.ok) return false;
    const body = (await res.json()) as { result?: string };
    return body.result !== undefined && Number(body.result) === chainId;
  } catch {
    return false;
  }
}

/** The URL a client uses for a node listening on host:port (a wildcard listen address maps to loopback). */
function rpcUrlFor(host: string, port: number): string {
  const h = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}`;
}

function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function spawnOnce(o: AnvilOptions, port: number, host: string, timeoutMs: number): Promise<AnvilNode> {
  const bin = anvilBinaryPath();
  const child = spawn(bin, anvilArgs(o, port, host), { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => {
    // Keep only the tail: anvil prints little on stderr, but a long-lived node must not grow our memory.
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", () => resolve(-1));
  });
  const pid = child.pid;
  if (pid === undefined) {
    await exited;
    throw new Error(`failed to spawn anvil (${bin})`);
  }
  const watchdog = spawn("sh", ["-c", WATCHDOG_SCRIPT, "anvil-watchdog", String(pid)], {
    stdio: ["pipe", "ignore", "ignore"],
  });
  watchdog.on("error", (err) => o.logger?.warn({ chainId: o.chainId, err: err.message }, "anvil watchdog failed"));
  // The watchdog must not keep our event loop alive, nor outlive anvil (its pid could be reused later).
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  void exited.then(() => {
    if (watchdog.exitCode === null) watchdog.kill("SIGKILL");
  });

  const rpcUrl = rpcUrlFor(host, port);
  const deadline = Date.now() + timeoutMs;
  // Race the probe against exit: if another process holds the port, the probe could hang on it.
  while (!(await Promise.race([rpcReady(rpcUrl, o.chainId), exited.then(() => false)]))) {
    if (!isAlive(child)) {
      await exited;
      throw new AnvilStartError(`anvil (chain ${o.chainId}, port ${port}) exited: ${stderr.trim()}`, stderr);
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`anvil (chain ${o.chainId}, port ${port}) not ready after ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 15));
  }

  const stop = async (stopTimeoutMs = 15_000): Promise<void> => {
    if (isAlive(child)) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => {
        o.logger?.warn({ chainId: o.chainId, pid }, "anvil did not exit on SIGTERM; killing");
        child.kill("SIGKILL");
      }, stopTimeoutMs);
      await exited;
      clearTimeout(timer);
    } else {
      await exited;
    }
  };
  return { chainId: o.chainId, pid, port, host, rpcUrl, exited, stop };
}

/** anvil exited before its RPC answered (bad arguments, unreadable state file, port taken...). */
export class AnvilStartError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/**
 * Starts anvil and resolves once its RPC answers. With `port: 0` a free port is chosen, and a start that
 * loses the port to another process in the meantime is retried on a new port.
 */
export async function startAnvil(o: AnvilOptions, timeoutMs = 30_000): Promise<AnvilNode> {
  const host = o.host ?? "127.0.0.1";
  // With a fixed port, a node already listening there (say, a devnet started twice) would answer our
  // readiness probe before our anvil fails to bind: check first and say so plainly.
  if (o.port !== 0 && !(await portFree(host, o.port))) {
    throw new AnvilStartError(
      `port ${o.port} on ${host} is already in use (is another devnet running?)`,
      "Address already in use",
    );
  }
  for (let attempt = 0; ; attempt++) {
    const port = o.port === 0 ? await freePort(host) : o.port;
    try {
      const node = await spawnOnce(o, port, host, timeoutMs);
      o.logger?.debug({ chainId: o.chainId, pid: node.pid, rpcUrl: node.rpcUrl }, "anvil started");
      return node;
    } catch (err) {
      const inUse = err instanceof AnvilStartError && /address already in use/i.test(err.stderr);
      if (!(inUse && o.port === 0 && attempt < 4)) throw err;
    }
  }
}
