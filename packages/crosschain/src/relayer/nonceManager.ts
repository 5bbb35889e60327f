/**
 * Nonces of the relayer's key on one chain. The chain's pending count is the floor; every nonce we still
 * hold is kept out of reach: those of intents in 'sending'/'sent' (a 'sending' intent's transaction may not
 * be broadcast, so the chain does not count it) and those of approvals/cancels not yet mined. `sync` runs
 * at the start of each poll, so a nonce given back (an intent abandoned before its broadcast) is reused
 * and no gap is left behind. One worker per chain uses it, sequentially: no locking.
 * An approval/cancel is held only once broadcast, until mined; if the node forgets it (dropped from its
 * pool: pending count back at or below it) for longer than `dropAfterMs`, it is let go.
 */
export interface NonceManager {
  /** The nonce the next transaction will use; null before the first sync. */
  readonly next: number | null;
  /** next = max(pending count, every held nonce + 1). Prunes approvals/cancels mined (below `latest`) or dropped. */
  sync(chain: { pending: number; latest: number }, intentNonces: Iterable<number>): number;
  /** Takes the next nonce (sync first). */
  reserve(): number;
  /** Gives a reserved nonce back when nothing was written or sent with it. */
  release(nonce: number): void;
  /** Holds the nonce of a broadcast transaction that is not a fill intent (approval, cancel) until it is mined. */
  holdOther(nonce: number): void;
}

export function createNonceManager(dropAfterMs = 60_000): NonceManager {
  let next: number | null = null;
  /** nonce -> when it was held */
  const others = new Map<number, number>();
  return {
    get next() {
      return next;
    },
    sync(chain, intentNonces) {
      const nowMs = Date.now();
      for (const [n, since] of others) {
        if (n < chain.latest || (chain.pending <= n && nowMs - since > dropAfterMs)) others.delete(n);
      }
      let n = chain.pending;
      for (const held of [...intentNonces, ...others.keys()]) if (held + 1 > n) n = held + 1;
      next = n;
      return n;
    },
    reserve() {
      if (next === null) throw new Error("nonce manager used before sync()");
      return next++;
    },
    release(nonce) {
      if (next === nonce + 1) next = nonce;
    },
    holdOther(nonce) {
      others.set(nonce, Date.now());
    },
  };
}
