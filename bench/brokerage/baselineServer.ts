/**
 * The baselines of `GET /v2/account`: a minimal Fastify route on the benchmark database that reads the bearer
 * token's live account row by the token's SHA-256, then the account's valuation inputs (balance, holds,
 * positions: the service's `VALUATION_INPUTS_SQL`), on the driver directly (`pg` pool, or the PGlite client):
 * no schemas, no scope check, no rate limit, no account object. `BENCH_BASELINE_SQL` chooses the lookup:
 * - `service` (the goal's baseline): the service's own statement (`ACCOUNT_FOR_TOKEN_SQL`, which also checks
 *   that the token's client is not revoked), as every benchmark here runs the service's SQL;
 * - `minimal`: the least SQL that finds the row (token and account only), to show what the rules cost.
 * Prints READY {url}.
 */
import { createHash } from "node:crypto";
import { ACCOUNT_FOR_TOKEN_SQL, VALUATION_INPUTS_SQL } from "@platform/brokerage";
import Fastify from "fastify";
import { openBaselineDriver, serveBaseline } from "../lib/baselineServer.ts";
import { benchDatabaseUrl, PGLITE_DIR } from "./database.ts";

const MINIMAL_SQL = `
  SELECT a.* FROM brokerage.access_tokens t JOIN brokerage.accounts a ON a.id = t.live_account_id
  WHERE t.token_hash = $1 AND t.revoked_at IS NULL`;
const sql = process.env.BENCH_BASELINE_SQL === "minimal" ? MINIMAL_SQL : ACCOUNT_FOR_TOKEN_SQL.live;

const driver = await openBaselineDriver(benchDatabaseUrl(), PGLITE_DIR);

const app = Fastify();
app.get("/v2/account", async (req, reply) => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
  const [account] = (await driver.query(sql, [createHash("sha256").update(token).digest()])) as { id: string }[];
  if (!account) return reply.code(401).send({ code: 40110000, message: "request is not authorized" });
  const [valuation] = (await driver.query(VALUATION_INPUTS_SQL, [account.id])) as object[];
  return { ...account, ...valuation };
});
await serveBaseline(app, driver);
