/**
 * The quote side of the crosschain API: enabled routes, chain state kept warm in the background, prices, and
 * the `/suggested-fees`, `/available-routes` and `/chains` endpoints.
 *
 * Wiring (see `../index.ts`): `createServer` calls `registerQuoteRoutes(api, quoteServicesFor(context))`;
 * `startJobs` calls `startQuoteJobs(context)` (the refresh loop), which finds the same services through the
 * per-context WeakMap of `quoteServicesFor`.
 */
import type { HttpServer } from "@platform/kernel";
import { registerAvailableRoutesRoute } from "../http/availableRoutes.ts";
import { registerChainsRoute } from "../http/chains.ts";
import { registerSuggestedFeesRoute } from "../http/suggestedFees.ts";
import type { QuoteServices } from "./quoteServices.ts";

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
  createQuoteServices,
  type QuoteOptions,
  type QuoteServices,
  type QuoteSettings,
  quoteOptionsFromConfig,
  quoteServicesFor,
  startQuoteJobs,
} from "./quoteServices.ts";

/** Register `/suggested-fees`, `/available-routes` and `/chains` (inside the authenticated API scope). */
export function registerQuoteRoutes(app: HttpServer, services: QuoteServices): void {
  // A closed server must not leave a refresh (loop or on-demand) behind; stopping twice is harmless.
  app.addHook("onClose", async () => {
    await services.cache.stop();
  });
  registerSuggestedFeesRoute(app, services);
  registerAvailableRoutesRoute(app, services);
  registerChainsRoute(app, services);
}
