/**
 * One token refresh at a time per connection, across every process and job: vendors that rotate refresh
 * tokens accept each one once, so a second refresh with the same token is refused (400 invalid_grant) and
 * would pass for a revoked grant. The lock is the kernel lease `wearables.token-refresh:<connection id>`
 * (a row in `platform.leases`, taken and given back in single statements): no database transaction stays open
 * across the vendor's HTTP call, which on PGlite's single connection would stop every other query.
 *
 * A waiter polls the lease (a holder's refresh takes one HTTP request), and gives up when its signal aborts or
 * after `maxWaitMs`; a holder killed mid-refresh blocks the others at most `ttlMs`, after which its lease is
 * taken over.
 *
 * @example
 * const lock = createRefreshLock({ leases: createLeases({ db }) });
 * const tokens = await lock.run(connection.id, signal, () => refreshUnlessAlreadyRefreshed());
 */
import { abortableSleep, type Lease, type Leases, processHolderId } from "@platform/kernel";

/**
 * A holder's lease lasts longer than its refresh request may (30 s, the anchor's timeout) plus the storing of
 * the answer: a live holder never loses it to a waiter, which would then refresh with a token already spent.
 */
export const REFRESH_LEASE_TTL_MS = 90_000;

export const refreshLeaseName = (connectionId: string) => `wearables.token-refresh:${connectionId}`;

/** The lease stayed with another holder for longer than a waiter waits (the refresh is left for a retry). */
export class RefreshLockTimeoutError extends Error {
  override name = "RefreshLockTimeoutError";
}

export interface RefreshLock {
  /** Runs `fn` holding the connection's refresh lease; waits for it, at most `maxWaitMs` or until `signal`. */
  run<T>(connectionId: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T>;
}

export function createRefreshLock(p: {
  leases: Leases;
  ttlMs?: number;
  /** Default: the TTL and 10 s more (by then a dead holder's lease has expired). */
  maxWaitMs?: number;
  /** First and longest pause between two tries; default 25 ms growing to 500 ms. */
  pollMs?: { first: number; max: number };
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}): RefreshLock {
  const ttlMs = p.ttlMs ?? REFRESH_LEASE_TTL_MS;
  const maxWaitMs = p.maxWaitMs ?? ttlMs + 10_000;
  const poll = p.pollMs ?? { first: 25, max: 500 };
  const sleep = p.sleep ?? abortableSleep;

  async function acquire(name: string, signal: AbortSignal | undefined): Promise<Lease> {
    // A holder per call, not per process: two jobs of one process must exclude each other too.
    const holder = processHolderId();
    const deadline = Date.now() + maxWaitMs;
    for (let pause = poll.first; ; pause = Math.min(pause * 2, poll.max)) {
      signal?.throwIfAborted();
      const lease = await p.leases.acquire({ name, holder, ttlMs });
      if (lease) return lease;
      if (Date.now() >= deadline)
        throw new RefreshLockTimeoutError(`another holder kept the token refresh lease ${name} for ${maxWaitMs} ms`);
      await sleep(pause, signal);
    }
  }

  return {
    async run(connectionId, signal, fn) {
      const lease = await acquire(refreshLeaseName(connectionId), signal);
      try {
        return await fn();
      } finally {
        // Not released (the database unreachable): it expires after the TTL.
        await p.leases.release(lease).catch(() => undefined);
      }
    },
  };
}
