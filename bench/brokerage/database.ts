/**
 * The brokerage benchmark's database: `bench_brokerage` on the local PostgreSQL server, or a PGlite folder in
 * the temp directory. Each run migrates it and adds what it measures with the service's own code: a user
 * with a live and a paper account, a client, one bearer token, and the codes the token endpoint exchanges.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brokerageService } from "@platform/brokerage";
import {
  createApiKeyStore,
  createDatabase,
  createLogger,
  type Database,
  kernelMigrations,
  loadConfig,
  migrate,
} from "@platform/kernel";
import pg from "pg";

export type Driver = "pglite" | "postgres";
export const PGLITE_DIR = join(tmpdir(), "platform-bench-brokerage");
const SERVER_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const REDIRECT_URI = "http://127.0.0.1:8765/callback";

export function benchDatabaseUrl(): string {
  const url = new URL(SERVER_URL);
  url.pathname = "/bench_brokerage";
  return url.toString();
}

/** Creates `bench_brokerage` if needed; false when no PostgreSQL server answers. */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  try {
    await client.connect();
    const { rows } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'bench_brokerage'");
    if (rows.length === 0) await client.query("CREATE DATABASE bench_brokerage");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function openBenchDatabase(driver: Driver): Promise<Database> {
  return driver === "postgres"
    ? createDatabase({ url: benchDatabaseUrl(), dataDir: PGLITE_DIR })
    : createDatabase({ dataDir: PGLITE_DIR });
}

export interface BenchData {
  /** A bearer token of a live and a paper account. */
  accessToken: string;
  clientId: string;
  clientSecret: string;
  /** Unused codes of that client, user and redirect URI, one per token request. */
  codes: string[];
}

/** Migrates, then creates this run's user, client, token and `codeCount` codes through the service. */
export async function prepareBenchData(driver: Driver, codeCount: number): Promise<BenchData> {
  const db = await openBenchDatabase(driver);
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
    const { users, clients, codes, tokens } = instance.services;
    const user = await users.create({
      email: `bench-${Date.now()}@example.com`,
      password: "bench password",
      paperAccounts: 1,
      startingCash: config.brokerageStartingCash,
    });
    const client = await clients.create({ name: "Bench app", redirectUris: [REDIRECT_URI] });
    const live = user.accounts.find((a) => a.env === "live");
    const paper = user.accounts.find((a) => a.env === "paper");
    const issue = () =>
      codes.issue({
        clientId: client.client_id,
        userId: user.id,
        redirectUri: REDIRECT_URI,
        scopes: ["trading", "data"],
        liveAccountId: live?.id,
        paperAccountId: paper?.id,
      });
    const { access_token } = await tokens.exchangeCode({
      code: await issue(),
      clientId: client.client_id,
      redirectUri: REDIRECT_URI,
    });
    const issued: string[] = [];
    // Batches of concurrent inserts: PostgreSQL takes them in parallel, PGlite one after the other.
    while (issued.length < codeCount) {
      const batch = Math.min(100, codeCount - issued.length);
      issued.push(...(await Promise.all(Array.from({ length: batch }, issue))));
    }
    await instance.close?.();
    await db.exec("ANALYZE brokerage.access_tokens; ANALYZE brokerage.authorization_codes; ANALYZE brokerage.accounts");
    return { accessToken: access_token, clientId: client.client_id, clientSecret: client.client_secret, codes: issued };
  } finally {
    await db.close();
  }
}
