/**
 * Indexer backfill benchmark: BENCH_BACKFILL_DEPOSITS real SpokePool deposits on one devnet chain (built
 * once, then reused from an anvil state dump in the temp directory), indexed from scratch into PostgreSQL,
 * as a ratio to the raw `eth_getLogs` rate of the same node over the same block ranges (goal ≥ 70 %).
 */
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { createBlockFetcher, loadArtifact, manifestToken, startAnvil } from "@platform/chains";
import { startDevnetFixture } from "@platform/chains/testing";
import { rpc } from "@platform/chainstats/testing";
import { crosschainService } from "@platform/crosschain";
import { contextChains } from "@platform/crosschain/testing";
import { createDatabase, createLogger, kernelMigrations, migrate } from "@platform/kernel";
import { encodeFunctionData, erc20Abi, maxUint256, pad, zeroAddress } from "viem";
import { spokeChains } from "../../packages/crosschain/src/deployments.ts";
import { createSpokePoolIndexer } from "../../packages/crosschain/src/indexer/spokePoolIndexer.ts";
import { createIndexerStore } from "../../packages/crosschain/src/store/indexerStore.ts";
import { benchDatabaseUrl, preparePostgres } from "../chainstats/database.ts";

const CHAIN = 8453;
/** About as many deposits as fit the devnet's 30M block gas limit. */
const PER_BLOCK = 125;

/** Builds (once) a chain holding `count` deposits, PER_BLOCK per block; returns its state file and the chain manifest. */
async function depositHistory(count: number) {
  const f = await startDevnetFixture({ chainIds: [CHAIN, 10] });
  const chains = spokeChains(contextChains(f));
  const file = join(tmpdir(), `platform-bench-deposits-${count}.json`);
  if (existsSync(file)) {
    await f.stop();
    return { file, chains };
  }
  const chain = f.chain(CHAIN);
  const url = chain.rpcUrl;
  const user = f.accounts.users[0]?.address as `0x${string}`;
  const usdc = manifestToken(chain, "USDC").address;
  const b32 = (a: string) => pad(a.toLowerCase() as `0x${string}`, { size: 32 });
  await rpc(url, "eth_sendTransaction", [
    {
      from: user,
      to: usdc,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: "approve",
        args: [chain.contracts.spokePool, maxUint256],
      }),
    },
  ]);
  await rpc(url, "evm_setAutomine", [false]);
  const now = Number((await rpc<{ timestamp: string }>(url, "eth_getBlockByNumber", ["latest", false])).timestamp);
  const spokeAbi = loadArtifact("Ethereum_SpokePool").abi;
  const outUsdc = manifestToken(f.chain(10), "USDC").address;
  for (let done = 0; done < count; done += PER_BLOCK) {
    const batch = [];
    for (let i = 0; i < Math.min(PER_BLOCK, count - done); i++) {
      const data = encodeFunctionData({
        abi: spokeAbi,
        functionName: "deposit",
        args: [
          b32(user),
          b32(user),
          b32(usdc),
          b32(outUsdc),
          1_000_000n + BigInt(i),
          990_000n,
          10n,
          b32(zeroAddress),
          now,
          now + 20_000,
          0,
          "0x",
        ],
      });
      batch.push({
        jsonrpc: "2.0",
        id: i,
        method: "eth_sendTransaction",
        params: [{ from: user, to: chain.contracts.spokePool, data, gas: "0x30000" }],
      });
    }
    await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(batch) });
    await rpc(url, "evm_mine", []);
    if ((done / PER_BLOCK) % 20 === 0) process.stdout.write(`  deposits: ${done + PER_BLOCK}/${count}\n`);
  }
  // anvil_dumpState answers gzipped JSON as hex; `--load-state` reads the JSON itself.
  const dumped = await rpc<string>(url, "anvil_dumpState");
  writeFileSync(file, gunzipSync(Buffer.from(dumped.slice(2), "hex")));
  await f.stop();
  return { file, chains };
}

export async function backfillBenchmark(count: number, range: number) {
  if (!(await preparePostgres("bench_crosschain_backfill", true))) return undefined;
  const { file, chains } = await depositHistory(count);
  const node = await startAnvil({ chainId: CHAIN, port: 0, pruneHistory: false, loadState: file }, 120_000);
  try {
    const chain = { ...(chains.find((c) => c.chainId === CHAIN) as (typeof chains)[number]), rpcUrl: node.rpcUrl };
    const head = BigInt(await rpc<string>(node.rpcUrl, "eth_blockNumber"));
    // Raw: eth_getLogs over the same ranges, parsed, nothing stored.
    let started = performance.now();
    let logs = 0;
    for (let from = 0n; from <= head; from += BigInt(range)) {
      const to = from + BigInt(range) - 1n < head ? from + BigInt(range) - 1n : head;
      const r = await rpc<unknown[]>(node.rpcUrl, "eth_getLogs", [
        { fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, address: [chain.spokePool] },
      ]);
      logs += r.length;
    }
    const rawSec = (performance.now() - started) / 1000;
    // Indexer from scratch into PostgreSQL.
    const db = await createDatabase({ url: benchDatabaseUrl("bench_crosschain_backfill"), dataDir: "memory" });
    await migrate(db, [...kernelMigrations(), ...crosschainService.migrations]);
    const indexer = createSpokePoolIndexer({
      chain,
      store: createIndexerStore(db),
      fetcher: createBlockFetcher({ rpcUrl: node.rpcUrl, batchSize: 500, concurrency: 4 }),
      maxRange: range,
      logger: createLogger({ level: "warn" }),
    });
    started = performance.now();
    while (!(await indexer.step())) {}
    const indexSec = (performance.now() - started) / 1000;
    const [row] = await db.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits");
    await db.close();
    return {
      deposits: Number(row?.n),
      logs,
      blocks: Number(head) + 1,
      range,
      rawLogsPerSec: Math.round(logs / rawSec),
      indexedDepositsPerSec: Math.round(Number(row?.n) / indexSec),
      ratio: Math.round((Number(row?.n) / indexSec / (logs / rawSec)) * 1000) / 1000,
    };
  } finally {
    await node.stop();
  }
}
