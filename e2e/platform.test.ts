/**
 * The quick start, end to end: `platform start` on a fresh data folder prints the services and a demo
 * key that works; `platform keys` works while it runs and after it stopped; SIGTERM stops it cleanly.
 * Runs on PGlite, or on a fresh PostgreSQL database when TEST_DATABASE_URL is set.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createPlatformEnv,
  EPHEMERAL_PORTS,
  type PlatformProcess,
  runPlatform,
  startPlatformProcess,
} from "./support/platformProcess.ts";

let env: Record<string, string>;
let removeEnv: () => Promise<void>;

beforeAll(async () => {
  const made = await createPlatformEnv("e2e", {
    ...EPHEMERAL_PORTS,
    BROKERAGE_DATA_BACKFILL_DAYS: "0",
    DEVNET: "false",
    LOG_LEVEL: "warn",
    // Verified keys are cached this long; with PostgreSQL a revocation by another process waits for it.
    API_KEY_CACHE_TTL_MS: "200",
  });
  ({ env, remove: removeEnv } = made);
});
afterAll(() => removeEnv());

const users = (baseUrl: string, key: string) =>
  fetch(`${baseUrl}/users`, { headers: { "X-Service-API-Key": key } }).then((r) => r.status);

describe("platform command", () => {
  let platform: PlatformProcess;
  let createdId: string;

  it("starts, prints the services table and a demo key that works", async () => {
    platform = await startPlatformProcess(env);
    const base = platform.baseUrls.wearables as string;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(platform.demoKeys.wearables).toMatch(/^wearables_/);
    expect(platform.baseUrls.chainstats).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/api$/);
    expect(platform.demoKeys.chainstats).toMatch(/^chainstats_/);
    expect(await users(base, platform.demoKeys.wearables as string)).toBe(200);
    expect(await users(base, "wearables_AAAAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).toBe(401);
  });

  it("creates, lists and revokes keys while the platform runs", async () => {
    const created = await runPlatform(["keys", "create", "--service", "wearables", "--name", "ci", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const { service, name, key } = JSON.parse(created.stdout);
    expect({ service, name }).toEqual({ service: "wearables", name: "ci" });
    const base = platform.baseUrls.wearables as string;
    expect(await users(base, key)).toBe(200);

    const listed = await runPlatform(["keys", "list", "--service", "wearables", "--json"], env);
    const keys = JSON.parse(listed.stdout) as { id: string; name: string; prefix: string }[];
    expect(keys.map((k) => k.name).sort()).toEqual(["ci", "demo"]);
    expect(listed.stdout).not.toContain(key);
    createdId = keys.find((k) => k.name === "ci")?.id as string;

    expect((await runPlatform(["keys", "revoke", createdId], env)).code).toBe(0);
    // At once through the admin socket (PGlite); with PostgreSQL, once the running platform's cache expires.
    await vi.waitFor(async () => expect(await users(base, key)).toBe(401), { timeout: 5_000, interval: 50 });
  });

  it("rejects bad arguments with one clear line", async () => {
    const bad = await runPlatform(["keys", "create", "--service", "nope"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Unknown service "nope"/);
    const again = await runPlatform(["keys", "revoke", createdId], env);
    expect(again.code).toBe(1);
    const badConfig = await runPlatform(["keys", "list"], { ...env, WEARABLES_PORT: "x" });
    expect(badConfig.stderr).toMatch(/WEARABLES_PORT must be an integer/);
  });

  it("stops cleanly on SIGTERM", async () => {
    const code = await platform.stop("SIGTERM");
    expect(code).toBe(0);
    expect(existsSync(join(env.DATA_DIR as string, "platform.sock"))).toBe(false);
  });

  it("manages keys without a running platform, and does not print a demo key again", async () => {
    const created = await runPlatform(["keys", "create", "--service", "wearables", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout);
    expect((await runPlatform(["migrate"], env)).stdout).toContain("Up to date");

    const restarted = await startPlatformProcess(env);
    try {
      expect(restarted.demoKeys).toEqual({});
      expect(await users(restarted.baseUrls.wearables as string, key)).toBe(200);
    } finally {
      expect(await restarted.stop("SIGINT")).toBe(0);
    }
  });
});
