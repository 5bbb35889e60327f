/**
 * Child process of the exchange writer's kill test (exchangeWriter.kill.test.ts), run with
 * `node --import tsx`: the production exchange writer on the database given in EXCHANGE_CHILD_CONFIG, over
 * the default universe with the market always open. It loads its modules at once but opens the database
 * only when the test says go (`startKillTestChild`), so the test can load the next child while the
 * previous one runs (a PGlite folder has one user at a time).
 *
 * With `killAt`, the child SIGKILLs itself at that point of its database traffic, counted over every
 * statement (just before it is sent, and just after it answered) and every commit (just after it
 * returned): inside a command's or a tick's transaction, right before or right after its commit. It prints
 * `KILL <point> <what>` first. Without it (or if it runs out of work first), the test kills it by the clock.
 */
import { createLogger, type Database, type Queryable } from "@platform/kernel";
import { type KillTestDatabaseLocation, startKillTestChild } from "@platform/kernel/testing";
import { createDefaultAssetUniverse } from "../market/assetListings.ts";
import { createMarketService } from "../services/market.ts";
import { createExchangeWriter } from "./exchangeWriter.ts";

export interface ExchangeChildConfig extends KillTestDatabaseLocation {
  /** The point (1-based) of the database traffic at which the child SIGKILLs itself. */
  killAt?: number | undefined;
}

const { config, db: shared } = await startKillTestChild<ExchangeChildConfig>("EXCHANGE_CHILD_CONFIG");

let point = 0;
/** Counts one point of the traffic; at `killAt` the process dies here, without a chance to run anything else. */
function reach(what: string): void {
  point += 1;
  if (point !== config.killAt) return;
  // Writes to a pipe are synchronous on Linux: the line is out before the signal.
  process.stdout.write(`KILL ${point} ${what.replace(/\s+/g, " ").slice(0, 60)}\n`);
  process.kill(process.pid, "SIGKILL");
}

function counted(target: Queryable): Queryable {
  return {
    async query<R>(text: string, params?: readonly unknown[]) {
      reach(`before ${text}`);
      const rows = await target.query<R>(text, params);
      reach(`after ${text}`);
      return rows;
    },
    exec: (script) => target.exec(script),
    copyFrom: (statement, data) => target.copyFrom(statement, data),
  };
}

/** The database with every statement and commit counted (see `reach`). */
function countedDatabase(db: Database): Database {
  return {
    ...db,
    ...counted(db),
    driver: db.driver,
    async transaction(fn) {
      const result = await db.transaction((tx) => fn(counted(tx)));
      reach("after COMMIT");
      return result;
    },
    listen: (channel, onNotification) => db.listen(channel, onNotification),
    close: () => db.close(),
  };
}

const db = countedDatabase(shared);
const market = createMarketService({ universe: createDefaultAssetUniverse(), sessionMode: "always" });
const writer = createExchangeWriter({
  db,
  market,
  logger: createLogger({ level: process.env.EXCHANGE_TEST_LOG || "silent" }),
});
writer.start();
process.stdout.write("STARTED\n");
