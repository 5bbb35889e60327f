/**
 * The `dataFanout` injector in a process of its own (PostgreSQL: the benchmark's clients and the server keep
 * their event loops): runs the plan of `BENCH_DATA_PLAN_FILE` against the trading benchmarks' database and
 * prints its report as the last line.
 */
import { planFromFile } from "./dataFeedMessages.ts";
import { injectFeed } from "./dataInjector.ts";
import { openTradingDatabase } from "./tradingDatabase.ts";

const db = await openTradingDatabase("postgres");
const report = await injectFeed(db, planFromFile());
await db.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
