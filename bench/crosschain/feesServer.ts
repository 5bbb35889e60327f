/**
 * The crosschain service with its chain-state cache warm on a two-chain devnet (PGlite), in its own
 * process, for the `/suggested-fees` benchmark. Prints READY {url, key, path}.
 */
import { manifestToken } from "@platform/chains";
import { startDevnetFixture } from "@platform/chains/testing";
import { crosschainService } from "@platform/crosschain";
import { contextChains } from "@platform/crosschain/testing";
import { startTestService } from "@platform/kernel/testing";

const f = await startDevnetFixture({ chainIds: [8453, 10] });
const s = await startTestService(crosschainService, {
  chains: contextChains(f),
  config: { crosschainRelayer: false, crosschainRelayerKey: f.accounts.relayer.privateKey },
});
const jobs = await s.instance.startJobs();
const input = manifestToken(f.chain(8453), "USDC").address;
const output = manifestToken(f.chain(10), "USDC").address;
const path = `/api/suggested-fees?originChainId=8453&destinationChainId=10&inputToken=${input}&outputToken=${output}&amount=250000000`;
// Wait for the cache: the first quote that answers 200.
for (let i = 0; i < 100; i++) {
  const res = await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${s.apiKey}` } });
  if (res.status === 200) break;
  await new Promise((r) => setTimeout(r, 100));
}
process.stdout.write(`READY ${JSON.stringify({ url: s.url, key: s.apiKey, path })}\n`);
process.on("SIGTERM", async () => {
  await jobs.stop();
  await s.close();
  await f.stop();
  process.exit(0);
});
