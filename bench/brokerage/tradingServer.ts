/**
 * The brokerage's live host with its jobs (the exchange writer, the equity snapshots) in one process, as
 * `platform start` runs them, on the trading benchmarks' database. Prints READY {url, pid}.
 * - `BENCH_WRITER=off` leaves the jobs out (for information: what placement costs without the writer beside it);
 * - the rate limit is raised to 1,000,000 a minute (the anchor's 200 would refuse the load); every request is
 *   still counted against it;
 * - the market is open at every hour (`BROKERAGE_MARKET_SESSION=always`), so market orders fill at once;
 * - the market recorder's one-time history backfill is off (`BROKERAGE_DATA_BACKFILL_DAYS=0`; `BENCH_BACKFILL_DAYS`
 *   sets it): on each run's fresh database it would record a day of bars during the loads, half a core for minutes
 *   after a first start, which is not what a placement costs in steady state.
 */
import { brokerageService } from "@platform/brokerage";
import { createApiKeyStore, createLogger, loadConfig } from "@platform/kernel";
import type { Driver } from "../lib/benchDatabase.ts";
import { openTradingDatabase } from "./tradingDatabase.ts";

const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
const db = await openTradingDatabase(driver);
const config = loadConfig({
  env: {
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    BROKERAGE_RATE_LIMIT: "1000000",
    BROKERAGE_MARKET_SESSION: "always",
    BROKERAGE_DATA_BACKFILL_DAYS: process.env.BENCH_BACKFILL_DAYS ?? "0",
  },
});
const logger = createLogger({ level: config.logLevel });
const instance = await brokerageService.create({
  config,
  db,
  logger,
  apiKeys: createApiKeyStore({ db }),
  chains: [],
});
const app = await instance.createServer("live");
await app.listen({ host: "127.0.0.1", port: 0 });
const jobs = process.env.BENCH_WRITER === "off" ? undefined : await instance.startJobs?.();
const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
// The pid of this process (tsx runs it in a child of the one the benchmark spawned): its RSS is the server's.
process.stdout.write(`READY ${JSON.stringify({ url, pid: String(process.pid) })}\n`);
process.on("SIGTERM", async () => {
  await app.close();
  await jobs?.stop();
  await instance.close?.();
  await db.close();
  process.exit(0);
});
