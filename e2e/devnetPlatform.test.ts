/**
 * `platform start` with the devnet, as a user meets it: the chains come up next to the services, their
 * RPC URLs and the manifest are printed, a demo user from the manifest makes a real SpokePool deposit
 * with viem by hand, the chain statistics service indexes the devnet, and stopping leaves no anvil.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAcrossClient } from "@across-protocol/app-sdk";
import { type DevnetManifest, loadArtifact, manifestChain, manifestToken, viemChain } from "@platform/chains";
import { type Address, createWalletClient, type Hex, http, parseEventLogs, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeAcrossFetchTo } from "./support/acrossFetch.ts";
import { depositUsdcByHand, manifestClient } from "./support/manualDeposit.ts";
import { paddedEstimates } from "./support/paddedWallet.ts";
import { EPHEMERAL_PORTS, type PlatformProcess, runPlatform, startPlatformProcess } from "./support/platformProcess.ts";
import { compileTestVault, vaultDepositActions } from "./support/testVault.ts";

const CHAINS = [1337, 10];
let platform: PlatformProcess;
let manifest: DevnetManifest;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "platform-devnet-e2e-"));
  platform = await startPlatformProcess({
    DATA_DIR: dataDir,
    ...EPHEMERAL_PORTS,
    BROKERAGE_DATA_BACKFILL_DAYS: "0",
    DEVNET_CHAINS: CHAINS.join(","),
    DEVNET_BLOCK_TIME: "0",
    CHAINSTATS_POLL_MS: "100",
    LOG_LEVEL: "warn",
  });
  manifest = JSON.parse(readFileSync(join(dataDir, "devnet.json"), "utf8"));
});

afterAll(async () => {
  if (platform?.child.exitCode === null) await platform.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("platform start with the devnet", () => {
  it("prints the chains' RPC URLs and the manifest path", () => {
    const out = platform.output();
    expect(out).toContain(join(dataDir, "devnet.json"));
    for (const c of manifest.chains) expect(out).toContain(c.rpcUrl);
    expect(manifest.devnetOnly).toBe(true);
    expect(manifest.chains.map((c) => c.chainId).sort()).toEqual([...CHAINS].sort());
  });

  it("warns once of each development default in effect, naming the option to set in production", () => {
    const warnings = platform
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"development default in effect'))
      .map((line) => JSON.parse(line) as { level: number; option: string; production: string });
    expect(warnings.map((w) => w.option)).toEqual([
      "DEVNET",
      "CROSSCHAIN_RELAYER_KEY",
      "CROSSCHAIN_DEPOSIT_ADDRESS_KEY",
      "CROSSCHAIN_SETTLEMENT_KEY",
      "DATABASE_URL",
      "SECRETS_KEYS",
    ]);
    for (const w of warnings) expect(w).toMatchObject({ level: 40, production: expect.stringContaining(w.option) });
  });

  it("lets a demo user deposit on the SpokePool with viem by hand", async () => {
    const receipt = await depositUsdcByHand(manifest, {
      origin: 1337,
      destination: 10,
      amount: parseUnits("25", 6),
      outputAmount: parseUnits("24.9", 6),
    });
    const [event] = parseEventLogs({
      abi: loadArtifact("Ethereum_SpokePool").abi,
      logs: receipt.logs,
      eventName: "FundsDeposited",
    });
    expect(event?.args).toMatchObject({
      destinationChainId: 10n,
      inputAmount: parseUnits("25", 6),
      outputAmount: parseUnits("24.9", 6),
    });
  });

  it("indexes the devnet chains into the statistics API with the demo key", async () => {
    const head = Number(await manifestClient(manifestChain(manifest, 1337)).getBlockNumber());
    const today = new Date().toISOString().slice(0, 10);
    const url =
      `${platform.baseUrls.chainstats}?chainid=1337&module=stats&action=dailyblkcount` +
      `&startdate=2000-01-01&enddate=2100-01-01&apikey=${platform.demoKeys.chainstats}`;
    let body: { status: string; result: { UTCDate: string; blockCount: number }[] } | undefined;
    for (let i = 0; i < 100; i++) {
      body = await (await fetch(url)).json();
      const total = body?.status === "1" ? body.result.reduce((s, r) => s + r.blockCount, 0) : 0;
      if (total >= head + 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(body?.status).toBe("1");
    expect(body?.result.reduce((s, r) => s + r.blockCount, 0)).toBe(head + 1);
    expect(body?.result.map((r) => r.UTCDate)).toContain(today);
  });

  it("platform status shows every indexer following its chain and the relayer running", async () => {
    type ServiceStatus = { indexers: { chainId: number; state: string }[]; relayer?: { chains: { state: string }[] } };
    let status: { crosschain?: ServiceStatus; chainstats?: ServiceStatus } = {};
    for (let i = 0; i < 100; i++) {
      const r = await runPlatform(["status", "--json"], { DATA_DIR: dataDir });
      expect(r.code, r.stderr).toBe(0);
      status = JSON.parse(r.stdout);
      const states = [...(status.crosschain?.indexers ?? []), ...(status.chainstats?.indexers ?? [])].map(
        (x) => x.state,
      );
      const relaying = status.crosschain?.relayer?.chains.every((c) => c.state === "running");
      if (states.length === 2 * CHAINS.length && states.every((s) => s === "following") && relaying) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const service of ["crosschain", "chainstats"] as const) {
      expect(status[service]?.indexers.map((x) => [x.chainId, x.state]).sort()).toEqual(
        [...CHAINS].sort().map((id) => [id, "following"]),
      );
    }
    expect(status.crosschain?.relayer?.chains.map((c) => c.state)).toEqual(CHAINS.map(() => "running"));
    const table = await runPlatform(["status"], { DATA_DIR: dataDir });
    expect(table.stdout).toContain("Indexers");
    expect(table.stdout).toMatch(/Relayer 0x[0-9a-fA-F]{40}/);
  });

  it("the app-sdk swaps WETH on one chain into DAI on the other, deposited into a vault by an embedded action", async () => {
    const [from, to] = [1337, 10];
    const origin = manifestChain(manifest, from);
    const destination = manifestChain(manifest, to);
    const user = privateKeyToAccount(manifest.accounts.users[1]?.privateKey as Hex);
    const owner = manifest.accounts.users[2]?.address as Address;
    // A vault on the destination, deployed by a demo user (the action's target).
    const vault = compileTestVault();
    const deployer = createWalletClient({
      account: privateKeyToAccount(manifest.accounts.users[2]?.privateKey as Hex),
      chain: viemChain(to, destination.rpcUrl),
      transport: http(destination.rpcUrl),
    });
    const destinationClient = manifestClient(destination);
    const deployed = await destinationClient.waitForTransactionReceipt({
      hash: await deployer.deployContract({ abi: vault.abi, bytecode: vault.bytecode, args: [] }),
    });
    const vaultAddress = deployed.contractAddress as Address;
    // The SDK watches for the fill from ~100 blocks before the destination head.
    await destinationClient.request({ method: "anvil_mine" as never, params: ["0x100"] as never });

    const fetchRoute = routeAcrossFetchTo(
      (platform.baseUrls.crosschain as string).replace(/\/api$/, ""),
      platform.demoKeys.crosschain as string,
    );
    try {
      const chains = [viemChain(from, origin.rpcUrl), viemChain(to, destination.rpcUrl)];
      const client = createAcrossClient({
        integratorId: "0xbeef",
        chains,
        rpcUrls: { [from]: origin.rpcUrl, [to]: destination.rpcUrl },
        pollingInterval: 100,
      });
      const dai = manifestToken(destination, "DAI").address;
      const quote = await client.getSwapQuote({
        route: {
          originChainId: from,
          inputToken: manifestToken(origin, "WETH").address,
          destinationChainId: to,
          outputToken: dai,
        },
        amount: parseUnits("0.2", 18),
        depositor: user.address,
        recipient: owner,
        actions: vaultDepositActions(dai, vaultAddress, owner),
      });
      const walletClient = createWalletClient({
        account: user,
        chain: chains[0],
        transport: paddedEstimates(origin.rpcUrl),
      });
      const result = await client.executeSwapQuote({ walletClient: walletClient as never, swapQuote: quote });
      expect(result.fillTxReceipt?.status).toBe("success");
      const held = (await destinationClient.readContract({
        address: vaultAddress,
        abi: vault.abi,
        functionName: "balances",
        args: [dai, owner],
      })) as bigint;
      expect(held).toBeGreaterThanOrEqual(BigInt(quote.minOutputAmount));
    } finally {
      fetchRoute.restore();
    }
  });

  it("stops every anvil on SIGTERM", async () => {
    // pgrep without a shell, so that the only matches are the anvil processes of this data folder.
    const found = spawnSync("pgrep", ["-f", `anvil .*${dataDir}`], { encoding: "utf8" }).stdout;
    const pids = found.split("\n").filter(Boolean).map(Number);
    expect(pids.length).toBe(2);
    expect(await platform.stop("SIGTERM")).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});
