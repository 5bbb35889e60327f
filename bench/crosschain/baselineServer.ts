/** Baseline: a minimal Fastify route running the same deposit-status SQL with `pg` directly. */
import { DEPOSIT_BY_ID_SQL } from "@platform/crosschain";
import Fastify from "fastify";
import pg from "pg";
import { benchDatabaseUrl } from "../chainstats/database.ts";

const pool = new pg.Pool({ connectionString: benchDatabaseUrl("bench_crosschain"), max: 10 });
const app = Fastify();
app.get("/deposit/status", async (req) => {
  const q = req.query as { originChainId: string; depositId: string };
  return (await pool.query(DEPOSIT_BY_ID_SQL, [Number(q.originChainId), q.depositId])).rows[0];
});
await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(
  `READY ${JSON.stringify({ url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` })}\n`,
);
process.on("SIGTERM", () => process.exit(0));
