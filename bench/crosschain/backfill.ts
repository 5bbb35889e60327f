/**
 * Indexer backfill benchmark: BENCH_BACKFILL_DEPOSITS real SpokePool deposits on one devnet chain (built
 * once, then reused from an anvil state dump in the temp directory), indexed from scratch into PostgreSQL,
 * as a ratio to the raw `eth_getLogs` rate of the same node with the same query, range size and RPC client
 * (goal ≥ 70 %); then the integrator-id pass over the stored deposits, timed on its own.
 *
 * Each round also times what the backfill is made of, so the ratio can be read: the node alone (the same
 * requests, replies read whole and dropped), the read path (the node plus our reply scan: the ratio's
 * baseline), and the indexer with a store that discards its rows (reading and decoding without
 * PostgreSQL). bench/README, "Reading the crosschain backfill ratio", explains what they show.
 */
import { existsSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { createBlockFetcher, type LogFilter, startAnvil } from "@platform/chains";
import { startDevnetFixture } from "@platform/chains/testing";
import { rpc } from "@platform/chainstats/testing";
import { crosschainService } from "@platform/crosschain";
import { contextChains, mineDeposits } from "@platform/crosschain/testing";
import { createDatabase, createLogger, kernelMigrations, migrate } from "@platform/kernel";
import { createRpcTransport } from "../../packages/chains/src/indexing/rpcTransport.ts";
import { type SpokeChain, spokeChains } from "../../packages/crosschain/src/deployments.ts";
import { createIntegratorIdPass } from "../../packages/crosschain/src/indexer/integratorIds.ts";
import { CALLS_FAILED_TOPIC, SPOKE_TOPICS } from "../../packages/crosschain/src/indexer/spokePoolEvents.ts";
import {
  createSpokePoolIndexer,
  TARGET_LOGS_PER_RANGE,
} from "../../packages/crosschain/src/indexer/spokePoolIndexer.ts";
import {
  createIndexerStore,
  type IndexerCheckpoint,
  type IndexerStore,
} from "../../packages/crosschain/src/store/indexerStore.ts";
import { createIntegratorIdStore } from "../../packages/crosschain/src/store/integratorIdStore.ts";
import { benchDatabaseUrl, preparePostgres } from "../chainstats/database.ts";
import { cpuMeter, round2 } from "../lib/cpuMeter.ts";

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

/** The indexer's query over blocks `from..to`. */
const logFilter = (chain: SpokeChain, from: bigint, to: bigint): LogFilter => ({
  fromBlock: `0x${from.toString(16)}`,
  toBlock: `0x${to.toString(16)}`,
  address: [chain.spokePool, ...(chain.multicallHandler ? [chain.multicallHandler] : [])],
  topics: [[...SPOKE_TOPICS, CALLS_FAILED_TOPIC]],
});

/** Calls `read` for each range of `blockRange` blocks up to `head`, one after the other, and times the whole. */
async function timeRanges(head: bigint, blockRange: bigint, read: (from: bigint, to: bigint) => Promise<number>) {
  const cpu = cpuMeter(["anvil"]);
  const started = performance.now();
  let logs = 0;
  for (let from = 0n; from <= head; from += blockRange) {
    const to = from + blockRange - 1n < head ? from + blockRange - 1n : head;
    logs += await read(from, to);
  }
  return { logs, sec: (performance.now() - started) / 1000, cpuSec: cpu.read() };
}

/**
 * Raw `eth_getLogs` over the whole history: the indexer's query (same address and topics) through the
 * indexer's own RPC client (same HTTP, and the same in-place read of the reply), nothing else.
 */
function rawReads(rpcUrl: string, chain: SpokeChain, head: bigint, blockRange: bigint) {
  const fetcher = createBlockFetcher({ rpcUrl, batchSize: 500, concurrency: 4 });
  return timeRanges(head, blockRange, async (from, to) => (await fetcher.getLogs(logFilter(chain, from, to))).count);
}

/**
 * The node alone: the same requests over the same HTTP transport, each reply read whole and dropped
 * (no scan, no JSON), so the time is the node's plus the bytes' transfer. Reports bytes, not logs.
 */
function nodeReads(rpcUrl: string, chain: SpokeChain, head: bigint, blockRange: bigint) {
  const post = createRpcTransport({ url: rpcUrl, timeoutMs: 120_000 });
  let id = 0;
  return timeRanges(head, blockRange, async (from, to) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "eth_getLogs",
      params: [logFilter(chain, from, to)],
    });
    return (await post(body)).length;
  });
}

