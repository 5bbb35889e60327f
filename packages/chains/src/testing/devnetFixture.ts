import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@platform/kernel";
import type { Account, Chain, PublicClient, Transport, WalletClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { DevnetAccount, DevnetAccounts } from "../accounts.ts";
import { createChainClient, createChainWalletClient } from "../clients.ts";
import { httpRpc } from "../deploy.ts";
import { type Devnet, startDevnet } from "../devnet.ts";
import { type DevnetChainManifest, type DevnetManifest, manifestChain } from "../manifest.ts";

/** A devnet for one test file, with per-test isolation through evm_snapshot / evm_revert. */
export interface DevnetFixture {
  devnet: Devnet;
  manifest: DevnetManifest;
  accounts: DevnetAccounts;
  chain(chainId: number): DevnetChainManifest;
  publicClient(chainId: number): PublicClient;
  /** Wallet client signing locally with a devnet account (default: a fresh client for `account`). */
  walletClient(chainId: number, account: DevnetAccount): WalletClient<Transport, Chain, Account>;
  /** Takes a snapshot of every chain; `revert()` returns to it. */
  snapshot(): Promise<void>;
  /** Reverts every chain to the last snapshot and takes a fresh one (anvil consumes a snapshot on revert). */
  revert(): Promise<void>;
  stop(): Promise<void>;
}

/** Options of the fixture. */
export interface DevnetFixtureOptions {
  chainIds: number[];
  /** 0 (default) = automine only, so tests never wait for interval blocks. */
  blockTimeSec?: number;
  logger?: Logger;
}

/**
 * Starts the chains a test needs, in parallel, on ephemeral ports, with automine and no persistence.
 * The deployment itself is done once per machine and code version: the template state is cached in the OS
 * temp dir (keyed by artifacts + deployment code) and loaded by every chain, so a start costs well under a
 * second.
 */
export async function startDevnetFixture(opts: DevnetFixtureOptions): Promise<DevnetFixture> {
  const dataDir = mkdtempSync(join(tmpdir(), "devnet-fixture-"));
  const devnet = await startDevnet({
    dataDir,
    chainIds: opts.chainIds,
    ports: {},
    blockTimeSec: opts.blockTimeSec ?? 0,
    persist: false,
    logger: opts.logger,
  });
  const publicClients = new Map<number, PublicClient>();
  const snapshots = new Map<number, string>();
  const rpcs = new Map(devnet.chains.map((c) => [c.chainId, httpRpc(c.rpcUrl)]));

  const snapshot = async (): Promise<void> => {
    await Promise.all(
      [...rpcs].map(async ([chainId, rpc]) => {
        snapshots.set(chainId, await rpc<string>("evm_snapshot"));
      }),
    );
  };
  const revert = async (): Promise<void> => {
    await Promise.all(
      [...rpcs].map(async ([chainId, rpc]) => {
        const id = snapshots.get(chainId);
        if (id === undefined) throw new Error("revert() before snapshot()");
        if (!(await rpc<boolean>("evm_revert", [id]))) throw new Error(`evm_revert failed on chain ${chainId}`);
        snapshots.set(chainId, await rpc<string>("evm_snapshot"));
      }),
    );
  };

  return {
    devnet,
    manifest: devnet.manifest,
    accounts: devnet.manifest.accounts,
    chain: (chainId) => manifestChain(devnet.manifest, chainId),
    publicClient(chainId) {
      let c = publicClients.get(chainId);
      if (!c) {
        c = createChainClient({ chainId, rpcUrl: manifestChain(devnet.manifest, chainId).rpcUrl });
        publicClients.set(chainId, c);
      }
      return c;
    },
    walletClient: (chainId, account) =>
      createChainWalletClient({
        chainId,
        rpcUrl: manifestChain(devnet.manifest, chainId).rpcUrl,
        account: privateKeyToAccount(account.privateKey),
      }),
    snapshot,
    revert,
    async stop() {
      await devnet.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Vitest helper: starts the devnet in `beforeAll`, reverts every chain after each test, stops in `afterAll`.
 * Returns a getter because the fixture only exists once `beforeAll` has run.
 *
 * ```ts
 * const devnet = useDevnet({ chainIds: [10, 8453] });
 * it("...", async () => { const client = devnet().publicClient(10); ... });
 * ```
 */
export function useDevnet(opts: DevnetFixtureOptions): () => DevnetFixture {
  let fixture: DevnetFixture | undefined;
  beforeAll(async () => {
    fixture = await startDevnetFixture(opts);
    await fixture.snapshot();
  });
  afterEach(async () => {
    await fixture?.revert();
  });
  afterAll(async () => {
    await fixture?.stop();
  });
  return () => {
    if (!fixture) throw new Error("useDevnet(): the devnet is not started yet (use it inside tests/hooks)");
    return fixture;
  };
}
