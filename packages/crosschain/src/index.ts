/**
 * The crosschain transfer service (Across API compatible) on the chains that know their SpokePool:
 * `indexer/` follows SpokePool events into PostgreSQL, `relayer/` fills pending deposits, `quotes/` keeps the
 * chain state quotes need warm, and `http/` serves deposit status, deposits, routes, chains and suggested fees
 * (route → `services/` → `store/` or `quotes/`).
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import {
  type BackgroundJob,
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
import { privateKeyToAccount } from "viem/accounts";
import { depositAddressKeyOf } from "./depositAddresses/signerKey.ts";
import { type DepositAddressWatcher, startDepositAddressWatcher } from "./depositAddresses/watcher.ts";
import { registerAvailableRoutesRoute } from "./http/availableRoutes.ts";
import { bearerSecurityScheme, createBearerAuth } from "./http/bearerAuth.ts";
import { registerChainsRoute } from "./http/chains.ts";
import { registerDepositStatusStreamRoute } from "./http/depositStatusStream.ts";
import { registerDepositRoutes } from "./http/deposits.ts";
import { formatError } from "./http/errorFormat.ts";
import { registerLimitsRoute } from "./http/limits.ts";
import { openapiTags } from "./http/openapiTags.ts";
import { acrossRequestBodies } from "./http/requestBodies.ts";
import { ServiceApiError } from "./http/schemas.ts";
import { registerSettlementRoutes } from "./http/settlement.ts";
import { registerSuggestedFeesRoute } from "./http/suggestedFees.ts";
import { registerSwapApprovalRoutes } from "./http/swapApproval.ts";
import { registerSwapChainsRoute } from "./http/swapChains.ts";
import { registerSwapCounterfactualRoute } from "./http/swapCounterfactual.ts";
import { registerSwapSourcesRoute } from "./http/swapSources.ts";
import { registerSwapTokensRoute } from "./http/swapTokens.ts";
import { startSpokePoolIndexers } from "./indexer/spokePoolIndexer.ts";
import { type ChainClients, createChainClients } from "./quotes/chainClients.ts";
import { createFillCostEstimator } from "./quotes/fillCost.ts";
import { createQuoteContext, type QuoteContext, startQuoteRefresh } from "./quotes/quoteContext.ts";
import { type Relayer, startRelayer } from "./relayer/index.ts";
import { relayerKeyOf } from "./relayer/relayerKey.ts";
import { createDepositAddressService, type DepositAddressService } from "./services/depositAddresses.ts";
import { createDepositsService, type DepositsService } from "./services/deposits.ts";
import { startExpirySweep } from "./services/expirySweep.ts";
import { createSettlementService, type SettlementService } from "./services/settlement.ts";
import { createSuggestedFeesService, type SuggestedFeesService } from "./services/suggestedFees.ts";
import { createSwapApprovalService, type SwapApprovalService } from "./services/swapApproval.ts";
import { type Dataworker, startDataworker } from "./settlement/dataworker.ts";
import { settlementKeyOf } from "./settlement/settlementKey.ts";
import { createBundlesRepository } from "./store/bundlesRepository.ts";
import { createDepositAddressesRepository } from "./store/depositAddressesRepository.ts";
import { createDepositsRepository } from "./store/depositsRepository.ts";

export { DEPOSIT_BY_ID_SQL } from "./store/depositsRepository.ts";

export const BASE_PATH = "/api";

/** The crosschain service built for one platform context. */
export interface Crosschain extends ServiceInstance {
  /** Routes, chain-state cache and quote settings: shared by the quote endpoints, the refresh loop and the relayer. */
  quotes: QuoteContext;
  createServer(): Promise<HttpServer>;
  /** The background work; see {@link CrosschainJobsOptions}. */
  startJobs(options?: CrosschainJobsOptions): Promise<CrosschainJobs>;
  /** Stops what the quote context still refreshes; after the server and the jobs stopped. */
  close(): Promise<void>;
}

/**
 * The crosschain service for one platform context. The quote context (the chain-state cache) is made here,
 * once, and handed to the quote routes, the refresh loop and the relayer; `close()` releases it.
 */
