/**
 * What a service package gives the platform: its migrations and how to build its HTTP server from the
 * shared context. `platform start` builds every enabled service this way; tests do the same on port 0.
 */
import type { ApiKeyStore } from "./auth/apiKeys.ts";
import type { Config } from "./config/options.ts";
import type { Database } from "./db/database.ts";
import type { Migration } from "./db/migrate.ts";
import type { HttpServer } from "./http/createHttpServer.ts";
import type { Logger } from "./log/logger.ts";

export interface PlatformContext {
  config: Config;
  db: Database;
  logger: Logger;
  apiKeys: ApiKeyStore;
}

export interface ServiceDefinition {
  /** Also the Postgres schema it owns and the `--service` name of its API keys. */
  name: string;
  title: string;
  migrations: Migration[];
  /** The port it listens on, from the configuration. */
  port(config: Config): number;
  /** Path of the API under the server's origin, e.g. `/api/v1`. */
  basePath: string;
  createServer(context: PlatformContext): Promise<HttpServer>;
}
