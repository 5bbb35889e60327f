/**
 * `platform relayer` as an operator runs it: the devnet in one process (`platform devnet`), the relayer
 * role alone in another (its own indexer, the manifest's relayer key); a demo user's deposit made with viem
 * is filled on the destination, and SIGTERM stops the relayer cleanly.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DevnetManifest, loadArtifact, manifestToken, viemChain } from "@platform/chains";
import { createPublicClient, createWalletClient, erc20Abi, http, maxUint256, pad, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type PlatformProcess, startCommandProcess } from "./support/platformProcess.ts";

const A = 8453;
const B = 10;
let devnet: PlatformProcess;
let relayer: PlatformProcess | undefined;
let dataDir: string;
let manifest: DevnetManifest;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "platform-relayer-e2e-"));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: "info" };
  devnet = await startCommandProcess(
    ["devnet"],
    { ...env, DEVNET_CHAINS: `${A},${B}`, DEVNET_PORTS: `${A}=0,${B}=0`, DEVNET_BLOCK_TIME: "0" },
    "Ctrl-C stops the devnet.",
  );
  manifest = JSON.parse(readFileSync(join(dataDir, "devnet.json"), "utf8"));
  relayer = await startCommandProcess(["relayer"], { ...env, CROSSCHAIN_POLL_MS: "100" }, "relayer role started");
}, 120_000);

afterAll(async () => {
  if (relayer?.child.exitCode === null) await relayer.stop("SIGKILL");
  if (devnet?.child.exitCode === null) await devnet.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it("fills a deposit made by hand on the devnet, and stops cleanly on SIGTERM", async () => {
  const origin = manifest.chains.find((c) => c.chainId === A) as DevnetManifest["chains"][number];
  const dest = manifest.chains.find((c) => c.chainId === B) as DevnetManifest["chains"][number];
  const user = privateKeyToAccount(manifest.accounts.users[0]?.privateKey as `0x${string}`);
  const originClient = createPublicClient({ chain: viemChain(A, origin.rpcUrl), transport: http(origin.rpcUrl) });
  const destClient = createPublicClient({ chain: viemChain(B, dest.rpcUrl), transport: http(dest.rpcUrl) });
  const wallet = createWalletClient({
    account: user,
    chain: viemChain(A, origin.rpcUrl),
    transport: http(origin.rpcUrl),
  });
  const usdcA = manifestToken(origin, "USDC").address;
  const usdcB = manifestToken(dest, "USDC").address;
  const balance = () =>
    destClient.readContract({ address: usdcB, abi: erc20Abi, functionName: "balanceOf", args: [user.address] });
  const before = await balance();

  await originClient.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: usdcA,
      abi: erc20Abi,
      functionName: "approve",
      args: [origin.contracts.spokePool, maxUint256],
    }),
  });
  const b32 = (a: string) => pad(a.toLowerCase() as `0x${string}`, { size: 32 });
  const now = Number((await originClient.getBlock()).timestamp);
  const deposit = await originClient.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: origin.contracts.spokePool,
      abi: loadArtifact("Ethereum_SpokePool").abi,
      functionName: "deposit",
      args: [
        b32(user.address),
        b32(user.address),
        b32(usdcA),
        b32(usdcB),
        parseUnits("100", 6),
        parseUnits("99", 6),
        BigInt(B),
        b32("0x0000000000000000000000000000000000000000"),
        now,
        now + 3600,
        0,
        "0x",
      ],
    }),
  });
  expect(deposit.status).toBe("success");

  for (let i = 0; i < 300 && (await balance()) === before; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await balance()).toBe(before + parseUnits("99", 6));

  expect(await relayer?.stop("SIGTERM")).toBe(0);
});
