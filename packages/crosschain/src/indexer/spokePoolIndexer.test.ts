/**
 * Fault tests of the SpokePool indexer on a real devnet chain: a crash in the middle of writing a batch
 * leaves nothing behind and a restart indexes every deposit exactly once; an RPC that refuses large
 * log ranges is met by halving the range; a reset chain (new genesis) is indexed from scratch.
 */
import { createBlockFetcher, type LogFilter, type LogsView, RpcResponseError, scanLogsReply } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { createLogger, type Database, kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { parseUnits } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spokeChains } from "../deployments.ts";
import { crosschainService } from "../index.ts";
import { createIndexerStore } from "../store/indexerStore.ts";
import { createIntegratorIdStore } from "../store/integratorIdStore.ts";
import { contextChains, makeDeposit } from "../testing/spokePoolActions.ts";
import { createIntegratorIdPass } from "./integratorIds.ts";
import { createSpokePoolIndexer } from "./spokePoolIndexer.ts";

const A = 8453;
let f: DevnetFixture;
let t: TestDatabase;
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  f = await startDevnetFixture({ chainIds: [A, 10] });
  t = await createTestDatabase();
  await migrate(t.db, [...kernelMigrations(), ...crosschainService.migrations]);
  for (let i = 0; i < 5; i++) {
    await makeDeposit(f, {
      origin: A,
      destination: 10,
      inputAmount: parseUnits("2", 6),
      outputAmount: parseUnits("1.9", 6),
      user: i % 3,
      integratorId: i === 1 ? "0xbeef" : undefined,
    });
  }
});

afterAll(async () => {
  await t?.drop();
  await f?.stop();
});

const chainA = () =>
  spokeChains(contextChains(f)).find((c) => c.chainId === A) as ReturnType<typeof spokeChains>[number];

const indexer = (db: Database, maxRange = 1000, call?: (method: string, params: unknown[]) => void) => {
  const fetcher = createBlockFetcher({ rpcUrl: chainA().rpcUrl, batchSize: 50, concurrency: 1 });
  const wrapped = call
    ? {
        ...fetcher,
        call: <T>(method: string, params: unknown[]) => {
          call(method, params);
          return fetcher.call<T>(method, params);
        },
        getLogs: (filter: LogFilter) => {
          call("eth_getLogs", [filter]);
          return fetcher.getLogs(filter);
        },
      }
    : fetcher;
  return createSpokePoolIndexer({ chain: chainA(), store: createIndexerStore(db), fetcher: wrapped, maxRange, logger });
};

async function untilCaughtUp(i: ReturnType<typeof indexer>) {
  for (let n = 0; n < 200; n++) {
    try {
      if (await i.step()) return;
    } catch {
      // retried, as the loop would
    }
  }
  throw new Error("never caught up");
}

const deposits = async () =>
  t.db.query<{ n: string; distinct: string }>(
    "SELECT count(*) AS n, count(DISTINCT deposit_id) AS distinct FROM crosschain.deposits WHERE origin_chain_id = $1",
    [A],
  );

it("a crash while writing a batch leaves nothing, and a restart indexes each deposit exactly once", async () => {
  // A database whose first range transaction dies after its inserts ran, before it commits.
  let crashed = false;
  const crashing: Database = {
    ...t.db,
    transaction: (fn) =>
      t.db.transaction(async (tx) => {
        const result = await fn(tx);
        const [{ n } = { n: "0" }] = await tx.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits");
        if (!crashed && Number(n) > 0) {
          crashed = true;
          throw new Error("killed mid-batch");
        }
        return result;
      }),
  };
  await expect(indexer(crashing).step()).rejects.toThrow("killed mid-batch");
  expect(crashed).toBe(true);
  expect((await deposits())[0]).toEqual({ n: "0", distinct: "0" });

  await untilCaughtUp(indexer(t.db));
  expect((await deposits())[0]).toEqual({ n: "5", distinct: "5" });
  // A second indexer over the same data (another instance, or a restart) adds nothing.
  await untilCaughtUp(indexer(t.db));
  expect((await deposits())[0]).toEqual({ n: "5", distinct: "5" });
});

it("halves the log range when the RPC refuses it", async () => {
  const db = await createTestDatabase();
  try {
    await migrate(db.db, [...kernelMigrations(), ...crosschainService.migrations]);
    const ranges: number[] = [];
    const i = indexer(db.db, 64, (method, params) => {
      if (method !== "eth_getLogs") return;
      const { fromBlock, toBlock } = params[0] as { fromBlock: string; toBlock: string };
      const size = Number(toBlock) - Number(fromBlock) + 1;
      ranges.push(size);
      // What a provider's refusal reaches the reader as: a JSON-RPC error answer.
      if (size > 4) {
        throw new RpcResponseError({
          url: chainA().rpcUrl,
          method,
          code: -32600,
          details: "query exceeds max block range 4",
        });
      }
    });
    await untilCaughtUp(i);
    expect(ranges[0]).toBe(Math.min(64, ranges[0] as number));
    expect(ranges.some((r) => r <= 4)).toBe(true);
    const [row] = await db.db.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits");
    expect(row?.n).toBe("5");
  } finally {
    await db.drop();
  }
});

