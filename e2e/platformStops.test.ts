/**
 * The platform never outlives what started it, and its anvils never outlive it: SIGTERM to `npm start` (what
 * a process manager or `kill <pid>` sends; npm does not pass it on to the platform) stops the platform, its
 * jobs and its devnet; SIGHUP stops it cleanly; a platform killed with SIGKILL leaves no anvil behind.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { folderLockHolder } from "@platform/kernel";
import { afterAll, describe, expect, it, vi } from "vitest";
import { EPHEMERAL_PORTS, startPlatformProcess } from "./support/platformProcess.ts";
import { childrenOf, isRunning } from "./support/processTable.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CHAIN = 10;
const dataDir = mkdtempSync(join(tmpdir(), "platform-stops-"));
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  ...EPHEMERAL_PORTS,
  BROKERAGE_DATA_BACKFILL_DAYS: "0",
  DEVNET_CHAINS: String(CHAIN),
  DEVNET_BLOCK_TIME: "0",
  LOG_LEVEL: "warn",
};
const leftovers: number[] = [];

afterAll(() => {
  for (const pid of leftovers.filter(isRunning)) process.kill(pid, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/** Waits until none of `pids` runs; fails naming those that still do. */
async function expectGone(pids: number[], timeout: number) {
  await vi.waitFor(() => expect(pids.filter(isRunning)).toEqual([]), { timeout, interval: 50 });
}

/** `npm start` in the repository, resolved once the platform it runs has printed that it is ready. */
function npmStart(): Promise<{ npm: ChildProcess; exited: Promise<unknown> }> {
  const npm = spawn("npm", ["start"], { cwd: ROOT, env: { ...process.env, ...env }, stdio: "pipe" });
  const exited = new Promise((resolve) => npm.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${out}`)), 120_000);
    const onData = (chunk: Buffer) => {
      out += chunk;
      if (!out.includes("Ctrl-C stops the platform")) return;
      clearTimeout(timer);
      resolve({ npm, exited });
    };
    npm.stdout.on("data", onData);
    npm.stderr.on("data", onData);
    void exited.then(() => reject(new Error(`npm start exited:\n${out}`)));
  });
}

describe("stopping the platform", () => {
  it("stops the platform and its anvils when the npm start that runs it gets SIGTERM", async () => {
    const { npm, exited } = await npmStart();
    const holder = await folderLockHolder(join(dataDir, "pglite"));
    const platformPid = holder?.pid as number;
    expect(holder?.command).toBe("platform start");
    leftovers.push(platformPid);
    const anvils = childrenOf(platformPid, "anvil");
    leftovers.push(...anvils);
    expect(anvils).toHaveLength(1);

    npm.kill("SIGTERM");
    await exited;
    await expectGone([platformPid, ...anvils], 30_000);
    expect(await folderLockHolder(join(dataDir, "pglite"))).toBeUndefined();
  }, 180_000);

  it("stops cleanly on SIGHUP", async () => {
    const platform = await startPlatformProcess(env, 120_000);
    const anvils = childrenOf(platform.child.pid as number, "anvil");
    leftovers.push(platform.child.pid as number, ...anvils);
    expect(anvils).toHaveLength(1);
    expect(await platform.stop("SIGHUP")).toBe(0);
    expect(platform.output()).toContain("Stopping (SIGHUP)...");
    await expectGone(anvils, 5_000);
  }, 180_000);

  it("leaves no anvil when the platform is killed with SIGKILL", async () => {
    const platform = await startPlatformProcess(env, 120_000);
    const anvils = childrenOf(platform.child.pid as number, "anvil");
    leftovers.push(...anvils);
    expect(anvils).toHaveLength(1);
    expect(await platform.stop("SIGKILL")).toBe(null);
    await expectGone(anvils, 5_000);
  }, 180_000);
});
