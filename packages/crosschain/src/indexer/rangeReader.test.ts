/**
 * The range reader on the reader thread gives exactly what the in-process one gives (deposit rows byte
 * for byte, fill facts, blocks, bounding headers) on a real devnet chain, and passes on a node's refusal
 * of a log range as LogsRefusedError, so that the indexer halves the range in both cases.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createBlockFetcher } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { parseUnits } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spokeChains } from "../deployments.ts";
import { contextChains, fillDeposit, makeDeposit } from "../testing/spokePoolActions.ts";
import { createRangeReader, LogsRefusedError, type RangeReader, spokeAddresses } from "./rangeReader.ts";
import { createReaderThreadPool, createThreadedRangeReader, type ReaderThreadPool } from "./readerThreads.ts";

const A = 8453;
const B = 10;
let f: DevnetFixture;
let refusing: Server;
let refusingUrl: string;
const readers: RangeReader[] = [];
const pools: ReaderThreadPool[] = [];
/** A pool of reader threads, closed after the file. */
const poolOf = (threads: number, idleMs?: number) => {
  const pool = createReaderThreadPool({ threads, idleMs });
  pools.push(pool);
  return pool;
};
/** The one-thread pool the first tests' readers share. */
let shared: ReaderThreadPool;

beforeAll(async () => {
  f = await startDevnetFixture({ chainIds: [A, B] });
  for (let i = 0; i < 3; i++) {
    await makeDeposit(f, {
      origin: A,
      destination: B,
      inputAmount: parseUnits("2", 6),
      outputAmount: parseUnits("1.9", 6),
      user: i,
      message: i === 2 ? "0x1234" : undefined,
    });
    // A deposit from B to A, filled on A: the range of A then holds a FilledRelay too.
    if (i === 0) {
      const back = await makeDeposit(f, {
        origin: B,
        destination: A,
        inputAmount: parseUnits("2", 6),
        outputAmount: parseUnits("1.9", 6),
        user: 1,
      });
      await fillDeposit(f, back);
    }
  }
  // A node that answers everything but refuses eth_getLogs, as providers do for large ranges.
  const upstream = f.chain(A).rpcUrl;
  refusing = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", async () => {
      const parsed = JSON.parse(body) as { id: number; method?: string };
      res.setHeader("content-type", "application/json");
      if (!Array.isArray(parsed) && parsed.method === "eth_getLogs" && req.url === "/down") {
        res.statusCode = 503; // a node that is down, not one refusing the range
        res.end("{}");
        return;
      }
      if (!Array.isArray(parsed) && parsed.method === "eth_getLogs") {
        const error = { code: -32005, message: "query returned more than 10000 results" };
        res.end(JSON.stringify({ jsonrpc: "2.0", id: parsed.id, error }));
        return;
      }
      const answer = await fetch(upstream, { method: "POST", body, headers: { "content-type": "application/json" } });
      res.end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
  refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
  shared = poolOf(1);
});

afterAll(async () => {
  await Promise.all(readers.map((r) => r.close()));
  await Promise.all(pools.map((p) => p.close()));
  refusing?.close();
  await f?.stop();
});

const chainA = () =>
  spokeChains(contextChains(f)).find((c) => c.chainId === A) as ReturnType<typeof spokeChains>[number];

/** A reader's parameters for chain A through `rpcUrl`. */
const on = (rpcUrl = chainA().rpcUrl) => ({
  chainId: A,
  addresses: spokeAddresses(chainA()),
  fetcher: createBlockFetcher({ rpcUrl, batchSize: 50, concurrency: 1 }),
  rpcUrl,
});

function readersOn(rpcUrl: string) {
  const local = createRangeReader(on(rpcUrl));
  // Every range on the thread, however small (the devnet's are).
  const threaded = createThreadedRangeReader({ ...on(rpcUrl), pool: shared, inProcessMaxBlocks: 0n });
  readers.push(local, threaded);
  return { local, threaded };
}

