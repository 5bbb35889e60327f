/**
 * The benchmark database: a PostgreSQL database `bench_users` on the local server, or a PGlite folder
 * in the temp directory; migrated and seeded with N users once, then reused by later runs.
 */
import { kernelMigrations, migrate } from "@platform/kernel";
import { wearablesService } from "@platform/wearables";
import { benchDatabase, type Driver } from "../lib/benchDatabase.ts";

export type { Driver } from "../lib/benchDatabase.ts";

const bench = benchDatabase("users");
export const PGLITE_DIR = bench.pgliteDir;
export const benchDatabaseUrl = () => bench.url();
/** Creates `bench_users` if needed; false when no PostgreSQL server answers. */
export const postgresAvailable = () => bench.preparePostgres();
export const openBenchDatabase = bench.open;

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
