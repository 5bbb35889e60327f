/**
 * End to end with the official client, `@across-protocol/app-sdk`: a deposit nobody fills (the relayer is
 * off) expires and is refunded to its depositor on the origin chain by our dataworker. The SDK quotes and
 * deposits (`simulateDepositTx`, `waitForDepositTx`); `/deposit/status` goes `pending` → `expired` →
 * `refunded` with `depositRefundTxnRef` = the origin chain's refund leaf execution; the push stream
 * (`/deposits/status/stream`) delivers the same changes as they happen.
 */
import { createAcrossClient } from "@across-protocol/app-sdk";
import { loadArtifact, manifestToken, viemChain } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { type Crosschain, crosschainService } from "@platform/crosschain";
import { contextChains, quotesWarm } from "@platform/crosschain/testing";
import type { BackgroundJob } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { createWalletClient, erc20Abi, http, parseEventLogs, parseUnits } from "viem";
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
    config: {
      crosschainPollMs: 100,
      // The relayer is off, but its key still sizes the quote limits (its balances), as on a paused deployment.
      crosschainRelayer: false,
      crosschainRelayerKey: f.accounts.relayer.privateKey,
      crosschainSettlementKey: f.accounts.admin.privateKey,
      crosschainSettlementIntervalSec: 1,
      crosschainSettlementEndBlockBuffer: 0,
    },
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

interface StatusEvent {
  id: string;
  status: string;
  depositRefundTxnRef: string | null;
}

/** Reads the SSE stream into `events` until aborted. */
function follow(url: string, events: StatusEvent[], signal: AbortSignal) {
  return realFetch(url, { headers: { authorization: `Bearer ${s.apiKey}` }, signal }).then(async (res) => {
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const id = /^id: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (id && data) events.push({ id, ...(JSON.parse(data) as Omit<StatusEvent, "id">) });
      }
    }
  });
}

it("an unfilled deposit expires and is refunded on the origin chain, seen on /deposit/status and the push stream", async () => {
  const user = privateKeyToAccount(f.accounts.users[0]?.privateKey as `0x${string}`);
  const origin = f.chain(A);
  const dest = f.chain(B);
  const chains = [viemChain(A, origin.rpcUrl), viemChain(B, dest.rpcUrl)];
  const client = createAcrossClient({
    integratorId: "0xbeef",
    chains,
    rpcUrls: { [A]: origin.rpcUrl, [B]: dest.rpcUrl },
    pollingInterval: 100,
  });
  const usdc = manifestToken(origin, "USDC").address;
  const inputAmount = parseUnits("75", 6);
  const quote = await client.getQuote({
    route: {
      originChainId: A,
      destinationChainId: B,
      inputToken: usdc,
      outputToken: manifestToken(dest, "USDC").address,
    },
    inputAmount,
  });
  const balance = () =>
    f.publicClient(A).readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [user.address] });
  const before = await balance();

  const controller = new AbortController();
  const events: StatusEvent[] = [];
  const stream = follow(
    `${s.url}/api/deposits/status/stream?depositor=${user.address}`,
    events,
    controller.signal,
  ).catch((error: Error) => {
    if (error.name !== "AbortError") throw error;
  });

  const walletClient = createWalletClient({ account: user, chain: chains[0], transport: http(origin.rpcUrl) });
  const now = Number((await f.publicClient(B).getBlock()).timestamp);
  const approve = await walletClient.writeContract({
    address: usdc,
    abi: erc20Abi,
    functionName: "approve",
    args: [origin.contracts.spokePool, inputAmount],
    chain: chains[0],
  });
  await f.publicClient(A).waitForTransactionReceipt({ hash: approve });
  // A deadline seconds away, so the test does not wait the quote's hours for the expiry.
  const { request } = await client.simulateDepositTx({
    walletClient: walletClient as never,
    deposit: { ...quote.deposit, fillDeadline: now + 4 },
    integratorId: "0xbeef",
  });
  const depositTx = await walletClient.writeContract(request as never);
  const { depositId } = await client.waitForDepositTx({
    transactionHash: depositTx,
    originChainId: A,
    publicClient: f.publicClient(A) as never,
  });
  expect(await balance()).toBe(before - inputAmount);

  // Nobody fills; the deadline passes (the devnet's clocks are real time).
  const status = async () =>
    (await (
      await realFetch(`${s.url}/api/deposit/status?originChainId=${A}&depositId=${depositId}`, {
        headers: { authorization: `Bearer ${s.apiKey}` },
      })
    ).json()) as { status: string; depositRefundTxnRef: string | null };
  await vi.waitFor(async () => expect((await status()).status).toBe("expired"), { timeout: 30_000, interval: 250 });
  // A bundle judges expiry by the destination's end block timestamp, and this automine chain makes no block by
  // itself: each poll mines one, as a live chain would, so the refund never hangs on which block a bundle ended.
  const refunded = await vi
    .waitFor(
      async () => {
        await f.publicClient(B).request({ method: "evm_mine" as never });
        const r = await status();
        expect(r.status).toBe("refunded");
        return r;
      },
      { timeout: 60_000, interval: 500 },
    )
    .catch(async (error: Error) => {
      const bundles = await (
        await realFetch(`${s.url}/api/settlement/bundles`, { headers: { authorization: `Bearer ${s.apiKey}` } })
      ).text();
      throw new Error(`${error.message}; fill deadline ${now + 4}; bundles: ${bundles}`);
    });
  expect(await balance()).toBe(before);

  // The reference is the origin chain's execution of the refund leaf that pays this depositor.
  const receipt = await f
    .publicClient(A)
    .getTransactionReceipt({ hash: refunded.depositRefundTxnRef as `0x${string}` });
  const [executed] = parseEventLogs({
    abi: loadArtifact("Ethereum_SpokePool").abi,
    logs: receipt.logs,
    eventName: "ExecutedRelayerRefundRoot",
  });
  const refundArgs = executed?.args as unknown as { refundAddresses: string[]; chainId: bigint };
  expect(refundArgs.chainId).toBe(BigInt(A));
  expect(refundArgs.refundAddresses.map((a) => a.toLowerCase())).toContain(user.address.toLowerCase());

  // The stream saw pending, expired and refunded, in that order, with the same reference.
  await vi.waitFor(() => expect(events.map((e) => e.status)).toContain("refunded"), { timeout: 10_000 });
  controller.abort();
  await stream;
  const statuses = events.map((e) => e.status);
  expect(statuses.indexOf("pending")).toBeLessThan(statuses.indexOf("expired"));
  expect(statuses.indexOf("expired")).toBeLessThan(statuses.indexOf("refunded"));
  expect(events.find((e) => e.status === "refunded")?.depositRefundTxnRef).toBe(refunded.depositRefundTxnRef);
}, 120_000);
