/**
 * The benchmark database: a PostgreSQL database `bench_users` on the local server, or a PGlite folder
 * in the temp directory; migrated and seeded with N users once, then reused by later runs.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, type Database, kernelMigrations, migrate } from "@platform/kernel";
import { wearablesService } from "@platform/wearables";
import pg from "pg";

export type Driver = "pglite" | "postgres";
export const PGLITE_DIR = join(tmpdir(), "platform-bench-users");
const SERVER_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export function benchDatabaseUrl(): string {
  const url = new URL(SERVER_URL);
  url.pathname = "/bench_users";
  return url.toString();
}

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  try {
    await client.connect();
    const { rows } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'bench_users'");
    if (rows.length === 0) await client.query("CREATE DATABASE bench_users");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function openBenchDatabase(driver: Driver): Promise<Database> {
  return driver === "postgres"
    ? createDatabase({ url: benchDatabaseUrl(), dataDir: PGLITE_DIR })
    : createDatabase({ dataDir: PGLITE_DIR });
}

/** Migrates and seeds `count` users (idempotent); returns the id of one user in the middle. */
export async function prepareBenchDatabase(driver: Driver, count: number): Promise<string> {
  const db = await openBenchDatabase(driver);
  try {
    await migrate(db, [...kernelMigrations(), ...wearablesService.migrations]);
    const [{ n } = { n: "0" }] = await db.query<{ n: string }>("SELECT count(*) AS n FROM wearables.users");
    if (Number(n) < count) {
      await db.query(
        `INSERT INTO wearables.users (first_name, last_name, email, external_user_id, created_at)
         SELECT 'First' || i, 'Last' || i, 'user' || i || '@bench.test', 'ext-' || i,
                now() - make_interval(secs => i)
         FROM generate_series($1::int + 1, $2::int) AS i`,
        [Number(n), count],
      );
      await db.exec("ANALYZE wearables.users");
    }
    const [row] = await db.query<{ id: string }>(
      "SELECT id FROM wearables.users ORDER BY created_at OFFSET $1 LIMIT 1",
      [Math.floor(count / 2)],
    );
    return row?.id as string;
  } finally {
    await db.close();
  }
}
