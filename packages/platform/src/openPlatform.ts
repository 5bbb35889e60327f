/**
 * What every command needs before it acts: the validated configuration, a logger, the database
 * (PGlite under DATA_DIR, or PostgreSQL by DATABASE_URL) with every migration applied, and the API key store.
 * An embedded database has one owner: its folder is locked before it is opened and until it is closed, so a
 * second process fails here with the holder's name instead of opening it beside the first.
 */
import { join } from "node:path";
import {
  type ApiKeyStore,
  type Config,
  createApiKeyStore,
  createConfiguredLogger,
  createDatabase,
  type Database,
  type FolderLock,
  kernelMigrations,
  type Logger,
  lockFolder,
  migrate,
} from "@platform/kernel";
import { commandName } from "./commandName.ts";
import { allServices } from "./services.ts";

export interface Platform {
  config: Config;
  logger: Logger;
  db: Database;
  apiKeys: ApiKeyStore;
  /** Migrations applied by this opening, as `service/id`. */
  applied: string[];
  /** Closes the database, then frees its folder. */
  close(): Promise<void>;
}

export interface OpenPlatformOptions {
  logger?: Logger;
  /** This process serves the admin socket (`platform start`): others reach the database through it. */
  servesAdmin?: boolean;
}

/** The folder of the embedded database, which has one owner (none with PostgreSQL). */
export function embeddedDatabaseFolder(config: Config): string | undefined {
  return config.databaseUrl || config.dataDir === "memory" ? undefined : join(config.dataDir, "pglite");
}

export async function openPlatform(config: Config, options: OpenPlatformOptions = {}): Promise<Platform> {
  const logger = options.logger ?? createConfiguredLogger(config);
  const folder = embeddedDatabaseFolder(config);
  const lock: FolderLock | undefined = folder
    ? await lockFolder(folder, { command: commandName(), servesAdmin: options.servesAdmin ?? false })
    : undefined;
  let db: Database | undefined;
  try {
    db = await createDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      pgliteSharedBuffers: config.pgliteSharedBuffers,
      logger,
    });
    const { applied } = await migrate(db, [...kernelMigrations(), ...allServices.flatMap((s) => s.migrations)]);
    if (applied.length) logger.info({ applied }, "migrations applied");
    const opened = db;
    return {
      config,
      logger,
      db,
      apiKeys: createApiKeyStore({ db, cacheTtlMs: config.apiKeyCacheTtlMs }),
      applied,
      close: async () => {
        try {
          await opened.close();
        } finally {
          await lock?.release();
        }
      },
    };
  } catch (error) {
    await db?.close();
    await lock?.release();
    throw error;
  }
}
