/**
 * The chain statistics service end to end: a real anvil chain with a history over several UTC days,
 * the real indexer, and the Etherscan-style API over HTTP, checked against figures computed
 * independently from the raw blocks.
 */
import { type AnvilNode, startAnvil } from "@platform/chains";
import type { BackgroundJob } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chainstats, chainstatsService } from "./index.ts";
import { expectedDays, mineHistory, type PlannedBlock, rpc } from "./testing/chainHistory.ts";

const CHAIN = 1337;
const DAY = 86_400;
const GENESIS = Date.UTC(2026, 0, 1, 0, 0, 0) / 1000; // 2026-01-01T00:00:00Z

let anvil: AnvilNode;
let s: TestService<Chainstats>;
let jobs: BackgroundJob;

/** Day 1: 6 blocks at varying gas limits; day 2: 5 blocks; day 3: none; day 4: 4 blocks. */
function history(): PlannedBlock[] {
  const blocks: PlannedBlock[] = [];
  const limits = [30_000_000, 30_000_001, 29_999_999, 36_000_000, 15_000_000, 30_000_000];
  for (const [i, gasLimit] of limits.entries())
    blocks.push({ timestamp: GENESIS + 600 + i * 1_237, gasLimit, txs: i % 3 });
  for (let i = 0; i < 5; i++)
    blocks.push({ timestamp: GENESIS + DAY + 5 + i * 3_001, gasLimit: 20_000_000 + i * 7, txs: i });
  for (let i = 0; i < 4; i++)
    blocks.push({ timestamp: GENESIS + 3 * DAY + 100 + i * 13, gasLimit: 45_000_000 - i, txs: 1 });
  return blocks;
}

async function indexedUpTo(head: number, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const [row] = await s.database.db.query<{ next_block: string }>(
      "SELECT next_block FROM chainstats.chains WHERE chain_id = $1",
      [CHAIN],
    );
    if (row && Number(row.next_block) === head + 1) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`indexer did not reach block ${head}`);
}

// A professional key (30 calls/s) for the tests that are not about rate limits.
let key: string;
const api = async (params: Record<string, string | undefined>, apiKey: string | null = key) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ chainid: String(CHAIN), module: "stats", ...params }))
    if (v !== undefined) q.set(k, v);
  if (apiKey) q.set("apikey", apiKey);
  const res = await fetch(`${s.url}/v2/api?${q}`);
  expect(res.status).toBe(200);
  return res.json();
};

const stats = (action: string, extra: Record<string, string> = {}) =>
  api({ action, startdate: "2026-01-01", enddate: "2026-01-31", ...extra });

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN, port: 0, genesisTimestamp: GENESIS, gasLimit: 30_000_000n });
  await mineHistory(anvil.rpcUrl, history());
  s = await startTestService(chainstatsService, {
    chains: [{ chainId: CHAIN, rpcUrl: anvil.rpcUrl }],
    plan: "standard",
    config: { chainstatsPollMs: 50, chainstatsBatchSize: 4, chainstatsConcurrency: 2, chainstatsWindowSize: 5 },
  });
  key = (await s.context.apiKeys.create({ service: "chainstats", name: "pro", plan: "professional" })).key;
  jobs = await s.instance.startJobs();
  await indexedUpTo(Number(await rpc<string>(anvil.rpcUrl, "eth_blockNumber")));
});

afterAll(async () => {
  await jobs?.stop();
  await s?.close();
  await anvil?.stop();
});

