/**
 * Deposit visibility latency: real deposits on a devnet chain, timed from the moment the deposit's
 * receipt is available (its block is mined) to the first `/deposit/status` answer that knows it.
 */
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { crosschainService } from "@platform/crosschain";
import { contextChains, makeDeposit } from "@platform/crosschain/testing";
import { startTestService } from "@platform/kernel/testing";
import { parseUnits } from "viem";

export interface LatencySummary {
  samples: number;
  medianMs: number;
  p95Ms: number;
}

const summarize = (xs: number[]): LatencySummary => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  return { samples: s.length, medianMs: Math.round(at(0.5)), p95Ms: Math.round(at(0.95)) };
};

export async function depositLatencies(samples: number, withRelayer: boolean) {
  const f: DevnetFixture = await startDevnetFixture({ chainIds: [8453, 10] });
  const s = await startTestService(crosschainService, {
    chains: contextChains(f),
    config: { crosschainRelayer: withRelayer, crosschainRelayerKey: f.accounts.relayer.privateKey },
  });
  const jobs = await s.instance.startJobs();
  const visible: number[] = [];
  const filled: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      // A 1 % fee: more than the relayer's gas cost at devnet gas prices, so it fills.
      const d = await makeDeposit(f, {
        origin: 8453,
        destination: 10,
        inputAmount: parseUnits("100", 6),
        outputAmount: parseUnits("99", 6),
      });
      const mined = performance.now();
      const url = `${s.url}/api/deposit/status?originChainId=8453&depositId=${d.depositId}`;
      let seen = false;
      for (;;) {
        const res = await fetch(url, { headers: { authorization: `Bearer ${s.apiKey}` } });
        const body = res.status === 200 ? await res.json() : undefined;
        if (body && !seen) {
          visible.push(performance.now() - mined);
          seen = true;
        }
        if (!withRelayer && seen) break;
        if (body?.status === "filled") {
          filled.push(performance.now() - mined);
          break;
        }
        if (performance.now() - mined > 30_000) throw new Error("deposit not visible/filled within 30 s");
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  } finally {
    await jobs.stop();
    await s.close();
    await f.stop();
  }
  return { visibility: summarize(visible), fill: filled.length ? summarize(filled) : undefined };
}
