/**
 * Indexer backfill benchmark: BENCH_BACKFILL_DEPOSITS real SpokePool deposits on one devnet chain (built
 * once, then reused from an anvil state dump in the temp directory), indexed from scratch into PostgreSQL,
 * as a ratio to the raw `eth_getLogs` rate of the same node with the same query and range size (goal ≥ 70 %);
 * then the integrator-id pass over the stored deposits, timed on its own.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { createBlockFetcher, startAnvil } from "@platform/chains";
import { startDevnetFixture } from "@platform/chains/testing";
import { rpc } from "@platform/chainstats/testing";
import { crosschainService } from "@platform/crosschain";
import { contextChains, mineDeposits } from "@platform/crosschain/testing";
import { createDatabase, createLogger, kernelMigrations, migrate } from "@platform/kernel";
import { spokeChains } from "../../packages/crosschain/src/deployments.ts";
import { createIntegratorIdPass } from "../../packages/crosschain/src/indexer/integratorIds.ts";
import { CALLS_FAILED_TOPIC, SPOKE_TOPICS } from "../../packages/crosschain/src/indexer/spokePoolEvents.ts";
import {
  createSpokePoolIndexer,
  TARGET_LOGS_PER_RANGE,
} from "../../packages/crosschain/src/indexer/spokePoolIndexer.ts";
import { createIndexerStore } from "../../packages/crosschain/src/store/indexerStore.ts";
import { createIntegratorIdStore } from "../../packages/crosschain/src/store/integratorIdStore.ts";
import { benchDatabaseUrl, preparePostgres } from "../chainstats/database.ts";

const CHAIN = 8453;
/** About as many deposits as fit the devnet's 30M block gas limit. */
const PER_BLOCK = 120;

/** Builds (once) a chain holding `count` deposits, PER_BLOCK per block; returns its state file and the chain manifest. */
async function depositHistory(count: number) {
  const f = await startDevnetFixture({ chainIds: [CHAIN, 10] });
  const chains = spokeChains(contextChains(f));
  const file = join(tmpdir(), `platform-bench-deposits-${count}-${PER_BLOCK}.json`);
  if (existsSync(file)) {
    await f.stop();
    return { file, chains };
  }
  const url = f.chain(CHAIN).rpcUrl;
  await mineDeposits(f, {
    origin: CHAIN,
    destination: 10,
    count,
    perBlock: PER_BLOCK,
    onBlock: (done) => {
      if ((done / PER_BLOCK) % 100 === 0) process.stdout.write(`  deposits: ${done}/${count}\n`);
    },
  });
  // anvil_dumpState answers gzipped JSON as hex; `--load-state` reads the JSON itself.
  const dumped = await rpc<string>(url, "anvil_dumpState");
  writeFileSync(file, gunzipSync(Buffer.from(dumped.slice(2), "hex")));
  await f.stop();
  return { file, chains };
}

/** CPU seconds used since creation: by this process, and by the whole machine (Linux /proc/stat). */
function cpuMeter() {
  const machine = () => {
    try {
      const f = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
      return ((f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0)) / 100;
    } catch {
      return Number.NaN;
    }
  };
  const m0 = machine();
  const p0 = process.cpuUsage();
  return {
    read() {
      const p = process.cpuUsage(p0);
      const round = (x: number) => Math.round(x * 100) / 100;
      return { thisProcess: round((p.user + p.system) / 1e6), machine: round(machine() - m0) };
    },
  };
}

export async function backfillBenchmark(count: number, range: number) {
  if (!(await preparePostgres("bench_crosschain_backfill", true))) return undefined;
  const { file, chains } = await depositHistory(count);
  const node = await startAnvil({ chainId: CHAIN, port: 0, pruneHistory: false, loadState: file }, 120_000);
  try {
    const chain = { ...(chains.find((c) => c.chainId === CHAIN) as (typeof chains)[number]), rpcUrl: node.rpcUrl };
    const head = BigInt(await rpc<string>(node.rpcUrl, "eth_blockNumber"));
    // Raw: the indexer's eth_getLogs query (same address and topics) over ranges of the size the
    // indexer settles on (about TARGET_LOGS_PER_RANGE logs each), parsed, nothing else.
    const blockRange = BigInt(Math.max(1, Math.floor(TARGET_LOGS_PER_RANGE / PER_BLOCK)));
    let started = performance.now();
    let logs = 0;
    for (let from = 0n; from <= head; from += blockRange) {
      const to = from + blockRange - 1n < head ? from + blockRange - 1n : head;
      const r = await rpc<unknown[]>(node.rpcUrl, "eth_getLogs", [
        {
          fromBlock: `0x${from.toString(16)}`,
          toBlock: `0x${to.toString(16)}`,
          address: [chain.spokePool, ...(chain.multicallHandler ? [chain.multicallHandler] : [])],
          topics: [[...SPOKE_TOPICS, CALLS_FAILED_TOPIC]],
        },
      ]);
      logs += r.length;
    }
    const rawSec = (performance.now() - started) / 1000;
    // Indexer from scratch into PostgreSQL, then the integrator-id pass over what it stored.
    const db = await createDatabase({ url: benchDatabaseUrl("bench_crosschain_backfill"), dataDir: "memory" });
    await migrate(db, [...kernelMigrations(), ...crosschainService.migrations]);
    const fetcher = createBlockFetcher({ rpcUrl: node.rpcUrl, batchSize: 500, concurrency: 4 });
    const logger = createLogger({ level: "warn" });
    const indexer = createSpokePoolIndexer({
      chain,
      store: createIndexerStore(db),
      fetcher,
      maxRange: range,
      logger,
    });
    const cpu = cpuMeter();
    started = performance.now();
    while (!(await indexer.step())) {}
    const indexSec = (performance.now() - started) / 1000;
    const indexCpu = cpu.read();
    const pass = createIntegratorIdPass({ chainId: CHAIN, store: createIntegratorIdStore(db), fetcher, logger });
    started = performance.now();
    while (!(await pass.step())) {}
    const passSec = (performance.now() - started) / 1000;
    const [row] = await db.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits");
    await db.close();
    const deposits = Number(row?.n);
    return {
      deposits,
      logs,
      blocks: Number(head) + 1,
      rawBlockRange: Number(blockRange),
      rawLogsPerSec: Math.round(logs / rawSec),
      indexedDepositsPerSec: Math.round(deposits / indexSec),
      ratio: Math.round((deposits / indexSec / (logs / rawSec)) * 1000) / 1000,
      /** CPU seconds spent while indexing: this process (decode, hashing, COPY text) and the whole machine. */
      cpuSec: indexCpu,
      integratorIdPass: { sec: Math.round(passSec * 100) / 100, depositsPerSec: Math.round(deposits / passSec) },
    };
  } finally {
    await node.stop();
  }
}
