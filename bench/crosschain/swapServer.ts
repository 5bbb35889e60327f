/**
 * The crosschain service with its chain-state cache warm on a two-chain devnet (PGlite), in its own process,
 * for the `fees` and `swap` parts of the benchmark: prints READY {url, key, paths} with one path per route kind and the
 * `/suggested-fees` of the same transfer as the in-run reference.
 */
import { manifestToken } from "@platform/chains";
import { startDevnetFixture } from "@platform/chains/testing";
import { crosschainService } from "@platform/crosschain";
import { contextChains } from "@platform/crosschain/testing";
import { startTestService } from "@platform/kernel/testing";

const A = 8453;
const B = 10;
const f = await startDevnetFixture({ chainIds: [A, B] });
const s = await startTestService(crosschainService, {
  chains: contextChains(f),
  config: { crosschainRelayer: false, crosschainRelayerKey: f.accounts.relayer.privateKey },
});
const jobs = await s.instance.startJobs();
const token = (chainId: number, symbol: string) => manifestToken(f.chain(chainId), symbol).address;
const depositor = f.accounts.users[0]?.address as string;
const swap = (input: string, output: string, amount: string) =>
  `/api/swap/approval?originChainId=${A}&destinationChainId=${B}&inputToken=${token(A, input)}&outputToken=${token(B, output)}&amount=${amount}&depositor=${depositor}`;
const paths = {
  suggestedFees: `/api/suggested-fees?originChainId=${A}&destinationChainId=${B}&inputToken=${token(A, "USDC")}&outputToken=${token(B, "USDC")}&amount=250000000`,
  bridgeableToBridgeable: swap("USDC", "USDC", "250000000"),
  anyToBridgeable: swap("USDT", "USDC", "250000000"),
  bridgeableToAny: swap("USDC", "DAI", "250000000"),
  anyToAny: swap("USDT", "DAI", "250000000"),
};
// Wait for the cache: every path answering 200.
for (const path of Object.values(paths)) {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${s.apiKey}` } });
    if (res.status === 200) break;
    if (i === 99) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
process.stdout.write(`READY ${JSON.stringify({ url: s.url, key: s.apiKey, paths })}\n`);
process.on("SIGTERM", async () => {
  await jobs.stop();
  await s.close();
  await f.stop();
  process.exit(0);
});
