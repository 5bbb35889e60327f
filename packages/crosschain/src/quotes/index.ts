/**
 * What quotes are computed from: enabled routes, chain state kept warm in the background, prices, observed
 * fill times, all held by one `QuoteContext` per service (see `quoteContext.ts`). The quote itself is
 * `services/suggestedFees.ts`; the endpoints are in `http/`.
 */
export {
  type ChainState,
  type ChainStateCache,
  type ChainStateCacheOptions,
  type ChainStateSnapshot,
  createChainStateCache,
  type FillGasEstimate,
} from "./chainStateCache.ts";
export {
  buildEnabledRoutes,
  defaultRoutes,
  type EnabledRoutes,
  isRouteEnabled,
  loadEnabledRoutes,
  parseRoutesConfig,
  type RouteFilter,
  type RouteQuery,
  type RouteRecord,
  type RoutesConfig,
  readRoutesConfigFile,
} from "./enabledRoutes.ts";
export { type ChainPrices, derivePrices } from "./prices.ts";
export {
  createQuoteContext,
  type QuoteContext,
  type QuoteOptions,
  type QuoteSettings,
  quoteOptionsFromConfig,
  startQuoteRefresh,
} from "./quoteContext.ts";
