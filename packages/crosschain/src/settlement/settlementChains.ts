/**
 * What settlement needs to know of the chains: the hub chain and its HubPool (with the devnet's Timer and
 * Mock_Adapter when present), every spoke, the token map between them, and a client per chain.
 */
import { createChainClient, loadArtifact } from "@platform/chains";
import { type Address, getAddress, type PublicClient } from "viem";
import type { SpokeChain } from "../deployments.ts";
import { hubChainOf } from "../quotes/hubPool.ts";
import type { TokenMap } from "./types.ts";

export const hubPoolAbi = loadArtifact("HubPool").abi;
export const spokePoolAbi = loadArtifact("Ethereum_SpokePool").abi;
export const timerAbi = loadArtifact("Timer").abi;
export const erc20Abi = loadArtifact("ExpandedERC20").abi;
export const weth9Abi = loadArtifact("WETH9").abi;

export interface SettlementChains {
  hubChainId: number;
  hubPool: Address;
  /** UMA's Timer the HubPool reads its time from (the devnet's), or undefined when it uses block time. */
  timer: Address | undefined;
  /** The devnet's adapter for every chain; its presence means the devnet bridge relays roots and tokens. */
  mockAdapter: Address | undefined;
  /** Spokes in settlement order (chain id ascending: the order of bundleEvaluationBlockNumbers). */
  chains: SpokeChain[];
  tokens: TokenMap;
  clientOf(chainId: number): PublicClient;
  chain(chainId: number): SpokeChain;
}

/** The hub is the quotes' hub: chain 1 when it is served, else the lowest chain id with a HubPool address. */
export function settlementChainsOf(chains: readonly SpokeChain[]): SettlementChains | undefined {
  const hub = hubChainOf(chains);
  if (!hub?.contracts.hubPool) return undefined;
  const ordered = [...chains].sort((a, b) => a.chainId - b.chainId);
  const clients = new Map<number, PublicClient>();
  const chain = (chainId: number) => {
    const c = ordered.find((x) => x.chainId === chainId);
    if (!c) throw new Error(`settlement: unknown chain ${chainId}`);
    return c;
  };
  return {
    hubChainId: hub.chainId,
    hubPool: hub.contracts.hubPool,
    timer: hub.contracts.timer,
    mockAdapter: hub.contracts.mockAdapter,
    chains: ordered,
    tokens: tokenMapOf(hub, ordered),
    chain,
    clientOf(chainId) {
      let client = clients.get(chainId);
      if (!client) {
        client = createChainClient({ chainId, rpcUrl: chain(chainId).rpcUrl });
        clients.set(chainId, client);
      }
      return client;
    },
  };
}

/** Tokens map by symbol: a chain's USDC is the hub's USDC (the wrapped native token counts as WETH). */
export function tokenMapOf(hub: SpokeChain, chains: readonly SpokeChain[]): TokenMap {
  const symbolOf = (c: SpokeChain, address: string) =>
    c.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase())?.symbol;
  const bySymbol = (c: SpokeChain, symbol: string) => c.tokens.find((t) => t.symbol === symbol)?.address;
  const find = (chainId: number) => chains.find((c) => c.chainId === chainId);
  return {
    l1TokenOf(chainId, l2Token) {
      const c = find(chainId);
      const symbol = c && symbolOf(c, l2Token);
      const l1 = symbol && bySymbol(hub, symbol);
      return l1 ? getAddress(l1) : undefined;
    },
    l2TokenOf(chainId, l1Token) {
      const symbol = symbolOf(hub, l1Token);
      const c = find(chainId);
      const l2 = symbol && c && bySymbol(c, symbol);
      return l2 ? getAddress(l2) : undefined;
    },
  };
}
