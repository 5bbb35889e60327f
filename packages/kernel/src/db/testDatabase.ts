/**
 * A fresh database for one test file: an in-memory PGlite by default, or, when `TEST_DATABASE_URL`
 * is set, a new PostgreSQL database created on that server and dropped by `drop()`.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createDatabase, type Database } from "./database.ts";

export interface TestDatabase {
  db: Database;
  /** The URL of the created PostgreSQL database, for code under test that opens its own pool. */
  url: string | undefined;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const db = await createDatabase({ dataDir: "memory" });
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
