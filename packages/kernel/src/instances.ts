/**
 * The registry of running platform processes (`platform.instances`): each `platform start` registers itself with
 * its role, renews a heartbeat every `heartbeatMs`, and deletes its row when it stops. A process killed without
 * its stop leaves a row whose heartbeat ages: past `ttlMs` it is shown as gone (`alive: false`), and rows gone
 * for a day are pruned by the next registration, so the table does not grow with every crash.
 *
 * Liveness is judged by the database's clock (`now()`), as leases are, so hosts with skewed clocks agree.
 *
 * @example
 * const instance = await registerInstance({ db, role: "worker", logger });
 * // … later
 * await instance.stop();
 * const all = await listInstances(db); // [{ id, role, host, pid, started_at, heartbeat_at, alive }]
 */
import { hostname } from "node:os";
import type { Config } from "./config/options.ts";
import type { Queryable } from "./db/database.ts";
import { processHolderId } from "./jobs/worker.ts";
import type { Logger } from "./log/logger.ts";

/** What a platform process does (PLATFORM_ROLE): `api` serves HTTP only, `worker` runs the background work, `all` both. */
export type PlatformRole = Config["role"];
export const PLATFORM_ROLES: readonly PlatformRole[] = ["all", "api", "worker"];

/** Heartbeat period; a few seconds, so `platform status` sees a dead process soon without loading the database. */
export const INSTANCE_HEARTBEAT_MS = 5_000;
/** A row not renewed for this long is a process that is gone (three missed heartbeats and some slack). */
export const INSTANCE_TTL_MS = 20_000;
/** Rows of dead processes are kept this long for operators, then pruned. */
const PRUNE_AFTER_MS = 86_400_000;

export interface InstanceRecord {
  id: string;
  role: PlatformRole;
  host: string;
  pid: number;
  started_at: Date;
  heartbeat_at: Date;
  /** Its heartbeat is younger than the TTL. */
  alive: boolean;
}

export interface RegisteredInstance {
  id: string;
  /** Stops the heartbeat and deletes the row. */
  stop(): Promise<void>;
}

export interface RegisterInstanceParameters {
  db: Queryable;
  role: PlatformRole;
  logger: Logger;
  heartbeatMs?: number;
}

export async function registerInstance({
  db,
  role,
  logger,
  heartbeatMs = INSTANCE_HEARTBEAT_MS,
}: RegisterInstanceParameters): Promise<RegisteredInstance> {
  const id = processHolderId();
  await db.query("DELETE FROM platform.instances WHERE heartbeat_at < now() - $1 * interval '1 millisecond'", [
    PRUNE_AFTER_MS,
  ]);
  await db.query("INSERT INTO platform.instances (id, role, host, pid) VALUES ($1, $2, $3, $4)", [
    id,
    role,
    hostname(),
    process.pid,
  ]);
  let beating: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    // Upsert: a row pruned or deleted by an operator while this process runs comes back at the next beat.
    beating = db
      .query(
        `INSERT INTO platform.instances (id, role, host, pid) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
        [id, role, hostname(), process.pid],
      )
      .catch((err: unknown) => logger.warn({ err }, "instance heartbeat failed"));
  }, heartbeatMs);
  // The heartbeat never keeps a process alive on its own.
  timer.unref();
  return {
    id,
    stop: async () => {
      clearInterval(timer);
      await beating;
      await db.query("DELETE FROM platform.instances WHERE id = $1", [id]);
    },
  };
}

/** Every registered instance, oldest first, with whether it is alive by `ttlMs`. */
export async function listInstances(db: Queryable, { ttlMs = INSTANCE_TTL_MS } = {}): Promise<InstanceRecord[]> {
  return db.query<InstanceRecord>(
    `SELECT id, role, host, pid, started_at, heartbeat_at,
            heartbeat_at >= now() - $1 * interval '1 millisecond' AS alive
       FROM platform.instances ORDER BY started_at, id`,
    [ttlMs],
  );
}
