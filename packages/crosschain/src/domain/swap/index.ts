/** The swap domain: constant-product pools, the router, slippage, calldata and destination messages (pure). */
export { type AmmPool, amountIn, amountOut } from "./ammPool.ts";
export { autoSlippage, legSlippage, maximumAfterSlippage, minimumAfterSlippage } from "./slippage.ts";
export { createPoolIndex, findBestRoute, type PoolIndex, routeOutput, type SwapRoute } from "./swapRouter.ts";
