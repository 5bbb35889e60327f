/**
 * One process per embedded database: `platform start` locks its data folder before it opens the database,
 * so a command run while it starts waits for its admin socket and goes through it (the key it prints works
 * at once), a second `platform start` or `platform devnet` on the folder refuses naming the first, and a
 * platform killed with SIGKILL leaves a folder the next process opens. Always on PGlite: with PostgreSQL
 * several processes share the database and there is no folder to lock.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { folderLockHolder } from "@platform/kernel";
import { afterAll, describe, expect, it, vi } from "vitest";
import { EPHEMERAL_PORTS, type PlatformProcess, runPlatform, startPlatformProcess } from "./support/platformProcess.ts";
import { isRunning } from "./support/processTable.ts";

const CHAIN = 10;
const dataDir = mkdtempSync(join(tmpdir(), "platform-lock-"));
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  DATABASE_URL: "",
  ...EPHEMERAL_PORTS,
  BROKERAGE_DATA_BACKFILL_DAYS: "0",
  // One devnet chain: a first start deploys its contracts, which leaves a window of seconds between the
  // platform taking its folder and opening its admin socket.
  DEVNET_CHAINS: String(CHAIN),
  DEVNET_BLOCK_TIME: "0",
  LOG_LEVEL: "warn",
};
let platform: PlatformProcess | undefined;

afterAll(async () => {
  if (platform && isRunning(platform.child.pid as number)) await platform.stop("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

const users = (baseUrl: string, key: string) =>
  fetch(`${baseUrl}/users`, { headers: { "X-Service-API-Key": key } }).then((r) => r.status);

describe("the data folder of the embedded database", () => {
  it("lets a command run while the platform starts reach it: the key it creates works at once", async () => {
    let started = false;
    const starting = startPlatformProcess(env, 120_000).then((p) => {
      started = true;
      platform = p;
      return p;
    });
    starting.catch(() => {});
    // The platform holds its folder from before it opens the database.
    await vi.waitFor(
      async () => {
        const holder = await folderLockHolder(join(dataDir, "pglite"));
        expect(holder?.command).toBe("platform start");
      },
      { timeout: 60_000, interval: 20 },
    );
    expect(started).toBe(false);
    const created = await runPlatform(["keys", "create", "--service", "wearables", "--name", "early", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/Waiting for the platform on .* \(pid \d+\) to finish starting/);
    const running = await starting;
    const { key } = JSON.parse(created.stdout) as { key: string };
    expect(await users(running.baseUrls.wearables as string, key)).toBe(200);
    const listed = await runPlatform(["keys", "list", "--service", "wearables", "--json"], env);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((k) => k.name).sort()).toEqual(["demo", "early"]);
  }, 180_000);

  it("refuses a second platform start and a second devnet on the folder, naming the first", async () => {
    const running = platform as PlatformProcess;
    const second = await runPlatform(["start"], env);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `The embedded database in ${dataDir} is in use by \`platform start\` (pid ${running.child.pid})`,
    );
    const devnet = await runPlatform(["devnet"], env);
    expect(devnet.code).toBe(1);
    expect(devnet.stderr).toContain(`The devnet of ${dataDir} is run by \`platform start\` (pid ${running.child.pid})`);
    // The first one still serves.
    expect(await users(running.baseUrls.wearables as string, running.demoKeys.wearables as string)).toBe(200);
  }, 120_000);

  it("is free again once the platform that held it was killed with SIGKILL", async () => {
    const running = platform as PlatformProcess;
    expect(await running.stop("SIGKILL")).toBe(null);
    expect(await folderLockHolder(join(dataDir, "pglite"))).toBeUndefined();
    const listed = await runPlatform(["keys", "list", "--service", "wearables", "--json"], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).not.toContain("Waiting");
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((k) => k.name).sort()).toEqual(["demo", "early"]);
  }, 120_000);
});
