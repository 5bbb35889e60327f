import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createLogger, type Logger } from "@platform/kernel";
import type { Hex } from "viem";
import { DEVNET_MNEMONIC, devnetAccounts } from "./accounts.ts";
import { type AnvilNode, AnvilStartError, startAnvil } from "./anvil.ts";
import { artifactVersions } from "./artifacts.ts";
import { executeTxs, httpRpc, planDeployment, plannedPools, plannedV3Pools, planPoolSeeding } from "./deploy.ts";
import { DEVNET_WARNING, type DevnetChainManifest, type DevnetManifest, writeManifest } from "./manifest.ts";
import { DEFAULT_DEVNET_CHAINS, DEFAULT_DEVNET_PORTS, devnetBlockTime, getChain } from "./registry.ts";
import { layoutDigest, readMeta, sleepToNextSecondAfter, writeMeta } from "./state.ts";
import { ensureTemplate } from "./template.ts";

/** Options of `startDevnet`. */
export interface StartDevnetOptions {
  /** Manifest at `<dataDir>/devnet.json`, chain state under `<dataDir>/devnet/`. */
  dataDir: string;
  /** Chains to run; default DEFAULT_DEVNET_CHAINS. */
  chainIds?: number[];
  /** RPC port per chain; default DEFAULT_DEVNET_PORTS; 0 (or a chain missing here) = ephemeral port. */
  ports?: Record<number, number>;
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** 'auto' (default) = max(2, chain's typical block time); 0 = automine only; n = interval of n seconds. */
  blockTimeSec?: number | "auto" | 0;
  /** Delete saved chain state first and start every chain from a fresh deployment. */
  reset?: boolean;
  /** Default true: load state from and save state to `<dataDir>/devnet/` (on stop and periodically). */
  persist?: boolean;
  /** Periodic state dump interval when persisting (covers anvil itself being killed); default 300 s. */
  stateIntervalSec?: number;
  /** Where the deployment template is cached; default the OS temp dir. */
  templateCacheDir?: string;
  /** Default true; false redeploys the template even when a cached one exists (benchmarks). */
  useTemplateCache?: boolean;
  /** pino-compatible; receives no private keys. */
  logger?: Logger;
  /** Per chain: "template" or "load-state", then "seed-pools" (cold only), then "ready". */
  onProgress?: (e: { chainId: number; step: string }) => void;
}

/** A running devnet. */
export interface Devnet {
  manifest: DevnetManifest;
  manifestPath: string;
  chains: { chainId: number; rpcUrl: string; pid: number }[];
  /** Stops every anvil (each writes its state when persisting); safe to call more than once. */
  stop(): Promise<void>;
}

interface Block0 {
  hash: Hex;
  timestamp: Hex;
}

function blockTimeFor(opt: StartDevnetOptions["blockTimeSec"], chainId: number): number {
  if (opt === undefined || opt === "auto") return devnetBlockTime(chainId);
  return opt;
}

/**
 * Starts one anvil per chain with the Across contracts, tokens and Uniswap V2 and V3 pools deployed and the
 * devnet accounts funded, writes the manifest, and returns a handle to stop it all.
 *
 * Cold start (no saved state): the deployment template (see template.ts) is loaded into every chain and
 * each chain then seeds its own pools. Warm start: each chain reloads its saved state, blocks included,
 * so balances, history and the genesis hash survive.
 */
export async function startDevnet(opts: StartDevnetOptions): Promise<Devnet> {
  const logger = opts.logger ?? createLogger({ level: "silent" });
  const progress = opts.onProgress ?? (() => {});
  const chainIds = opts.chainIds ?? DEFAULT_DEVNET_CHAINS;
  const host = opts.host ?? "127.0.0.1";
  const persist = opts.persist !== false;
  const ports = opts.ports ?? DEFAULT_DEVNET_PORTS;
  for (const id of chainIds) {
    if (!getChain(id)) throw new Error(`chain ${id} is not in the chain registry`);
  }
  if (new Set(chainIds).size !== chainIds.length) throw new Error("duplicate chain id in chainIds");

  const manifestPath = join(opts.dataDir, "devnet.json");
  const stateDir = join(opts.dataDir, "devnet");
  const statePath = (id: number) => join(stateDir, `chain-${id}.json`);
  const metaPath = (id: number) => join(stateDir, `chain-${id}.meta.json`);
  const accounts = devnetAccounts();
  const plan = planDeployment(accounts);
  const pools = plannedPools(plan);
  const v3Pools = plannedV3Pools(plan);
  const layout = layoutDigest(plan, pools, v3Pools);
  const prevMeta = new Map(chainIds.map((id) => [id, persist ? readMeta(metaPath(id)) : undefined]));

  // Decide per chain: reload its saved state (warm) or start from the template (cold).
  const warm = new Set<number>();
  if (persist) mkdirSync(stateDir, { recursive: true });
  for (const id of chainIds) {
    const file = statePath(id);
    if (!persist || !existsSync(file)) continue;
    if (opts.reset) {
      rmSync(file, { force: true });
    } else if (prevMeta.get(id)?.layout !== layout) {
      // The saved state comes from another deployment layout: its addresses would not match the manifest.
      logger.warn({ chainId: id }, "saved devnet state does not match the current deployment; starting fresh");
      rmSync(file, { force: true });
    } else {
      warm.add(id);
    }
  }

  // The template is needed only by chains starting cold; build or load it once, on first use.
  let template: Promise<string> | undefined;
  const templatePath = (): Promise<string> => {
    template ??= ensureTemplate({ cacheDir: opts.templateCacheDir, useCache: opts.useTemplateCache, logger }).then(
      (t) => t.path,
    );
    return template;
  };

  const nodes: AnvilNode[] = [];
  let stopped = false;
  const stopAll = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all(nodes.map((n) => n.stop()));
    logger.info({ chains: nodes.map((n) => n.chainId) }, "devnet stopped");
  };

