/**
 * `platform start --role`: on one PostgreSQL database an `api` process serves HTTP and runs no background job,
 * a `worker` process runs the jobs and answers on no public port, and `platform status` lists both with their
 * roles. On the embedded database (PGlite) `--role api` and `PLATFORM_ROLE=worker` refuse at start.
 *
 * The api/worker part needs PostgreSQL: it is declared only when TEST_DATABASE_URL is set (the PGlite run has
 * nothing of it to run, rather than a skipped test).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, type Database } from "@platform/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeGpxFile } from "../packages/wearables/src/testing/gpxFile.ts";
import { makeWorkoutFixture } from "../packages/wearables/src/testing/workoutFixture.ts";
import {
  createPlatformEnv,
  EPHEMERAL_PORTS,
  type PlatformProcess,
  runPlatform,
  startCommandProcess,
} from "./support/platformProcess.ts";

const READY = "Ctrl-C stops the platform";
const REFUSAL = "needs PostgreSQL (DATABASE_URL): the embedded database has one owner, which runs --role all";

// Each test runs `platform` processes (each loads every service's modules: 5 to 20 s on a busy machine): 30 s
// per test timed out on a loaded 2-core machine.
describe("platform start --role on the embedded database", { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "platform-roles-pglite-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("refuses api and worker in one line naming DATABASE_URL", async () => {
    const env = { DATA_DIR: dataDir, DATABASE_URL: "", DEVNET: "false", LOG_LEVEL: "warn" };
    const api = await runPlatform(["start", "--role", "api"], env);
    expect(api.code).toBe(1);
    expect(api.stderr).toBe(`platform: --role api ${REFUSAL}\n`);
    const worker = await runPlatform(["start"], { ...env, PLATFORM_ROLE: "worker" });
    expect(worker.code).toBe(1);
    expect(worker.stderr).toBe(`platform: --role worker ${REFUSAL}\n`);
    const bad = await runPlatform(["start", "--role", "cron"], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("must be one of all, api, worker");
  });
});

/** A port nothing listens on now (the worker is told to use it, and must not). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

if (process.env.TEST_DATABASE_URL) {
  describe("platform start --role api and --role worker on one PostgreSQL database", { timeout: 120_000 }, () => {
    let env: Record<string, string>;
    let removeEnv: () => Promise<void>;
    let db: Database;
    let api: PlatformProcess | undefined;
    let worker: PlatformProcess | undefined;
    /** The import uploaded to the api instance (run by the worker). */
    let upload: { userId: string; taskId: string } | undefined;

    beforeAll(async () => {
      // The wearables alone: its worker runs the file imports (and scores) uploaded to any instance; no chain.
      ({ env, remove: removeEnv } = await createPlatformEnv("roles", {
        SERVICES: "wearables",
        ...EPHEMERAL_PORTS,
        DEVNET: "false",
        LOG_LEVEL: "warn",
      }));
      db = await createDatabase({ url: env.DATABASE_URL, dataDir: env.DATA_DIR as string });
    });
    afterAll(async () => {
      await api?.stop();
      await worker?.stop();
      await db?.close();
      await removeEnv();
    });

    const schedules = () => db.query<{ name: string }>("SELECT name FROM platform.job_schedules");
    const status = async () => {
      const r = await runPlatform(["status", "--json"], env);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as {
        wearables?: unknown;
        instances: { role: string; pid: number; alive: boolean }[];
      };
    };

    it("an api instance answers HTTP and starts no background job", async () => {
      api = await startCommandProcess(["start", "--role", "api"], env, READY);
      expect(api.output()).toContain("Platform running, role api");
      const base = api.baseUrls.wearables as string;
      const key = api.demoKeys.wearables as string;
      const headers = { "X-Service-API-Key": key };
      expect((await fetch(`${base}/users`, { headers })).status).toBe(200);
      // An upload: the api instance stores it and enqueues its import job, and runs nothing.
      const user = await fetch(`${base}/users`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ email: "roles@example.com" }),
      });
      expect(user.status).toBe(201);
      const userId = ((await user.json()) as { id: string }).id;
      const body = new FormData();
      body.append("file", new Blob([writeGpxFile(makeWorkoutFixture({}))]), "ride.gpx");
      const res = await fetch(`${base}/users/${userId}/import/gpx`, { method: "POST", headers, body });
      expect(res.status).toBe(200);
      upload = { userId, taskId: ((await res.json()) as { task_id: string }).task_id };
      expect(await schedules()).toEqual([]);
      expect(await db.query("SELECT queue, state FROM platform.jobs")).toEqual([
        { queue: "wearables.import", state: "queued" },
      ]);
      const s = await status();
      expect(s.instances.map((i) => [i.role, i.pid, i.alive])).toEqual([["api", api.child.pid, true]]);
      expect(s.wearables).toBeUndefined();
    });

    it("a worker instance runs the jobs and answers on no public port; status lists both roles", async () => {
      const port = await freePort();
      worker = await startCommandProcess(
        ["start", "--role", "worker"],
        { ...env, WEARABLES_PORT: String(port) },
        READY,
      );
      expect(worker.output()).toContain("Platform running, role worker");
      expect(worker.baseUrls).toEqual({});
      await expect(fetch(`http://127.0.0.1:${port}/api/v1/users`)).rejects.toThrow();
      // The upload the api instance took is imported here: its file travelled in the database.
      await until(
        "the api instance's upload imported by the worker",
        () =>
          db.query<{ state: string; events_written: string }>(
            "SELECT state, events_written FROM wearables.import_jobs WHERE id = $1",
            [upload?.taskId],
          ),
        (rows) => rows[0]?.state === "completed",
      );
      // Only the worker runs jobs: the import, and the recurring pass of provider syncs (none to pull yet).
      expect(await db.query("SELECT queue, state FROM platform.jobs WHERE queue = 'wearables.import'")).toEqual([
        { queue: "wearables.import", state: "completed" },
      ]);
      await until(
        "the worker's first scheduled sync pass",
        () => db.query<{ state: string }>("SELECT state FROM platform.jobs WHERE queue = 'wearables.sync-schedule'"),
        (rows) => rows.length > 0 && rows.every((r) => r.state === "completed"),
      );
      const s = await until("both instances in platform status", status, (x) => x.instances.length === 2);
      expect(s.instances.map((i) => [i.role, i.pid, i.alive]).sort()).toEqual(
        [
          ["api", api?.child.pid, true],
          ["worker", worker.child.pid, true],
        ].sort(),
      );
      // The worker on this data folder serves the admin socket: its jobs' details are in the status too.
      expect(s.wearables).toBeDefined();
      const table = await runPlatform(["status"], env);
      expect(table.stdout).toMatch(/│\s*api\s*│/);
      expect(table.stdout).toMatch(/│\s*worker\s*│/);
    });

    it("an instance's row goes with its stop", async () => {
      expect(await api?.stop()).toBe(0);
      api = undefined;
      const s = await status();
      expect(s.instances.map((i) => i.role)).toEqual(["worker"]);
    });
  });
}
