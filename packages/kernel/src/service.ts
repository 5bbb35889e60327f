/**
 * What a service package gives the platform: its migrations, and a factory that builds the service for one
 * platform context. `platform start` creates every enabled service this way, then asks the instance for its
 * HTTP server and its background jobs; tests do the same on port 0.
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
  /**
   * Present only when the platform runs on the devnet (DEVNET on, its manifest in use): the devnet's
   * relayer account, a publicly known development key, which the crosschain relayer fills with unless
   * CROSSCHAIN_RELAYER_KEY is set. Never in `config`, so it cannot pass for a configured secret.
   */
  devnet?: { relayerKey: `0x${string}` };
}

/** A background role of a service (an indexer, a relayer); stopped before the database closes. */
export interface BackgroundJob {
  stop(): Promise<void>;
  /** What it is doing, for operators (`platform status`): JSON-safe, secrets removed (see `toJobStatus`). */
  status?(): JobStatus;
}

/** A JSON-safe snapshot of a background job. */
export type JobStatus = Record<string, unknown>;

/**
 * A service package's entry point. `create` builds everything the service's server and jobs share (caches,
 * repositories, thread pools) once per platform context, so no state lives at module level.
 */
export interface ServiceDefinition<I extends ServiceInstance = ServiceInstance> {
  /** Also the Postgres schema it owns and the `--service` name of its API keys. */
  name: string;
  title: string;
  migrations: Migration[];
  /** The port it listens on, from the configuration. */
  port(config: Config): number;
  /** Path of the API under the server's origin, e.g. `/api/v1`. */
  basePath: string;
  /** Plans an API key of this service can carry (`platform keys create --plan`); first = default. */
  plans?: readonly string[];
  /** Plan of the demo key created on first start. */
  demoKeyPlan?: string;
  /** Builds the service for one platform context: what its server and its jobs share is created here, once. */
  create(context: PlatformContext): Promise<I>;
}

/**
 * One service built for one platform context (see {@link ServiceDefinition.create}). Its owner stops the jobs
 * and closes the server first, then calls `close()`.
 */
export interface ServiceInstance {
  /** Builds the HTTP server (not listening yet); what only the server uses is created and released with it. */
  createServer(): Promise<HttpServer>;
  /** Starts the service's background work (optional). */
  startJobs?(): Promise<BackgroundJob>;
  /** Releases what `create()` made, after the server and the jobs stopped (optional). */
  close?(): Promise<void>;
}
