/**
 * The local admin endpoint of a running platform: HTTP over a Unix socket at `DATA_DIR/platform.sock`
 * with mode 0600, so only the operator who owns the data folder can use it. It exists because one
 * PGlite data folder can be open in one process only: while the platform runs, `platform keys`
 * goes through it instead of opening the database. `platform status` reads the jobs' status from it.
 */
import { chmodSync, existsSync, unlinkSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import type { ApiKeyStore, Config } from "@platform/kernel";
import Fastify, { type FastifyInstance } from "fastify";
import { keyPlanFor } from "../services.ts";

export const adminSocketPath = (dataDir: string) => join(dataDir, "platform.sock");

export async function startAdminServer(
  dataDir: string,
  apiKeys: ApiKeyStore,
  jobStatus: () => Record<string, unknown> = () => ({}),
): Promise<FastifyInstance> {
  const path = adminSocketPath(dataDir);
  if (existsSync(path)) unlinkSync(path); // stale: the caller checked nothing answers on it
  const app = Fastify({ bodyLimit: 16_384 });
  app.get("/keys", async (req) => apiKeys.list({ service: (req.query as { service?: string }).service }));
  app.post("/keys", async (req, reply) => {
    const { service, name, plan } = req.body as { service: string; name: string; plan?: string | null };
    try {
      return await apiKeys.create({ service, name, plan: keyPlanFor(service, plan) });
    } catch (error) {
      return reply.code(400).send({ error: (error as Error).message });
    }
  });
  // What each service's background jobs are doing (`platform status`).
  app.get("/status", async () => jobStatus());
  app.delete("/keys/:id", async (req) => ({ revoked: await apiKeys.revoke((req.params as { id: string }).id) }));
  await app.listen({ path });
  chmodSync(path, 0o600);
  return app;
}

/**
 * Throws when a platform runs on this data folder with the embedded database (one owner per folder):
 * "The platform is running on this data folder and <doing>; stop it first …". PostgreSQL has no such limit.
 */
export async function refuseWhileEmbeddedPlatformRuns(config: Config, doing: string): Promise<void> {
  if (config.databaseUrl || !(await isPlatformRunning(config.dataDir))) return;
  throw new Error(
    `The platform is running on this data folder and ${doing}; stop it first ` +
      "(an embedded database has one owner), or run both on PostgreSQL",
  );
}

/** Calls the running platform's admin endpoint; `undefined` when no platform answers there. */
export function callAdmin<T>(dataDir: string, method: string, path: string, body?: unknown): Promise<T | undefined> {
  const socketPath = adminSocketPath(dataDir);
  if (!existsSync(socketPath)) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        socketPath,
        method,
        path,
        headers: payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {},
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => {
          text += c;
        });
        res.on("end", () => {
          const parsed = text ? JSON.parse(text) : undefined;
          if ((res.statusCode ?? 500) >= 400) reject(new Error(parsed?.error ?? parsed?.message ?? text));
          else resolve(parsed as T);
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED" || error.code === "ENOENT") resolve(undefined);
      else reject(error);
    });
    req.end(payload);
  });
}

/** True when a platform process answers on the admin socket of `dataDir`. */
export async function isPlatformRunning(dataDir: string): Promise<boolean> {
  return (await callAdmin(dataDir, "GET", "/keys?service=__probe__")) !== undefined;
}
