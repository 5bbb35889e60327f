/**
 * The `dataFanout` part's writer into the service: each tick's messages appended to `brokerage.market_feed`
 * in one transaction with the recorder's own statement (`appendFeed`: the rows, then `pg_notify` of the
 * largest seq), as the recorder and the exchange ledger write them. On PGlite it runs inside the server
 * process (`dataServer.ts`: the database has one owner); on PostgreSQL in a process of its own
 * (`dataInjectorScript.ts`).
 */
import type { Database } from "@platform/kernel";
import { createMarketDataRepository } from "../../packages/brokerage/src/store/marketDataRepository.ts";
import { type InjectionPlan, type InjectionReport, runTicks } from "./dataFeedMessages.ts";

/** Appends the plan's ticks to the feed on schedule, one transaction a tick. */
export function injectFeed(db: Database, plan: InjectionPlan): Promise<InjectionReport> {
  const feed = createMarketDataRepository();
  return runTicks(plan, (messages) => db.transaction((tx) => feed.appendFeed(tx, messages)));
}
