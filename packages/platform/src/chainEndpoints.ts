/**
 * Where each chain's JSON-RPC answers: the devnet manifest's chains (when the devnet runs or ran on
 * this data folder) overridden by CHAIN_RPC_URLS.
 */
import type { ChainEndpoint, Config } from "@platform/kernel";

export function resolveChains(config: Config, devnet: ChainEndpoint[] = []): ChainEndpoint[] {
  const byId = new Map<number, ChainEndpoint>(devnet.map((c) => [c.chainId, c]));
  for (const [id, rpcUrl] of Object.entries(config.chainRpcUrls)) byId.set(Number(id), { chainId: Number(id), rpcUrl });
  return [...byId.values()].sort((a, b) => a.chainId - b.chainId);
}
