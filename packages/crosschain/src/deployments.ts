/**
 * The chains the crosschain service works on: every chain endpoint that knows its SpokePool (the devnet's
 * from its manifest, or an external chain described the same way), with the tokens routes are built from.
 */
import type { ChainEndpoint } from "@platform/kernel";
import { getAddress } from "viem";

export interface SpokeToken {
  symbol: string;
  address: `0x${string}`;
  decimals: number;
}

export interface SpokeChain {
  chainId: number;
  rpcUrl: string;
  spokePool: `0x${string}`;
  multicallHandler: `0x${string}` | undefined;
  wrappedNativeToken: `0x${string}` | undefined;
  /** Other contracts by name (uniswapV2Router02, spokePoolPeriphery, …). */
  contracts: Record<string, `0x${string}`>;
  tokens: SpokeToken[];
}

/** A token of a chain by address (case-insensitive), from the chain list. */
export function findToken(chains: readonly SpokeChain[], chainId: number, address: string): SpokeToken | undefined {
  const lower = address.toLowerCase();
  return chains.find((c) => c.chainId === chainId)?.tokens.find((t) => t.address.toLowerCase() === lower);
}

export function spokeChains(chains: readonly ChainEndpoint[]): SpokeChain[] {
  return chains
    .filter((c) => c.contracts?.spokePool)
    .map((c) => {
      const contracts = Object.fromEntries(
        Object.entries(c.contracts ?? {}).map(([name, address]) => [name, getAddress(address)]),
      ) as Record<string, `0x${string}`>;
      return {
        chainId: c.chainId,
        rpcUrl: c.rpcUrl,
        spokePool: contracts.spokePool as `0x${string}`,
        multicallHandler: contracts.multicallHandler,
        wrappedNativeToken: c.wrappedNativeToken ? getAddress(c.wrappedNativeToken) : undefined,
        contracts,
        tokens: (c.tokens ?? []).map((t) => ({
          symbol: t.symbol,
          address: getAddress(t.address),
          decimals: t.decimals,
        })),
      };
    })
    .sort((a, b) => a.chainId - b.chainId);
}
