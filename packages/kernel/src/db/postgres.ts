import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFromStdin } from "pg-copy-streams";
import type { CreateDatabaseParameters, Database, Queryable, QueryOptions } from "./database.ts";
import { createPostgresNotifications } from "./postgresNotifications.ts";
import { typeParsers } from "./typeParsers.ts";

const pgTypes = {
  getTypeParser: ((oid: number, format?: string) => {
    const parse = typeParsers[oid];
    if (parse && format !== "binary") return parse;
    return pg.types.getTypeParser(oid, format as "text");
  }) as typeof pg.types.getTypeParser,
};

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<R>(text: string, params: readonly unknown[] = [], options: QueryOptions = {}) {
      const result = await client.query({ name: options.name, text, values: params as unknown[], types: pgTypes });
      return result.rows as R[];
    },
    async exec(script: string) {
      await client.query(script);
    },
    async copyFrom(statement: string, data: string | Uint8Array) {
      // A pool hands COPY one client of its own; a transaction's client is used as is.
      const c = client instanceof pg.Pool ? await client.connect() : client;
      try {
        // A plain Uint8Array (e.g. bytes moved from a module thread) is viewed as a Buffer, not copied.
        const chunk =
          typeof data === "string" || Buffer.isBuffer(data)
            ? data
            : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
        await pipeline(Readable.from([chunk]), c.query(copyFromStdin(statement)));
      } finally {
        if (c !== client) (c as pg.PoolClient).release();
      }
    },
  };
}

/** PostgreSQL through a `pg` pool. */
export async function createPostgresDatabase(url: string, parameters: CreateDatabaseParameters): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: parameters.maxConnections ?? 10 });
  pool.on("error", (error) => parameters.logger?.warn({ err: error }, "idle PostgreSQL client failed"));
  // Fail at start-up, with the driver's own message, when the server cannot be reached.
  const probe = await pool.connect();
  probe.release();
  const notifications = createPostgresNotifications(url, parameters.logger);
  return {
    driver: "postgres",
    ...wrap(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn(wrap(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    listen: notifications.listen,
    async close() {
      await notifications.close();
      await pool.end();
    },
  };
}
