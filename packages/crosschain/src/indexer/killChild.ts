/**
 * Child process of indexer.kill.test.ts, run with `node --import tsx`: the SpokePool indexers and the
 * integrator-id pass of the chains in INDEXER_CHILD_CONFIG on its database. Mode "run": the production
 * loops, printing STORED after each range with deposits, until the test SIGKILLs it. Mode "finish": both passes stepped to the head, then exit 0.
 */
import { createBlockFetcher } from "@platform/chains";
import { createDatabase, createLogger, loadConfig } from "@platform/kernel";
import type { SpokeChain } from "../deployments.ts";
import { createIndexerStore } from "../store/indexerStore.ts";
import { createIntegratorIdStore } from "../store/integratorIdStore.ts";
import { createIntegratorIdPass } from "./integratorIds.ts";
import { createSpokePoolIndexer, startSpokePoolIndexers } from "./spokePoolIndexer.ts";

export interface IndexerChildConfig {
  /** PostgreSQL URL, or a PGlite folder in `dataDir`. */
  url?: string;
  dataDir: string;
  chains: SpokeChain[];
  mode: "run" | "finish";
}

const child = JSON.parse(process.env.INDEXER_CHILD_CONFIG ?? "null") as IndexerChildConfig | null;
if (!child) throw new Error("INDEXER_CHILD_CONFIG is not set");
const db = await createDatabase({ url: child.url, dataDir: child.dataDir });
const logger = createLogger({ level: process.env.INDEXER_TEST_LOG ?? "silent" });
// One block per range, so that a kill lands between (and inside) many range transactions.
const config = loadConfig({ env: {}, overrides: { crosschainLogRange: 1, crosschainPollMs: 20 } });
if (child.mode === "run") {
  // Each stored range with deposits is announced, so the test can kill us in the middle of the work.
  startSpokePoolIndexers({
    config,
    db,
    logger,
    chains: child.chains,
    onStored: () => process.stdout.write("STORED\n"),
    // A killed child never releases its chains' leases: the next one takes over when they expire. Not
    // shorter: a renewal waits behind the range transactions on the embedded database's one connection.
    leaseTtlMs: 2_000,
  });
} else {
  for (const chain of child.chains) {
    const fetcher = createBlockFetcher({ rpcUrl: chain.rpcUrl, batchSize: 100, concurrency: 1 });
    const indexer = createSpokePoolIndexer({ chain, store: createIndexerStore(db), fetcher, maxRange: 1, logger });
    while (!(await indexer.step())) {}
    const pass = createIntegratorIdPass({
      chainId: chain.chainId,
      store: createIntegratorIdStore(db),
      fetcher,
      logger,
    });
    while (!(await pass.step())) {}
  }
  await db.close();
  process.exit(0);
}
