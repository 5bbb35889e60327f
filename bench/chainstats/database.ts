/** The benchmark's databases: `bench_chainstats` on the local PostgreSQL server, or a PGlite folder in tmp. */
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export type Driver = "pglite" | "postgres";
export const PGLITE_DIR = join(tmpdir(), "platform-bench-chainstats");
const SERVER_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export function benchDatabaseUrl(name = "bench_chainstats"): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates the database (dropping it first when `fresh`); false when no PostgreSQL server answers. */
export async function preparePostgres(name = "bench_chainstats", fresh = false): Promise<boolean> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  try {
    await client.connect();
    if (fresh) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const { rows } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rows.length === 0) await client.query(`CREATE DATABASE ${name}`);
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
