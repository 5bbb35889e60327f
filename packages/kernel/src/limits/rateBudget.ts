/**
 * Paces outbound requests to a third party under its documented limits (e.g. Strava: 100 requests per 15
 * minutes and 1,000 per day per application), shared by every instance through the rate counter (Redis when
 * `REDIS_URL` is set): `take()` resolves when one more request fits every window, waiting for the window to
 * turn instead of bursting past it. Windows are aligned fixed windows, as vendors count them.
 *
 * @example
 * const budget = createRateBudget({ counter, name: "vendor:strava", windows: [{ requests: 100, windowSec: 900 }] });
 * await budget.take(signal);
 * await fetch(…);
 */
import type { RateCounter } from "./rateCounter.ts";

export interface RateWindow {
  requests: number;
  windowSec: number;
}

export interface CreateRateBudgetParameters {
  counter: RateCounter;
  /** Namespace of the counters (`vendor:strava`). */
  name: string;
  windows: readonly RateWindow[];
  /** Injected for tests. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RateBudget {
  /** Waits until one more request fits every window, and counts it. */
  take(signal?: AbortSignal): Promise<void>;
  /** Stops every request until `untilMs` (epoch ms): a 429's `Retry-After` applies to all callers in this process. */
  pauseUntil(untilMs: number): void;
}

export const abortableSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export function createRateBudget({
  counter,
  name,
  windows,
  now = Date.now,
  sleep = abortableSleep,
}: CreateRateBudgetParameters): RateBudget {
  let pausedUntil = 0;
  return {
    pauseUntil(untilMs) {
      pausedUntil = Math.max(pausedUntil, untilMs);
    },
    async take(signal) {
      for (;;) {
        if (now() < pausedUntil) await sleep(pausedUntil - now(), signal);
        let waitMs = 0;
        for (const w of windows) {
          const index = Math.floor(now() / (w.windowSec * 1000));
          const count = await counter.increment(`${name}:${w.windowSec}:${index}`, w.windowSec + 1);
          // Over the limit: this window is spent; the count stays over, so others wait too. (A wait counts
          // in the other windows as well: conservative, never over a vendor's limit.)
          if (count > w.requests) waitMs = Math.max(waitMs, (index + 1) * w.windowSec * 1000 - now());
        }
        if (waitMs === 0) return;
        await sleep(waitMs + 1, signal);
      }
    },
  };
}
