/**
 * RPC URLs carry API keys (`/v3/KEY`, `?apikey=`): with chains whose keyed RPC fails, neither the API's
 * answers nor the jobs' status show a key. The node here answers every request with HTTP 500 and an error
 * text naming its own URL, as some providers do.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BackgroundJob, ChainEndpoint } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type Crosschain, crosschainService } from "../index.ts";

const WETH = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const USDC = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const SPOKE = "0x0165878A594ca255338adfa4d48449f69242Eb8F";

let node: Server;
let s: TestService<Crosschain>;
let jobs: BackgroundJob | undefined;
let keyedUrl: string;

beforeAll(async () => {
  node = createServer((req, res) => {
    req.resume();
    res.statusCode = 500;
    res.end(`upstream failure for ${keyedUrl}`);
  });
  await new Promise<void>((resolve) => node.listen(0, "127.0.0.1", resolve));
  keyedUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}/v3/SECRETKEY?apikey=SECRET2`;
  const chain = (chainId: number): ChainEndpoint => ({
    chainId,
    rpcUrl: keyedUrl,
    contracts: { spokePool: SPOKE },
    tokens: [
      { symbol: "WETH", address: WETH, decimals: 18 },
      { symbol: "USDC", address: USDC, decimals: 6 },
    ],
    wrappedNativeToken: WETH,
  });
  s = await startTestService(crosschainService, {
    chains: [chain(10), chain(8453)],
    config: { crosschainPollMs: 50, crosschainReaderThreads: 0 },
  });
  jobs = await s.instance.startJobs?.();
});
afterAll(async () => {
  await jobs?.stop();
  await s?.close();
  node?.closeAllConnections();
  node?.close();
});

it("answers quotes on a chain whose keyed RPC fails without the key", async () => {
  const query = new URLSearchParams({
    inputToken: USDC,
    outputToken: USDC,
    originChainId: "10",
    destinationChainId: "8453",
    amount: "1000000",
  });
  const res = await fetch(`${s.url}/api/suggested-fees?${query}`, { headers: { authorization: `Bearer ${s.apiKey}` } });
  const text = await res.text();
  expect(res.status).toBeGreaterThanOrEqual(500);
  expect(JSON.parse(text)).toMatchObject({ type: "ServiceApiError", code: "UPSTREAM_RPC_ERROR" });
  expect(text).not.toContain("SECRET");
});

it("reports the failing RPC in the jobs' status by its origin only", async () => {
  const origin = new URL(keyedUrl).origin;
  await vi.waitFor(
    () => {
      const status = JSON.stringify(jobs?.status?.());
      expect(status).toContain(`${origin}/…`);
    },
    { timeout: 10_000, interval: 50 },
  );
  expect(JSON.stringify(jobs?.status?.())).not.toContain("SECRET");
});
