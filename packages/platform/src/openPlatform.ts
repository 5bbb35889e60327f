/**
 * What every command needs before it acts: the validated configuration, a logger, the database
 * (PGlite under DATA_DIR, or PostgreSQL by DATABASE_URL) with every migration applied, and the API key store.
 */
import {
  type ApiKeyStore,
  type Config,
  createApiKeyStore,
  createDatabase,
  createLogger,
  type Database,
  kernelMigrations,
  type Logger,
  migrate,
} from "@platform/kernel";
import { allServices } from "./services.ts";

export interface Platform {
  config: Config;
  logger: Logger;
  db: Database;
  apiKeys: ApiKeyStore;
  /** Migrations applied by this opening, as `service/id`. */
  applied: string[];
}

export async function openPlatform(
  config: Config,
  logger = createLogger({ level: config.logLevel }),
): Promise<Platform> {
  const db = await createDatabase({ url: config.databaseUrl, dataDir: config.dataDir, logger });
  try {
    const { applied } = await migrate(db, [...kernelMigrations(), ...allServices.flatMap((s) => s.migrations)]);
    if (applied.length) logger.info({ applied }, "migrations applied");
    return { config, logger, db, apiKeys: createApiKeyStore({ db, cacheTtlMs: config.apiKeyCacheTtlMs }), applied };
  } catch (error) {
    await db.close();
    throw error;
  }
}
