/**
 * The admin endpoint over its real Unix socket: created owner-only from the first instant, and every
 * malformed request refused with a 400 that names the field.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { request } from "node:http";
import { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ApiKeyStore,
  createApiKeyStore,
  createLeases,
  enqueueJob,
  kernelMigrations,
  migrate,
  type QueueSummary,
} from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { adminSocketPath, callAdmin, startAdminServer } from "./adminSocket.ts";

let database: TestDatabase;
let apiKeys: ApiKeyStore;
let dataDir: string;
let admin: FastifyInstance | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrate(database.db, kernelMigrations());
  apiKeys = createApiKeyStore({ db: database.db, cacheTtlMs: 0 });
});
afterEach(async () => {
  await admin?.close();
  admin = undefined;
  vi.restoreAllMocks();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});
afterAll(async () => {
  await database?.drop();
});

const start = async () => {
  dataDir = mkdtempSync(join(tmpdir(), "platform-admin-"));
  admin = await startAdminServer(dataDir, apiKeys, { db: database.db });
  return dataDir;
};

/** One raw request on the socket: status and parsed body (callAdmin keeps only the message of a failure). */
function send(
  dir: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; body: { error?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: adminSocketPath(dir),
        method,
        path,
        headers: body === undefined ? {} : { "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("the admin socket file", () => {
  it("is owner-only from its creation on, whatever the process umask, which it leaves as it was", async () => {
    const permissive = 0o002;
    const before = process.umask(permissive);
    const modesAtBind: number[] = [];
    const listen = Server.prototype.listen;
    vi.spyOn(Server.prototype, "listen").mockImplementation(function (this: Server, ...args: unknown[]) {
      const server = (listen as (...a: unknown[]) => Server).apply(this, args);
      // The bind is synchronous: the file exists now, before any chmod could run.
      modesAtBind.push(statSync(adminSocketPath(dataDir)).mode & 0o777);
      return server;
    });
    try {
      const dir = await start();
      expect(modesAtBind).toHaveLength(1);
      expect((modesAtBind[0] as number) & 0o077).toBe(0);
      expect(statSync(adminSocketPath(dir)).mode & 0o777).toBe(0o600);
      expect(process.umask(permissive)).toBe(permissive);
    } finally {
      process.umask(before);
    }
  });
});

describe("admin requests", () => {
  it("serves well-formed requests", async () => {
    const dir = await start();
    const created = await callAdmin<{ id: string; key: string; service: string }>(dir, "POST", "/keys", {
      service: "wearables",
      name: "ops",
    });
    expect(created?.service).toBe("wearables");
    const listed = await callAdmin<{ id: string }[]>(dir, "GET", "/keys?service=wearables");
    expect(listed?.map((k) => k.id)).toContain(created?.id);
    expect(await callAdmin(dir, "DELETE", `/keys/${created?.id}`)).toEqual({ revoked: true });
    expect(await callAdmin(dir, "GET", "/health")).toEqual({ ok: true });
  });

  it("refuses malformed requests with a 400 naming the field, never a 500", async () => {
    const dir = await start();
    const cases: [string, string, string | undefined, RegExp][] = [
      ["POST", "/keys", JSON.stringify({ service: "nope", name: "x" }), /body\.service: must be one of wearables/],
      ["POST", "/keys", JSON.stringify({ service: "wearables" }), /body\.name: field required/],
      ["POST", "/keys", JSON.stringify({ service: "wearables", name: "" }), /body\.name/],
      ["POST", "/keys", JSON.stringify({ service: "wearables", name: "x".repeat(101) }), /body\.name/],
      ["POST", "/keys", JSON.stringify({ service: "wearables", name: "x", plan: 3 }), /body\.plan/],
      ["POST", "/keys", JSON.stringify({ service: "wearables", name: "x", admin: true }), /body\.admin: unknown field/],
      ["POST", "/keys", "null", /body/],
      ["POST", "/keys", "{not json", /not valid JSON/],
      ["POST", "/keys", JSON.stringify({ service: "wearables", name: "x", plan: "gold" }), /has no plans/],
      ["GET", "/keys?service=nope", undefined, /query\.service: must be one of/],
      ["DELETE", "/keys/not-a-key-id", undefined, /path\.id: must be an API key id/],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await send(dir, method, path, body);
      expect({ method, path, body, status: res.status }).toEqual({ method, path, body, status: 400 });
      expect(res.body.error).toMatch(message);
    }
    expect((await apiKeys.list()).filter((k) => k.name === "x")).toEqual([]);
  });
});

describe("jobs and leases (platform jobs)", () => {
  it("lists jobs and leases, and retries or cancels a job by id", async () => {
    const dir = await start();
    const id = (await enqueueJob(database.db, "admin.test", { n: 1 }, { maxAttempts: 2 })) as string;
    await createLeases({ db: database.db }).acquire({ name: "admin.lease", holder: "h1", ttlMs: 60_000 });

    const jobs = await callAdmin<{ id: string; state: string; attempts: number; max_attempts: number }[]>(
      dir,
      "GET",
      "/jobs?queue=admin.test&state=queued&limit=10",
    );
    expect(jobs).toEqual([expect.objectContaining({ id, state: "queued", attempts: 0, max_attempts: 2 })]);
    // Per queue (`platform status`): one queued job, due now, nothing running or dead.
    await enqueueJob(database.db, "admin.later", {}, { runAt: new Date(Date.now() + 3_600_000) });
    const queues = (await callAdmin<QueueSummary[]>(dir, "GET", "/queues")) ?? [];
    expect(queues.find((q) => q.queue === "admin.test")).toMatchObject({ queued: 1, due: 1, active: 0, dead: 0 });
    expect(queues.find((q) => q.queue === "admin.test")?.oldest_due_ms).toBeGreaterThanOrEqual(0);
    expect(queues.find((q) => q.queue === "admin.later")).toMatchObject({ queued: 1, due: 0, oldest_due_ms: null });
    expect(await callAdmin(dir, "POST", `/jobs/${id}/cancel`)).toMatchObject({ id, state: "cancelled" });
    expect(await callAdmin(dir, "POST", `/jobs/${id}/retry`)).toMatchObject({ id, state: "queued" });
    const leases = await callAdmin<{ name: string; holder: string; token: string; held: boolean }[]>(
      dir,
      "GET",
      "/leases",
    );
    expect(leases).toContainEqual(
      expect.objectContaining({ name: "admin.lease", holder: "h1", token: "1", held: true }),
    );

    // A job that cannot be retried (queued) is a 409, an unknown one a 404, a malformed id a 400.
    expect(await send(dir, "POST", `/jobs/${id}/retry`)).toMatchObject({ status: 409 });
    expect(await send(dir, "POST", "/jobs/987654321/cancel")).toMatchObject({ status: 404 });
    const malformed = await send(dir, "POST", "/jobs/x1/cancel");
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/path\.jobId: must be a job id/);
    const badAction = await send(dir, "POST", `/jobs/${id}/delete`);
    expect(badAction.status).toBe(400);
    expect((await send(dir, "GET", "/jobs?state=running")).status).toBe(400);
  });
});