export async function createCrosschain(context: PlatformContext): Promise<Crosschain> {
  const quotes = createQuoteContext(context);
  // An endpoint without contract addresses (CHAIN_RPC_URLS names only a URL) cannot be served: say so once.
  const served = new Set(quotes.chains.map((c) => c.chainId));
  for (const { chainId } of context.chains.filter((c) => !served.has(c.chainId))) {
    context.logger.warn({ service: "crosschain", chainId }, "crosschain leaves out a chain with no SpokePool address");
  }
  const suggestedFees = createSuggestedFeesService(quotes);
  const clientOf = createChainClients();
  const swaps = createSwapApprovalService(quotes, suggestedFees, clientOf);
  const signerKey = depositAddressKeyOf(context);
  const services: CrosschainServices = {
    deposits: createDepositsService(createDepositsRepository(context.db)),
    settlement: createSettlementService(createBundlesRepository(context.db)),
    suggestedFees,
    swaps,
    depositAddresses: createDepositAddressService({
      quotes,
      swaps,
      repository: createDepositAddressesRepository(context.db),
      signer: signerKey ? privateKeyToAccount(signerKey).address : undefined,
      maxFeeBps: context.config.crosschainDepositAddressMaxFeeBps,
      clientOf,
    }),
  };
  return {
    quotes,
    createServer: () => createServer(context, quotes, services),
    startJobs: async (options) => startCrosschainJobs(context, quotes, services, clientOf, options),
    close: () => quotes.close(),
  };
}

/** What the routes call. */
interface CrosschainServices {
  deposits: DepositsService;
  settlement: SettlementService;
  suggestedFees: SuggestedFeesService;
  swaps: SwapApprovalService;
  depositAddresses: DepositAddressService;
}

async function createServer(
  { config, logger, apiKeys, db }: PlatformContext,
  quotes: QuoteContext,
  services: CrosschainServices,
): Promise<HttpServer> {
  const app = await createHttpServer({
    logger: logger.child({ service: "crosschain" }),
    bodyLimit: config.bodyLimit,
    bodies: acrossRequestBodies,
    trustProxy: config.trustProxy,
    formatError,
    openapi: {
      title: "Crosschain Transfer API",
      version: "1.0.0",
      description:
        "Quotes, deposit tracking and relaying across EVM chains; compatible with the Across API and SpokePool contracts.",
      securitySchemes: bearerSecurityScheme,
      security: [{ bearerAuth: [] }],
      tags: openapiTags,
      errors: { name: "ServiceApiError", schema: ServiceApiError },
    },
  });
  const authFailures = createRateCounter(config.redisUrl);
  app.addHook("onClose", () => authFailures.close());
  // Quotes read the chain-state cache: an api-only instance (no startJobs) keeps it fresh itself.
  const refresh = startQuoteRefresh(quotes);
  app.addHook("onClose", () => refresh.stop());
  const requireBearer = createBearerAuth(
    apiKeys,
    createFailedCredentials({ counter: authFailures, service: "crosschain", limit: failureLimitOf(config) }),
  );
  await app.register(
    async (api) => {
      api.addHook("onRequest", requireBearer);
      const typed = api.withTypeProvider<TypeBoxTypeProvider>();
      registerDepositRoutes(typed, services.deposits);
      registerDepositStatusStreamRoute(typed, { db, logger: logger.child({ service: "crosschain" }) });
      registerSuggestedFeesRoute(typed, services.suggestedFees);
      registerLimitsRoute(typed, services.suggestedFees);
      registerSwapApprovalRoutes(typed, services.swaps);
      registerSwapSourcesRoute(typed, quotes);
      registerSwapChainsRoute(typed, quotes);
      registerSwapTokensRoute(typed, quotes);
      registerSwapCounterfactualRoute(typed, services.depositAddresses);
      registerAvailableRoutesRoute(typed, quotes);
      registerChainsRoute(typed, quotes);
      registerSettlementRoutes(typed, services.settlement);
    },
    { prefix: BASE_PATH },
  );
  return app;
}

export interface CrosschainJobs extends BackgroundJob {
  /** Undefined when the relayer is disabled or has no key. */
  relayer: Relayer | undefined;
  /** Undefined without a deposit-address signer key (or with `indexers: false`, a relayer-only role). */
  depositAddressWatcher: DepositAddressWatcher | undefined;
  /** Undefined when settlement is off, has no key, or no chain has a HubPool. */
  dataworker: Dataworker | undefined;
}

export interface CrosschainJobsOptions {
  /** false: leave the SpokePool indexing to other instances (`platform relayer --no-indexer`). */
  indexers?: boolean;
}

/**
 * The background work of the service: the quote chain-state refresh (also the relayer's fill costs), the
 * SpokePool indexers (with the integrator-id pass) unless `indexers: false`, and the relayer when
 * `CROSSCHAIN_RELAYER` is on and it has a key. `platform start` runs it all; `platform relayer` runs the
 * relayer role on its own (optionally leaving indexing to other instances).
 */