/**
 * A store that keeps the checkpoint and the tip's hash and drops the rows: the indexer timed with it
 * does all its reading and decoding (deposit rows, relay hashes) and no database work.
 */
function discardingStore(): IndexerStore {
  let checkpoint: IndexerCheckpoint | undefined;
  const tips = new Map<bigint, string>();
  const bytes = (hex: string) => Buffer.from(hex.slice(2), "hex");
  return {
    checkpoint: async () => checkpoint,
    async startOver(_chainId, spokePool, genesisHash, startBlock) {
      checkpoint = {
        next_block: String(startBlock),
        start_block: String(startBlock),
        genesis_hash: bytes(genesisHash),
        spoke_pool: bytes(spokePool),
      };
    },
    storedBlockHash: async (_chainId, n) => tips.get(n),
    async appendRange(_chainId, expectedNext, to, data) {
      if (!checkpoint || BigInt(checkpoint.next_block) !== expectedNext) return false;
      const end = data.blocks.find((b) => b.number === to);
      if (end) tips.set(to, end.hash);
      checkpoint.next_block = String(to + 1n);
      return true;
    },
    async rollbackTo() {
      throw new Error("the benchmark's chain does not reorganise");
    },
  };
}

/** The indexer from scratch with rows dropped (see discardingStore), to the head. */
async function indexWithoutDatabase(rpcUrl: string, chain: SpokeChain, range: number) {
  const fetcher = createBlockFetcher({ rpcUrl, batchSize: 500, concurrency: 4 });
  const logger = createLogger({ level: "warn" });
  const indexer = createSpokePoolIndexer({ chain, store: discardingStore(), fetcher, maxRange: range, logger });
  const cpu = cpuMeter(["anvil"]);
  const started = performance.now();
  while (!(await indexer.step())) {}
  return { sec: (performance.now() - started) / 1000, cpuSec: cpu.read() };
}

/** The indexer from scratch into a fresh PostgreSQL database, to the head; the database stays open. */
async function indexFromScratch(rpcUrl: string, chain: SpokeChain, range: number) {
  if (!(await preparePostgres("bench_crosschain_backfill", true))) throw new Error("PostgreSQL is not answering");
  const db = await createDatabase({ url: benchDatabaseUrl("bench_crosschain_backfill"), dataDir: "memory" });
  await migrate(db, [...kernelMigrations(), ...crosschainService.migrations]);
  const fetcher = createBlockFetcher({ rpcUrl, batchSize: 500, concurrency: 4 });
  const logger = createLogger({ level: "warn" });
  const indexer = createSpokePoolIndexer({ chain, store: createIndexerStore(db), fetcher, maxRange: range, logger });
  const cpu = cpuMeter(["anvil", "postgres"]);
  const started = performance.now();
  while (!(await indexer.step())) {}
  const sec = (performance.now() - started) / 1000;
  const cpuSec = cpu.read();
  const [row] = await db.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits");
  return { db, fetcher, logger, deposits: Number(row?.n), sec, cpuSec };
}

/**
 * `rounds` rounds of raw reads then a backfill from scratch, one after the other so that each ratio
 * compares runs seconds apart; the median round is reported (these 2-core machines drift by ±20 %
 * between minutes). Then the integrator-id pass over the last round's deposits, timed apart.
 */
