/**
 * The chainstats API over a database holding 10 years of daily rollup rows for one chain (generated
 * directly: a long history would take hours to mine), in its own process. Prints READY {url, key}.
 */
import { chainstatsService } from "@platform/chainstats";
import {
  createApiKeyStore,
  createDatabase,
  createLogger,
  kernelMigrations,
  loadConfig,
  migrate,
} from "@platform/kernel";
import { benchDatabaseUrl, type Driver, PGLITE_DIR } from "./database.ts";

export const QUERY_CHAIN = 424_242;
const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
const db =
  driver === "postgres"
    ? await createDatabase({ url: benchDatabaseUrl(), dataDir: PGLITE_DIR })
    : await createDatabase({ dataDir: PGLITE_DIR });
await migrate(db, [...kernelMigrations(), ...chainstatsService.migrations]);
await db.query(
  `INSERT INTO chainstats.daily (chain_id, day, utc_date, unix_ts, block_count, gas_limit_sum, gas_used_sum, size_sum, tx_count, block_time_sum, block_time_count)
   SELECT $1, d::date, to_char(d, 'YYYY-MM-DD'), extract(epoch from d)::bigint, 7200, 7200::numeric * (30000000 + i % 1000), 7200::numeric * 15000000, 7200 * 60000, 7200 * 150, 86400, 7200
   FROM generate_series('2016-01-01'::date, '2025-12-31'::date, interval '1 day') WITH ORDINALITY AS g(d, i)
   ON CONFLICT DO NOTHING`,
  [QUERY_CHAIN],
);
const config = loadConfig({ env: { LOG_LEVEL: "warn" } });
const logger = createLogger({ level: "warn" });
const apiKeys = createApiKeyStore({ db, cacheTtlMs: config.apiKeyCacheTtlMs });
const { key } = await apiKeys.create({ service: "chainstats", name: "bench", plan: "unlimited" });
const app = await chainstatsService.createServer({
  config,
  db,
  logger,
  apiKeys,
  chains: [{ chainId: QUERY_CHAIN, rpcUrl: "http://127.0.0.1:9" }],
});
await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(
  `READY ${JSON.stringify({ url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, key })}\n`,
);
process.on("SIGTERM", async () => {
  await app.close();
  await db.close();
  process.exit(0);
});
