import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ChainEndpoint } from "@platform/kernel";
import type { Address, Hex } from "viem";
import type { DevnetAccounts } from "./accounts.ts";
import type { DevnetContracts, DevnetPool, DevnetToken, DevnetV3Pool } from "./deploy.ts";

/** What the devnet serves on one chain. */
export interface DevnetChainManifest {
  chainId: number;
  name: string;
  rpcUrl: string;
  /**
   * Hash of block 0. It stays the same across restarts (state is reloaded) and changes when the chain is
   * recreated (`reset`, lost state): an indexer compares it with `eth_getBlockByNumber(0)` to detect a reset.
   */
  genesisHash: Hex;
  genesisTimestamp: number;
  /** Interval mining period in seconds; 0 = a block per transaction only (automine). */
  blockTimeSec: number;
  /** The wrapped native token on this devnet chain (our WETH9). */
  wrappedNativeToken: Address;
  contracts: DevnetContracts;
  tokens: DevnetToken[];
  /** Uniswap V2 pairs. */
  pools: DevnetPool[];
  /** Uniswap V3 pools (full-range liquidity), separate so that readers of `pools` keep seeing V2 pairs only. */
  v3Pools: DevnetV3Pool[];
}

/** The deployment manifest written to `<dataDir>/devnet.json`. */
export interface DevnetManifest {
  /** Always true: everything here, the private keys above all, is for the local devnet only. */
  devnetOnly: true;
  warning: string;
  version: 1;
  generatedAt: string;
  /** Versions of the packages whose bytecode is deployed. */
  artifacts: Record<string, string>;
  /** Mnemonic the account keys derive from (anvil's public default). */
  mnemonic: string;
  /** The same accounts (and keys) on every chain. */
  accounts: DevnetAccounts;
  chains: DevnetChainManifest[];
}

export const DEVNET_WARNING =
  "DEVNET ONLY. These private keys are publicly known test keys (anvil's default mnemonic). " +
  "Anyone can spend funds sent to these addresses on a real network. Never use them outside the local devnet.";

/** Writes the manifest atomically (readers never see a half-written file). */
export function writeManifest(path: string, manifest: DevnetManifest): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Reads a manifest written by `startDevnet`, or undefined when there is none (or it is unreadable). */
export function readManifest(path: string): DevnetManifest | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const m = JSON.parse(readFileSync(path, "utf8")) as DevnetManifest;
    return m.devnetOnly === true && Array.isArray(m.chains) ? m : undefined;
  } catch {
    return undefined;
  }
}

/** A token of a chain by symbol (case-insensitive). */
export function manifestToken(chain: DevnetChainManifest, symbol: string): DevnetToken {
  const t = chain.tokens.find((x) => x.symbol.toLowerCase() === symbol.toLowerCase());
  if (!t) throw new Error(`token ${symbol} not on devnet chain ${chain.chainId}`);
  return t;
}

/** A chain of the manifest by id. */
export function manifestChain(manifest: DevnetManifest, chainId: number): DevnetChainManifest {
  const c = manifest.chains.find((x) => x.chainId === chainId);
  if (!c) throw new Error(`chain ${chainId} is not part of this devnet`);
  return c;
}

/** The chains of a devnet manifest as the platform hands them to services (RPC URL, contracts, tokens). */
export function manifestChainEndpoints(manifest: DevnetManifest | undefined): ChainEndpoint[] {
  return (manifest?.chains ?? []).map((c) => ({
    chainId: c.chainId,
    rpcUrl: c.rpcUrl,
    contracts: { ...c.contracts },
    tokens: c.tokens.map(({ symbol, address, decimals }) => ({ symbol, address, decimals })),
    wrappedNativeToken: c.wrappedNativeToken,
  }));
}
