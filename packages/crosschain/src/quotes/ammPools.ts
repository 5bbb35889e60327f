/**
 * The AMM pools of a chain between its tokens, as the chain-state cache finds and reads them:
 *
 * - Uniswap V2 pairs (`uniswapV2Factory.getPair`), read with `getReserves()`;
 * - Uniswap V3 pools (`uniswapV3Factory.getPool` for each fee tier), read with `slot0()` and `liquidity()` and
 *   seen by the router as constant-product pools of their virtual reserves (`x = L / √P`, `y = L · √P`). That is
 *   exact while the price stays within the range of the in-range liquidity, which full-range positions (the
 *   devnet's) always are; tick crossings of concentrated liquidity are not modelled, so such a pool is quoted
 *   on its current range only (the slippage minimum protects the trade).
 *
 * Discovery runs rarely (pools are looked for again only while some are missing); reading is one multicall
 * per refresh, shared with the cache's other reads. A discovery whose request fails throws (no pool is taken
 * for missing).
 */
import { type Address, getAddress, type PublicClient, parseAbi, zeroAddress } from "viem";
import type { SpokeChain } from "../deployments.ts";
import type { AmmPool } from "../domain/swap/ammPool.ts";
import { type CallResult, multicallEachMayFail } from "./multicallReads.ts";

/** Source names (the anchor's 0x names for these venues). */
export const UNISWAP_V2_SOURCE = "uniswap_v2";
export const UNISWAP_V3_SOURCE = "uniswap_v3";
/** Fee tiers of Uniswap V3 (hundredths of a basis point), as its factory enables them. */
const V3_FEE_TIERS = [100, 500, 3000, 10_000] as const;
const Q96 = 2n ** 96n;

const v2FactoryAbi = parseAbi(["function getPair(address, address) view returns (address)"]);
const v3FactoryAbi = parseAbi(["function getPool(address, address, uint24) view returns (address)"]);
const v2PairAbi = parseAbi(["function getReserves() view returns (uint112, uint112, uint32)"]);
const v3PoolAbi = parseAbi([
  "function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool)",
  "function liquidity() view returns (uint128)",
]);

/** A pool found on a chain (what is read each refresh). */
export interface PoolRef {
  address: Address;
  token0: string;
  token1: string;
  source: string;
  feePips: number;
}

const lower = (a: string) => a.toLowerCase();

/** Looks for every pool between the chain's tokens; `complete` when every candidate exists. */
export async function discoverPools(
  client: PublicClient,
  chain: SpokeChain,
  multicallAddress: Address,
): Promise<{ pools: PoolRef[]; complete: boolean }> {
  const tokens = chain.tokens;
  const pairs: [string, string][] = [];
  for (let i = 0; i < tokens.length; i++)
    for (let j = i + 1; j < tokens.length; j++)
      pairs.push([tokens[i]?.address as string, tokens[j]?.address as string]);
  const candidates: { source: string; feePips: number; a: string; b: string; call: unknown }[] = [];
  const v2 = chain.contracts.uniswapV2Factory;
  const v3 = chain.contracts.uniswapV3Factory;
  for (const [a, b] of pairs) {
    if (v2) {
      candidates.push({
        source: UNISWAP_V2_SOURCE,
        feePips: 3000,
        a,
        b,
        call: { address: v2, abi: v2FactoryAbi, functionName: "getPair", args: [a, b] },
      });
    }
    if (v3) {
      for (const fee of V3_FEE_TIERS) {
        candidates.push({
          source: UNISWAP_V3_SOURCE,
          feePips: fee,
          a,
          b,
          call: { address: v3, abi: v3FactoryAbi, functionName: "getPool", args: [a, b, fee] },
        });
      }
    }
  }
  if (candidates.length === 0) return { pools: [], complete: true };
  const results = await multicallEachMayFail(
    client,
    candidates.map((c) => c.call),
    multicallAddress,
  );
  const pools: PoolRef[] = [];
  let missingV2 = false;
  results.forEach((r, i) => {
    const c = candidates[i] as (typeof candidates)[number];
    const found = r.status === "success" && typeof r.result === "string" && lower(r.result) !== zeroAddress;
    if (!found) {
      // V3 fee tiers without a pool are the rule, not a gap worth looking for again.
      if (c.source === UNISWAP_V2_SOURCE) missingV2 = true;
      return;
    }
    const [token0, token1] = BigInt(c.a) < BigInt(c.b) ? [c.a, c.b] : [c.b, c.a];
    pools.push({
      address: getAddress(r.result as string),
      token0: lower(token0),
      token1: lower(token1),
      source: c.source,
      feePips: c.feePips,
    });
  });
  return { pools, complete: !missingV2 };
}

/** The calls that read the pools' state (one for a V2 pair, two for a V3 pool), in order. */
export function poolReadCalls(refs: readonly PoolRef[]): unknown[] {
  return refs.flatMap((p): unknown[] =>
    p.source === UNISWAP_V3_SOURCE
      ? [
          { address: p.address, abi: v3PoolAbi, functionName: "slot0" },
          { address: p.address, abi: v3PoolAbi, functionName: "liquidity" },
        ]
      : [{ address: p.address, abi: v2PairAbi, functionName: "getReserves" }],
  );
}

/** The pools with their (virtual) reserves from the results of `poolReadCalls`; unreadable pools are left out. */
export function poolsFrom(refs: readonly PoolRef[], results: readonly CallResult[]): AmmPool[] {
  const pools: AmmPool[] = [];
  let i = 0;
  for (const p of refs) {
    if (p.source === UNISWAP_V3_SOURCE) {
      const slot0 = results[i++];
      const liquidity = results[i++];
      if (slot0?.status !== "success" || liquidity?.status !== "success") continue;
      const sqrtPriceX96 = (slot0.result as readonly [bigint])[0];
      const l = liquidity.result as bigint;
      if (sqrtPriceX96 === 0n || l === 0n) continue;
      pools.push({ ...p, reserve0: (l * Q96) / sqrtPriceX96, reserve1: (l * sqrtPriceX96) / Q96 });
    } else {
      const r = results[i++];
      if (r?.status !== "success") continue;
      const [reserve0, reserve1] = r.result as readonly [bigint, bigint, number];
      pools.push({ ...p, reserve0, reserve1 });
    }
  }
  return pools;
}
