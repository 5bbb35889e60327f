/**
 * One viem client per chain, made on first use, for the few requests that must ask a chain (a swap quote's
 * checks and simulation, a deposit address's prediction); the hot path reads the chain-state cache instead.
 */
import { createChainClient } from "@platform/chains";
import type { PublicClient } from "viem";
import type { SpokeChain } from "../deployments.ts";

export type ChainClients = (chain: SpokeChain) => PublicClient;

export function createChainClients(): ChainClients {
  const clients = new Map<number, PublicClient>();
  return (chain) => {
    const known = clients.get(chain.chainId);
    if (known) return known;
    const client = createChainClient(chain);
    clients.set(chain.chainId, client);
    return client;
  };
}
