/**
 * What the quote endpoints and the relayer share for one crosschain service: the SpokePool chains, the enabled
 * routes, the chain-state cache, the fill times observed from our own fills, and the quote settings.
 *
 * `createCrosschain` (../index.ts) creates it once and hands it to the routes, the refresh loop
 * (`startQuoteRefresh`) and the relayer; it is closed with the service. Its options come from the
 * configuration by default (`quoteOptionsFromConfig`: CROSSCHAIN_ROUTES_FILE).
 */
import type { BackgroundJob, PlatformContext } from "@platform/kernel";
import type { Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type SpokeChain, spokeChains } from "../deployments.ts";
import { type CapitalCostConfigTable, DEFAULT_CAPITAL_COST_CONFIGS } from "../domain/fees/capitalFee.ts";
import { DEFAULT_FILL_DEADLINE_BUFFER_SEC, DEFAULT_QUOTE_TIMESTAMP_MAX_AGE_SEC } from "../domain/fees/deadlines.ts";
import type { FillTimeConfig } from "../domain/fees/fillTime.ts";
import { relayerKeyOf } from "../relayer/relayerKey.ts";
import { type ChainStateCache, type ChainStateCacheOptions, createChainStateCache } from "./chainStateCache.ts";
import { type EnabledRoutes, loadEnabledRoutes } from "./enabledRoutes.ts";
import { createObservedFillTimes, type ObservedFillTimes } from "./observedFillTimes.ts";
import { parseUsdPrice } from "./prices.ts";

/** Knobs of the fee quote (defaults follow the anchor). */
export interface QuoteSettings {
  capitalCostConfigs: CapitalCostConfigTable;
  /** Limits buffer (1e18-scaled); default 0.8 (the domain default). */
  limitsBufferMultiplier?: bigint;
  /** Minimum deposit in USD (1e18-scaled); default none. */
  minDepositUsd?: bigint;
  /** `fillDeadline - timestamp`; default 7200 s. */
  fillDeadlineBufferSec: number;
  /** How old a caller's `timestamp` may be; default 600 s. */
  quoteTimestampMaxAgeSec: number;
  /** Exclusivity granted to the service's relayer when it can fill the amount; 0 (default) = none. */
  exclusivityPeriodSec: number;
  /** A fixed fill-time table; default: the one observed from our own fills (observedFillTimes.ts). */
  fillTime?: FillTimeConfig;
  /** Chain state older than this is not quoted from (503); default 120 s. */
  maxStateAgeMs: number;
}

export interface QuoteOptions
  extends Partial<QuoteSettings>,
    Pick<
      ChainStateCacheOptions,
      "refreshIntervalMs" | "gasEstimateTtlMs" | "fallbackFillGas" | "stablecoins" | "baseFeeMultiplierBps"
    > {
  /** JSON routes file (see `enabledRoutes.ts`); default: the default routes. */
  routesFile?: string;
  /** USD prices by symbol, beating pool prices (`{"ETH":"3000"}`). */
  usdPrices?: Readonly<Record<string, string | number>>;
  /** Relayer address; default: the address of the relayer's key (`relayerKeyOf`). */
  relayerAddress?: Address;
}

export interface QuoteContext {
  chains: readonly SpokeChain[];
  routes: EnabledRoutes;
  cache: ChainStateCache;
  settings: QuoteSettings;
  relayerAddress: Address | undefined;
  /** p75 fill times of our own fills, used when `settings.fillTime` is not given. */
  observedFillTimes: ObservedFillTimes;
  /** Stops every refresh, the loop's and any on-demand one; after the server and the jobs stopped. */
  close(): Promise<void>;
}

/** Options from the platform configuration (CROSSCHAIN_ROUTES_FILE). */
export function quoteOptionsFromConfig(config: PlatformContext["config"]): QuoteOptions {
  return config.crosschainRoutesFile ? { routesFile: config.crosschainRoutesFile } : {};
}

function relayerFromKey(key: string | undefined): Address | undefined {
  if (!key) return undefined;
  try {
    return privateKeyToAccount(key as `0x${string}`).address;
  } catch {
    return undefined;
  }
}

/** Builds the quote context of a crosschain service (nothing runs until `startQuoteRefresh` or a request). */
export function createQuoteContext(
  context: PlatformContext,
  options: QuoteOptions = quoteOptionsFromConfig(context.config),
): QuoteContext {
  const chains = spokeChains(context.chains);
  const routes = loadEnabledRoutes(chains, { routesFile: options.routesFile });
  const relayerAddress = options.relayerAddress ?? relayerFromKey(relayerKeyOf(context));
  if (options.minDepositUsd !== undefined && options.minDepositUsd < 0n) throw new RangeError("minDepositUsd < 0");
  if (options.usdPrices) for (const v of Object.values(options.usdPrices)) parseUsdPrice(v);
  const logger = context.logger.child({ service: "crosschain", component: "chain-state" });
  const cache = createChainStateCache({
    chains,
    routes,
    relayerAddress,
    refreshIntervalMs: options.refreshIntervalMs,
    gasEstimateTtlMs: options.gasEstimateTtlMs,
    fallbackFillGas: options.fallbackFillGas,
    baseFeeMultiplierBps: options.baseFeeMultiplierBps,
    usdPrices: options.usdPrices,
    stablecoins: options.stablecoins,
    logger,
  });
  const observedFillTimes = createObservedFillTimes(context.db, chains, logger);
  return {
    chains,
    routes,
    cache,
    relayerAddress,
    observedFillTimes,
    async close() {
      observedFillTimes.stop();
      await cache.stop();
    },
    settings: {
      capitalCostConfigs: options.capitalCostConfigs ?? DEFAULT_CAPITAL_COST_CONFIGS,
      limitsBufferMultiplier: options.limitsBufferMultiplier,
      minDepositUsd: options.minDepositUsd,
      fillDeadlineBufferSec: options.fillDeadlineBufferSec ?? DEFAULT_FILL_DEADLINE_BUFFER_SEC,
      quoteTimestampMaxAgeSec: options.quoteTimestampMaxAgeSec ?? DEFAULT_QUOTE_TIMESTAMP_MAX_AGE_SEC,
      exclusivityPeriodSec: options.exclusivityPeriodSec ?? 0,
      fillTime: options.fillTime,
      maxStateAgeMs: options.maxStateAgeMs ?? 120_000,
    },
  };
}

/** How many holders (servers, job sets) keep each quote context refreshed: the last one to stop stops it. */
const refreshHolders = new WeakMap<QuoteContext, number>();

/**
 * Keeps the chain-state cache and the observed fill times of `quotes` refreshed until `stop()`. Both the HTTP
 * server (every api instance answers quotes from this cache, and holds no lease) and the background jobs (the
 * relayer's fill costs) start it; it runs once per context and stops when the last of them stopped.
 */
export function startQuoteRefresh(quotes: QuoteContext): BackgroundJob {
  const { cache, observedFillTimes } = quotes;
  const holders = (refreshHolders.get(quotes) ?? 0) + 1;
  refreshHolders.set(quotes, holders);
  if (holders === 1) {
    cache.start();
    observedFillTimes.start();
  }
  let stopped = false;
  return {
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const left = (refreshHolders.get(quotes) ?? 1) - 1;
      refreshHolders.set(quotes, left);
      if (left > 0) return;
      observedFillTimes.stop();
      await cache.stop();
    },
  };
}