  const launch = async (chainId: number, fromSavedState: boolean): Promise<AnvilNode> => {
    if (!fromSavedState) {
      progress({ chainId, step: "template" });
      const loadState = await templatePath();
      // A recreated chain needs a genesis hash different from its previous one (see state.ts).
      await sleepToNextSecondAfter(prevMeta.get(chainId)?.genesisTimestamp ?? 0);
      return startChainNode(chainId, loadState);
    }
    progress({ chainId, step: "load-state" });
    try {
      return await startChainNode(chainId, statePath(chainId));
    } catch (err) {
      if (!(err instanceof AnvilStartError) || /address already in use/i.test(err.stderr)) throw err;
      // Typically a state file cut short by a crash: better a fresh chain (a new genesis tells consumers)
      // than no devnet at all.
      logger.warn({ chainId, err: err.message }, "could not load saved devnet state; starting the chain fresh");
      warm.delete(chainId);
      rmSync(statePath(chainId), { force: true });
      return launch(chainId, false);
    }
  };
  const startChainNode = async (chainId: number, loadState: string): Promise<AnvilNode> => {
    const node = await startAnvil({
      chainId,
      port: ports[chainId] ?? 0,
      host,
      blockTimeSec: blockTimeFor(opts.blockTimeSec, chainId),
      loadState,
      dumpState: persist ? statePath(chainId) : undefined,
      stateIntervalSec: persist ? (opts.stateIntervalSec ?? 300) : undefined,
      logger,
    });
    nodes.push(node);
    return node;
  };

  const startChain = async (chainId: number): Promise<DevnetChainManifest> => {
    const blockTimeSec = blockTimeFor(opts.blockTimeSec, chainId);
    const node = await launch(chainId, warm.has(chainId));
    const isWarm = warm.has(chainId);
    const rpc = httpRpc(node.rpcUrl);
    if (!isWarm) {
      progress({ chainId, step: "seed-pools" });
      const nonce = Number(await rpc<Hex>("eth_getTransactionCount", [accounts.admin.address, "latest"]));
      await executeTxs(rpc, chainId, planPoolSeeding(plan, accounts.admin, nonce));
    }
    const block0 = await rpc<Block0>("eth_getBlockByNumber", ["0x0", false]);
    if (persist) {
      writeMeta(metaPath(chainId), {
        layout,
        genesisHash: block0.hash,
        genesisTimestamp: Number(block0.timestamp),
      });
    }
    const rpcUrl = node.rpcUrl;
    logger.info({ chainId, rpcUrl, pid: node.pid, warm: isWarm }, "devnet chain ready");
    progress({ chainId, step: "ready" });
    return {
      chainId,
      name: getChain(chainId)?.name ?? `Chain ${chainId}`,
      rpcUrl,
      genesisHash: block0.hash,
      genesisTimestamp: Number(block0.timestamp),
      blockTimeSec,
      wrappedNativeToken: plan.contracts.weth9,
      contracts: plan.contracts,
      tokens: plan.tokens,
      pools,
      v3Pools,
    };
  };

  try {
    // allSettled, not all: on a failure every node must be registered before stopAll() runs.
    const results = await Promise.allSettled(chainIds.map(startChain));
    const failure = results.find((r) => r.status === "rejected");
    if (failure) throw failure.reason;
    const chainManifests = results.map((r) => (r as PromiseFulfilledResult<DevnetChainManifest>).value);

    const manifest: DevnetManifest = {
      devnetOnly: true,
      warning: DEVNET_WARNING,
      version: 1,
      generatedAt: new Date().toISOString(),
      artifacts: artifactVersions(),
      mnemonic: DEVNET_MNEMONIC,
      accounts,
      chains: chainManifests,
    };
    writeManifest(manifestPath, manifest);
    logger.info({ manifestPath, chains: chainIds }, "devnet manifest written");
    const byId = new Map(nodes.map((n) => [n.chainId, n]));
    return {
      manifest,
      manifestPath,
      chains: chainManifests.map((c) => ({ chainId: c.chainId, rpcUrl: c.rpcUrl, pid: byId.get(c.chainId)?.pid ?? 0 })),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
