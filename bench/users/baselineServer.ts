/**
 * The baseline: a minimal Fastify route running the same SQL statements as the service, on the driver
 * directly (`pg` pool, or the PGlite client), no auth, no schemas. Prints READY {url}.
 */
import { PGlite } from "@electric-sql/pglite";
import { GET_USER_SQL, listUsersSql } from "@platform/wearables";
import Fastify from "fastify";
import pg from "pg";
import { benchDatabaseUrl, type Driver, PGLITE_DIR } from "./database.ts";

const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
let query: (text: string, values: unknown[]) => Promise<unknown[]>;
let close: () => Promise<void>;
if (driver === "postgres") {
  const pool = new pg.Pool({ connectionString: benchDatabaseUrl(), max: 10 });
  query = async (text, values) => (await pool.query(text, values)).rows;
  close = () => pool.end();
} else {
  const db = await PGlite.create(`${PGLITE_DIR}/pglite`);
  query = async (text, values) => (await db.query(text, values)).rows;
  close = () => db.close();
}

const app = Fastify();
app.get("/users", async (req) => {
  const limit = Number((req.query as { limit?: string }).limit ?? 20);
  const sql = listUsersSql({ offset: 0, limit, sortBy: "created_at", sortOrder: "desc" });
  const [items, count] = await Promise.all([
    query(sql.page.text, sql.page.values),
    query(sql.count.text, sql.count.values) as Promise<{ total: string }[]>,
  ]);
  return { items, total: Number(count[0]?.total) };
});
app.get("/users/:id", async (req) => (await query(GET_USER_SQL, [(req.params as { id: string }).id]))[0]);
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address() as { port: number };
process.stdout.write(`READY ${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
process.on("SIGTERM", async () => {
  await app.close();
  await close();
  process.exit(0);
});
