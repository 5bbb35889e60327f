/** The real wearables service on the benchmark database, in its own process. Prints READY {url, key}. */
import { createApiKeyStore, createLogger, loadConfig } from "@platform/kernel";
import { wearablesService } from "@platform/wearables";
import { type Driver, openBenchDatabase } from "./database.ts";

const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
const db = await openBenchDatabase(driver);
const config = loadConfig({ env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" } });
const logger = createLogger({ level: config.logLevel });
const apiKeys = createApiKeyStore({ db, cacheTtlMs: config.apiKeyCacheTtlMs });
const { key } = await apiKeys.create({ service: "wearables", name: "bench" });
const app = await wearablesService.createServer({ config, db, logger, apiKeys, chains: [] });
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address() as { port: number };
process.stdout.write(`READY ${JSON.stringify({ url: `http://127.0.0.1:${address.port}`, key })}\n`);
process.on("SIGTERM", async () => {
  await app.close();
  await db.close();
  process.exit(0);
});
