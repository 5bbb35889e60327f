/** Baseline: a minimal Fastify route running the same statistics SQL on the driver directly. */
import { PGlite } from "@electric-sql/pglite";
import { dailyRecordsSql } from "@platform/chainstats";
import Fastify from "fastify";
import pg from "pg";
import { benchDatabaseUrl, type Driver, PGLITE_DIR } from "./database.ts";

const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
let query: (text: string, values: unknown[]) => Promise<unknown[]>;
if (driver === "postgres") {
  const pool = new pg.Pool({ connectionString: benchDatabaseUrl(), max: 10 });
  query = async (text, values) => (await pool.query(text, values)).rows;
} else {
  const db = await PGlite.create(`${PGLITE_DIR}/pglite`);
  query = async (text, values) => (await db.query(text, values)).rows;
}
const app = Fastify();
const sql = dailyRecordsSql("dailyavggaslimit", "asc");
app.get("/v2/api", async (req) => {
  const q = req.query as { chainid: string; startdate: string; enddate: string };
  const [row] = (await query(sql, [Number(q.chainid), q.startdate, q.enddate])) as { json: string }[];
  return { status: "1", message: "OK", result: row?.json };
});
await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(
  `READY ${JSON.stringify({ url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` })}\n`,
);
process.on("SIGTERM", () => process.exit(0));
