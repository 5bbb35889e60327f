/**
 * The lease an indexer of one chain runs under, shared by every service that indexes (crosschain's
 * SpokePool indexers, chainstats' block indexers). Every worker instance starts every chain's indexer; the
 * kernel lease `name` (e.g. `chainstats.indexer:10`) lets exactly one of them run it at a time, and the
 * others take over when the holder stops, or `ttlMs` after it stopped renewing (killed, partitioned).
 *
 * Two holders never write together: the indexer's checkpoint transactions call `fence(tx)`, which asserts the
 * lease with the current tenure's fencing token (kernel `assertHeld`), so a holder that stalled past its
 * lease has its next write refused instead of interleaving with its successor's.
 *
 * @example
 * const lease = createIndexerLease({ db, logger, name: `chainstats.indexer:${chainId}` });
 * const indexer = createChainIndexer({ ..., fence: lease.fence });
 * const runner = lease.run((signal) => indexer.run(signal));
 * …
 * await runner.stop();
 */
import {
  createLeases,
  type Database,
  type Lease,
  type LeasedRunner,
  LeaseLostError,
  type Logger,
  type Queryable,
  runWhileLeased,
} from "@platform/kernel";

/** In a write's transaction: throws (LeaseLostError) unless this instance holds the indexer's lease now. */
export type WriteFence = (tx: Queryable) => Promise<void>;

/**
 * How long an indexer's lease lasts after its last renewal: how soon another instance resumes a chain
 * whose indexer was killed (a clean stop releases the lease at once).
 */
export const INDEXER_LEASE_TTL_MS = 30_000;

export interface CreateIndexerLeaseParameters {
  db: Database;
  logger: Logger;
  /** `<service>.indexer:<chainId>`. */
  name: string;
  /** Default INDEXER_LEASE_TTL_MS. */
  ttlMs?: number;
}

export interface IndexerLease {
  /** For the indexer's checkpoint transactions; refuses while no tenure of this instance is running. */
  fence: WriteFence;
  /**
   * Runs `loop` (the chain's indexing, until its signal aborts) whenever this instance holds the lease;
   * `stop()` on the runner aborts it and releases the lease.
   */
  run(loop: (signal: AbortSignal) => Promise<void>): LeasedRunner;
}

export function createIndexerLease({
  db,
  logger,
  name,
  ttlMs = INDEXER_LEASE_TTL_MS,
}: CreateIndexerLeaseParameters): IndexerLease {
  const leases = createLeases({ db });
  /** The tenure running now; writes outside one (a loop still finishing after a loss) are refused. */
  let current: Lease | undefined;
  return {
    async fence(tx) {
      if (!current) throw new LeaseLostError(name, 0n);
      await leases.assertHeld(tx, current);
    },
    run: (loop) =>
      runWhileLeased({ db, logger, name, ttlMs }, async ({ lease: tenure, signal }) => {
        current = tenure;
        try {
          await loop(signal);
        } finally {
          if (current === tenure) current = undefined;
        }
      }),
  };
}
