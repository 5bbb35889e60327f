/**
 * A fresh database for one test file: an in-memory PGlite by default, or, when `TEST_DATABASE_URL`
 * is set, a new PostgreSQL database created on that server and dropped by `drop()`.
 *
 * An in-memory PGlite runs initdb on creation, seconds of CPU each time (about 3 s here, 7 s on a busy
 * machine); a test suite creates hundreds. So the first one made on a machine is dumped (a bare initdb'ed
 * cluster, nothing of ours in it) to the temporary folder, keyed by PGlite's version and start parameters, and
 * every later one loads that dump (about 0.5 s): the same fresh cluster.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { createDatabase, type Database } from "./database.ts";
import { createPgliteDatabase, pgliteStartParams } from "./pglite.ts";

let template: Promise<Blob> | undefined;

/** PGlite's package version: a dump loads only into the version that wrote it. */
function pgliteVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve("@electric-sql/pglite")));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
}

async function pgliteTemplate(): Promise<Blob> {
  const startParams = pgliteStartParams();
  const key = createHash("sha256")
    .update(JSON.stringify([pgliteVersion(), startParams]))
    .digest("hex")
    .slice(0, 16);
  const file = join(tmpdir(), `platform-pglite-template-${key}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const fresh = await PGlite.create({ startParams });
  const dump = await fresh.dumpDataDir("none");
  await fresh.close();
  // Written aside and renamed: a process reading the file never sees half of it.
  const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, file);
  return dump;
}

export interface TestDatabase {
  db: Database;
  /** The URL of the created PostgreSQL database, for code under test that opens its own pool. */
  url: string | undefined;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    template ??= pgliteTemplate();
    const db = await createPgliteDatabase(undefined, { loadDataDir: await template });
    return { db, url: undefined, drop: () => db.close() };
  }
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await createDatabase({ url: url.toString(), dataDir: "memory", maxConnections: 5 });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
