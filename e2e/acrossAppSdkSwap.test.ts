/**
 * End to end with the official client, `@across-protocol/app-sdk`: `getSwapQuote` asks our `/swap/approval`
 * and `executeSwapQuote` sends its approvals and transaction from a devnet user; our relayer fills, running the
 * destination swap and the embedded actions. Every route kind and trade type, WETH on one chain into DAI on the
 * other with a deposit into a vault the test deploys, and an action that fails (actionsSucceeded: false, the
 * bridged tokens to the fallback recipient as the MulticallHandler does).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAcrossClient } from "@across-protocol/app-sdk";
import { manifestToken, viemChain } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { type Crosschain, crosschainService } from "@platform/crosschain";
import { contextChains, quotesWarm } from "@platform/crosschain/testing";
import type { BackgroundJob } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { type Address, createWalletClient, erc20Abi, type Hex, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeAcrossFetchTo } from "./support/acrossFetch.ts";
import { paddedEstimates } from "./support/paddedWallet.ts";
import { compileTestVault, vaultDepositActions } from "./support/testVault.ts";

const A = 8453;
const B = 10;
let f: DevnetFixture;
let s: TestService<Crosschain>;
let jobs: BackgroundJob;
let fetchRoute: ReturnType<typeof routeAcrossFetchTo>;
let vault: Address;
const vaultArtifact = compileTestVault();

beforeAll(async () => {
  f = await startDevnetFixture({ chainIds: [A, B] });
  // USDC and WETH are the bridgeable tokens here, so that each route kind below is the best route for its pair
  // (with every token bridgeable, as on the default devnet routes, most pairs have two equally good kinds).
  const routesFile = join(mkdtempSync(join(tmpdir(), "swap-e2e-")), "routes.json");
  writeFileSync(
    routesFile,
    JSON.stringify({
      routes: [A, B].flatMap((from) =>
        ["USDC", "WETH"].map((originToken) => ({
          originChainId: from,
          destinationChainId: from === A ? B : A,
          originToken,
        })),
      ),
    }),
  );
  s = await startTestService(crosschainService, {
    chains: contextChains(f),
    config: {
      crosschainPollMs: 100,
      crosschainRelayerKey: f.accounts.relayer.privateKey,
      crosschainRoutesFile: routesFile,
    },
  });
  jobs = await s.instance.startJobs();
  await quotesWarm(s.instance.quotes);
  fetchRoute = routeAcrossFetchTo(s.url, s.apiKey);
  // The SDK watches for the fill from ~100 blocks before the destination head: give the fresh chain that much.
  await f.publicClient(B).request({ method: "anvil_mine" as never, params: ["0x100"] as never });
  const deployer = f.walletClient(B, f.accounts.users[2] as never);
  const hash = await deployer.deployContract({ abi: vaultArtifact.abi, bytecode: vaultArtifact.bytecode, args: [] });
  vault = (await f.publicClient(B).waitForTransactionReceipt({ hash })).contractAddress as Address;
});

afterAll(async () => {
  fetchRoute?.restore();
  await jobs?.stop();
  await s?.close();
  await f?.stop();
});

const tokenOf = (chainId: number, symbol: string) => manifestToken(f.chain(chainId), symbol).address;
const balanceOf = (chainId: number, token: Address, who: Address) =>
  f.publicClient(chainId).readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] });

function sdkFor(userIndex: number) {
  const account = privateKeyToAccount(f.accounts.users[userIndex]?.privateKey as Hex);
  const chains = [viemChain(A, f.chain(A).rpcUrl), viemChain(B, f.chain(B).rpcUrl)];
  const client = createAcrossClient({
    integratorId: "0xbeef",
    chains,
    rpcUrls: { [A]: f.chain(A).rpcUrl, [B]: f.chain(B).rpcUrl },
    pollingInterval: 100,
  });
  const walletClient = createWalletClient({ account, chain: chains[0], transport: paddedEstimates(f.chain(A).rpcUrl) });
  return { client, walletClient, account };
}

async function depositStatus(depositId: bigint) {
  const res = await fetchRoute.realFetch(`${s.url}/api/deposit/status?originChainId=${A}&depositId=${depositId}`, {
    headers: { authorization: `Bearer ${s.apiKey}` },
  });
  return (await res.json()) as { status: string; actionsSucceeded: boolean | null };
}

async function statusWhenFilled(depositId: bigint) {
  for (let i = 0; i < 200; i++) {
    const status = await depositStatus(depositId);
    if (status.status === "filled") return status;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`deposit ${depositId} not reported filled`);
}

const vaultBalance = (token: Address, owner: Address) =>
  f.publicClient(B).readContract({
    address: vault,
    abi: vaultArtifact.abi,
    functionName: "balances",
    args: [token, owner],
  }) as Promise<bigint>;

describe("app-sdk getSwapQuote + executeSwapQuote on the devnet", () => {
  it("swaps WETH into DAI on the other chain and deposits it into a vault with an embedded action", async () => {
    const { client, walletClient, account } = sdkFor(0);
    const dai = tokenOf(B, "DAI");
    const owner = f.accounts.users[2]?.address as Address;
    const quote = await client.getSwapQuote({
      route: { originChainId: A, inputToken: tokenOf(A, "WETH"), destinationChainId: B, outputToken: dai },
      amount: parseUnits("0.1", 18),
      depositor: account.address,
      recipient: owner,
      actions: vaultDepositActions(dai, vault, owner),
    });
    expect(quote.crossSwapType).toMatch(/ToAny$/);
    const before = await vaultBalance(dai, owner);
    const steps: string[] = [];
    const result = await client.executeSwapQuote({
      walletClient: walletClient as never,
      swapQuote: quote,
      onProgress: (p) => steps.push(`${p.step}/${p.status}`),
    });
    expect(result.fillTxReceipt?.status).toBe("success");
    expect(steps).toContain("fill/txSuccess");
    expect((await vaultBalance(dai, owner)) - before).toBeGreaterThanOrEqual(BigInt(quote.minOutputAmount));
    expect((await statusWhenFilled(result.depositId as bigint)).actionsSucceeded).toBe(true);
  });

  it("an action that fails leaves actionsSucceeded false and the bridged tokens with the fallback recipient", async () => {
    const { client, walletClient, account } = sdkFor(1);
    const dai = tokenOf(B, "DAI");
    const refundAddress = "0x00000000000000000000000000000000000f0110" as Address;
    const quote = await client.getSwapQuote({
      route: { originChainId: A, inputToken: tokenOf(A, "USDC"), destinationChainId: B, outputToken: dai },
      amount: parseUnits("40", 6),
      depositor: account.address,
      refundAddress,
      // No approval for the vault: its transferFrom reverts, so the handler's calls revert as a whole.
      actions: [
        {
          target: vault,
          functionSignature: "function deposit(address token, address owner, uint256 amount)",
          args: [{ value: dai }, { value: account.address }, { value: 1n }],
          value: 0n,
        },
      ],
    });
    const result = await client.executeSwapQuote({ walletClient: walletClient as never, swapQuote: quote });
    expect(result.fillTxReceipt?.status).toBe("success");
    expect((await statusWhenFilled(result.depositId as bigint)).actionsSucceeded).toBe(false);
    expect(await balanceOf(B, tokenOf(B, "USDC"), refundAddress)).toBe(BigInt(quote.steps.bridge.outputAmount));
  });

  const kinds: [string, string, string, "exactInput" | "minOutput" | "exactOutput", string][] = [
    ["bridgeableToBridgeable", "USDC", "USDC", "exactInput", "25"],
    ["anyToBridgeable", "USDT", "USDC", "minOutput", "60"],
    ["bridgeableToAny", "USDC", "DAI", "exactOutput", "30"],
    ["anyToAny", "USDT", "DAI", "exactInput", "90"],
  ];
  it.each(kinds)("%s: %s → %s, %s", async (kind, from, to, tradeType, amount) => {
    const { client, walletClient, account } = sdkFor(0);
    const output = tokenOf(B, to);
    const decimalsOf = (symbol: string) => (symbol === "DAI" || symbol === "WETH" ? 18 : 6);
    const decimals = decimalsOf(tradeType === "exactInput" ? from : to);
    const recipient = f.accounts.users[2]?.address as Address;
    const quote = await client.getSwapQuote({
      route: { originChainId: A, inputToken: tokenOf(A, from), destinationChainId: B, outputToken: output },
      amount: parseUnits(amount, decimals),
      tradeType,
      depositor: account.address,
      recipient,
    });
    expect(quote.crossSwapType).toBe(kind);
    expect(quote.amountType).toBe(tradeType);
    const before = await balanceOf(B, output, recipient);
    const result = await client.executeSwapQuote({ walletClient: walletClient as never, swapQuote: quote });
    expect(result.fillTxReceipt?.status).toBe("success");
    const received = (await balanceOf(B, output, recipient)) - before;
    expect(received).toBeGreaterThanOrEqual(BigInt(quote.minOutputAmount));
    if (tradeType === "exactOutput") expect(received).toBe(parseUnits(amount, decimals));
  });
});
