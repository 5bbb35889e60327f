import { type Address, encodeAbiParameters, encodePacked, getCreate2Address, type Hex, keccak256 } from "viem";
import { loadArtifact } from "./artifacts.ts";

// Uniswap V3 helpers: pool addresses, prices and ticks as v3-core / v3-periphery compute them.

/** `TickMath.MIN_TICK` / `MAX_TICK` of v3-core. */
export const V3_MIN_TICK = -887272;
export const V3_MAX_TICK = 887272;

/**
 * The pool creation code hash v3-periphery bakes into `PoolAddress.sol` (`POOL_INIT_CODE_HASH`): SwapRouter and
 * NonfungiblePositionManager find a pool (and check its callbacks) by this CREATE2 hash only, so the pool the
 * factory deploys must hash to it.
 */
export const V3_POOL_INIT_CODE_HASH: Hex = "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54";

/** keccak256 of the `UniswapV3Pool` creation code shipped in `@uniswap/v3-core` (must equal the constant above). */
export function v3PoolArtifactHash(): Hex {
  return keccak256(loadArtifact("UniswapV3Pool").bytecode);
}

/** Tokens in pool order (token0 < token1). */
export function sortTokens(a: Address, b: Address): [Address, Address] {
  return BigInt(a) < BigInt(b) ? [a, b] : [b, a];
}

/** The Uniswap V3 pool of two tokens and a fee tier (CREATE2 from the factory: the same on every chain). */
export function v3PoolAddress(factory: Address, tokenA: Address, tokenB: Address, fee: number): Address {
  const [token0, token1] = sortTokens(tokenA, tokenB);
  return getCreate2Address({
    from: factory,
    salt: keccak256(
      encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint24" }], [token0, token1, fee]),
    ),
    bytecodeHash: V3_POOL_INIT_CODE_HASH,
  });
}

/** Integer square root (floor), by Newton's method from a power of two above the root. */
function sqrtBig(n: bigint): bigint {
  if (n < 0n) throw new Error("square root of a negative number");
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/**
 * `sqrtPriceX96` of a pool holding `amount1` of token1 per `amount0` of token0 (raw units, decimals included):
 * floor(sqrt(amount1 / amount0) · 2^96), as the v3-sdk's `encodeSqrtRatioX96`.
 */
export function encodeSqrtPriceX96(amount1: bigint, amount0: bigint): bigint {
  if (amount0 <= 0n || amount1 <= 0n) throw new Error("amounts must be positive");
  return sqrtBig((amount1 << 192n) / amount0);
}

/** Price of token0 in token1, in whole units, from a pool's `sqrtPriceX96`. */
export function priceFromSqrtPriceX96(sqrtPriceX96: bigint, decimals0: number, decimals1: number): number {
  const ratio = Number(sqrtPriceX96) / 2 ** 96;
  return ratio * ratio * 10 ** (decimals0 - decimals1);
}

/** The widest position a tick spacing allows: the min/max ticks rounded toward zero to a multiple of it. */
export function fullRangeTicks(tickSpacing: number): { tickLower: number; tickUpper: number } {
  const tickUpper = Math.trunc(V3_MAX_TICK / tickSpacing) * tickSpacing;
  return { tickLower: -tickUpper, tickUpper };
}

/**
 * A SwapRouter path: `token (20 bytes), fee (uint24), token, fee, token, …`. For `exactInput` it runs from the
 * input token to the output token; for `exactOutput` it is reversed (output token first).
 */
export function encodeV3Path(tokens: readonly Address[], fees: readonly number[]): Hex {
  if (tokens.length < 2 || fees.length !== tokens.length - 1) throw new Error("a path needs n tokens and n-1 fees");
  const types: ("address" | "uint24")[] = [];
  const values: (Address | number)[] = [];
  tokens.forEach((t, i) => {
    types.push("address");
    values.push(t);
    const fee = fees[i];
    if (fee !== undefined) {
      types.push("uint24");
      values.push(fee);
    }
  });
  return encodePacked(types, values);
}
