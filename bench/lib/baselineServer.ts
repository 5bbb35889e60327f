/**
 * The skeleton every baseline server script shares: the benchmark database opened on the driver directly (a
 * `pg` pool, or the PGlite client: no kernel `Database`, no service code between the route and the driver),
 * and the end of the script: listen on an ephemeral port, print `READY {url, …}`, close cleanly on SIGTERM.
 *
 * @example
 * const driver = openBaselineDriver(bench.url(), bench.pgliteDir);
 * const app = Fastify();
 * app.get("/x", async () => (await driver.query("SELECT 1", []))[0]);
 * await serveBaseline(app, driver);
 */
import { PGlite } from "@electric-sql/pglite";
import type { Queryable } from "@platform/kernel";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import type { Driver } from "./benchDatabase.ts";

/** A statement on the driver; resolves to its rows. */
export type BaselineQuery = (text: string, values?: readonly unknown[]) => Promise<unknown[]>;

export interface BaselineDriver {
  query: BaselineQuery;
  /** Runs `work` in one transaction (BEGIN … COMMIT, ROLLBACK when it throws), on one connection. */
  transaction(work: (tx: Queryable) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** A query function as the `Queryable` a repository takes (repositories call only `query`). */
export const asQueryable = (query: BaselineQuery) => ({ query }) as unknown as Queryable;

/**
 * Opens the benchmark database for a baseline: on `BENCH_DRIVER` (default `pglite`), a pool of 10 connections
 * to `postgresUrl`, or the PGlite folder `<pgliteDir>/pglite` (where the kernel's `createDatabase` keeps it).
 */
export async function openBaselineDriver(postgresUrl: string, pgliteDir: string): Promise<BaselineDriver> {
  const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
  if (driver === "postgres") {
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 10 });
    return {
      query: async (text, values) => (await pool.query(text, values as unknown[])).rows,
      async transaction(work) {
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          await work(asQueryable(async (text, values) => (await client.query(text, values as unknown[])).rows));
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  }
  const db = await PGlite.create(`${pgliteDir}/pglite`);
  return {
    query: async (text, values) => (await db.query(text, values as unknown[])).rows,
    transaction: (work) =>
      db.transaction((tx) =>
        work(asQueryable(async (text, values) => (await tx.query(text, values as unknown[])).rows)),
      ),
    close: () => db.close(),
  };
}

/**
 * Listens on 127.0.0.1 at an ephemeral port and prints `READY {url, ...info}` for `startServerScript`; on
 * SIGTERM closes the server, then the driver, and exits.
 */
export async function serveBaseline(
  app: FastifyInstance,
  driver: Pick<BaselineDriver, "close">,
  info: Record<string, string> = {},
): Promise<void> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address() as { port: number };
  process.stdout.write(`READY ${JSON.stringify({ url: `http://127.0.0.1:${address.port}`, ...info })}\n`);
  process.on("SIGTERM", async () => {
    await app.close();
    await driver.close();
    process.exit(0);
  });
}
