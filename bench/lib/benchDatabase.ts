/**
 * Where a benchmark keeps its data: a database `bench_<name>` on the local PostgreSQL server
 * (`BENCH_POSTGRES_URL`'s server, default the CI one), or a PGlite folder in the temp directory.
 *
 * @example
 * const bench = benchDatabase("users");
 * if (await bench.preparePostgres()) db = await bench.open("postgres");
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, type Database } from "@platform/kernel";
import pg from "pg";

export type Driver = "pglite" | "postgres";

const SERVER_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface BenchDatabase {
  /** The PGlite folder of this benchmark. */
  pgliteDir: string;
  /** URL of `bench_<name>` (or of another database on the same server). */
  url(database?: string): string;
  /** Creates the database (dropping it first when `fresh`); false when no PostgreSQL server answers. */
  preparePostgres(options?: { database?: string; fresh?: boolean }): Promise<boolean>;
  open(driver: Driver): Promise<Database>;
}

export function benchDatabase(name: string): BenchDatabase {
  const pgliteDir = join(tmpdir(), `platform-bench-${name}`);
  const url = (database = `bench_${name}`) => {
    const u = new URL(SERVER_URL);
    u.pathname = `/${database}`;
    return u.toString();
  };
  return {
    pgliteDir,
    url,
    async preparePostgres({ database = `bench_${name}`, fresh = false } = {}) {
      const client = new pg.Client({ connectionString: SERVER_URL });
      try {
        await client.connect();
        if (fresh) await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        const { rows } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
        if (rows.length === 0) await client.query(`CREATE DATABASE ${database}`);
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => {});
      }
    },
    open: (driver) =>
      driver === "postgres"
        ? createDatabase({ url: url(), dataDir: pgliteDir })
        : createDatabase({ dataDir: pgliteDir }),
  };
}
