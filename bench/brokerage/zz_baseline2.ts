/**
 * The baseline of `GET /v2/account`: a minimal Fastify route on the benchmark database that reads the bearer
 * token's account row by the token's SHA-256 in one statement, on the driver directly (`pg` pool, or the
 * PGlite client): no schemas, no scope check, no account object. Prints READY {url}.
 */
import { createHash } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import Fastify from "fastify";
import pg from "pg";
import { benchDatabaseUrl, type Driver, PGLITE_DIR } from "./database.ts";

const ACCOUNT_BY_TOKEN_SQL = process.env.SQL3 ? `SELECT a.id, a.user_id, a.env, a.account_number, a.status, a.currency, a.cash, a.created_at, t.scope AS token_scope FROM brokerage.access_tokens t JOIN brokerage.oauth_clients c ON c.client_id = t.client_id JOIN brokerage.accounts a ON a.id = t.live_account_id WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND c.revoked_at IS NULL AND a.env = 'live'` : `
  SELECT a.* FROM brokerage.access_tokens t JOIN brokerage.accounts a ON a.id = t.live_account_id
  WHERE t.token_hash = $1 AND t.revoked_at IS NULL`;

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
  const [account] = await query(ACCOUNT_BY_TOKEN_SQL, [createHash("sha256").update(token).digest()]);
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
