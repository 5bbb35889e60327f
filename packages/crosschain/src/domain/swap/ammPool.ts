/**
 * Constant-product pools (Uniswap V2 and its forks) as the swap router sees them, and their exact integer
 * math. The formulas are the pair contract's own (`UniswapV2Library.getAmountOut/getAmountIn`), written with
 * the fee in millionths so that other fee tiers fit: with 3,000 (0.3 %) the results equal the contract's to
 * the unit, which is what lets a quote's `minOutputAmount` hold on chain.
 */

/** One pool, with reserves read at one block (the chain-state cache reads them each refresh). */
export interface AmmPool {
  /** The source name `/swap/sources` lists and `includeSources`/`excludeSources` match (e.g. `uniswap_v2`). */
  source: string;
  /** Pool (pair) contract. */
  address: `0x${string}`;
  /** Lower-case token addresses, sorted as the pair sorts them (token0 < token1). */
  token0: string;
  token1: string;
  reserve0: bigint;
  reserve1: bigint;
  /** Swap fee in millionths of the input (3,000 = 0.3 %, Uniswap V2's). */
  feePips: number;
}

const PIPS = 1_000_000n;

/** Reserves of `pool` seen from `tokenIn` (lower-case), or undefined when the pool does not hold it. */
export function reservesFrom(pool: AmmPool, tokenIn: string): { reserveIn: bigint; reserveOut: bigint } | undefined {
  if (pool.token0 === tokenIn) return { reserveIn: pool.reserve0, reserveOut: pool.reserve1 };
  if (pool.token1 === tokenIn) return { reserveIn: pool.reserve1, reserveOut: pool.reserve0 };
  return undefined;
}

/** The other token of the pool. */
export const otherToken = (pool: AmmPool, token: string): string => (pool.token0 === token ? pool.token1 : pool.token0);

/** Output of selling `amountIn` into the pool (0 when it cannot trade: empty pool or zero input). */
export function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feePips: number): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const inWithFee = amountIn * (PIPS - BigInt(feePips));
  return (inWithFee * reserveOut) / (reserveIn * PIPS + inWithFee);
}

/** Input needed to buy exactly `amountOut` (undefined when the pool cannot deliver it). */
export function amountIn(
  amountOut: bigint,
  reserveIn: bigint,
  reserveOut: bigint,
  feePips: number,
): bigint | undefined {
  if (amountOut <= 0n || reserveIn <= 0n || amountOut >= reserveOut) return undefined;
  return (reserveIn * amountOut * PIPS) / ((reserveOut - amountOut) * (PIPS - BigInt(feePips))) + 1n;
}
