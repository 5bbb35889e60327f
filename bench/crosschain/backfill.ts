/**
 * Indexer backfill benchmark: BENCH_BACKFILL_DEPOSITS real SpokePool deposits on one devnet chain (built
 * once, then reused from an anvil state dump in the temp directory), indexed from scratch into PostgreSQL,
 * as a ratio to the raw `eth_getLogs` rate of the same node with the same query, range size and RPC client
 * (goal ≥ 70 %); then the integrator-id pass over the stored deposits, timed on its own.
 *
 * The backfill runs as `platform start` runs it: ranges read on the reader threads (CROSSCHAIN_READER_THREADS,
 * default 2), rows written from the main thread. Each round also times what it is made of, so the ratio
 * can be read: the node alone (the same requests, replies read whole and dropped), the read path (the
 * node plus our reply scan, on as many threads as the indexer reads on, each one request at a time: the
 * ratio's baseline, with the indexer's own concurrency), the indexer with a store that discards its rows
 * (reading and decoding without PostgreSQL), and the backfill with ranges read in the main thread, with
 * the main thread's event-loop delay in both. bench/README, "Reading the crosschain backfill ratio",
 * explains what they show.
 */
import { existsSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { gunzipSync } from "node:zlib";
import { type BlockFetcher, createBlockFetcher, startAnvil } from "@platform/chains";
import { startDevnetFixture } from "@platform/chains/testing";
import { rpc } from "@platform/chainstats/testing";
import { crosschainService } from "@platform/crosschain";
import { contextChains, mineDeposits } from "@platform/crosschain/testing";
import {
  createDatabase,
  createLogger,
  kernelMigrations,
  loadConfig,
  type ModuleThread,
  migrate,
  startModuleThread,
} from "@platform/kernel";
import { createRpcTransport } from "../../packages/chains/src/indexing/rpcTransport.ts";
import { type SpokeChain, spokeChains } from "../../packages/crosschain/src/deployments.ts";
import { createIntegratorIdPass } from "../../packages/crosschain/src/indexer/integratorIds.ts";
import { type RangeReader, spokeAddresses, spokeLogFilter } from "../../packages/crosschain/src/indexer/rangeReader.ts";
import {
  createReaderThreadPool,
  createThreadedRangeReader,
  type ReaderThreadPool,
} from "../../packages/crosschain/src/indexer/readerThreads.ts";
import {
  createSpokePoolIndexer,
  TARGET_LOGS_PER_RANGE,
} from "../../packages/crosschain/src/indexer/spokePoolIndexer.ts";
import { createIndexerStore } from "../../packages/crosschain/src/store/indexerStore.ts";
import { createIntegratorIdStore } from "../../packages/crosschain/src/store/integratorIdStore.ts";
import { benchDatabaseUrl, preparePostgres } from "../chainstats/database.ts";
import { cpuMeter, round2 } from "../lib/cpuMeter.ts";
import { discardingStore } from "./discardingStore.ts";

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

/** The indexer's own query over blocks `from..to`. */
const logFilter = (chain: SpokeChain, from: bigint, to: bigint) => spokeLogFilter(spokeAddresses(chain), from, to);

/**
 * Calls `read(lane, from, to)` for each range of `blockRange` blocks up to `head` and times the whole:
 * range i on lane i mod `lanes`, each lane one range at a time (as the indexer spreads ranges over its
 * reader threads, with one eth_getLogs per thread in flight).
 */
async function timeRanges(
  head: bigint,
  blockRange: bigint,
  lanes: number,
  read: (lane: number, from: bigint, to: bigint) => Promise<number>,
) {
  const ranges: [bigint, bigint][] = [];
  for (let from = 0n; from <= head; from += blockRange)
    ranges.push([from, from + blockRange - 1n < head ? from + blockRange - 1n : head]);
  const cpu = cpuMeter(["anvil"]);
  const started = performance.now();
  let logs = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = lane; i < ranges.length; i += lanes) {
        const [from, to] = ranges[i] as [bigint, bigint];
        // Not `logs += await …`: that reads `logs` before the await and loses the other lanes' counts.
        const n = await read(lane, from, to);
        logs += n;
      }
    }),
  );
  return { logs, sec: (performance.now() - started) / 1000, cpuSec: cpu.read() };
}

/**
 * Raw `eth_getLogs` over the whole history: the indexer's query (same address and topics) through the
 * indexer's own read path (same HTTP, the same in-place read of the reply) on a module thread, where the
 * indexer reads too (readPathThread.ts); nothing else.
 */
