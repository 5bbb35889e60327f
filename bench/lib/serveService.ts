/**
 * The common end of every benchmark server script: a service's real HTTP server over `db` with an API
 * key of its own, on an ephemeral port; prints `READY {url, key}` and closes cleanly on SIGTERM.
 */
import {
  type ChainEndpoint,
  createApiKeyStore,
  createLogger,
  type Database,
  loadConfig,
  type ServiceDefinition,
} from "@platform/kernel";

export async function serveServiceForBench(
  service: ServiceDefinition,
  db: Database,
  o: { chains?: ChainEndpoint[]; plan?: string; env?: Record<string, string> } = {},
): Promise<void> {
  const config = loadConfig({ env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "warn", ...o.env } });
  const logger = createLogger({ level: config.logLevel });
  const apiKeys = createApiKeyStore({ db, cacheTtlMs: config.apiKeyCacheTtlMs });
  const { key } = await apiKeys.create({ service: service.name, name: "bench", plan: o.plan ?? null });
  const instance = await service.create({ config, db, logger, apiKeys, chains: o.chains ?? [] });
  const app = await instance.createServer();
  await app.listen({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  process.stdout.write(`READY ${JSON.stringify({ url, key })}\n`);
  process.on("SIGTERM", async () => {
    await app.close();
    await instance.close?.();
    await db.close();
    process.exit(0);
  });
}
