/**
 * The swap router: the best path between two tokens over a chain's pools, for an exact input (most output)
 * or an exact output (least input). Paths have one or two hops (every pair of tokens on our chains meets
 * within two: through WETH or USDC), and every hop of a path is on the same source, because a path is
 * executed by that source's router contract in one call (`UniswapV2Router02` takes a token path, not pools).
 *
 * Pure and allocation-light: an index of pools by token is built once per pool set (`createPoolIndex`, which
 * the chain-state cache keeps per refresh), then each search walks only the pools touching the two tokens.
 */
import { type AmmPool, amountIn, amountOut, otherToken, reservesFrom } from "./ammPool.ts";

export type SwapKind = "exactInput" | "exactOutput";

/** A route found by the router. */
export interface SwapRoute {
  source: string;
  /** Pools in order, from the input token. */
  pools: readonly AmmPool[];
  /** Token path (lower-case), `pools.length + 1` long. */
  path: readonly string[];
  amountIn: bigint;
  amountOut: bigint;
  /** Each hop's input as a share of that pool's reserve of it (1e18-scaled); the largest is the trade's depth. */
  depthShareWad: bigint;
}

/** Pools of one chain, indexed by token (lower-case). */
export interface PoolIndex {
  pools: readonly AmmPool[];
  byToken: ReadonlyMap<string, readonly AmmPool[]>;
}

export function createPoolIndex(pools: readonly AmmPool[]): PoolIndex {
  const byToken = new Map<string, AmmPool[]>();
  for (const pool of pools) {
    if (pool.reserve0 <= 0n || pool.reserve1 <= 0n) continue;
    for (const token of [pool.token0, pool.token1]) {
      const list = byToken.get(token);
      if (list) list.push(pool);
      else byToken.set(token, [pool]);
    }
  }
  return { pools, byToken };
}

export interface FindRouteParameters {
  tokenIn: string;
  tokenOut: string;
  /** The input (exactInput) or the output wanted (exactOutput), in the token's smallest unit. */
  amount: bigint;
  kind: SwapKind;
  /** Only these sources (empty or absent: all). */
  includeSources?: readonly string[];
  /** Never these sources. */
  excludeSources?: readonly string[];
  /** 1 or 2 (default). */
  maxHops?: 1 | 2;
}

const WAD = 10n ** 18n;

/** Sells or buys along `pools` (already ordered from tokenIn); undefined when a pool cannot fill it. */
function quotePath(
  pools: readonly AmmPool[],
  path: readonly string[],
  amount: bigint,
  kind: SwapKind,
): { amountIn: bigint; amountOut: bigint; depthShareWad: bigint } | undefined {
  const amounts: bigint[] = new Array(path.length);
  if (kind === "exactInput") {
    amounts[0] = amount;
    for (let i = 0; i < pools.length; i++) {
      const r = reservesFrom(pools[i] as AmmPool, path[i] as string);
      if (!r) return undefined;
      const out = amountOut(amounts[i] as bigint, r.reserveIn, r.reserveOut, (pools[i] as AmmPool).feePips);
      if (out <= 0n) return undefined;
      amounts[i + 1] = out;
    }
  } else {
    amounts[path.length - 1] = amount;
    for (let i = pools.length - 1; i >= 0; i--) {
      const r = reservesFrom(pools[i] as AmmPool, path[i] as string);
      if (!r) return undefined;
      const needed = amountIn(amounts[i + 1] as bigint, r.reserveIn, r.reserveOut, (pools[i] as AmmPool).feePips);
      if (needed === undefined) return undefined;
      amounts[i] = needed;
    }
  }
  let depthShareWad = 0n;
  for (let i = 0; i < pools.length; i++) {
    const r = reservesFrom(pools[i] as AmmPool, path[i] as string) as { reserveIn: bigint };
    const share = ((amounts[i] as bigint) * WAD) / r.reserveIn;
    if (share > depthShareWad) depthShareWad = share;
  }
  return { amountIn: amounts[0] as bigint, amountOut: amounts[path.length - 1] as bigint, depthShareWad };
}

/** True when `a` beats `b` for this kind of trade. */
const better = (kind: SwapKind, a: SwapRoute, b: SwapRoute | undefined) =>
  !b || (kind === "exactInput" ? a.amountOut > b.amountOut : a.amountIn < b.amountIn);

/**
 * The best route from `tokenIn` to `tokenOut`, or undefined when no path (within the allowed sources and hops)
 * can carry the amount.
 *
 * @example
 * const route = findBestRoute(index, { tokenIn: weth, tokenOut: dai, amount: 10n ** 18n, kind: "exactInput" });
 * // route.path = [weth, usdc, dai] when the only DAI pool is DAI/USDC
 */
export function findBestRoute(index: PoolIndex, p: FindRouteParameters): SwapRoute | undefined {
  const tokenIn = p.tokenIn.toLowerCase();
  const tokenOut = p.tokenOut.toLowerCase();
  if (tokenIn === tokenOut || p.amount <= 0n) return undefined;
  const include = p.includeSources && p.includeSources.length > 0 ? new Set(p.includeSources) : undefined;
  const exclude = new Set(p.excludeSources ?? []);
  const allowed = (pool: AmmPool) => (!include || include.has(pool.source)) && !exclude.has(pool.source);
  const maxHops = p.maxHops ?? 2;
  let best: SwapRoute | undefined;
  const consider = (pools: AmmPool[], path: string[]) => {
    const q = quotePath(pools, path, p.amount, p.kind);
    if (!q) return;
    const route: SwapRoute = { source: (pools[0] as AmmPool).source, pools, path, ...q };
    if (better(p.kind, route, best)) best = route;
  };
  for (const first of index.byToken.get(tokenIn) ?? []) {
    if (!allowed(first)) continue;
    const middle = otherToken(first, tokenIn);
    if (middle === tokenOut) {
      consider([first], [tokenIn, tokenOut]);
      continue;
    }
    if (maxHops < 2) continue;
    for (const second of index.byToken.get(middle) ?? []) {
      if (second === first || second.source !== first.source || otherToken(second, middle) !== tokenOut) continue;
      if (!allowed(second)) continue;
      consider([first, second], [tokenIn, middle, tokenOut]);
    }
  }
  return best;
}

/** The output of selling `amountIn` along the pools of `route` (0 when a pool cannot take it). */
export function routeOutput(route: Pick<SwapRoute, "pools" | "path">, amountIn: bigint): bigint {
  return quotePath(route.pools, route.path, amountIn, "exactInput")?.amountOut ?? 0n;
}
