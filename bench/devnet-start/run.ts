/**
 * Devnet start-up benchmark: how long `startDevnet` takes to have the default 7 chains running with every
 * contract deployed, the pools seeded and the accounts funded.
 *
 * - cold, no cache: fresh data dir and the deployment template redeployed from scratch (first run on a machine);
 * - cold, cached template: fresh data dir, template loaded from the OS temp dir (every later cold start);
 * - warm: restart from the state saved by the previous run (the usual `npm start`).
 * Goals on a 2-core machine: cold <= 5 s, warm <= 2 s. Also reports the RSS of each anvil.
 *
 * `--growth N` additionally mines N empty blocks on one chain and reports RSS and state-dump growth per
 * block, extrapolated to a day of interval mining. `--soak S` runs the 7 chains with interval mining
 * (`--soak-block-time`, default 1 s) for S seconds and samples every anvil's RSS.
 *
 * Run: npx tsx bench/devnet-start/run.ts [--runs 3] [--growth 10000] [--soak 600 --soak-block-time 1]
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeResults } from "../lib/results.ts";

const args = process.argv.slice(2);
const argNum = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const RUNS = argNum("--runs", 3);
const GROWTH_BLOCKS = argNum("--growth", 0);
const SOAK_SEC = argNum("--soak", 0);
const SOAK_BLOCK_TIME = argNum("--soak-block-time", 1);
const GOALS = { coldSec: 5, warmSec: 2 };

const importStart = performance.now();
const { DEFAULT_DEVNET_CHAINS, startDevnet } = await import("../../packages/chains/src/index.ts");
const importMs = performance.now() - importStart;

function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m?.[1] ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

type Devnet = Awaited<ReturnType<typeof startDevnet>>;

/** Not timed: proves the start really produced a working deployment on every chain. */
async function verify(devnet: Devnet): Promise<void> {
  for (const c of devnet.manifest.chains) {
    for (const addr of [c.contracts.spokePool, c.contracts.uniswapV2Router02, ...c.pools.map((p) => p.pair)]) {
      const code = await rpc<string>(c.rpcUrl, "eth_getCode", [addr, "latest"]);
      if (code === "0x") throw new Error(`chain ${c.chainId}: no code at ${addr}`);
    }
  }
}

