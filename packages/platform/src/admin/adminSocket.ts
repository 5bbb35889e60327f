/**
 * The local admin endpoint of a running platform: HTTP over a Unix socket at `DATA_DIR/platform.sock`
 * with mode 0600, so only the operator who owns the data folder can use it. It exists because one
 * PGlite data folder can be open in one process only (its lock, openPlatform.ts): while the platform runs,
 * `platform keys` goes through it instead of opening the database (admin/platformAccess.ts). `platform status`
 * reads the jobs' status from it.
 *
 * The socket is created under a umask of 0o077, so it is never reachable by others, not even between
 * its creation and the chmod. Requests are validated by schema: a malformed one is a 400 naming the
 * field, never a 500.
 */
import { chmodSync, existsSync, unlinkSync } from "node:fs";
import { request } from "node:http";
import type { Server } from "node:net";
import { join } from "node:path";
import {
  type ApiKeyStore,
  cancelJob,
  createLeases,
  type JobState,
  listInstances,
  listJobs,
  type OperatorCommand,
  OperatorInputError,
  type Queryable,
  retryJob,
  summarizeQueues,
  toHttpError,
} from "@platform/kernel";
import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { keyPlanFor, serviceNames } from "../services.ts";

export const adminSocketPath = (dataDir: string) => join(dataDir, "platform.sock");

/** Key names and plans are labels: bounded so a request cannot store anything large. */
const MAX_LABEL = 100;
const JOB_STATES: readonly JobState[] = ["queued", "active", "completed", "dead", "cancelled"];
const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

const schemas = () => {
  const service = { type: "string", enum: serviceNames() };
  return {
    listKeys: {
      querystring: { type: "object", properties: { service }, additionalProperties: false },
    },
    createKey: {
      body: {
        type: "object",
        required: ["service", "name"],
        properties: {
          service,
          name: { type: "string", minLength: 1, maxLength: MAX_LABEL },
          plan: { type: ["string", "null"], maxLength: MAX_LABEL },
        },
        additionalProperties: false,
      },
    },
    operatorCommand: {
      params: {
        type: "object",
        required: ["service", "command"],
        properties: { service, command: { type: "string", pattern: "^[a-zA-Z][a-zA-Z0-9-]{0,63}$" } },
      },
      body: { type: "object" },
    },
    listJobs: {
      querystring: {
        type: "object",
        properties: {
          queue: { type: "string", minLength: 1, maxLength: MAX_LABEL },
          state: { type: "string", enum: [...JOB_STATES] },
          limit: { type: "string", pattern: "^[1-9][0-9]{0,3}$" },
        },
        additionalProperties: false,
      },
    },
    jobAction: {
      params: {
        type: "object",
        required: ["jobId", "action"],
        properties: {
          jobId: { type: "string", pattern: "^[0-9]{1,19}$" },
          action: { type: "string", enum: ["retry", "cancel"] },
        },
      },
    },
    revokeKey: {
      params: {
        type: "object",
        required: ["id"],
        properties: { id: { type: "string", pattern: UUID } },
      },
    },
  };
};

export interface AdminServerParameters {
  /** What each service's background jobs are doing (`platform status`). */
  jobStatus?: () => Record<string, unknown>;
  /** The operator commands of a running service (`platform brokerage users create`, …). */
  operatorCommands?: (service: string) => Readonly<Record<string, OperatorCommand>> | undefined;
  /** The platform's database, for `platform jobs` (the kernel's jobs and leases); without it those routes answer 404. */
  db?: Queryable;
}