export async function backfillBenchmark(count: number, range: number, rounds = 3) {
  if (!(await preparePostgres("bench_crosschain_backfill"))) return undefined; // each round starts afresh
  const { file, chains } = await depositHistory(count);
  const node = await startAnvil({ chainId: CHAIN, port: 0, pruneHistory: false, loadState: file }, 120_000);
  try {
    const chain = { ...(chains.find((c) => c.chainId === CHAIN) as SpokeChain), rpcUrl: node.rpcUrl };
    const head = BigInt(await rpc<string>(node.rpcUrl, "eth_blockNumber"));
    // Ranges of the size the indexer settles on (about TARGET_LOGS_PER_RANGE logs each).
    const blockRange = BigInt(Math.max(1, Math.floor(TARGET_LOGS_PER_RANGE / PER_BLOCK)));
    const cpus = availableParallelism();
    const results = [];
    let last: Awaited<ReturnType<typeof indexFromScratch>> | undefined;
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    for (let round = 0; round < rounds; round++) {
      await last?.db.close();
      const nodeOnly = await nodeReads(node.rpcUrl, chain, head, blockRange);
      const raw = await rawReads(node.rpcUrl, chain, head, blockRange);
      const noDatabase = await indexWithoutDatabase(node.rpcUrl, chain, range);
      last = await indexFromScratch(node.rpcUrl, chain, range);
      // Every pass reads the same logs, so rates compare as inverse times (deposits ≈ logs: all are deposits).
      const perLog = last.deposits / raw.logs;
      const ratio = (raw.sec / last.sec) * perLog;
      const ratioToNode = (nodeOnly.sec / last.sec) * perLog;
      const noDatabaseRatio = raw.sec / noDatabase.sec;
      /** No schedule can beat the machine's busy CPU seconds spread over all its cores. */
      const cpuBoundSec = (last.cpuSec.machine ?? Number.NaN) / cpus;
      results.push({ raw, nodeOnly, noDatabase, index: last, ratio, ratioToNode, noDatabaseRatio, cpuBoundSec });
      process.stdout.write(
        `  round ${round + 1}: node alone ${nodeOnly.sec.toFixed(2)} s, raw reads ${raw.sec.toFixed(2)} s, indexer without database ${noDatabase.sec.toFixed(2)} s (${pct(noDatabaseRatio)}), ` +
          `backfill ${last.sec.toFixed(2)} s = ${pct(ratio)} (${pct(ratioToNode)} of the node alone; machine CPU allows ≥ ${cpuBoundSec.toFixed(2)} s)\n` +
          `    CPU s: node alone ${JSON.stringify(nodeOnly.cpuSec)}, raw ${JSON.stringify(raw.cpuSec)}, without database ${JSON.stringify(noDatabase.cpuSec)}, backfill ${JSON.stringify(last.cpuSec)}\n`,
      );
    }
    if (!last) throw new Error("no round ran");
    const { db, fetcher, logger, deposits } = last;
    const pass = createIntegratorIdPass({ chainId: CHAIN, store: createIntegratorIdStore(db), fetcher, logger });
    const started = performance.now();
    while (!(await pass.step())) {}
    const passSec = (performance.now() - started) / 1000;
    await db.close();
    const median = [...results].sort((x, y) => x.ratio - y.ratio)[
      Math.floor(results.length / 2)
    ] as (typeof results)[number];
    return {
      deposits,
      logs: median.raw.logs,
      blocks: Number(head) + 1,
      rawBlockRange: Number(blockRange),
      rounds: results.map((r) => Math.round(r.ratio * 1000) / 1000),
      /** The median round's figures. */
      rawLogsPerSec: Math.round(median.raw.logs / median.raw.sec),
      indexedDepositsPerSec: Math.round(median.index.deposits / median.index.sec),
      ratio: Math.round(median.ratio * 1000) / 1000,
      rawSec: round2(median.raw.sec),
      indexSec: round2(median.index.sec),
      /** CPU seconds of the raw reads: this process (HTTP, JSON), the node, the machine. */
      rawCpuSec: median.raw.cpuSec,
      /** The same requests with each reply read whole and dropped: the node's own rate, and the backfill's ratio to it. */
      nodeOnlySec: round2(median.nodeOnly.sec),
      nodeOnlyBytes: median.nodeOnly.logs,
      nodeOnlyCpuSec: median.nodeOnly.cpuSec,
      ratioToNode: Math.round(median.ratioToNode * 1000) / 1000,
      /** The indexer with its rows dropped (reading and decoding, no database): time, CPU, ratio to the raw reads. */
      noDatabaseSec: round2(median.noDatabase.sec),
      noDatabaseCpuSec: median.noDatabase.cpuSec,
      noDatabaseRatio: Math.round(median.noDatabaseRatio * 1000) / 1000,
      /** The backfill's machine CPU seconds over the cores: no schedule of the same work finishes sooner. */
      cpuBoundSec: round2(median.cpuBoundSec),
      /**
       * CPU seconds while indexing: this process (HTTP, JSON, decoding, hashing, COPY text), the node,
       * PostgreSQL (when it runs on this machine) and the machine (at most 2 × indexSec on 2 cores).
       */
      cpuSec: median.index.cpuSec,
      integratorIdPass: { sec: round2(passSec), depositsPerSec: Math.round(deposits / passSec) },
    };
  } finally {
    await node.stop();
  }
}