it("reads the same range on the thread as in process: rows byte for byte, facts, blocks and headers", async () => {
  const { local, threaded } = readersOn(f.chain(A).rpcUrl);
  const head = await f.publicClient(A).getBlockNumber({ cacheTime: 0 }); // viem caches it otherwise
  const [here, there] = await Promise.all([local.read(0n, head), threaded.read(0n, head)]);
  expect(here.deposits.count).toBe(3);
  expect(here.facts.filter((x) => x.kind === "fill")).toHaveLength(1);
  expect(Buffer.from(there.deposits.bytes).equals(Buffer.from(here.deposits.bytes))).toBe(true);
  expect({ ...there, deposits: { ...there.deposits, bytes: null } }).toEqual({
    ...here,
    deposits: { ...here.deposits, bytes: null },
  });
  // Reads in a row, in order: the thread keeps one reader per chain.
  const halves = await Promise.all([threaded.read(0n, head / 2n), threaded.read(head / 2n + 1n, head)]);
  expect(halves[0].deposits.count + halves[1].deposits.count).toBe(3);
});

it("spreads successive ranges over several threads, which together read what one does", async () => {
  const twoThreads = poolOf(2);
  const two = createThreadedRangeReader({ ...on(), inProcessMaxBlocks: 0n, pool: twoThreads });
  const one = createThreadedRangeReader({ ...on(), inProcessMaxBlocks: 0n, pool: shared });
  readers.push(two, one);
  const head = await f.publicClient(A).getBlockNumber({ cacheTime: 0 });
  const whole = await one.read(0n, head);
  const parts = await Promise.all(Array.from({ length: Number(head) + 1 }, (_, n) => two.read(BigInt(n), BigInt(n))));
  expect(twoThreads.running()).toBe(2);
  expect(parts.map((r) => r.to)).toEqual(Array.from({ length: Number(head) + 1 }, (_, n) => BigInt(n)));
  const rows = Buffer.concat(parts.map((r) => r.deposits.bytes));
  expect(rows.equals(Buffer.from(whole.deposits.bytes))).toBe(true);
  expect(parts.flatMap((r) => r.facts)).toEqual(whole.facts);
});

it("reads small ranges (following the head) in the calling thread, and stops idle threads until the next catch-up", async () => {
  // A pool of its own, which the earlier tests' reads have not started.
  const pool = poolOf(1, 200);
  expect(pool.running()).toBe(0);
  const reader = createThreadedRangeReader({ ...on(), pool, inProcessMaxBlocks: 2n });
  readers.push(reader);
  const local = createRangeReader(on());
  const head = await f.publicClient(A).getBlockNumber({ cacheTime: 0 });
  expect((await reader.read(head - 1n, head)).to).toBe(head); // two blocks: in this thread
  expect(pool.running()).toBe(0);
  const big = await reader.read(0n, head); // a catch-up range: on the thread
  expect(pool.running()).toBe(1);
  expect(Buffer.from(big.deposits.bytes).equals(Buffer.from((await local.read(0n, head)).deposits.bytes))).toBe(true);
  await expect.poll(pool.running, { timeout: 5_000 }).toBe(0); // idle for 200 ms: stopped
  expect((await reader.read(0n, head)).deposits.count).toBe(big.deposits.count); // started again
  expect(pool.running()).toBe(1);
});

it("a node refusing the log range rejects with LogsRefusedError, on the thread as in process", async () => {
  const { local, threaded } = readersOn(refusingUrl);
  for (const reader of [local, threaded]) {
    const refused = reader.read(0n, 10n);
    await expect(refused).rejects.toBeInstanceOf(LogsRefusedError);
    await expect(refused).rejects.toThrow("more than 10000 results");
  }
});

it("a node that is down is not taken for one refusing the range: the range is not halved", async () => {
  const { local, threaded } = readersOn(`${refusingUrl}/down`);
  for (const reader of [local, threaded]) {
    const failed = reader.read(0n, 10n);
    await expect(failed).rejects.toThrow("HTTP 503");
    await expect(failed).rejects.not.toBeInstanceOf(LogsRefusedError);
  }
});