export async function startAdminServer(
  dataDir: string,
  apiKeys: ApiKeyStore,
  { jobStatus = () => ({}), operatorCommands = () => undefined, db }: AdminServerParameters = {},
): Promise<FastifyInstance> {
  const path = adminSocketPath(dataDir);
  if (existsSync(path)) unlinkSync(path); // stale: the caller owns the data folder
  // Unknown body fields are refused rather than silently dropped, and a number is not a name (Fastify's
  // defaults drop and coerce); every field here is a string, so nothing needs coercing.
  const app = Fastify({
    bodyLimit: 16_384,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
  });
  const schema = schemas();
  app.setErrorHandler((error: FastifyError, _req, reply) => {
    const { statusCode, message } = adminError(error);
    return reply.code(statusCode).send({ error: message });
  });
  // Answers without touching the database: how clients find out whether a platform runs here.
  app.get("/health", async () => ({ ok: true }));
  app.get<{ Querystring: { service?: string } }>("/keys", { schema: schema.listKeys }, async (req) =>
    apiKeys.list({ service: req.query.service }),
  );
  app.post<{ Body: { service: string; name: string; plan?: string | null } }>(
    "/keys",
    { schema: schema.createKey },
    async (req, reply) => {
      const { service, name, plan } = req.body;
      let checkedPlan: string | null;
      try {
        checkedPlan = keyPlanFor(service, plan);
      } catch (error) {
        return reply.code(400).send({ error: (error as Error).message });
      }
      return apiKeys.create({ service, name, plan: checkedPlan });
    },
  );
  // What each service's background jobs are doing (`platform status`).
  app.get("/status", async () => jobStatus());
  // A service's operator command, run in this process (the one that owns the embedded database).
  app.post<{ Params: { service: string; command: string }; Body: Record<string, unknown> }>(
    "/services/:service/commands/:command",
    { schema: schema.operatorCommand },
    async (req, reply) => {
      const command = operatorCommands(req.params.service)?.[req.params.command];
      if (!command) {
        return reply.code(404).send({ error: `${req.params.service} has no command "${req.params.command}" running` });
      }
      try {
        return { result: (await command(req.body)) ?? null };
      } catch (error) {
        if (error instanceof OperatorInputError) return reply.code(400).send({ error: error.message });
        throw error;
      }
    },
  );
  if (db) {
    // The kernel's durable jobs and leases (`platform jobs`).
    app.get<{ Querystring: { queue?: string; state?: JobState; limit?: string } }>(
      "/jobs",
      { schema: schema.listJobs },
      async (req) =>
        listJobs(db, {
          queue: req.query.queue,
          state: req.query.state,
          limit: req.query.limit ? Number(req.query.limit) : undefined,
        }),
    );
    app.get("/leases", async () => createLeases({ db }).list());
    // Per queue: waiting, running, dead, the oldest due job's wait (`platform status`).
    app.get("/queues", async () => summarizeQueues(db));
    // The platform processes and their roles (`platform status`).
    app.get("/instances", async () => listInstances(db));
    app.post<{ Params: { jobId: string; action: "retry" | "cancel" } }>(
      "/jobs/:jobId/:action",
      { schema: schema.jobAction },
      async (req, reply) => {
        try {
          const { jobId, action } = req.params;
          return action === "retry" ? await retryJob(db, jobId) : await cancelJob(db, jobId);
        } catch (error) {
          const name = (error as Error).name;
          if (name === "JobNotFoundError") return reply.code(404).send({ error: (error as Error).message });
          if (name === "JobStateError" || name === "JobSingletonConflictError") {
            return reply.code(409).send({ error: (error as Error).message });
          }
          throw error;
        }
      },
    );
  }
  app.delete<{ Params: { id: string } }>("/keys/:id", { schema: schema.revokeKey }, async (req) => ({
    revoked: await apiKeys.revoke(req.params.id),
  }));
  await app.ready();
  await listenPrivately(app.server, path);
  chmodSync(path, 0o600);
  return app;
}

/**
 * `server.listen(path)` with the process umask at 0o077 while the socket file is created (the bind is
 * synchronous within `listen`), restored right after: no other file is created meanwhile.
 */
function listenPrivately(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const previous = process.umask(0o077);
    try {
      server.once("error", reject);
      server.listen(path, () => {
        server.off("error", reject);
        resolve();
      });
    } finally {
      process.umask(previous);
    }
  });
}

/** Where a validation error was found, as kernel's `toHttpError` names it. */
const LOCATIONS: Record<string, string> = { querystring: "query", params: "path" };

/** Status and message of a failed admin request: 4xx say what was wrong with it, 5xx say nothing more. */
function adminError(error: FastifyError): { statusCode: number; message: string } {
  const first = error.validation?.[0];
  if (first?.keyword === "enum") {
    const location = LOCATIONS[error.validationContext ?? ""] ?? error.validationContext;
    const field = first.instancePath.replace(/^\//, "");
    const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues ?? [];
    return { statusCode: 400, message: `${location}.${field}: must be one of ${allowed.join(", ")}` };
  }
  if (first?.keyword === "pattern" && error.validationContext === "params") {
    const field = first.instancePath.replace(/^\//, "");
    if (field === "jobId") {
      return { statusCode: 400, message: "path.jobId: must be a job id (a number, see `platform jobs list`)" };
    }
    if (field === "id")
      return { statusCode: 400, message: "path.id: must be an API key id (a UUID, see `platform keys list`)" };
    return { statusCode: 400, message: `path.${field}: not a name this endpoint knows` };
  }
  const httpError = toHttpError(error);
  if (httpError.statusCode >= 500) return { statusCode: 500, message: "internal error of the admin endpoint" };
  return { statusCode: httpError.statusCode, message: httpError.message };
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
  return (await callAdmin(dataDir, "GET", "/health")) !== undefined;
}
