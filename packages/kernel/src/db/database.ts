/**
 * One small interface over both drivers: PGlite (embedded, default) and PostgreSQL (`pg`, when a URL is
 * given). Both return identical row types (see `typeParsers.ts`), so the same SQL and code run on either.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";

/** How a statement is run. */
export interface QueryOptions {
  /**
   * Prepares the statement once per connection under this name and executes it by name afterwards (PostgreSQL:
   * no parse or plan per call, for the hot statements). One name, one text. PGlite, in process, ignores it.
   */
  name?: string;
}

export interface Queryable {
  /** Runs one parameterised statement and returns its rows. */
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Bulk load: runs `statement` (`COPY table (columns) FROM STDIN`, text format) with `data` as its
   * input (see `copyText.ts`). On PGlite the input is passed as the query's blob.
   */
  copyFrom(statement: string, data: string | Uint8Array): Promise<void>;
}

export interface Database extends Queryable {
  readonly driver: "pglite" | "postgres";
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotification` with the payload of every `NOTIFY channel` (or `pg_notify(channel, …)`) committed
   * from now on, in commit order; resolves once the channel is listened to and gives back the function that
   * stops. A notification sent while PostgreSQL's listening connection is down is lost (it is re-established
   * with a backoff), so readers of a table also poll now and then.
   */
  listen(channel: string, onNotification: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface CreateDatabaseParameters {
  /** PostgreSQL URL; when absent, PGlite is used. */
  url?: string | undefined;
  /** Folder for PGlite data (`<dataDir>/pglite`); `"memory"` keeps it in memory. */
  dataDir: string;
  /** Pool size for PostgreSQL. */
  maxConnections?: number;
  /** PGlite's `shared_buffers` (PGLITE_SHARED_BUFFERS), e.g. `32MB`; default `DEFAULT_PGLITE_SHARED_BUFFERS`. */
  pgliteSharedBuffers?: string | undefined;
  logger?: Logger;
}

/**
 * @example
 * const db = await createDatabase({ dataDir: "./data" });            // PGlite
 * const db = await createDatabase({ url: process.env.DATABASE_URL, dataDir: "./data" }); // PostgreSQL
 */
export async function createDatabase(parameters: CreateDatabaseParameters): Promise<Database> {
  if (parameters.url) {
    const { createPostgresDatabase } = await import("./postgres.ts");
    return createPostgresDatabase(parameters.url, parameters);
  }
  const { createPgliteDatabase } = await import("./pglite.ts");
  const dir = parameters.dataDir === "memory" ? undefined : join(parameters.dataDir, "pglite");
  if (dir) mkdirSync(dir, { recursive: true });
  return createPgliteDatabase(dir, { sharedBuffers: parameters.pgliteSharedBuffers });
}
