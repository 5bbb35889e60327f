/**
 * `platform relayer [--no-indexer]`: the crosschain relayer role on its own, in the foreground, until
 * Ctrl-C. It fills pending deposits with CROSSCHAIN_RELAYER_KEY (on the devnet: the manifest's relayer),
 * keeps the chain state its fill costs need warm, and indexes the SpokePools itself unless `--no-indexer`
 * says other instances do. Chains: the devnet's (its manifest under DATA_DIR, written by `platform devnet`
 * or `platform start`) and CHAIN_RPC_URLS. Several relayers on one key share it through a lease: one fills,
 * the others stand by. A status line is logged every 10 s.
 */
import { join } from "node:path";
import { manifestChainEndpoints, readManifest } from "@platform/chains";
import { startCrosschainJobs } from "@platform/crosschain";
import type { Config } from "@platform/kernel";
import { refuseWhileEmbeddedPlatformRuns } from "../admin/adminSocket.ts";
import { resolveChains } from "../chainEndpoints.ts";
import { openPlatform } from "../openPlatform.ts";

const STATUS_EVERY_MS = 10_000;

export async function relayerCommand(config: Config, o: { indexer: boolean }): Promise<() => Promise<void>> {
  await refuseWhileEmbeddedPlatformRuns(config, "already runs the relayer");
  const manifest = readManifest(join(config.dataDir, "devnet.json"));
  const chains = resolveChains(config, manifestChainEndpoints(manifest));
  if (!chains.some((c) => c.contracts?.spokePool)) {
    throw new Error("No chain with a SpokePool: start the devnet (`platform devnet`) or describe your chains");
  }
  const relayerKey = config.crosschainRelayerKey ?? manifest?.accounts.relayer.privateKey;
  if (!relayerKey) throw new Error("Set CROSSCHAIN_RELAYER_KEY to the relayer's private key");
  const platform = await openPlatform({ ...config, crosschainRelayer: true, crosschainRelayerKey: relayerKey });
  const jobs = startCrosschainJobs(
    { config: platform.config, db: platform.db, logger: platform.logger, apiKeys: platform.apiKeys, chains },
    { indexers: o.indexer },
  );
  const relayer = jobs.relayer;
  if (!relayer) throw new Error("relayer not started");
  platform.logger.info(
    { address: relayer.status.address, chains: relayer.status.chains.map((c) => c.chainId), indexer: o.indexer },
    "relayer role started",
  );
  const timer = setInterval(() => {
    const s = relayer.status;
    platform.logger.info(
      {
        sent: s.sent,
        confirmed: s.confirmed,
        replaced: s.replaced,
        failed: s.failed,
        skips: s.skips,
        chains: Object.fromEntries(s.chains.map((c) => [c.chainId, c.state])),
      },
      "relayer status",
    );
  }, STATUS_EVERY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await jobs.stop();
    await platform.db.close();
  };
}