describe("daily statistics match the raw blocks", () => {
  it("dailyavggaslimit, exactly in Etherscan's shape", async () => {
    const expected = await expectedDays(anvil.rpcUrl);
    expect(expected.map((d) => d.UTCDate)).toEqual(["2026-01-01", "2026-01-02", "2026-01-04"]);
    expect(await stats("dailyavggaslimit")).toEqual({
      status: "1",
      message: "OK",
      result: expected.map((d) => ({ UTCDate: d.UTCDate, unixTimeStamp: d.unixTimeStamp, gasLimit: d.gasLimit })),
    });
  });

  it("every other daily action", async () => {
    const expected = await expectedDays(anvil.rpcUrl);
    const pick = (field: keyof (typeof expected)[number]) =>
      expected
        .filter((d) => d[field] !== undefined)
        .map((d) => ({ UTCDate: d.UTCDate, unixTimeStamp: d.unixTimeStamp, [field]: d[field] }));
    expect((await stats("dailygasused")).result).toEqual(pick("gasUsed"));
    expect((await stats("dailyblkcount")).result).toEqual(pick("blockCount"));
    expect((await stats("dailyavgblocksize")).result).toEqual(pick("blockSize_bytes"));
    expect((await stats("dailyavgblocktime")).result).toEqual(pick("blockTime_sec"));
    expect((await stats("dailytx")).result).toEqual(pick("transactionCount"));
    expect((await stats("dailynetutilization")).result).toEqual(pick("networkUtilization"));
  });

  it("sorts, bounds dates inclusively, and says when there is nothing", async () => {
    const desc = await stats("dailyblkcount", { sort: "desc" });
    expect(desc.result.map((r: { UTCDate: string }) => r.UTCDate)).toEqual(["2026-01-04", "2026-01-02", "2026-01-01"]);
    const one = await api({ action: "dailyblkcount", startdate: "2026-01-02", enddate: "2026-01-02" });
    expect(one.result).toEqual([{ UTCDate: "2026-01-02", unixTimeStamp: String(GENESIS + DAY), blockCount: 5 }]);
    const gap = await api({ action: "dailyblkcount", startdate: "2026-01-03", enddate: "2026-01-03" });
    expect(gap).toEqual({ status: "0", message: "No records found", result: [] });
  });

  it("lists the indexed chain", async () => {
    const list = await (await fetch(`${s.url}/v2/chainlist`)).json();
    expect(list.totalcount).toBe(1);
    expect(list.result[0]).toMatchObject({ chainid: String(CHAIN), status: 1 });
  });
});

describe("errors, the Etherscan way (HTTP 200, status 0)", () => {
  const notOk = (result: string | RegExp) => ({ status: "0", message: "NOTOK", result: expect.stringMatching(result) });

  it("keys and plans", async () => {
    expect(await api({ action: "dailyavggaslimit" }, null)).toEqual(notOk(/^Missing\/Invalid API Key$/));
    expect(
      await api({ action: "dailyavggaslimit" }, "chainstats_AAAAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    ).toEqual(notOk(/^Invalid API Key$/));
    const wearablesKey = await s.context.apiKeys.create({ service: "wearables", name: "other" });
    expect(await api({ action: "dailyavggaslimit" }, wearablesKey.key)).toEqual(notOk(/^Invalid API Key$/));
    const free = await s.context.apiKeys.create({ service: "chainstats", name: "free", plan: "free" });
    expect(await api({ action: "dailyavggaslimit", startdate: "2026-01-01", enddate: "2026-01-02" }, free.key)).toEqual(
      notOk(/^Sorry, it looks like you are trying to access an API Pro endpoint/),
    );
  });

  it("the n+1-th call in one second gets the rate-limit message", async () => {
    // A burst of 4 right after a second boundary; if a stall carried it into the next second (the
    // window may then have split it 3 + 1), it is tried again with a new key.
    for (let attempt = 1; ; attempt++) {
      const free = await s.context.apiKeys.create({ service: "chainstats", name: `burst ${attempt}`, plan: "free" });
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      const second = Math.floor(Date.now() / 1000);
      const results = await Promise.all(Array.from({ length: 4 }, () => api({ action: "dailyavggaslimit" }, free.key)));
      if (Math.floor(Date.now() / 1000) !== second && attempt < 5) continue;
      const limited = results.filter((r) => r.result === "Max calls per sec rate limit reached (3/sec)");
      expect(limited).toHaveLength(1);
      break;
    }
  });

  it("bad parameters", async () => {
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{ chainid: "999999" }, /^Missing or unsupported chainid parameter/],
      [{ chainid: "abc" }, /^Missing or unsupported chainid parameter/],
      [{ chainid: "1;DROP" }, /^Missing or unsupported chainid parameter/],
      [{ module: "account" }, /^Error! Missing Or invalid Action name$/],
      [{ action: "nope" }, /^Error! Missing Or invalid Action name$/],
      [{ action: "__proto__" }, /^Error! Missing Or invalid Action name$/],
      [{ action: undefined }, /^Error! Missing Or invalid Action name$/],
      [{ startdate: undefined }, /^Error! Missing startdate/],
      [{ enddate: undefined }, /^Error! Missing enddate/],
      [{ startdate: "2026-02-30" }, /^Error! Invalid startdate format/],
      [{ enddate: "01/02/2026" }, /^Error! Invalid enddate format/],
      [{ startdate: "2026-01-05", enddate: "2026-01-01" }, /^Error! startdate must not be after enddate$/],
      [{ sort: "up" }, /^Error! Invalid sort order/],
      [{ startdate: "1900-01-01", enddate: "2200-01-01" }, /^Error! Date range too large/],
    ];
    for (const [params, message] of cases) {
      const body = await api({ action: "dailyavggaslimit", startdate: "2026-01-01", enddate: "2026-01-31", ...params });
      expect(body, JSON.stringify(params)).toEqual(notOk(message));
    }
    const repeated = await fetch(`${s.url}/v2/api?module=stats&module=stats&action=dailytx&apikey=${key}`);
    expect(repeated.status).toBe(200);
    expect((await repeated.json()).status).toBe("0");
  });
});

