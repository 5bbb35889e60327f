/**
 * The baselines of `GET /v2/account`: a minimal Fastify route on the benchmark database that reads the bearer
 * token's live account row by the token's SHA-256 in one statement, on the driver directly (`pg` pool, or the
 * PGlite client): no schemas, no scope check, no account object. `BENCH_BASELINE_SQL` chooses the statement:
 * - `service` (the goal's baseline): the service's own statement (`ACCOUNT_FOR_TOKEN_SQL`, which also checks
 *   that the token's client is not revoked), as every benchmark here runs the service's SQL;
 * - `minimal`: the least SQL that finds the row (token and account only), to show what the rules cost.
 * Prints READY {url}.
 */
import { createHash } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { ACCOUNT_FOR_TOKEN_SQL } from "@platform/brokerage";
import Fastify from "fastify";
import pg from "pg";
import { benchDatabaseUrl, type Driver, PGLITE_DIR } from "./database.ts";

const MINIMAL_SQL = `
  SELECT a.* FROM brokerage.access_tokens t JOIN brokerage.accounts a ON a.id = t.live_account_id
  WHERE t.token_hash = $1 AND t.revoked_at IS NULL`;
const sql = process.env.BENCH_BASELINE_SQL === "minimal" ? MINIMAL_SQL : ACCOUNT_FOR_TOKEN_SQL.live;

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
app.get("/v2/account", async (req, reply) => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
  const [account] = await query(sql, [createHash("sha256").update(token).digest()]);
  return account ?? reply.code(401).send({ code: 40110000, message: "request is not authorized" });
});
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address() as { port: number };
process.stdout.write(`READY ${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
process.on("SIGTERM", async () => {
  await app.close();
  await close();
  process.exit(0);
});
