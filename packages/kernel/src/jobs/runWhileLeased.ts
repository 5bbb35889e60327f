/**
 * Runs a loop on exactly one instance: the one that holds the lease `name`. Every instance calls
 * `runWhileLeased`; each tries to acquire the lease every `retryMs`, the holder runs `loop` and renews the
 * lease every `renewMs`. When a renewal answers that the lease was lost, or no renewal succeeded before the
 * lease would expire (the database unreachable), the loop's signal is aborted and the instance goes back to
 * trying; another instance takes over at most `ttlMs` after the last renewal. The loop's writes that must
 * not outlive the lease carry it: `leases.assertHeld(tx, lease)` in their transaction (the fencing token).
 *
 * `loop` should run until its signal is aborted; if it returns or throws, the lease is released and taken
 * again (by whichever instance comes first) after `retryMs`.
 *
 * @example
 * const runner = runWhileLeased({ db, logger, name: "crosschain.settlement", ttlMs: 30_000 },
 *   async ({ lease, signal }) => {
 *     while (!signal.aborted) {
 *       await db.transaction(async (tx) => { await leases.assertHeld(tx, lease); await settleNext(tx); });
 *       await sleep(1_000, signal);
 *     }
 *   });
 * …
 * await runner.stop();
 */
import type { Database } from "../db/database.ts";
import { toJobStatus } from "../jobStatus.ts";
import type { Logger } from "../log/logger.ts";
import type { BackgroundJob, JobStatus } from "../service.ts";
import { createLeases, type Lease } from "./leases.ts";
import { processHolderId } from "./worker.ts";

export interface LeasedLoopContext {
  /** The lease as of its acquisition; its `token` is what fenced writes assert. */
  lease: Lease;
  /** Aborted when the lease is lost or the runner stops. */
  signal: AbortSignal;
}

export interface RunWhileLeasedParameters {
  db: Database;
  logger: Logger;
  /** The lease's name, e.g. `wearables.provider-sync`. */
  name: string;
  /** How long a lease lasts after its last renewal; default 30 s. */
  ttlMs?: number;
  /** How often the holder renews; default a third of `ttlMs`. */
  renewMs?: number;
  /** How often a non-holder tries to acquire; default a third of `ttlMs`. */
  retryMs?: number;
  /** Names this instance in `platform.leases.holder` (default host:pid:random). */
  holder?: string;
}

export interface LeasedRunner extends BackgroundJob {
  /** True while this instance holds the lease and its loop runs. */
  holding(): boolean;
  /** Aborts the loop, waits for it to end, and releases the lease. */
  stop(): Promise<void>;
  status(): JobStatus;
}

export function runWhileLeased(
  {
    db,
    logger,
    name,
    ttlMs = 30_000,
    renewMs = ttlMs / 3,
    retryMs = ttlMs / 3,
    holder = processHolderId(),
  }: RunWhileLeasedParameters,
  loop: (context: LeasedLoopContext) => Promise<void>,
): LeasedRunner {
  const log = logger.child({ lease: name, holder });
  const leases = createLeases({ db });
  let stopped = false;
  let current: { lease: Lease; abort: AbortController; loop: Promise<void> } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastError: unknown = null;
  let tenures = 0;
  let ticking: Promise<void> | undefined;

  function later(ms: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      ticking = tick().finally(() => {
        ticking = undefined;
      });
    }, ms);
  }

  async function lose(reason: string): Promise<void> {
    const c = current;
    if (!c) return;
    current = undefined;
    log.warn({ token: c.lease.token }, `lease lost (${reason}): stopping the loop`);
    c.abort.abort(new Error(`lease ${name} lost`));
    await c.loop;
  }

  async function tick(): Promise<void> {
    if (stopped) return;
    if (!current) {
      try {
        const lease = await leases.acquire({ name, holder, ttlMs });
        if (lease && !stopped) start(lease, Date.now());
      } catch (error) {
        lastError = error;
        log.warn({ err: error }, "acquiring the lease failed");
      }
      later(current ? renewMs : retryMs);
      return;
    }
    const c = current;
    const sentAt = Date.now();
    try {
      const renewed = await leases.renew(c.lease, ttlMs);
      if (renewed) {
        c.lease.expiresAt = renewed.expiresAt;
        localExpiry = sentAt + ttlMs;
      } else await lose("another holder has it, or it expired");
    } catch (error) {
      lastError = error;
      log.warn({ err: error }, "renewing the lease failed");
      // Measured from when the last successful renewal was sent: the database may have expired it already.
      if (Date.now() >= localExpiry) await lose("no renewal before it expired");
    }
    later(current ? renewMs : retryMs);
  }

  let localExpiry = 0;

  function start(lease: Lease, sentAt: number): void {
    const abort = new AbortController();
    tenures += 1;
    localExpiry = sentAt + ttlMs;
    log.info({ token: lease.token }, "lease acquired: running the loop");
    const run = (async () => {
      try {
        await loop({ lease, signal: abort.signal });
      } catch (error) {
        if (!abort.signal.aborted) {
          lastError = error;
          log.error({ err: error }, "the leased loop failed");
        }
      }
      // The loop ended by itself: give the lease up so whoever comes first runs it again.
      if (current?.abort === abort) {
        current = undefined;
        await leases.release(lease).catch((error) => log.warn({ err: error }, "releasing the lease failed"));
      }
    })();
    current = { lease: { ...lease }, abort, loop: run };
  }

  ticking = tick().finally(() => {
    ticking = undefined;
  });

  return {
    holding: () => current !== undefined,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      const c = current;
      current = undefined;
      if (!c) return;
      c.abort.abort(new Error("stopping"));
      await c.loop;
      await leases.release(c.lease).catch((error) => log.warn({ err: error }, "releasing the lease failed"));
    },
    status: () =>
      toJobStatus({
        lease: name,
        holder,
        holding: current !== undefined,
        token: current?.lease.token ?? null,
        tenures,
        lastError,
      }),
  };
}
