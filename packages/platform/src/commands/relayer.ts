/**
 * `platform relayer [--no-indexer]`: the crosschain relayer role on its own, in the foreground, until
 * Ctrl-C. It fills pending deposits with CROSSCHAIN_RELAYER_KEY (with DEVNET on and no key: the devnet
 * manifest's relayer), keeps the chain state its fill costs need warm, and indexes the SpokePools itself
 * unless `--no-indexer` says other instances do. Chains: the devnet's (its manifest under DATA_DIR, written
 * by `platform devnet` or `platform start`; never read with DEVNET=false) and CHAIN_RPC_URLS. Several
 * relayers on one key share it through a lease: one fills, the others stand by. A status line is logged
 * every 10 s.
 */
import { manifestChainEndpoints } from "@platform/chains";
import { createCrosschain } from "@platform/crosschain";
import { type Config, warnOfDevelopmentDefaults } from "@platform/kernel";
import { openPlatformOrExplain } from "../admin/platformAccess.ts";
import { devnetContext, readDevnetManifest, resolveChains } from "../chainEndpoints.ts";

const STATUS_EVERY_MS = 10_000;

export async function relayerCommand(config: Config, o: { indexer: boolean }): Promise<() => Promise<void>> {
  const manifest = readDevnetManifest(config);
  const devnet = devnetContext(manifest);
  if (!config.crosschainRelayerKey && !devnet) {
    throw new Error(
      config.devnet
        ? "Set CROSSCHAIN_RELAYER_KEY to the relayer's private key, or start the devnet (`platform devnet`) to fill with its relayer account"
        : "Set CROSSCHAIN_RELAYER_KEY to the relayer's private key (with DEVNET=false the devnet's accounts are never used)",
    );
  }
  const chains = resolveChains(config, manifestChainEndpoints(manifest));
  if (!chains.some((c) => c.contracts?.spokePool)) {
    throw new Error("No chain with a SpokePool: start the devnet (`platform devnet`) or describe your chains");
  }
  // On the embedded database this fails while a platform (which runs the relayer itself) owns the folder.
  const platform = await openPlatformOrExplain({ ...config, crosschainRelayer: true });
  warnOfDevelopmentDefaults(platform.config, platform.logger);
  const crosschain = await createCrosschain({
    config: platform.config,
    db: platform.db,
    logger: platform.logger,
    apiKeys: platform.apiKeys,
    chains,
    devnet,
  });
  const jobs = await crosschain.startJobs({ indexers: o.indexer });
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
    await crosschain.close();
    await platform.close();
  };
}
