/**
 * End to end with the official client, `@across-protocol/app-sdk`: a devnet demo account asks our API
 * for routes and a quote, `executeQuote` approves and deposits on chain A, our relayer fills on chain B,
 * the recipient receives exactly the quoted output, and `/deposit/status` (also read by the SDK's
 * `getFillByDepositTx`) says filled with the fill transaction.
 * The SDK's requests reach our server through `support/acrossFetch.ts`.
 */
import { createAcrossClient } from "@across-protocol/app-sdk";
import { manifestToken, viemChain } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { type Crosschain, crosschainService } from "@platform/crosschain";
import { contextChains, quotesWarm } from "@platform/crosschain/testing";
import type { BackgroundJob } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { createWalletClient, erc20Abi, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { routeAcrossFetchTo } from "./support/acrossFetch.ts";

const A = 8453;
const B = 10;
let f: DevnetFixture;
let s: TestService<Crosschain>;
let jobs: BackgroundJob;
let fetchRoute: ReturnType<typeof routeAcrossFetchTo>;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  f = await startDevnetFixture({ chainIds: [A, B] });
  s = await startTestService(crosschainService, {
    chains: contextChains(f),
    config: { crosschainPollMs: 100, crosschainRelayerKey: f.accounts.relayer.privateKey },
  });
  jobs = await s.instance.startJobs();
  await quotesWarm(s.instance.quotes);
  fetchRoute = routeAcrossFetchTo(s.url, s.apiKey);
});

afterAll(async () => {
  fetchRoute?.restore();
  await jobs?.stop();
  await s?.close();
  await f?.stop();
});

it("routes → quote → executeQuote → filled by our relayer, exactly the quoted output", async () => {
  const user = privateKeyToAccount(f.accounts.users[0]?.privateKey as `0x${string}`);
  const recipient = f.accounts.users[2]?.address as `0x${string}`;
  const origin = f.chain(A);
  const dest = f.chain(B);
  const chains = [viemChain(A, origin.rpcUrl), viemChain(B, dest.rpcUrl)];
  const client = createAcrossClient({
    integratorId: "0xbeef",
    chains,
    rpcUrls: { [A]: origin.rpcUrl, [B]: dest.rpcUrl },
    pollingInterval: 100,
  });

  const routes = await client.getAvailableRoutes({ originChainId: A, destinationChainId: B });
  const usdcRoute = routes.find(
    (r) => r.inputTokenSymbol === "USDC" || (r as { originTokenSymbol?: string }).originTokenSymbol === "USDC",
  );
  expect(usdcRoute).toBeDefined();

  const inputAmount = parseUnits("250", 6);
  const quote = await client.getQuote({
    route: {
      originChainId: A,
      destinationChainId: B,
      inputToken: manifestToken(origin, "USDC").address,
      outputToken: manifestToken(dest, "USDC").address,
    },
    inputAmount,
    recipient,
  });
  expect(quote.deposit.spokePoolAddress.toLowerCase()).toBe(origin.contracts.spokePool.toLowerCase());
  expect(quote.deposit.outputAmount).toBeLessThan(inputAmount);

  const balance = () =>
    f.publicClient(B).readContract({
      address: manifestToken(dest, "USDC").address,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [recipient],
    });
  const before = await balance();
  // The SDK watches for the fill from ~100 blocks before the destination head (real chains are long);
  // give the fresh devnet chain that much history first.
  await f.publicClient(B).request({ method: "anvil_mine" as never, params: ["0x100"] as never });
  const walletClient = createWalletClient({ account: user, chain: chains[0], transport: http(origin.rpcUrl) });
  const result = await client.executeQuote({
    walletClient: walletClient as never,
    deposit: { ...quote.deposit, recipient },
    onProgress: () => {},
  });
  expect(result.depositId).toBeDefined();
  expect(result.fillTxReceipt?.status).toBe("success");
  expect(await balance()).toBe(before + quote.deposit.outputAmount);

  // Our indexer reports the fill (it polls the chains every 100 ms here).
  let status: { status?: string; fillTx?: string } = {};
  for (let i = 0; i < 100 && status.status !== "filled"; i++) {
    const res = await realFetch(`${s.url}/api/deposit/status?originChainId=${A}&depositId=${result.depositId}`, {
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    status = await res.json();
    if (status.status !== "filled") await new Promise((r) => setTimeout(r, 50));
  }
  expect(status).toMatchObject({ status: "filled", fillTx: result.fillTxReceipt?.transactionHash });

  // The SDK's indexer lookup: GET {indexerUrl}/deposit/status, answered by our service.
  const fill = await client.getFillByDepositTx({
    deposit: {
      depositId: result.depositId as bigint,
      depositTxHash: result.depositTxReceipt?.transactionHash,
      originChainId: A,
      destinationChainId: B,
      destinationSpokePoolAddress: dest.contracts.spokePool,
      message: "0x",
    },
    indexerUrl: "https://indexer.api.across.to",
  });
  expect(fill.fillTxReceipt.transactionHash).toBe(result.fillTxReceipt?.transactionHash);

  // The integrator id is read from the calldata by a pass one poll behind the event indexer.
  await vi.waitFor(
    async () => {
      const [deposit] = await (
        await realFetch(`${s.url}/api/deposits?depositor=${user.address}`, {
          headers: { authorization: `Bearer ${s.apiKey}` },
        })
      ).json();
      expect(deposit.integratorId).toBe("0xbeef");
    },
    { timeout: 5_000, interval: 100 },
  );
});
