/**
 * Runs the real `platform` command as a child process, the way a user does, for end-to-end tests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_DEVNET_PORTS } from "@platform/chains";
import { createTestDatabase } from "@platform/kernel/testing";

const BIN = fileURLToPath(new URL("../../packages/platform/bin/platform.js", import.meta.url));

/**
 * Every port `platform start` opens on 0, that is any free one (the banner prints which: `hostOrigin`,
 * `baseUrls`): each service's host, and every devnet chain's RPC. Spread it first, then what a test sets.
 */
export const EPHEMERAL_PORTS: Readonly<Record<string, string>> = {
  WEARABLES_PORT: "0",
  WEARABLES_SANDBOX_PORT: "0",
  CROSSCHAIN_PORT: "0",
  BROKERAGE_AUTH_PORT: "0",
  BROKERAGE_LIVE_PORT: "0",
  BROKERAGE_PAPER_PORT: "0",
  BROKERAGE_DATA_PORT: "0",
  CHAINSTATS_PORT: "0",
  DEVNET_PORTS: Object.keys(DEFAULT_DEVNET_PORTS)
    .map((id) => `${id}=0`)
    .join(","),
};

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `platform <args>` to completion, with `input` on its standard input when given. */
export function runPlatform(args: string[], env: Record<string, string>, input?: string): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: "pipe" });
    child.stdin.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export interface PlatformProcess {
  child: ChildProcess;
  /** Everything printed so far (stdout and stderr, as they came). */
  output(): string;
  /** What was printed on stdout alone (the log lines; the banner too unless the log is JSON). */
  stdout(): string;
  /** Base URL by service name, from the printed table. */
  baseUrls: Record<string, string>;
  /** Demo keys printed by this start, by service name. */
  demoKeys: Record<string, string>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The origin the banner of `platform` printed for a host of a service: `hostOrigin(p, "brokerage", "paper")`,
 * or its main host without `host`.
 */
export function hostOrigin(platform: PlatformProcess, service: string, host?: string): string {
  const label = host ? `${service} ${host}` : service;
  const match = new RegExp(`│\\s*${label}\\s*│\\s*(http://[^\\s│]+)`).exec(platform.output());
  if (!match) throw new Error(`no ${label} host in:\n${platform.output()}`);
  return new URL(match[1] as string).origin;
}

/** Starts `platform start` and resolves once it printed that it runs. */
export function startPlatformProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<PlatformProcess> {
  return startCommandProcess(["start"], env, "Ctrl-C stops the platform", timeoutMs);
}

/** Starts `platform <args>` and resolves once its output contains `ready`. */
export function startCommandProcess(
  args: string[],
  env: Record<string, string>,
  ready: string,
  timeoutMs = 60_000,
): Promise<PlatformProcess> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: "pipe" });
  let out = "";
  let stdout = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`platform ${args.join(" ")} did not come up in time:\n${out}`));
    }, timeoutMs);
    let started = false;
    const onData = (chunk: Buffer) => {
      out += chunk;
      if (started || !out.includes(ready)) return;
      started = true;
      clearTimeout(timer);
      const baseUrls: Record<string, string> = {};
      for (const m of out.matchAll(/│\s*([a-z]+)\s*│\s*(http:\/\/\S+)\s*│/g)) baseUrls[m[1] as string] = m[2] as string;
      const demoKeys: Record<string, string> = {};
      for (const m of out.matchAll(/^\s{2}([a-z]+)\s+([a-z]+_[A-Za-z0-9]{12}_[A-Za-z0-9]{43})$/gm)) {
        demoKeys[m[1] as string] = m[2] as string;
      }
      resolve({
        child,
        output: () => out,
        stdout: () => stdout,
        baseUrls,
        demoKeys,
        stop: (signal = "SIGTERM") => {
          child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
      onData(chunk);
    });
    child.stderr.on("data", onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`platform ${args.join(" ")} exited with ${code}:\n${out}`));
    });
  });
}

/**
 * The environment of a `platform` process under test: `vars`, a fresh data folder, and a fresh PostgreSQL
 * database when TEST_DATABASE_URL is set (else embedded PGlite). `remove()` drops both.
 */
export async function createPlatformEnv(
  name: string,
  vars: Record<string, string>,
): Promise<{ env: Record<string, string>; remove(): Promise<void> }> {
  const env: Record<string, string> = { DATA_DIR: mkdtempSync(join(tmpdir(), `platform-${name}-`)), ...vars };
  const database = process.env.TEST_DATABASE_URL ? await createTestDatabase() : undefined;
  if (database) env.DATABASE_URL = database.url as string;
  // Instances on one PostgreSQL database share their secret keys (`--role api|worker` refuse to start without).
  if (database && !("SECRETS_KEYS" in vars)) env.SECRETS_KEYS = `e2e:${Buffer.alloc(32, 1).toString("base64")}`;
  return {
    env,
    async remove() {
      await database?.drop();
      rmSync(env.DATA_DIR as string, { recursive: true, force: true });
    },
  };
}
