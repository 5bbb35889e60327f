/**
 * How the brokerage benchmarks prepare a database, once for every part: migrate it, then make the data with the
 * service's own code (a brokerage instance on the database, as `platform start` builds it), then refresh the
 * planner's statistics, so each run measures the same plans.
 */
import { type Brokerage, brokerageService } from "@platform/brokerage";
import {
  type Config,
  createApiKeyStore,
  createLogger,
  type Database,
  kernelMigrations,
  loadConfig,
  migrate,
} from "@platform/kernel";

/** What `work` makes the data with. */
export interface BrokerageSetup {
  db: Database;
  config: Config;
  services: Brokerage["services"];
}

/**
 * Opens the database with `open`, migrates it (kernel's and the brokerage's migrations), runs `work` with a
 * brokerage instance on it, closes the instance, runs `analyze` (e.g. `ANALYZE`) and closes the database.
 * Returns what `work` returned.
 */
export async function prepareWithBrokerage<T>(
  open: () => Promise<Database>,
  analyze: string,
  work: (setup: BrokerageSetup) => Promise<T>,
): Promise<T> {
  const db = await open();
  try {
    await migrate(db, [...kernelMigrations(), ...brokerageService.migrations]);
    const config = loadConfig({ env: { LOG_LEVEL: "warn" } });
    const instance = await brokerageService.create({
      config,
      db,
      logger: createLogger({ level: "warn" }),
      apiKeys: createApiKeyStore({ db }),
      chains: [],
    });
    const result = await work({ db, config, services: instance.services });
    await instance.close?.();
    await db.exec(analyze);
    return result;
  } finally {
    await db.close();
  }
}
