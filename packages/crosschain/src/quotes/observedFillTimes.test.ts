/**
 * The fill-time table from our own fills, on a real two-chain devnet: five deposits filled 3, 4, 6, 9 and
 * 30 s after their deposit blocks give a p75 of 9 s for the route, which `/suggested-fees` then reports
 * as `estimatedFillTimeSec` (other routes keep the 10 s default).
 */
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { erc20Abi, type Hex, maxUint256, parseUnits } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spokeChains } from "../deployments.ts";
import { type Crosschain, crosschainService } from "../index.ts";
import { startSpokePoolIndexers } from "../indexer/spokePoolIndexer.ts";
import { contextChains, fillDeposit, makeDeposit, quotesWarm } from "../testing/spokePoolActions.ts";
import { readObservedFillTimes } from "./observedFillTimes.ts";

const A = 8453;
const B = 10;
let f: DevnetFixture;
let s: TestService<Crosschain>;
let indexers: ReturnType<typeof startSpokePoolIndexers>;

beforeAll(async () => {
  f = await startDevnetFixture({ chainIds: [A, B] });
  const chains = contextChains(f);
  s = await startTestService(crosschainService, {
    chains,
    config: { crosschainPollMs: 50, crosschainRelayerKey: f.accounts.relayer.privateKey },
  });
  indexers = startSpokePoolIndexers({ ...s.context, chains: spokeChains(chains) });
});

afterAll(async () => {
  await indexers?.stop();
  await s?.close();
  await f?.stop();
});

it("p75 of fill block time − deposit block time per route becomes estimatedFillTimeSec", async () => {
  // One approval for all fills, so that chain B mines only the pinned fill blocks (whose times rise):
  // an approval block at wall-clock time could land after the next pinned time.
  const usdcB = f.chain(B).tokens.find((t) => t.symbol === "USDC")?.address as Hex;
  await f.publicClient(B).waitForTransactionReceipt({
    hash: await f.walletClient(B, f.accounts.relayer).writeContract({
      address: usdcB,
      abi: erc20Abi,
      functionName: "approve",
      args: [f.chain(B).contracts.spokePool, maxUint256],
    }),
  });
  for (const delay of [3, 4, 6, 9, 30]) {
    const d = await makeDeposit(f, {
      origin: A,
      destination: B,
      inputAmount: parseUnits("10", 6),
      outputAmount: parseUnits("9.9", 6),
    });
    // The fill's block on the destination is mined exactly `delay` seconds after the deposit's block.
    await fillDeposit(f, d, { blockTimestamp: d.blockTimestamp + delay });
  }
  const chains = spokeChains(contextChains(f));
  const nowSec = Math.floor(Date.now() / 1000) + 60;
  let table = await readObservedFillTimes(s.context.db, chains, nowSec);
  for (let i = 0; i < 200 && table.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 50)); // the indexer stores the fills
    table = await readObservedFillTimes(s.context.db, chains, nowSec);
  }
  expect(table).toEqual([
    expect.objectContaining({
      originChains: ["8453"],
      destinationChains: ["10"],
      tokenGroups: ["USDC"],
      fillTimeSec: 9,
    }),
  ]);

  await s.instance.quotes.observedFillTimes.refresh();
  await quotesWarm(s.instance.quotes);
  const quote = async (symbol: string) => {
    const token = (chainId: number) => f.chain(chainId).tokens.find((t) => t.symbol === symbol)?.address;
    const res = await fetch(
      `${s.url}/api/suggested-fees?originChainId=${A}&destinationChainId=${B}&inputToken=${token(A)}&outputToken=${token(B)}&amount=${symbol === "USDC" ? 5_000_000 : 5n * 10n ** 18n}`,
      { headers: { authorization: `Bearer ${s.apiKey}` } },
    );
    return (await res.json()) as { estimatedFillTimeSec: number };
  };
  expect((await quote("USDC")).estimatedFillTimeSec).toBe(9);
  expect((await quote("DAI")).estimatedFillTimeSec).toBe(10);
});
