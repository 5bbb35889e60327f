import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { PGlite, types } from "@electric-sql/pglite";
import type { Database, Queryable } from "./database.ts";
import { typeParsers } from "./typeParsers.ts";

const parsers = Object.fromEntries(
  Object.entries(typeParsers).map(([oid, parse]) => [Number(oid), (value: string) => parse(value)]),
);

function wrap(target: Pick<PGlite, "query" | "exec">): Queryable {
  return {
    async query<R>(text: string, params: readonly unknown[] = []) {
      const result = await target.query<R>(text, params as unknown[]);
      return result.rows;
    },
    async exec(script: string) {
      await target.exec(script);
    },
    async copyFrom(statement: string, data: string | Uint8Array) {
      // PGlite reads COPY input from the virtual file /dev/blob, filled from the query's blob option.
      const fromBlob = statement.replace(/\bFROM\s+STDIN\b/i, "FROM '/dev/blob'");
      await target.query(fromBlob, [], { blob: new Blob([data as string | Uint8Array<ArrayBuffer>]) });
    },
  };
}

/**
 * PostgreSQL's `shared_buffers` on the embedded database when not configured (PGLITE_SHARED_BUFFERS): PGlite's
 * initdb sets 128MB, all of it resident from the start (its WebAssembly memory is zeroed as it is mapped);
 * 32MB keeps the embedded database's idle RSS about 100 MB lower, and the folder's pages stay in the OS's cache.
 */
export const DEFAULT_PGLITE_SHARED_BUFFERS = "32MB";

/** The server parameters every embedded database starts with. */
export const pgliteStartParams = (sharedBuffers = DEFAULT_PGLITE_SHARED_BUFFERS) => [
  ...PGlite.defaultStartParams,
  "-c",
  `shared_buffers=${sharedBuffers}`,
];

const execFileAsync = promisify(execFile);
const INITDB = fileURLToPath(new URL("./pgliteInitdb.mjs", import.meta.url));

/**
 * Embedded PostgreSQL (PGlite): one process owns `dir`; `undefined` = in memory. A folder without a database
 * is created first by a child process (`pgliteInitdb.mjs`), so the initdb's peak (over 700 MB RSS) does not
 * stay resident in this one.
 */
export async function createPgliteDatabase(
  dir: string | undefined,
  {
    sharedBuffers = DEFAULT_PGLITE_SHARED_BUFFERS,
    loadDataDir,
  }: {
    sharedBuffers?: string;
    /** An in-memory database starts from this dump (`dumpDataDir`) instead of running initdb. */
    loadDataDir?: Blob;
  } = {},
): Promise<Database> {
  const startParams = pgliteStartParams(sharedBuffers);
  if (dir && !existsSync(join(dir, "PG_VERSION"))) {
    await execFileAsync(process.execPath, [INITDB, dir, JSON.stringify(startParams)], { maxBuffer: 1 << 24 });
  }
  const pg = await PGlite.create(dir ?? "memory://", {
    startParams,
    ...(loadDataDir && !dir ? { loadDataDir } : {}),
    parsers,
    serializers: {
      // PGlite's default writes Buffers as text; send bytea as the \x hex form PostgreSQL reads.
      [types.BYTEA]: (v: unknown) => (v instanceof Uint8Array ? `\\x${Buffer.from(v).toString("hex")}` : String(v)),
    },
  });
  return {
    driver: "pglite",
    ...wrap(pg),
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    // A callback of its own per call, so two listeners of one channel stop independently.
    listen: async (channel, onNotification) => {
      const unlisten = await pg.listen(channel, (payload) => onNotification(payload));
      return () => unlisten();
    },
    close: () => pg.close(),
  };
}