function rawReads(threads: ModuleThread[], chain: SpokeChain, head: bigint, blockRange: bigint) {
  return timeRanges(head, blockRange, threads.length, (lane, from, to) =>
    (threads[lane] as ModuleThread).request<number>({ rpcUrl: chain.rpcUrl, filter: logFilter(chain, from, to) }),
  );
}

/**
 * The node alone: the same requests over the same HTTP transport, each reply read whole and dropped
 * (no scan, no JSON), so the time is the node's plus the bytes' transfer. Reports bytes, not logs.
 */
function nodeReads(chain: SpokeChain, head: bigint, blockRange: bigint, lanes: number) {
  const post = createRpcTransport({ url: chain.rpcUrl, timeoutMs: 120_000 });
  let id = 0;
  return timeRanges(head, blockRange, lanes, async (_lane, from, to) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "eth_getLogs",
      params: [logFilter(chain, from, to)],
    });
    return (await post(body)).length;
  });
}

/** Reader threads as `platform start` has them (CROSSCHAIN_READER_THREADS, default 2). */
const READER_THREADS = loadConfig({ env: process.env }).crosschainReaderThreads;

/** A range reader as the platform runs it: on `pool`'s reader threads, or in this thread with a pool of none. */
function readerFor(chain: SpokeChain, fetcher: BlockFetcher, pool: ReaderThreadPool): RangeReader {
  return createThreadedRangeReader({
    chainId: chain.chainId,
    addresses: spokeAddresses(chain),
    fetcher,
    rpcUrl: chain.rpcUrl,
    pool,
  });
}

/** The indexer from scratch with rows dropped (see discardingStore), to the head, reading on the reader thread. */
async function indexWithoutDatabase(chain: SpokeChain, range: number, pool: ReaderThreadPool) {
  const fetcher = createBlockFetcher({ rpcUrl: chain.rpcUrl, batchSize: 500, concurrency: 4 });
  const logger = createLogger({ level: "warn" });
  const reader = readerFor(chain, fetcher, pool);
  const store = discardingStore();
  const indexer = createSpokePoolIndexer({ chain, store, fetcher, reader, maxRange: range, logger });
  const cpu = cpuMeter(["anvil"]);
  const started = performance.now();
  while (!(await indexer.step())) {}
  const result = { sec: (performance.now() - started) / 1000, cpuSec: cpu.read() };
  await reader.close();
  return result;
}

/**
 * The indexer from scratch into a fresh PostgreSQL database, to the head; the database stays open. On a
 * pool with threads, ranges are read on them, as `platform start` does (CROSSCHAIN_READER_THREADS).
 * Also measures this (the main) thread's event-loop delay meanwhile: how long an API request sharing
 * the process would wait.
 */
