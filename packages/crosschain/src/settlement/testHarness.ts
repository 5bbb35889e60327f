/**
 * Test support for settlement: a devnet fixture whose chains the real SpokePool indexers follow into a real
 * database (stepped every 50 ms, as the indexer loop would), and the dataworker running on them with the
 * devnet admin as the trusted proposer, the fast liveness and no end-block buffer (automine makes no blocks
 * of its own).
 */
import { createBlockFetcher } from "@platform/chains";
import { type DevnetFixture, startDevnetFixture } from "@platform/chains/testing";
import { createLogger, type Database, kernelMigrations, migrate } from "@platform/kernel";
import { createTestDatabase, type TestDatabase } from "@platform/kernel/testing";
import { spokeChains } from "../deployments.ts";
import { crosschainService } from "../index.ts";
import { createSpokePoolIndexer } from "../indexer/spokePoolIndexer.ts";
import { createIndexerStore } from "../store/indexerStore.ts";
import { contextChains } from "../testing/spokePoolActions.ts";
import type { SettlementHooks } from "./bundleSteps.ts";
import { type Dataworker, startDataworker } from "./dataworker.ts";

export interface SettlementHarness {
  f: DevnetFixture;
  t: TestDatabase;
  db: Database;
  /** Starts (or restarts) the dataworker. */
  startDataworker(hooks?: SettlementHooks): Dataworker;
  dataworker(): Dataworker | undefined;
  /** Indexes every chain up to its head now. */
  catchUp(): Promise<void>;
  stop(): Promise<void>;
}

const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

export async function startSettlementHarness(chainIds: number[]): Promise<SettlementHarness> {
  const f = await startDevnetFixture({ chainIds });
  const t = await createTestDatabase();
  await migrate(t.db, [...kernelMigrations(), ...crosschainService.migrations]);
  const chains = spokeChains(contextChains(f));
  const indexers = chains.map((chain) =>
    createSpokePoolIndexer({
      chain,
      store: createIndexerStore(t.db),
      fetcher: createBlockFetcher({ rpcUrl: chain.rpcUrl, batchSize: 50, concurrency: 1 }),
      maxRange: 1000,
      logger,
    }),
  );
  let indexing = Promise.resolve();
  const catchUp = () => {
    indexing = indexing.then(async () => {
      for (const i of indexers) for (let n = 0; n < 100 && !(await i.step().catch(() => false)); n++);
    });
    return indexing;
  };
  const timer = setInterval(() => void catchUp(), 50);
  let worker: Dataworker | undefined;
  return {
    f,
    t,
    db: t.db,
    dataworker: () => worker,
    startDataworker(hooks) {
      worker = startDataworker({
        db: t.db,
        chains,
        privateKey: f.accounts.admin.privateKey,
        logger,
        intervalMs: 100,
        endBlockBuffer: 0,
        fastLiveness: true,
        leaseTtlMs: 5_000,
        hooks,
      });
      if (!worker) throw new Error("no HubPool on the fixture's chains");
      return worker;
    },
    catchUp,
    async stop() {
      clearInterval(timer);
      await worker?.stop();
      await indexing;
      await t.drop();
      await f.stop();
    },
  };
}
