/**
 * `platform jobs list|leases|retry|cancel`: the kernel's durable jobs (`platform.jobs`) and leases
 * (`platform.leases`) with their state, holder, attempts and last error, and retrying or cancelling one job
 * by id. As `platform keys`: with PGlite it goes through the running platform's admin socket (one owner per
 * data folder), or opens the data folder when no platform runs; with PostgreSQL it opens the database itself.
 */
import {
  type Config,
  cancelJob,
  createLeases,
  type JobRecord,
  type JobState,
  type LeaseRecord,
  type ListJobsParameters,
  listJobs,
  retryJob,
} from "@platform/kernel";
import { callAdmin, isPlatformRunning } from "../admin/adminSocket.ts";
import { openPlatform } from "../openPlatform.ts";
import { createTable } from "./table.ts";

/** Dates as they come over JSON (strings) or from the database (Date). */
type Wire<T> = {
  [K in keyof T]: T[K] extends Date ? Date | string : T[K] extends Date | null ? Date | string | null : T[K];
};

interface JobsAccess {
  list(p: ListJobsParameters): Promise<Wire<JobRecord>[]>;
  leases(): Promise<Wire<LeaseRecord>[]>;
  retry(id: string): Promise<Wire<JobRecord>>;
  cancel(id: string): Promise<Wire<JobRecord>>;
  close(): Promise<void>;
}

export const JOB_STATES: readonly JobState[] = ["queued", "active", "completed", "dead", "cancelled"];

async function openJobsAccess(config: Config): Promise<JobsAccess> {
  if (!config.databaseUrl && (await isPlatformRunning(config.dataDir))) {
    const admin = async <T>(method: string, path: string) => (await callAdmin<T>(config.dataDir, method, path)) as T;
    return {
      list: (p) => {
        const query = new URLSearchParams();
        if (p.queue) query.set("queue", p.queue);
        if (p.state) query.set("state", p.state);
        if (p.limit) query.set("limit", String(p.limit));
        const qs = query.toString();
        return admin("GET", `/jobs${qs ? `?${qs}` : ""}`);
      },
      leases: () => admin("GET", "/leases"),
      retry: (id) => admin("POST", `/jobs/${encodeURIComponent(id)}/retry`),
      cancel: (id) => admin("POST", `/jobs/${encodeURIComponent(id)}/cancel`),
      close: async () => {},
    };
  }
  const platform = await openPlatform({ ...config, logLevel: "warn" });
  return {
    list: (p) => listJobs(platform.db, p),
    leases: () => createLeases({ db: platform.db }).list(),
    retry: (id) => retryJob(platform.db, id),
    cancel: (id) => cancelJob(platform.db, id),
    close: () => platform.db.close(),
  };
}

const iso = (d: Date | string | null) => (d === null ? "" : new Date(d).toISOString());

async function withAccess<T>(config: Config, fn: (access: JobsAccess) => Promise<T>): Promise<T> {
  const access = await openJobsAccess(config);
  try {
    return await fn(access);
  } finally {
    await access.close();
  }
}

export interface ListJobsOptions {
  queue?: string;
  state?: string;
  limit?: number;
  json?: boolean;
}

export async function listJobsCommand(config: Config, o: ListJobsOptions): Promise<void> {
  if (o.state && !JOB_STATES.includes(o.state as JobState)) {
    throw new Error(`--state must be one of ${JOB_STATES.join(", ")}`);
  }
  const jobs = await withAccess(config, (a) =>
    a.list({ queue: o.queue, state: o.state as JobState | undefined, limit: o.limit }),
  );
  if (o.json) {
    process.stdout.write(`${JSON.stringify(jobs)}\n`);
    return;
  }
  const table = createTable(["id", "queue", "state", "attempts", "run at", "holder", "last error"]);
  for (const j of jobs) {
    table.push([
      j.id,
      j.queue,
      j.state,
      `${j.attempts}/${j.max_attempts}`,
      iso(j.run_at),
      j.locked_by ?? "",
      (j.last_error ?? "").slice(0, 80),
    ]);
  }
  process.stdout.write(`${table.toString()}\n`);
}

export async function listLeasesCommand(config: Config, o: { json?: boolean }): Promise<void> {
  const leases = await withAccess(config, (a) => a.leases());
  if (o.json) {
    process.stdout.write(`${JSON.stringify(leases)}\n`);
    return;
  }
  const table = createTable(["name", "holder", "token", "held", "expires at", "acquired at"]);
  for (const l of leases) {
    table.push([l.name, l.holder ?? "", l.token, l.held ? "yes" : "no", iso(l.expires_at), iso(l.acquired_at)]);
  }
  process.stdout.write(`${table.toString()}\n`);
}

export async function jobActionCommand(config: Config, action: "retry" | "cancel", id: string): Promise<void> {
  if (!/^\d{1,19}$/.test(id)) throw new Error("the job id is a number (see `platform jobs list`)");
  const job = await withAccess(config, (a) => (action === "retry" ? a.retry(id) : a.cancel(id)));
  process.stdout.write(`Job ${job.id} (${job.queue}) is ${job.state}.\n`);
}