function startCrosschainJobs(
  context: PlatformContext,
  quotes: QuoteContext,
  services: CrosschainServices,
  clientOf: ChainClients,
  o: CrosschainJobsOptions = {},
): CrosschainJobs {
  const { config, db, logger } = context;
  const { chains } = quotes;
  // New deposits wake the relayer at once instead of at its next poll.
  let wakeRelayer = () => {};
  const indexers =
    o.indexers === false
      ? undefined
      : startSpokePoolIndexers({
          ...context,
          chains,
          onStored: () => wakeRelayer(),
          pricesOf: (chainId) => quotes.cache.snapshot().chains.get(chainId)?.prices,
          // The relayer fills only what an indexer stored: its takeover must not lag the relayer's.
          leaseTtlMs: config.crosschainRelayerLeaseSec * 1000,
        });
  // Deposits whose deadline passed become `expired` on the push stream (nothing is indexed when it happens).
  const expirySweep = o.indexers === false ? undefined : startExpirySweep({ db, logger });
  const refresh = startQuoteRefresh(quotes); // the relayer's fill costs read the cache (a worker may serve nothing)
  const relayerKey = relayerKeyOf(context);
  const relayer =
    config.crosschainRelayer && relayerKey
      ? startRelayer({
          db,
          chains,
          privateKey: relayerKey,
          logger,
          pollMs: config.crosschainPollMs,
          marginBps: config.crosschainRelayerMarginBps,
          isRouteEnabled: (route) => quotes.routes.isRouteEnabled(route),
          estimateFillCost: createFillCostEstimator(quotes.cache, chains),
          tuning: { leaseTtlSec: config.crosschainRelayerLeaseSec },
        })
      : undefined;
  if (relayer) wakeRelayer = () => relayer.wake();
  const signerKey = depositAddressKeyOf(context);
  const depositAddressWatcher =
    signerKey && o.indexers !== false
      ? startDepositAddressWatcher({
          db,
          chains,
          privateKey: signerKey,
          suggestedFees: services.suggestedFees,
          logger,
          pollMs: Math.max(config.crosschainPollMs, 100),
          leaseTtlSec: config.crosschainRelayerLeaseSec,
          clientOf,
        })
      : undefined;
  const settlementKey = settlementKeyOf(context);
  const dataworker =
    config.crosschainSettlement && settlementKey && o.indexers !== false
      ? startDataworker({
          db,
          chains,
          privateKey: settlementKey,
          logger,
          intervalMs: config.crosschainSettlementIntervalSec * 1000,
          endBlockBuffer: config.crosschainSettlementEndBlockBuffer,
          // Only a HubPool with a Timer (a test deployment: production HubPools have none) can be hurried.
          fastLiveness: config.crosschainSettlementFastLiveness,
          leaseTtlMs: config.crosschainRelayerLeaseSec * 1000,
        })
      : undefined;
  if (config.crosschainSettlement && !settlementKey) {
    logger.warn("crosschain settlement not started: set CROSSCHAIN_SETTLEMENT_KEY (the devnet provides one)");
  }
  if (config.crosschainRelayer && !relayerKey) {
    logger.warn("crosschain relayer not started: set CROSSCHAIN_RELAYER_KEY (the devnet provides one)");
  }
  return {
    relayer,
    depositAddressWatcher,
    dataworker,
    status: () => {
      const state = quotes.cache.snapshot();
      return toJobStatus({
        indexers: indexers?.indexers.map((i) => i.status) ?? [],
        relayer: relayer?.status ?? null,
        depositAddresses: depositAddressWatcher?.status ?? null,
        settlement: dataworker?.status() ?? null,
        chainState: [...state.chains.values()].map((c) => ({
          chainId: c.chainId,
          blockNumber: c.blockNumber,
          ageMs: Date.now() - c.updatedAt,
          error: state.errors.get(c.chainId) ?? null,
        })),
      });
    },
    async stop() {
      await dataworker?.stop();
      await depositAddressWatcher?.stop();
      await relayer?.stop();
      await expirySweep?.stop();
      await indexers?.stop();
      await refresh.stop();
    },
  };
}

export const crosschainService: ServiceDefinition<Crosschain> = {
  name: "crosschain",
  title: "Crosschain transfer API",
  migrations: loadMigrations("crosschain", new URL("../migrations", import.meta.url).pathname),
  port: (config) => config.crosschainPort,
  basePath: BASE_PATH,
  create: createCrosschain,
};