async function indexFromScratch(chain: SpokeChain, range: number, pool: ReaderThreadPool) {
  if (!(await preparePostgres("bench_crosschain_backfill", true))) throw new Error("PostgreSQL is not answering");
  const db = await createDatabase({ url: benchDatabaseUrl("bench_crosschain_backfill"), dataDir: "memory" });
  await migrate(db, [...kernelMigrations(), ...crosschainService.migrations]);
  const fetcher = createBlockFetcher({ rpcUrl: chain.rpcUrl, batchSize: 500, concurrency: 4 });
  const logger = createLogger({ level: "warn" });
  const reader = readerFor(chain, fetcher, pool);
  const store = createIndexerStore(db);
  const indexer = createSpokePoolIndexer({ chain, store, fetcher, reader, maxRange: range, logger });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const cpu = cpuMeter(["anvil", "postgres"]);
  const started = performance.now();
  delay.enable();
  while (!(await indexer.step())) {}
  delay.disable();
  const sec = (performance.now() - started) / 1000;
  const cpuSec = cpu.read();
  await reader.close();
  const eventLoopDelayMs = { p99: round2(delay.percentile(99) / 1e6), max: round2(delay.max / 1e6) };
  const [row] = await db.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits");
  return { db, fetcher, logger, deposits: Number(row?.n), sec, cpuSec, eventLoopDelayMs };
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
    // Both kinds of threads start once, before any timing, as they do once per platform process: the
    // reader threads are one pool kept across the rounds (the indexers' readers share it), warmed by a
    // reader of its own. The baseline reads with the indexer's concurrency: one thread per reader thread.
    const lanes = Math.max(1, READER_THREADS);
    const readPath = Array.from({ length: lanes }, () =>
      startModuleThread(new URL("./readPathThread.ts", import.meta.url)),
    );
    const pool = createReaderThreadPool({ threads: READER_THREADS });
    const mainThread = createReaderThreadPool({ threads: 0 });
    const warm = createThreadedRangeReader({
      chainId: CHAIN,
      addresses: spokeAddresses(chain),
      fetcher: createBlockFetcher({ rpcUrl: chain.rpcUrl, batchSize: 100, concurrency: 1 }),
      rpcUrl: chain.rpcUrl,
      pool,
      inProcessMaxBlocks: 0n, // these one-block warm-up reads too go to the threads
    });
    await Promise.all([warm.read(0n, 0n), warm.read(1n, 1n), rawReads(readPath, chain, 1n, 1n)]);
    const results = [];
    let last: Awaited<ReturnType<typeof indexFromScratch>> | undefined;
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    for (let round = 0; round < rounds; round++) {
      await last?.db.close();
      const nodeOnly = await nodeReads(chain, head, blockRange, lanes);
      const raw = await rawReads(readPath, chain, head, blockRange);
      const noDatabase = await indexWithoutDatabase(chain, range, pool);
      const inProcess = await indexFromScratch(chain, range, mainThread);
      await inProcess.db.close();
      last = await indexFromScratch(chain, range, pool);
      // Every pass reads the same logs, so rates compare as inverse times (deposits ≈ logs: all are deposits).
      const perLog = last.deposits / raw.logs;
      const ratio = (raw.sec / last.sec) * perLog;
      const ratioToNode = (nodeOnly.sec / last.sec) * perLog;
      const noDatabaseRatio = raw.sec / noDatabase.sec;
      /** No schedule can beat the machine's busy CPU seconds spread over all its cores. */
      const cpuBoundSec = (last.cpuSec.machine ?? Number.NaN) / cpus;
      /** The longest backfill that still meets the goal of 70 % of the raw reads' rate. */
      const goalSec = raw.sec / 0.7 / perLog;
      results.push({
        raw,
        nodeOnly,
        noDatabase,
        inProcess,
        index: last,
        ratio,
        ratioToNode,
        noDatabaseRatio,
        cpuBoundSec,
        goalSec,
      });
      process.stdout.write(
        `  round ${round + 1}: node alone ${nodeOnly.sec.toFixed(2)} s, raw reads ${raw.sec.toFixed(2)} s, indexer without database ${noDatabase.sec.toFixed(2)} s (${pct(noDatabaseRatio)}), ` +
          `backfill ${last.sec.toFixed(2)} s = ${pct(ratio)} (${pct(ratioToNode)} of the node alone; 70 % needs ≤ ${goalSec.toFixed(2)} s, the machine's CPU work alone takes ≥ ${cpuBoundSec.toFixed(2)} s)\n` +
          `    main-thread event-loop delay p99/max: ${last.eventLoopDelayMs.p99}/${last.eventLoopDelayMs.max} ms; reading in process instead: backfill ${inProcess.sec.toFixed(2)} s, delay ${inProcess.eventLoopDelayMs.p99}/${inProcess.eventLoopDelayMs.max} ms\n` +
          `    CPU s: node alone ${JSON.stringify(nodeOnly.cpuSec)}, raw ${JSON.stringify(raw.cpuSec)}, without database ${JSON.stringify(noDatabase.cpuSec)}, backfill ${JSON.stringify(last.cpuSec)}, in process ${JSON.stringify(inProcess.cpuSec)}\n`,
      );
    }
    await warm.close();
    await pool.close();
    await Promise.all(readPath.map((t) => t.close()));
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
      /** The longest backfill that meets the goal (70 % of the raw reads' rate) in the median round. */
      goalSec: round2(median.goalSec),
      /**
       * CPU seconds while indexing: this process (HTTP, JSON, decoding, hashing, COPY text), the node,
       * PostgreSQL (when it runs on this machine) and the machine (at most 2 × indexSec on 2 cores).
       */
      cpuSec: median.index.cpuSec,
      /** The main thread's event-loop delay during the backfill (what an API request in the same process waits), ms. */
      eventLoopDelayMs: median.index.eventLoopDelayMs,
      /** The same backfill with ranges read in the main thread (CROSSCHAIN_READER_THREADS=0). */
      inProcess: {
        sec: round2(median.inProcess.sec),
        eventLoopDelayMs: median.inProcess.eventLoopDelayMs,
        cpuSec: median.inProcess.cpuSec,
      },
      integratorIdPass: { sec: round2(passSec), depositsPerSec: Math.round(deposits / passSec) },
    };
  } finally {
    await node.stop();
  }
}
