/**
 * Where each chain's JSON-RPC answers, and what the devnet hands to services: the devnet manifest's chains
 * (when DEVNET is on and the devnet runs or ran on this data folder) overridden by CHAIN_RPC_URLS.
 *
 * With DEVNET=false the manifest is never read: a leftover `devnet.json` must not make a production
 * process talk to local chains, nor sign with the devnet's publicly known keys.
 */
import { join } from "node:path";
import { type DevnetManifest, readManifest } from "@platform/chains";
import type { ChainEndpoint, Config, PlatformContext } from "@platform/kernel";

export function resolveChains(config: Config, devnet: ChainEndpoint[] = []): ChainEndpoint[] {
  const byId = new Map<number, ChainEndpoint>(devnet.map((c) => [c.chainId, c]));
  for (const [id, rpcUrl] of Object.entries(config.chainRpcUrls)) byId.set(Number(id), { chainId: Number(id), rpcUrl });
  return [...byId.values()].sort((a, b) => a.chainId - b.chainId);
}

/** The devnet manifest under DATA_DIR (written by `platform devnet` or `platform start`); undefined with DEVNET=false. */
export function readDevnetManifest(config: Config): DevnetManifest | undefined {
  return config.devnet ? readManifest(join(config.dataDir, "devnet.json")) : undefined;
}

/** What services get of a devnet in their context (`PlatformContext.devnet`): its relayer's, signer's and admin's keys. */
export function devnetContext(manifest: DevnetManifest | undefined): PlatformContext["devnet"] {
  return manifest
    ? {
        relayerKey: manifest.accounts.relayer.privateKey,
        depositAddressSignerKey: manifest.accounts.signer?.privateKey,
        settlementKey: manifest.accounts.admin.privateKey,
      }
    : undefined;
}
