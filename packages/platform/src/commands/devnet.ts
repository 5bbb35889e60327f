/**
 * The devnet inside the platform: `platform start` runs it unless DEVNET=false or every devnet chain has
 * an external RPC (CHAIN_RPC_URLS); `platform devnet [--reset]` runs it alone.
 */
import { join } from "node:path";
import { DEFAULT_DEVNET_PORTS, type Devnet, manifestChainEndpoints, startDevnet } from "@platform/chains";
import {
  type ChainEndpoint,
  type Config,
  FolderLockedError,
  type Logger,
  lockFolder,
  onStopRequest,
} from "@platform/kernel";
import { commandName } from "../commandName.ts";

import { humanOutput } from "./banner.ts";
import { createTable } from "./table.ts";

export interface RunningDevnet {
  devnet: Devnet;
  chains: ChainEndpoint[];
  /** Lines for the banner. */
  summary: string[];
  stop(): Promise<void>;
}

/** The devnet chains this configuration runs (none when disabled or all are external). */
export function devnetChainIds(config: Config): number[] {
  if (!config.devnet) return [];
  return config.devnetChains.filter((id) => config.chainRpcUrls[id] === undefined);
}

/**
 * Starts the devnet chains of `config` (see {@link devnetChainIds}); undefined when there are none, in which
 * case nothing of DATA_DIR's devnet (manifest, saved state) is read. The chains' state folder has one owner:
 * it is locked until the devnet has stopped, and a second devnet on it fails naming the first.
 */
export async function startDevnetIfNeeded(
  config: Config,
  logger: Logger,
  options: { reset?: boolean } = {},
): Promise<RunningDevnet | undefined> {
  const chainIds = devnetChainIds(config);
  if (chainIds.length === 0) return undefined;
  const folder = join(config.dataDir, "devnet");
  const lock = await lockFolder(folder, { command: commandName(), servesAdmin: false }).catch((error: unknown) => {
    if (!(error instanceof FolderLockedError)) throw error;
    const who = error.holder ? `\`${error.holder.command}\` (pid ${error.holder.pid})` : "another process";
    throw new Error(`The devnet of ${config.dataDir} is run by ${who}; stop it first, or use another DATA_DIR`);
  });
  const started = performance.now();
  const devnet = await startDevnet({
    dataDir: config.dataDir,
    chainIds,
    host: config.host,
    ports: { ...DEFAULT_DEVNET_PORTS, ...config.devnetPorts },
    blockTimeSec: config.devnetBlockTime,
    reset: options.reset,
    logger: logger.child({ component: "devnet" }),
  }).catch(async (error: unknown) => {
    await lock.release();
    throw error;
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  logger.info({ chains: chainIds, seconds }, "devnet started");
  return {
    devnet,
    chains: manifestChainEndpoints(devnet.manifest),
    summary: [
      `Devnet: ${chainIds.length} anvil chains with the Across contracts, tokens and Uniswap V2 and V3 pools (${seconds} s).`,
      `Manifest (contract addresses, tokens, devnet-only account keys): ${devnet.manifestPath}`,
    ],
    stop: async () => {
      try {
        await devnet.stop();
      } finally {
        await lock.release();
      }
    },
  };
}

/** `platform devnet [--reset]`: the chains alone, until Ctrl-C. */
export async function devnetCommand(config: Config, logger: Logger, o: { reset?: boolean }) {
  const running = await startDevnetIfNeeded({ ...config, devnet: true }, logger, o);
  if (!running) throw new Error("Every devnet chain has an external RPC in CHAIN_RPC_URLS: nothing to run");
  const table = createTable(["chain id", "name", "JSON-RPC"]);
  for (const c of running.devnet.manifest.chains) table.push([String(c.chainId), c.name, c.rpcUrl]);
  const out = humanOutput(config);
  out.write(`\n${table.toString()}\n${running.summary.join("\n")}\n\nCtrl-C stops the devnet.\n`);
  await new Promise<void>((resolve) => onStopRequest(() => resolve()));
  out.write("\nStopping the devnet (saving chain state)...\n");
  await running.stop();
}
