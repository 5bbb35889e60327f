/**
 * The crosschain transfer service (Across API compatible) on the chains that know their SpokePool:
 * `indexer/` follows SpokePool events into PostgreSQL, `relayer/` fills pending deposits, `http/` serves
 * deposit status, deposits, routes, chains and suggested fees.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import {
  type BackgroundJob,
  createHttpServer,
  loadMigrations,
  type PlatformContext,
  type ServiceDefinition,
  toJobStatus,
} from "@platform/kernel";
import { spokeChains } from "./deployments.ts";
import { bearerSecurityScheme, createBearerAuth } from "./http/bearerAuth.ts";
import { registerDepositRoutes } from "./http/deposits.ts";
import { formatError } from "./http/errorFormat.ts";
import { startSpokePoolIndexers } from "./indexer/spokePoolIndexer.ts";
import { createFillCostEstimator } from "./quotes/fillCost.ts";
import { quoteServicesFor, registerQuoteRoutes, startQuoteJobs } from "./quotes/index.ts"; // quotes
import { type Relayer, startRelayer } from "./relayer/index.ts";
import { createDepositsRepository } from "./store/depositsRepository.ts";

export { DEPOSIT_BY_ID_SQL } from "./store/depositsRepository.ts";

export const BASE_PATH = "/api";

async function createServer(context: PlatformContext) {
  const { config, db, logger, apiKeys } = context;
  const app = await createHttpServer({
    logger: logger.child({ service: "crosschain" }),
    bodyLimit: config.bodyLimit,
    formatError,
    openapi: {
      title: "Crosschain Transfer API",
      version: "1.0.0",
      description:
        "Quotes, deposit tracking and relaying across EVM chains; compatible with the Across API and SpokePool contracts.",
      securitySchemes: bearerSecurityScheme,
      security: [{ bearerAuth: [] }],
    },
  });
  const requireBearer = createBearerAuth(apiKeys);
  const deposits = createDepositsRepository(db);
  await app.register(
    async (api) => {
      api.addHook("onRequest", requireBearer);
      const typed = api.withTypeProvider<TypeBoxTypeProvider>();
      registerDepositRoutes(typed, { deposits });
      // --- quotes (begin): /suggested-fees, /available-routes, /chains. The quote services (routes, chain-state
      // cache) are per context (quotes/quoteServices.ts WeakMap), shared with startJobs, which runs the refresh loop.
      registerQuoteRoutes(typed, quoteServicesFor(context));
      // --- quotes (end)
    },
    { prefix: BASE_PATH },
  );
  return app;
}

export interface CrosschainJobs extends BackgroundJob {
  /** Undefined when the relayer is disabled or has no key. */
  relayer: Relayer | undefined;
}

/**
 * The background work of the service: the quote chain-state cache (also the relayer's fill costs), the
 * SpokePool indexers (with the integrator-id pass) unless `indexers: false`, and the relayer when
 * `CROSSCHAIN_RELAYER` is on and it has a key. `platform start` runs it all; `platform relayer` runs the
 * relayer role on its own (optionally leaving indexing to other instances).
 */
export function startCrosschainJobs(context: PlatformContext, o: { indexers?: boolean } = {}): CrosschainJobs {
  const { config, db, logger } = context;
  const chains = spokeChains(context.chains);
  // New deposits wake the relayer at once instead of at its next poll.
  let wakeRelayer = () => {};
  const indexers =
    o.indexers === false ? undefined : startSpokePoolIndexers({ ...context, chains, onStored: () => wakeRelayer() });
  const quotes = startQuoteJobs(context); // keeps the chain-state cache warm
  const services = quoteServicesFor(context);
  const relayer =
    config.crosschainRelayer && config.crosschainRelayerKey
      ? startRelayer({
          db,
          chains,
          privateKey: config.crosschainRelayerKey as `0x${string}`,
          logger,
          pollMs: config.crosschainPollMs,
          marginBps: config.crosschainRelayerMarginBps,
          isRouteEnabled: (route) => services.routes.isRouteEnabled(route),
          estimateFillCost: createFillCostEstimator(services.cache, chains),
          tuning: { leaseTtlSec: config.crosschainRelayerLeaseSec },
        })
      : undefined;
  if (relayer) wakeRelayer = () => relayer.wake();
  if (config.crosschainRelayer && !config.crosschainRelayerKey) {
    logger.warn("crosschain relayer not started: set CROSSCHAIN_RELAYER_KEY (the devnet provides one)");
  }
  return {
    relayer,
    status: () => {
      const state = services.cache.snapshot();
      return toJobStatus({
        indexers: indexers?.indexers.map((i) => i.status) ?? [],
        relayer: relayer?.status ?? null,
        chainState: [...state.chains.values()].map((c) => ({
          chainId: c.chainId,
          blockNumber: c.blockNumber,
          ageMs: Date.now() - c.updatedAt,
          error: state.errors.get(c.chainId) ?? null,
        })),
      });
    },
    async stop() {
      await relayer?.stop();
      await indexers?.stop();
      await quotes.stop();
    },
  };
}

async function startJobs(context: PlatformContext): Promise<BackgroundJob> {
  return startCrosschainJobs(context);
}

export const crosschainService: ServiceDefinition = {
  name: "crosschain",
  title: "Crosschain transfer API",
  migrations: loadMigrations("crosschain", new URL("../migrations", import.meta.url).pathname),
  port: (config) => config.crosschainPort,
  basePath: BASE_PATH,
  createServer,
  startJobs,
};
