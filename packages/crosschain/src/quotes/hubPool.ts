/**
 * The HubPool side of a quote. Across prices the LP fee from the utilization of the HubPool's pool of
 * the deposit's L1 token and that token's rate model in the AcrossConfigStore. Both are read with each
 * chain-state refresh of the hub chain (chain 1 when configured, else the lowest chain id with a
 * HubPool; the devnet deploys one on every chain), in the same Multicall3 call as the relayer balances.
 * Without a HubPool the quote falls back to unlimited reserves and the zero-fee default rate model.
 */
import { type Address, parseAbi } from "viem";
import type { SpokeChain, SpokeToken } from "../deployments.ts";
import { MAX_UINT256 } from "../domain/fees/fixedPoint.ts";
import {
  type HubPoolLiquidity,
  type L1TokenRateConfig,
  parseL1TokenConfig,
  type RateModel,
  resolveRateModel,
} from "../domain/fees/lpFee.ts";
import type { ChainStateSnapshot } from "./chainStateCache.ts";
import type { CallResult } from "./multicallReads.ts";

export interface HubPoolToken extends HubPoolLiquidity {
  /** `pooledTokens(l1Token).isEnabled`: LPs can provide this token. */
  enabled: boolean;
  /** The config store's `l1TokenConfig`, parsed; undefined when empty or invalid (default rate model). */
  rateConfig: L1TokenRateConfig | undefined;
}

/** The hub chain's pools, by lower-case L1 token address. */
export type HubPoolState = ReadonlyMap<string, HubPoolToken>;

const hubPoolAbi = parseAbi([
  "function pooledTokens(address) view returns (address lpToken, bool isEnabled, uint32 lastLpFeeUpdate, int256 utilizedReserves, uint256 liquidReserves, uint256 undistributedLpFees)",
]);
const configStoreAbi = parseAbi(["function l1TokenConfig(address) view returns (string)"]);

const hubChains = new WeakMap<readonly SpokeChain[], SpokeChain | null>();

/** The hub chain of `chains`: chain 1 when it has a HubPool, else the lowest chain id that has one (memoized: quotes ask per request). */
export function hubChainOf(chains: readonly SpokeChain[]): SpokeChain | undefined {
  let hub = hubChains.get(chains);
  if (hub === undefined) {
    const withHub = chains.filter((c) => c.contracts.hubPool);
    hub = withHub.find((c) => c.chainId === 1) ?? withHub.sort((a, b) => a.chainId - b.chainId)[0] ?? null;
    hubChains.set(chains, hub);
  }
  return hub ?? undefined;
}

/** Multicall entries reading every token's pool, then (with a config store) every token's rate config. */
export function hubPoolCalls(hub: SpokeChain) {
  const hubPool = hub.contracts.hubPool as Address;
  const configStore = hub.contracts.configStore as Address | undefined;
  return [
    ...hub.tokens.map((t) => ({ address: hubPool, abi: hubPoolAbi, functionName: "pooledTokens", args: [t.address] })),
    ...(configStore
      ? hub.tokens.map((t) => ({
          address: configStore,
          abi: configStoreAbi,
          functionName: "l1TokenConfig",
          args: [t.address],
        }))
      : []),
  ];
}

/** The state from the results of {@link hubPoolCalls} (same order); tokens whose pool read failed are absent. */
export function hubPoolStateFrom(hub: SpokeChain, results: readonly CallResult[]): HubPoolState {
  const state = new Map<string, HubPoolToken>();
  const n = hub.tokens.length;
  hub.tokens.forEach((t, i) => {
    const pool = results[i];
    if (pool?.status !== "success") return;
    const [, enabled, , utilizedReserves, liquidReserves] = pool.result as readonly [
      Address,
      boolean,
      number,
      bigint,
      bigint,
      bigint,
    ];
    const config = results[n + i];
    state.set(t.address.toLowerCase(), {
      enabled,
      liquidReserves,
      utilizedReserves,
      rateConfig: config?.status === "success" ? parseL1TokenConfig(config.result as string) : undefined,
    });
  });
  return state;
}

/** The hub chain's token for a deposit of `symbol` (native ETH deposits are WETH in the pool). */
function l1TokenFor(hub: SpokeChain, symbol: string): SpokeToken | undefined {
  const wanted = symbol.toUpperCase() === "ETH" ? "WETH" : symbol.toUpperCase();
  return hub.tokens.find((t) => t.symbol.toUpperCase() === wanted);
}

/** The LP-fee inputs of a deposit of `symbol` on a route (see computeLpFee). */
export interface LpPool {
  reserves: HubPoolLiquidity;
  l1TokenDecimals?: number;
  rateModel?: RateModel;
}

/**
 * The HubPool pool of the deposit's L1 token and its rate model, from the warm hub-chain state. Without a
 * HubPool, or an enabled pool for the token, relayers front the capital: the pool neither caps nor charges.
 */
export function lpPoolFor(
  snapshot: ChainStateSnapshot,
  chains: readonly SpokeChain[],
  symbol: string,
  originChainId: number,
  destinationChainId: number,
): LpPool {
  const hub = hubChainOf(chains);
  const l1Token = hub && l1TokenFor(hub, symbol);
  const pool = l1Token && snapshot.chains.get(hub.chainId)?.hubPool?.get(l1Token.address.toLowerCase());
  if (!l1Token || !pool?.enabled) return { reserves: { liquidReserves: MAX_UINT256, utilizedReserves: 0n } };
  return {
    reserves: { liquidReserves: pool.liquidReserves, utilizedReserves: pool.utilizedReserves },
    l1TokenDecimals: l1Token.decimals,
    rateModel: resolveRateModel(pool.rateConfig, originChainId, destinationChainId),
  };
}
