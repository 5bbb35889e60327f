/**
 * Chain statistics (Etherscan API V2 `module=stats` compatible): a block indexer per chain with daily
 * rollups (`jobs/`), and `GET /v2/api` + `GET /v2/chainlist` over them (`http/`).
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { createBlockFetcher, createIndexerLease, type WriteFence } from "@platform/chains";
import {
  type BackgroundJob,
  type ChainEndpoint,
  type Config,
  createFailedCredentials,
  createHttpServer,
  createRateCounter,
  failureLimitOf,
  type HttpServer,
  loadMigrations,
  type PlatformContext,
  type ServiceDefinition,
  type ServiceInstance,
  toJobStatus,
} from "@platform/kernel";
import { PLAN_NAMES } from "./domain/plans.ts";
import { registerChainList } from "./http/chainlist.ts";
import { errorEnvelope, formatError } from "./http/envelope.ts";
import { openapiTags } from "./http/openapiTags.ts";
import { registerStatsApi } from "./http/statsApi.ts";
import { type ChainIndexer, createChainIndexer } from "./jobs/blockIndexer.ts";
import { type BlocksRepository, createBlocksRepository } from "./store/blocksRepository.ts";

export { PLAN_NAMES, PLANS } from "./domain/plans.ts";
export { type ChainIndexer, type ChainIndexerStatus, createChainIndexer } from "./jobs/blockIndexer.ts";
export { createBlocksRepository, dailyRecordsSql } from "./store/blocksRepository.ts";

/** The chains to index: CHAINSTATS_CHAINS when set, else every chain with an RPC endpoint. */
export function indexedChains(config: Config, chains: ChainEndpoint[]): ChainEndpoint[] {
  const wanted = config.chainstatsChains;
  return wanted ? chains.filter((c) => wanted.includes(c.chainId)) : chains;
}

/** The chainstats service built for one platform context. */
export interface Chainstats extends ServiceInstance {
  /** One block indexer per indexed chain, until `stop()`. */
  startJobs(): Promise<BackgroundJob>;
}

/**
 * The chainstats service for one platform context: the server and the indexers share one blocks repository.
 * The rate counter is the server's alone, so it is made and closed with the server.
 */
export async function createChainstats(context: PlatformContext): Promise<Chainstats> {
  const repository = createBlocksRepository(context.db);
  return {
    createServer: () => createServer(context, repository),
    startJobs: async () => startIndexers(context, repository),
  };
}

async function createServer(
  { config, logger, apiKeys, chains }: PlatformContext,
  repository: BlocksRepository,
): Promise<HttpServer> {
  const app = await createHttpServer({
    logger: logger.child({ service: "chainstats" }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    formatError,
    openapi: {
      title: "Chain Statistics API",
      version: "2.0.0",
      description:
        "Daily statistics of EVM chains from our own block indexer; compatible with Etherscan API V2 `module=stats`.",
      tags: openapiTags,
      securitySchemes: { apikey: { type: "apiKey", in: "query", name: "apikey" } },
      security: [{ apikey: [] }],
      errors: errorEnvelope,
    },
  });
  const rateCounter = createRateCounter(config.redisUrl);
  app.addHook("onClose", () => rateCounter.close());
  const chainIds = () => indexedChains(config, chains).map((c) => c.chainId);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const failedCredentials = createFailedCredentials({
    counter: rateCounter,
    service: "chainstats",
    limit: failureLimitOf(config),
  });
  registerStatsApi(api, { apiKeys, rateCounter, failedCredentials, repository, chainIds });
  registerChainList(api, { repository, chainIds });
  return app;
}

/** The kernel lease a chain's block indexer runs under: one instance indexes a chain at a time. */
export const indexerLeaseName = (chainId: number) => `chainstats.indexer:${chainId}`;

type IndexerContext = Pick<PlatformContext, "config" | "db" | "logger" | "chains">;

function createIndexer(
  { config, logger }: IndexerContext,
  repository: BlocksRepository,
  chain: ChainEndpoint,
  fence?: WriteFence,
): ChainIndexer {
  return createChainIndexer({
    chainId: chain.chainId,
    fetcher: createBlockFetcher({
      rpcUrl: chain.rpcUrl,
      batchSize: config.chainstatsBatchSize,
      concurrency: config.chainstatsConcurrency,
    }),
    repository,
    startBlock: BigInt(config.chainstatsStartBlock),
    finalityDepth: config.chainstatsFinalityDepth,
    pollMs: config.chainstatsPollMs,
    windowSize: config.chainstatsWindowSize,
    logger,
    fence,
  });
}

/** One indexer per chain, each restartable from its checkpoint, with no lease (`platform chainstats backfill`). */
export function createIndexers(
  context: IndexerContext,
  repository: BlocksRepository = createBlocksRepository(context.db),
) {
  return indexedChains(context.config, context.chains).map((chain) => createIndexer(context, repository, chain));
}

/**
 * Runs every chain's indexer until `stop()`, which waits for each to finish its current window. Each runs
 * under the lease `chainstats.indexer:<chainId>` (chains' createIndexerLease): with several worker instances
 * on one database one of them indexes a chain, the others stand by, and the holder's windows are fenced.
 */
function startIndexers(context: IndexerContext, repository: BlocksRepository): BackgroundJob {
  const running = indexedChains(context.config, context.chains).map((chain) => {
    const lease = createIndexerLease({
      db: context.db,
      logger: context.logger.child({ chainId: chain.chainId, job: "chainstats-indexer" }),
      name: indexerLeaseName(chain.chainId),
    });
    const indexer = createIndexer(context, repository, chain, lease.fence);
    return { indexer, runner: lease.run((signal) => indexer.run(signal)) };
  });
  return {
    status: () =>
      toJobStatus({
        indexers: running.map(({ indexer, runner }) =>
          runner.holding() ? indexer.status : { ...indexer.status, state: "standby" },
        ),
      }),
    async stop() {
      await Promise.all(running.map(({ runner }) => runner.stop()));
    },
  };
}

export const chainstatsService: ServiceDefinition<Chainstats> = {
  name: "chainstats",
  title: "Chain statistics API",
  migrations: loadMigrations("chainstats", new URL("../migrations", import.meta.url).pathname),
  port: (config) => config.chainstatsPort,
  basePath: "/v2/api",
  create: createChainstats,
  plans: PLAN_NAMES,
  demoKeyPlan: "standard",
};
