/** The benchmark's databases: `bench_chainstats` on the local PostgreSQL server, or a PGlite folder in tmp. */
import { benchDatabase } from "../lib/benchDatabase.ts";

export type { Driver } from "../lib/benchDatabase.ts";

const bench = benchDatabase("chainstats");
export const PGLITE_DIR = bench.pgliteDir;

export const benchDatabaseUrl = (name = "bench_chainstats"): string => bench.url(name);

/** Creates the database (dropping it first when `fresh`); false when no PostgreSQL server answers. */
export const preparePostgres = (name = "bench_chainstats", fresh = false): Promise<boolean> =>
  bench.preparePostgres({ database: name, fresh });
