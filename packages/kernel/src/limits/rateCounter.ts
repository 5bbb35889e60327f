/**
 * Fixed-window counters for rate limits: in process by default, shared through Redis (`REDIS_URL`) when
 * several instances serve the same keys. A window is just a key that expires, e.g. `k1:s:1795322858`
 * for one second or `k1:d:2026-11-22` for one UTC day.
 */
import { Redis } from "ioredis";

export interface RateCounter {
  /** Adds one to `window` (created with a lifetime of `ttlSec`) and returns the new count. */
  increment(window: string, ttlSec: number): Promise<number>;
  /** The count of `window` without adding to it: 0 when it was never incremented or has expired. */
  count(window: string): Promise<number>;
  close(): Promise<void>;
}

export function createMemoryRateCounter(): RateCounter {
  const windows = new Map<string, { count: number; expiresAt: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, w] of windows) if (w.expiresAt <= now) windows.delete(k);
  }, 5_000);
  sweep.unref();
  return {
    async increment(window, ttlSec) {
      const now = Date.now();
      const w = windows.get(window);
      if (!w || w.expiresAt <= now) {
        windows.set(window, { count: 1, expiresAt: now + ttlSec * 1000 });
        return 1;
      }
      w.count += 1;
      return w.count;
    },
    async count(window) {
      const w = windows.get(window);
      return w && w.expiresAt > Date.now() ? w.count : 0;
    },
    async close() {
      clearInterval(sweep);
      windows.clear();
    },
  };
}

export function createRedisRateCounter(url: string, prefix = "ratelimit:"): RateCounter {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  return {
    async increment(window, ttlSec) {
      const key = `${prefix}${window}`;
      const result = await redis.multi().incr(key).expire(key, ttlSec, "NX").exec();
      const [error, count] = result?.[0] ?? [new Error("redis transaction aborted"), 0];
      if (error) throw error;
      return Number(count);
    },
    async count(window) {
      return Number((await redis.get(`${prefix}${window}`)) ?? 0);
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Redis when a URL is given, else in process. */
export const createRateCounter = (redisUrl: string | undefined): RateCounter =>
  redisUrl ? createRedisRateCounter(redisUrl) : createMemoryRateCounter();
