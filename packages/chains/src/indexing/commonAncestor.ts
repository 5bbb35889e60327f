/**
 * Reorg handling shared by every indexer: the newest block, at or below `from` and not below `floor`,
 * whose stored hash is still the chain's. Undefined when none is (a reorg deeper than the window, or a
 * reset chain): the caller then starts over.
 *
 * @example
 * const ancestor = await findCommonAncestor({ from: tip, floor: tip - 64n, storedHash, chainHash });
 */
export interface FindCommonAncestorParameters {
  from: bigint;
  floor: bigint;
  /** Our stored hash of block `n`, if we stored one. */
  storedHash(n: bigint): Promise<string | undefined>;
  /** The chain's hash of block `n` now, if it has that block. */
  chainHash(n: bigint): Promise<string | undefined>;
}

export async function findCommonAncestor(p: FindCommonAncestorParameters): Promise<bigint | undefined> {
  for (let n = p.from; n >= p.floor && n >= 0n; n--) {
    const stored = await p.storedHash(n);
    if (stored === undefined) continue; // nothing stored at n: it cannot tell us anything
    const onChain = await p.chainHash(n);
    if (onChain !== undefined && onChain.toLowerCase() === stored.toLowerCase()) return n;
  }
  return undefined;
}
