export {
  type ApiKeyRecord,
  type ApiKeyStore,
  type CreatedApiKey,
  createApiKeyStore,
  parseApiKey,
} from "./auth/apiKeys.ts";
export { describeConfig, type LoadConfigParameters, loadConfig } from "./config/loadConfig.ts";
export { type Config, type ConfigKey, options } from "./config/options.ts";
export { ConfigError } from "./config/parsers.ts";
export { type CopyLines, copyHexField, createCopyLines } from "./db/copyText.ts";
export { createDatabase, type Database, type Queryable } from "./db/database.ts";
export { loadMigrations, type Migration, migrate } from "./db/migrate.ts";
export { createTestDatabase, type TestDatabase } from "./db/testDatabase.ts";
export { closeGracefully, createHttpServer, type ErrorFormatter, type HttpServer } from "./http/createHttpServer.ts";
export { HttpError, toHttpError } from "./http/httpError.ts";
export { redactUrls, toJobStatus } from "./jobStatus.ts";
export {
  createMemoryRateCounter,
  createRateCounter,
  createRedisRateCounter,
  type RateCounter,
} from "./limits/rateCounter.ts";
export { createLogger, type Logger, redactUrl } from "./log/logger.ts";
export type { BackgroundJob, ChainEndpoint, JobStatus, PlatformContext, ServiceDefinition } from "./service.ts";

import { loadMigrations } from "./db/migrate.ts";

/** The platform schema's own migrations (API keys), applied before any service's. */
export const kernelMigrations = () => loadMigrations("platform", new URL("../migrations", import.meta.url).pathname);
export { startTestService, type TestService } from "./testing/startTestService.ts";
export {
  type ModuleThread,
  movableBytes,
  serveRequests,
  startModuleThread,
  type ThreadAnswer,
  ThreadError,
} from "./threads/moduleThread.ts";