describe("reorgs and resets", () => {
  it("a reorg rolls the rollups back and re-indexes the new branch", async () => {
    const head = Number(await rpc<string>(anvil.rpcUrl, "eth_blockNumber"));
    const snapshot = await rpc<string>(anvil.rpcUrl, "evm_snapshot");
    await mineHistory(anvil.rpcUrl, [
      { timestamp: GENESIS + 4 * DAY + 10, gasLimit: 11_000_000 },
      { timestamp: GENESIS + 4 * DAY + 20, gasLimit: 12_000_000 },
    ]);
    await indexedUpTo(head + 2);
    // Replace the two blocks of day 5 with a longer branch that also adds to day 4.
    await rpc(anvil.rpcUrl, "evm_revert", [snapshot]);
    await mineHistory(anvil.rpcUrl, [
      { timestamp: GENESIS + 3 * DAY + 3_000, gasLimit: 50_000_000, txs: 2 },
      { timestamp: GENESIS + 4 * DAY + 50, gasLimit: 51_000_000 },
      { timestamp: GENESIS + 5 * DAY + 1, gasLimit: 52_000_000 },
    ]);
    await indexedUpTo(head + 3);
    const expected = await expectedDays(anvil.rpcUrl);
    expect((await stats("dailyavggaslimit")).result).toEqual(
      expected.map((d) => ({ UTCDate: d.UTCDate, unixTimeStamp: d.unixTimeStamp, gasLimit: d.gasLimit })),
    );
    expect((await stats("dailytx")).result).toEqual(
      expected.map((d) => ({
        UTCDate: d.UTCDate,
        unixTimeStamp: d.unixTimeStamp,
        transactionCount: d.transactionCount,
      })),
    );
  });

  it("a reset chain (new genesis) is indexed from scratch", async () => {
    await rpc(anvil.rpcUrl, "anvil_reset", []);
    await rpc(anvil.rpcUrl, "evm_setAutomine", [false]);
    const now = Math.floor(Date.now() / 1000);
    await mineHistory(anvil.rpcUrl, [
      { timestamp: now + 10, gasLimit: 33_000_000 },
      { timestamp: now + 20, gasLimit: 34_000_000 },
    ]);
    await indexedUpTo(2);
    const expected = await expectedDays(anvil.rpcUrl);
    const today = new Date(now * 1000).toISOString().slice(0, 10);
    const all = await api({ action: "dailyavggaslimit", startdate: "2026-01-01", enddate: "2099-12-31" });
    expect(all.result).toEqual(
      expected.map((d) => ({ UTCDate: d.UTCDate, unixTimeStamp: d.unixTimeStamp, gasLimit: d.gasLimit })),
    );
    expect(all.result.map((r: { UTCDate: string }) => r.UTCDate)).toContain(today);
  });
});
