/**
 * `platform relayer` as an operator runs it: the devnet in one process (`platform devnet`), the relayer
 * role alone in another (its own indexer, the manifest's relayer key); a demo user's deposit made with viem
 * is filled on the destination, and SIGTERM stops the relayer cleanly.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DevnetManifest, manifestChain, manifestToken } from "@platform/chains";
import { erc20Abi, parseUnits } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { demoUser, depositUsdcByHand, manifestClient } from "./support/manualDeposit.ts";
import { EPHEMERAL_PORTS, type PlatformProcess, startCommandProcess } from "./support/platformProcess.ts";

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
    { ...env, ...EPHEMERAL_PORTS, DEVNET_CHAINS: `${A},${B}`, DEVNET_BLOCK_TIME: "0" },
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
  const user = demoUser(manifest);
  const usdcB = manifestToken(manifestChain(manifest, B), "USDC").address;
  const destClient = manifestClient(manifestChain(manifest, B));
  const balance = () =>
    destClient.readContract({ address: usdcB, abi: erc20Abi, functionName: "balanceOf", args: [user.address] });
  const before = await balance();

  const deposit = await depositUsdcByHand(manifest, {
    origin: A,
    destination: B,
    amount: parseUnits("100", 6),
    outputAmount: parseUnits("99", 6),
  });
  expect(deposit.status).toBe("success");

  // anvil now and then refuses a call at "latest" while it mines ("block height is 5 but requested was
  // 4"): such a poll counts as "not yet".
  const polled = () => balance().catch(() => before);
  for (let i = 0; i < 300 && (await polled()) === before; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await balance()).toBe(before + parseUnits("99", 6));

  expect(await relayer?.stop("SIGTERM")).toBe(0);
});