async function timedStart(opts: Parameters<typeof startDevnet>[0]): Promise<{ sec: number; devnet: Devnet }> {
  const t = performance.now();
  const devnet = await startDevnet(opts);
  const sec = (performance.now() - t) / 1000;
  await verify(devnet);
  return { sec, devnet };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

const base = { chainIds: DEFAULT_DEVNET_CHAINS, ports: {}, blockTimeSec: "auto" as const };
const cacheDir = mkdtempSync(join(tmpdir(), "bench-devnet-cache-"));
const coldNoCache: number[] = [];
const coldCached: number[] = [];
const warm: number[] = [];
let rss: Record<number, number> = {};
const dirs: string[] = [cacheDir];

try {
  for (let i = 0; i < RUNS; i++) {
    // Cold, nothing cached: the template is deployed on a scratch anvil first.
    const d1 = mkdtempSync(join(tmpdir(), "bench-devnet-"));
    dirs.push(d1);
    const a = await timedStart({ ...base, dataDir: d1, templateCacheDir: cacheDir, useTemplateCache: false });
    coldNoCache.push(a.sec);
    await a.devnet.stop();

    // Cold with the template cached (fresh data dir).
    const d2 = mkdtempSync(join(tmpdir(), "bench-devnet-"));
    dirs.push(d2);
    const b = await timedStart({ ...base, dataDir: d2, templateCacheDir: cacheDir });
    coldCached.push(b.sec);
    await b.devnet.stop();

    // Warm: restart from the state the previous run saved on stop.
    const c = await timedStart({ ...base, dataDir: d2, templateCacheDir: cacheDir });
    warm.push(c.sec);
    if (i === RUNS - 1) {
      await new Promise((r) => setTimeout(r, 500));
      rss = Object.fromEntries(c.devnet.chains.map((ch) => [ch.chainId, rssKb(ch.pid)]));
    }
    await c.devnet.stop();
  }

  let growth: Record<string, number> | undefined;
  if (GROWTH_BLOCKS > 0) {
    const d = mkdtempSync(join(tmpdir(), "bench-devnet-growth-"));
    dirs.push(d);
    const g = await startDevnet({ dataDir: d, chainIds: [10], ports: {}, blockTimeSec: 0, templateCacheDir: cacheDir });
    const chain = g.chains[0];
    if (!chain) throw new Error("no chain");
    await new Promise((r) => setTimeout(r, 300));
    const rss0 = rssKb(chain.pid);
    const t = performance.now();
    // anvil slows down when asked for huge batches: mine in chunks.
    for (let mined = 0; mined < GROWTH_BLOCKS; mined += 500) {
      await rpc(chain.rpcUrl, "anvil_mine", [`0x${Math.min(500, GROWTH_BLOCKS - mined).toString(16)}`]);
    }
    const mineSec = (performance.now() - t) / 1000;
    const rss1 = rssKb(chain.pid);
    await g.stop();
    const dumpBytes = statSync(join(d, "devnet", "chain-10.json")).size;
    const perDay = 86400 / 2; // blocks per day at the 2 s default interval
    growth = {
      blocks: GROWTH_BLOCKS,
      mineSec: round(mineSec, 1),
      rssStartKb: rss0,
      rssEndKb: rss1,
      rssKbPerBlock: round((rss1 - rss0) / GROWTH_BLOCKS),
      dumpBytesPerBlock: Math.round(dumpBytes / GROWTH_BLOCKS),
      extrapolatedRssMbPerDayAt2s: round((((rss1 - rss0) / GROWTH_BLOCKS) * perDay) / 1024, 1),
      extrapolatedDumpMbPerDayAt2s: round(((dumpBytes / GROWTH_BLOCKS) * perDay) / 1e6, 1),
    };
  }

  let soak:
    | { blockTimeSec: number; samples: { atSec: number; block: number; rssMb: Record<number, number> }[] }
    | undefined;
  if (SOAK_SEC > 0) {
    const d = mkdtempSync(join(tmpdir(), "bench-devnet-soak-"));
    dirs.push(d);
    const s = await startDevnet({ ...base, dataDir: d, blockTimeSec: SOAK_BLOCK_TIME, templateCacheDir: cacheDir });
    soak = { blockTimeSec: SOAK_BLOCK_TIME, samples: [] };
    const t0 = performance.now();
    for (;;) {
      const atSec = Math.round((performance.now() - t0) / 1000);
      const first = s.chains[0];
      const block = first ? Number(await rpc<string>(first.rpcUrl, "eth_blockNumber")) : 0;
      const rssMb = Object.fromEntries(s.chains.map((c) => [c.chainId, round(rssKb(c.pid) / 1024, 1)]));
      soak.samples.push({ atSec, block, rssMb });
      console.log(`  soak t=${atSec}s block=${block} rss=${JSON.stringify(rssMb)}`);
      if (atSec >= SOAK_SEC) break;
      await new Promise((r) => setTimeout(r, Math.min(30_000, SOAK_SEC * 1000 - (performance.now() - t0) + 50)));
    }
    await s.stop();
  }

  const summary = {
    chains: DEFAULT_DEVNET_CHAINS.length,
    importSec: round(importMs / 1000),
    coldNoCacheSec: { median: round(median(coldNoCache)), min: round(Math.min(...coldNoCache)) },
    coldCachedSec: { median: round(median(coldCached)), min: round(Math.min(...coldCached)) },
    warmSec: { median: round(median(warm)), min: round(Math.min(...warm)) },
    anvilRssMb: Object.fromEntries(Object.entries(rss).map(([k, v]) => [k, round(v / 1024, 1)])),
    goals: GOALS,
    coldGoalMet: median(coldNoCache) <= GOALS.coldSec,
    warmGoalMet: median(warm) <= GOALS.warmSec,
  };
  const file = writeResults("devnet-start", {
    summary,
    runs: { coldNoCache, coldCached, warm },
    growth,
    soak,
  });
  console.log(`devnet start, ${summary.chains} chains, ${RUNS} runs each (median / min):`);
  console.log(
    `  cold, no cache : ${summary.coldNoCacheSec.median} s / ${summary.coldNoCacheSec.min} s (goal <= ${GOALS.coldSec} s)`,
  );
  console.log(`  cold, cached   : ${summary.coldCachedSec.median} s / ${summary.coldCachedSec.min} s`);
  console.log(`  warm           : ${summary.warmSec.median} s / ${summary.warmSec.min} s (goal <= ${GOALS.warmSec} s)`);
  console.log(`  anvil RSS (MB) : ${JSON.stringify(summary.anvilRssMb)}`);
  if (growth) console.log(`  growth         : ${JSON.stringify(growth)}`);
  console.log(`  written to ${file}`);
  if (!summary.coldGoalMet || !summary.warmGoalMet) process.exitCode = 1;
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
