/**
 * The block range of every chain in a bundle (docs/design/settlement.md §4.1). Pure: the caller reads the
 * previous bundle's end blocks, the indexer's checkpoints (`crosschain.chains.next_block − 1`) and the heads.
 */

/** What one chain's range is computed from. */
export interface RangeInput {
  chainId: number;
  /** The previous bundle's end block on this chain, or the indexer's `start_block − 1` for the first bundle. */
  previousEnd: bigint;
  /** The last block the indexer has stored (`next_block − 1`): reading past it would miss events. */
  indexedTip: bigint;
  /** The chain's latest block. */
  head: bigint;
  /** Blocks kept out of the bundle below the head, so a short reorg cannot change a proposed range. */
  buffer: bigint;
}

/** One chain's range, `[start, end]`; `end = start − 1` when the chain has nothing new (an empty range). */
export interface BlockRange {
  chainId: number;
  start: bigint;
  end: bigint;
}

/**
 * The ranges of a bundle, in the order given (CHAIN_ID_INDICES order, which the HubPool's
 * `bundleEvaluationBlockNumbers` follows). `end = min(indexedTip, head − buffer)`, never below the previous
 * end: a chain whose indexer or head lags keeps `start = end + 1` and repeats its previous end block, as the
 * protocol's disabled-chain rule does, rather than moving backwards.
 */
export function bundleRanges(chains: readonly RangeInput[]): BlockRange[] {
  return chains.map((c) => {
    const start = c.previousEnd + 1n;
    const safeHead = c.head - c.buffer;
    const end = c.indexedTip < safeHead ? c.indexedTip : safeHead;
    return { chainId: c.chainId, start, end: end < c.previousEnd ? c.previousEnd : end };
  });
}

/** True when no chain has a new block (nothing can have changed since the previous bundle). */
export function rangesAreEmpty(ranges: readonly BlockRange[]): boolean {
  return ranges.every((r) => r.end < r.start);
}