it("reads ranges ahead while earlier ones are written: in order, one eth_getLogs at a time", async () => {
  const db = await createTestDatabase();
  try {
    await migrate(db.db, [...kernelMigrations(), ...crosschainService.migrations]);
    const fetcher = createBlockFetcher({ rpcUrl: chainA().rpcUrl, batchSize: 50, concurrency: 1 });
    const events: string[] = [];
    let rangeTwoRead: () => void = () => {};
    const rangeTwo = new Promise<void>((resolve) => {
      rangeTwoRead = resolve;
    });
    let inFlight = 0;
    let maxInFlight = 0;
    const counting = {
      ...fetcher,
      getLogs: async (filter: LogFilter) => {
        events.push(`read ${Number(filter.fromBlock)}`);
        if (Number(filter.fromBlock) === 2) rangeTwoRead();
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          return await fetcher.getLogs(filter);
        } finally {
          inFlight--;
        }
      },
    };
    const store = createIndexerStore(db.db);
    const recording = {
      ...store,
      appendRange: async (chainId: number, from: bigint, to: bigint, data: Parameters<typeof store.appendRange>[3]) => {
        events.push(`write ${from}`);
        // The first range's write waits until the range after next is asked for: only reads ahead get there.
        if (from === 0n) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            rangeTwo,
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error("range 2 was not read while range 0 was written")), 10_000);
            }),
          ]).finally(() => clearTimeout(timer));
        }
        return store.appendRange(chainId, from, to, data);
      },
    };
    // Ranges of one block, so that the chain's few blocks make many ranges.
    const i = createSpokePoolIndexer({ chain: chainA(), store: recording, fetcher: counting, maxRange: 1, logger });
    await untilCaughtUp(i);
    const reads = events.filter((e) => e.startsWith("read")).map((e) => Number(e.slice(5)));
    const writes = events.filter((e) => e.startsWith("write")).map((e) => Number(e.slice(6)));
    expect(reads).toEqual(reads.map((_, k) => k)); // block 0, 1, 2, … each read once, in order
    expect(writes).toEqual(reads);
    expect(maxInFlight).toBe(1);
    expect(events.indexOf("read 2")).toBeLessThan(events.indexOf("write 1"));
    const [row] = await db.db.query<{ n: string }>("SELECT count(*) AS n FROM crosschain.deposits");
    expect(row?.n).toBe("5");
  } finally {
    await db.drop();
  }
});

it("takes block times from the headers when the node's logs carry no blockTimestamp (nodes before 2025)", async () => {
  const db = await createTestDatabase();
  try {
    await migrate(db.db, [...kernelMigrations(), ...crosschainService.migrations]);
    const fetcher = createBlockFetcher({ rpcUrl: chainA().rpcUrl, batchSize: 50, concurrency: 1 });
    let stripped = 0;
    const withoutTimes = {
      ...fetcher,
      getLogs: async (filter: LogFilter) => {
        const view = await fetcher.getLogs(filter);
        const logs = Array.from({ length: view.count }, (_, k) => {
          const { blockTimestamp: _t, ...log } = view.log(k);
          return log;
        });
        stripped += logs.length;
        return scanLogsReply(Buffer.from(JSON.stringify({ result: logs }))) as LogsView;
      },
    };
    // Ranges of 1 block: the deposit blocks are inside ranges (no header read for them) and at their ends.
    for (const maxRange of [1, 1000]) {
      await db.db.query("DELETE FROM crosschain.chains");
      await db.db.query("DELETE FROM crosschain.deposits");
      const i = createSpokePoolIndexer({
        chain: chainA(),
        store: createIndexerStore(db.db),
        fetcher: withoutTimes,
        maxRange,
        logger,
      });
      await untilCaughtUp(i);
      const rows = await db.db.query<{ block_number: string; block_timestamp: string }>(
        "SELECT block_number, block_timestamp FROM crosschain.deposits",
      );
      expect(rows).toHaveLength(5);
      for (const r of rows) {
        const header = await fetcher.block(BigInt(r.block_number));
        expect(Number(r.block_timestamp), `block ${r.block_number}, ranges of ${maxRange}`).toBe(header?.timestamp);
      }
    }
    expect(stripped).toBeGreaterThanOrEqual(10);
  } finally {
    await db.drop();
  }
});

it("a range holding rows already stored goes through the staging table and skips them", async () => {
  // Rewind the checkpoint without deleting rows: the next COPY meets its own rows again.
  await t.db.query("UPDATE crosschain.chains SET next_block = start_block WHERE chain_id = $1", [A]);
  await untilCaughtUp(indexer(t.db));
  expect((await deposits())[0]).toEqual({ n: "5", distinct: "5" });
});

it("the integrator-id pass reads the app-sdk tag from the calldata, and refuses to save across a rollback", async () => {
  const store = createIntegratorIdStore(t.db);
  const fetcher = createBlockFetcher({ rpcUrl: chainA().rpcUrl, batchSize: 50, concurrency: 1 });
  const pass = createIntegratorIdPass({ chainId: A, store, fetcher, logger });

  // A read prepared before the indexer rolls back is not saved.
  const read = await store.unread(A, 100);
  expect(read?.transactions).toHaveLength(5);
  const [cp] = await t.db.query<{ next_block: string }>(
    "SELECT next_block FROM crosschain.chains WHERE chain_id = $1",
    [A],
  );
  await createIndexerStore(t.db).rollbackTo(A, BigInt(cp?.next_block as string) - 1n);
  expect(await store.save(A, read as NonNullable<typeof read>, [])).toBe(false);
  await untilCaughtUp(indexer(t.db));

  for (let n = 0; n < 20 && !(await pass.step()); n++) {}
  expect(await store.unread(A, 100)).toBeUndefined();
  const rows = await t.db.query<{ integrator_id: string | null }>(
    "SELECT integrator_id FROM crosschain.deposits WHERE origin_chain_id = $1 ORDER BY deposit_id",
    [A],
  );
  expect(rows.map((r) => r.integrator_id)).toEqual([null, "0xbeef", null, null, null]);
});
