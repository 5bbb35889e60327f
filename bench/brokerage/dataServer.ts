/**
 * The brokerage's data host (`createServer("data")`: the market data REST API and the data streams) in its own
 * process on the trading benchmarks' database, as `platform start` serves host "data". Prints READY {url, pid}.
 * - The rate limit is raised to 1,000,000 a minute (the anchor's 200 would refuse the bars load), still counted.
 * - The jobs (the recorder, the exchange writer) stay off unless `BENCH_DATA_JOBS=on`: the recorder writes the
 *   whole market's trades and quotes into the same feed every second, which the baseline does not have to
 *   send (with it on, `BROKERAGE_DATA_BACKFILL_DAYS=0` keeps it from recording a day of history first).
 * - On SIGUSR2 (PGlite only: the database belongs to this process) it runs the injector of `dataInjector.ts`
 *   with the plan in `BENCH_DATA_PLAN_FILE` and prints `INJECTED {report}`.
 */
import { brokerageService } from "@platform/brokerage";
import { createApiKeyStore, createLogger, loadConfig } from "@platform/kernel";
import type { Driver } from "../lib/benchDatabase.ts";
import { injectOnSignal } from "./dataFeedMessages.ts";
import { injectFeed } from "./dataInjector.ts";
import { openTradingDatabase } from "./tradingDatabase.ts";

const driver = (process.env.BENCH_DRIVER ?? "pglite") as Driver;
const db = await openTradingDatabase(driver);
const env = { BROKERAGE_RATE_LIMIT: "1000000", BROKERAGE_DATA_BACKFILL_DAYS: "0" };
const config = loadConfig({ env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "warn", ...env } });
const logger = createLogger({ level: config.logLevel });
const instance = await brokerageService.create({ config, db, logger, apiKeys: createApiKeyStore({ db }), chains: [] });
const app = await instance.createServer("data");
await app.listen({ host: "127.0.0.1", port: 0 });
const jobs = process.env.BENCH_DATA_JOBS === "on" ? await instance.startJobs?.() : undefined;
if (driver === "pglite") injectOnSignal((plan) => injectFeed(db, plan));
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
