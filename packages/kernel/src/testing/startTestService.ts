/**
 * Starts one service for an integration test: a fresh database (see `createTestDatabase`), every
 * migration applied, an API key for the service, the service created for that context, and its HTTP
 * server on an ephemeral port (each of its `hosts` too, in `urls`). Background jobs are the test's to start (`s.instance.startJobs()`) and to
 * stop before `close()`.
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
import { kernelMigrations } from "../kernelMigrations.ts";
import { createLogger } from "../log/logger.ts";
import type { ChainEndpoint, PlatformContext, ServiceDefinition, ServiceInstance } from "../service.ts";

export interface TestService<I extends ServiceInstance = ServiceInstance> {
  /** Origin of the main host, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Origin of every host by its name (`""` = the main host, then `ServiceDefinition.hosts`). */
  urls: Readonly<Record<string, string>>;
  apiKey: string;
  /** The main host's server. */
  app: HttpServer;
  context: PlatformContext;
  /** What `service.create(context)` returned, with the service's own type. */
  instance: I;
  database: TestDatabase;
  /** Closes the server, then the instance, then drops the database. */
  close(): Promise<void>;
}

export interface StartTestServiceParameters {
  config?: Partial<Config>;
  chains?: ChainEndpoint[];
  /** Plan of the test key, for services with plans. */
  plan?: string;
}

export async function startTestService<I extends ServiceInstance>(
  service: ServiceDefinition<I>,
  { config: overrides = {}, chains = [], plan }: StartTestServiceParameters = {},
): Promise<TestService<I>> {
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
  const instance = await service.create(context);
  const apps: HttpServer[] = [];
  const urls: Record<string, string> = {};
  for (const host of ["", ...(service.hosts ?? []).filter((h) => h.enabled?.(config) ?? true).map((h) => h.name)]) {
    const app = await instance.createServer(host || undefined);
    apps.push(app);
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    urls[host] = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  }
  return {
    url: urls[""] as string,
    urls,
    apiKey: key,
    app: apps[0] as HttpServer,
    context,
    instance,
    database,
    async close() {
      for (const app of apps) await closeGracefully(app, 1_000);
      await instance.close?.();
      await database.drop();
    },
  };
}
