/**
 * A crosschain indexer store that keeps the checkpoint and the tip's hash and drops the rows: an
 * indexer timed with it does all its reading and decoding (deposit rows, relay hashes) and no database
 * work, which tells the backfill's database share from the rest.
 */
import type { IndexerCheckpoint, IndexerStore } from "../../packages/crosschain/src/store/indexerStore.ts";

export function discardingStore(): IndexerStore {
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
