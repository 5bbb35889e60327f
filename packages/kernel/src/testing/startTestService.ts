/**
 * Starts one service for an integration test: a fresh database (see `createTestDatabase`), every
 * migration applied, an API key for the service, and its HTTP server on an ephemeral port.
 *
 * @example
 * const s = await startTestService(wearablesService);
 * await fetch(`${s.url}/api/v1/users`, { headers: { "X-Service-API-Key": s.apiKey } });
 * await s.close();
 */
import { createApiKeyStore } from "../auth/apiKeys.ts";
import { loadConfig } from "../config/loadConfig.ts";
import type { Config } from "../config/options.ts";
import { migrate } from "../db/migrate.ts";
import { createTestDatabase, type TestDatabase } from "../db/testDatabase.ts";
import { closeGracefully, type HttpServer } from "../http/createHttpServer.ts";
import { kernelMigrations } from "../index.ts";
import { createLogger } from "../log/logger.ts";
import type { ChainEndpoint, PlatformContext, ServiceDefinition } from "../service.ts";

export interface TestService {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  url: string;
  apiKey: string;
  app: HttpServer;
  context: PlatformContext;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface StartTestServiceParameters {
  config?: Partial<Config>;
  chains?: ChainEndpoint[];
  /** Plan of the test key, for services with plans. */
  plan?: string;
}

export async function startTestService(
  service: ServiceDefinition,
  { config: overrides = {}, chains = [], plan }: StartTestServiceParameters = {},
): Promise<TestService> {
  const database = await createTestDatabase();
  await migrate(database.db, [...kernelMigrations(), ...service.migrations]);
  const config = loadConfig({ env: {}, overrides: { logLevel: "silent", apiKeyCacheTtlMs: 0, ...overrides } });
  const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? config.logLevel });
  const apiKeys = createApiKeyStore({ db: database.db, cacheTtlMs: config.apiKeyCacheTtlMs });
  const { key } = await apiKeys.create({
    service: service.name,
    name: "test",
    plan: plan ?? service.plans?.[0] ?? null,
  });
  const context: PlatformContext = { config, db: database.db, logger, apiKeys, chains };
  const app = await service.createServer(context);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey: key,
    app,
    context,
    database,
    async close() {
      await closeGracefully(app, 1_000);
      await database.drop();
    },
  };
}
