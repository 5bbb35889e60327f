/**
 * Chain statistics benchmarks:
 * 1. ingest: the block indexer backfilling BENCH_BLOCKS blocks from anvil, as a ratio to the raw batched
 *    `eth_getBlockByNumber` rate of the same node with the same batch size and concurrency (goal ≥ 80 %),
 *    with the process RSS sampled through the backfill (goal: flat);
 * 2. query: `dailyavggaslimit` over 10 years of days, p50/p99 at one connection (goal p99 ≤ 5 ms) and
 *    req/s at 16 connections, as a ratio to a minimal Fastify route running the same SQL.
 * On PGlite, and on PostgreSQL when the local server answers.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chainstatsService, createIndexers } from "@platform/chainstats";
import { createDatabase, createLogger, kernelMigrations, loadConfig, migrate } from "@platform/kernel";
import { runLoad, startServerScript } from "../lib/processes.ts";
import { writeResults } from "../lib/results.ts";
import { benchDatabaseUrl, type Driver, preparePostgres } from "./database.ts";
import { CHAIN, startHistoryNode } from "./history.ts";

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20_000);
const BATCH = 100;
const CONCURRENCY = 4;
const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const rssMiB = () => Math.round(process.memoryUsage().rss / 1048576);

async function rawFetchRate(rpcUrl: string): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next <= BLOCKS) {
      const from = next;
      next += BATCH;
      const body = [];
      for (let n = from; n < from + BATCH && n <= BLOCKS; n++) {
        body.push({ jsonrpc: "2.0", id: n, method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] });
      }
      const res = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const replies = (await res.json()) as unknown[];
      if (replies.length !== body.length) throw new Error("short batch");
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (BLOCKS + 1) / ((performance.now() - started) / 1000);
}

async function ingest(driver: Driver, rpcUrl: string) {
  if (driver === "postgres") await preparePostgres("bench_chainstats_ingest", true);
  const db =
    driver === "postgres"
      ? await createDatabase({ url: benchDatabaseUrl("bench_chainstats_ingest"), dataDir: "memory" })
      : await createDatabase({ dataDir: mkdtempSync(join(tmpdir(), "bench-ingest-")) });
  await migrate(db, [...kernelMigrations(), ...chainstatsService.migrations]);
  const config = loadConfig({
    env: { LOG_LEVEL: "warn" },
    overrides: { chainstatsBatchSize: BATCH, chainstatsConcurrency: CONCURRENCY },
  });
  const [indexer] = createIndexers({
    config,
    db,
    logger: createLogger({ level: "warn" }),
    chains: [{ chainId: CHAIN, rpcUrl }],
  });
  if (!indexer) throw new Error("no indexer");
  const controller = new AbortController();
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(rssMiB()), 250);
  const started = performance.now();
  const run = indexer.run(controller.signal);
  while (indexer.status.state !== "following") {
    if (indexer.status.state === "error") throw new Error(indexer.status.lastError ?? "indexer error");
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  controller.abort();
  await run;
  clearInterval(sampler);
  await db.close();
  const third = Math.max(1, Math.floor(rss.length / 3));
  return {
    blocksPerSec: Math.round((BLOCKS + 1) / seconds),
    seconds: Math.round(seconds * 100) / 100,
    rssMiB: { first: rss[0], afterOneThird: rss[third], last: rss[rss.length - 1], max: Math.max(...rss) },
  };
}

async function query(driver: Driver) {
  const env = { BENCH_DRIVER: driver };
  const q = "module=stats&action=dailyavggaslimit&chainid=424242&startdate=2016-01-01&enddate=2025-12-31&sort=asc";
  const service = await startServerScript(here("./statsServer.ts"), env);
  const url = `${service.info.url}/v2/api?${q}&apikey=${service.info.key}`;
  await runLoad(url, { durationSec: 2, connections: 4 });
  const serviceLatency = await runLoad(url, { durationSec, connections: 1 });
  const serviceThroughput = await runLoad(url, { durationSec, connections: 16 });
  await service.stop();
  const baseline = await startServerScript(here("./baselineServer.ts"), env);
  const burl = `${baseline.info.url}/v2/api?${q}`;
  await runLoad(burl, { durationSec: 2, connections: 4 });
  const baselineLatency = await runLoad(burl, { durationSec, connections: 1 });
  const baselineThroughput = await runLoad(burl, { durationSec, connections: 16 });
  await baseline.stop();
  return {
    service: { p50: serviceLatency.p50, p99: serviceLatency.p99, rps: serviceThroughput.rps },
    baseline: { p50: baselineLatency.p50, p99: baselineLatency.p99, rps: baselineThroughput.rps },
    ratio: Math.round((serviceThroughput.rps / baselineThroughput.rps) * 1000) / 1000,
  };
}

const drivers: Driver[] = (await preparePostgres()) ? ["pglite", "postgres"] : ["pglite"];
// BENCH_PARTS=ingest or =query runs one half.
const parts = (process.env.BENCH_PARTS ?? "ingest,query").split(",");
const results: Record<string, unknown> = { blocks: BLOCKS, batch: BATCH, concurrency: CONCURRENCY };
if (parts.includes("ingest")) {
  process.stdout.write(`chainstats bench: ${BLOCKS} blocks of history\n`);
  const node = await startHistoryNode(BLOCKS);
  try {
    await rawFetchRate(node.rpcUrl); // warm-up
    const raw = Math.round(await rawFetchRate(node.rpcUrl));
    results.rawFetchBlocksPerSec = raw;
    for (const driver of drivers) {
      const r = await ingest(driver, node.rpcUrl);
      results[`ingest_${driver}`] = { ...r, ratio: Math.round((r.blocksPerSec / raw) * 1000) / 1000 };
      process.stdout.write(
        `ingest   ${driver.padEnd(8)} ${r.blocksPerSec} blocks/s vs raw fetch ${raw} blocks/s = ${((r.blocksPerSec / raw) * 100).toFixed(1)} %  RSS ${JSON.stringify(r.rssMiB)} MiB\n`,
      );
    }
  } finally {
    await node.stop();
  }
}
for (const driver of parts.includes("query") ? drivers : []) {
  const r = await query(driver);
  results[`query_${driver}`] = r;
  process.stdout.write(
    `query    ${driver.padEnd(8)} dailyavggaslimit 3,653 days: p50 ${r.service.p50} ms p99 ${r.service.p99} ms (1 conn), ` +
      `${r.service.rps} req/s (16 conn) vs baseline ${r.baseline.rps} req/s = ${(r.ratio * 100).toFixed(1)} %\n`,
  );
}
process.stdout.write(`written ${writeResults("chainstats", results)}\n`);
