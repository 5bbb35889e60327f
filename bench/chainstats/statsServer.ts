/**
 * The chainstats API over a database holding 10 years of daily rollup rows for one chain (generated
 * directly: a long history would take hours to mine), in its own process. Prints READY {url, key}.
 */
import { chainstatsService } from "@platform/chainstats";
import { createDatabase, kernelMigrations, migrate } from "@platform/kernel";
import { serveServiceForBench } from "../lib/serveService.ts";
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
await serveServiceForBench(chainstatsService, db, {
  plan: "unlimited",
  chains: [{ chainId: QUERY_CHAIN, rpcUrl: "http://127.0.0.1:9" }],
});
