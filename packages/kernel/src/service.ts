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
   * CROSSCHAIN_RELAYER_KEY is set, and its counterfactual signer (the CounterfactualBeacon's `signer`), which
   * authorises and sends deposits from counterfactual deposit addresses unless CROSSCHAIN_DEPOSIT_ADDRESS_KEY is
   * set, and its admin, which owns the HubPool and the spokes and is the settlement's trusted proposer unless
   * CROSSCHAIN_SETTLEMENT_KEY is set. Never in `config`, so they cannot pass for configured secrets.
   */
  devnet?: {
    relayerKey: `0x${string}`;
    depositAddressSignerKey?: `0x${string}`;
    settlementKey?: `0x${string}`;
  };
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
  /**
   * Further HTTP hosts of the service, each its own server on its own port (the brokerage serves its
   * authorization pages, its live API and its paper API on three origins, as the anchor does). The main host
   * is `port`/`basePath`; `createServer(host.name)` builds another.
   */
  hosts?: readonly ServiceHost[];
  /** Whether the platform's API keys authenticate this service (a demo key is made for it); default true. */
  usesApiKeys?: boolean;
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
  /**
   * Builds the HTTP server of the main host, or of the named one of `ServiceDefinition.hosts` (not listening
   * yet); what only the server uses is created and released with it.
   */
  createServer(host?: string): Promise<HttpServer>;
  /** Starts the service's background work (optional). */
  startJobs?(): Promise<BackgroundJob>;
  /** Releases what `create()` made, after the server and the jobs stopped (optional). */
  close?(): Promise<void>;
  /**
   * Creates the service's demo data once in the life of the database (e.g. a demo user and OAuth client) and
   * returns what to print on that first start; undefined when it exists already.
   */
  seedDemo?(): Promise<DemoCredentials | undefined>;
  /**
   * What operators run on the service (`platform <service> …`): named commands taking JSON arguments and
   * answering JSON. The running platform serves them on its admin socket (one owner per PGlite folder);
   * without a running platform the CLI creates the service and calls them itself. Each validates its input.
   */
  operatorCommands?: Readonly<Record<string, OperatorCommand>>;
}

/** One operator command: JSON in, JSON out; bad input is an `OperatorInputError`. */
export type OperatorCommand = (args: Record<string, unknown>) => Promise<unknown>;

/** An operator command's input was refused; its message is shown to the operator as it is. */
export class OperatorInputError extends Error {
  override name = "OperatorInputError" as const;
}
export type OperatorInputErrorType = OperatorInputError & { name: "OperatorInputError" };

/** Demo credentials to print on a first start: label → value (e.g. "password" → "…"). */
export interface DemoCredentials {
  title: string;
  lines: readonly (readonly [label: string, value: string])[];
}

/** Another HTTP host of a service (see `ServiceDefinition.hosts`). */
export interface ServiceHost {
  /** Passed to `createServer(name)`, e.g. `"auth"`, `"paper"`. */
  name: string;
  title: string;
  port(config: Config): number;
  basePath: string;
  /** Whether the configuration runs this host (default: always), e.g. the wearables sandbox vendor. */
  enabled?(config: Config): boolean;
}
