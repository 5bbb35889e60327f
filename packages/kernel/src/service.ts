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

/** An EVM chain a service reads, and where its JSON-RPC answers (http(s) or ws(s)). */
export interface ChainEndpoint {
  chainId: number;
  rpcUrl: string;
  /** Named contract addresses on this chain (spokePool, multicallHandler, uniswapV2Router02, …), when known. */
  contracts?: Record<string, string>;
  /** Tokens known on this chain. */
  tokens?: { symbol: string; address: string; decimals: number }[];
  wrappedNativeToken?: string;
}

export interface PlatformContext {
  config: Config;
  db: Database;
  logger: Logger;
  apiKeys: ApiKeyStore;
  /** Chains available to services: the devnet's, plus any configured with CHAIN_RPC_URLS. */
  chains: ChainEndpoint[];
}

/** A background role of a service (an indexer, a relayer); stopped before the database closes. */
export interface BackgroundJob {
  stop(): Promise<void>;
  /** What it is doing, for operators (`platform status`): JSON-safe, secrets removed (see `toJobStatus`). */
  status?(): JobStatus;
}

/** A JSON-safe snapshot of a background job. */
export type JobStatus = Record<string, unknown>;

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
  /** Starts the service's background work (optional). */
  startJobs?(context: PlatformContext): Promise<BackgroundJob>;
  /** Plans an API key of this service can carry (`platform keys create --plan`); first = default. */
  plans?: readonly string[];
  /** Plan of the demo key created on first start. */
  demoKeyPlan?: string;
}
