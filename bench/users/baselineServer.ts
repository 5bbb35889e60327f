/**
 * The baseline: a minimal Fastify route running the same SQL statements as the service, on the driver
 * directly (`pg` pool, or the PGlite client), no auth, no schemas. Prints READY {url}.
 */
import { GET_USER_SQL, listUsersSql } from "@platform/wearables";
import Fastify from "fastify";
import { openBaselineDriver, serveBaseline } from "../lib/baselineServer.ts";
import { benchDatabaseUrl, PGLITE_DIR } from "./database.ts";

const driver = await openBaselineDriver(benchDatabaseUrl(), PGLITE_DIR);

const app = Fastify();
app.get("/users", async (req) => {
  const limit = Number((req.query as { limit?: string }).limit ?? 20);
  const sql = listUsersSql({ offset: 0, limit, sortBy: "created_at", sortOrder: "desc" });
  const [items, count] = await Promise.all([
    driver.query(sql.page.text, sql.page.values),
    driver.query(sql.count.text, sql.count.values) as Promise<{ total: string }[]>,
  ]);
  return { items, total: Number(count[0]?.total) };
});
app.get("/users/:id", async (req) => (await driver.query(GET_USER_SQL, [(req.params as { id: string }).id]))[0]);
await serveBaseline(app, driver);
