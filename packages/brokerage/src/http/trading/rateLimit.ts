/**
 * The trading hosts' rate limit, as the anchor's: "200 requests every minute per API key", over it a 429
 * `{"code":42910000,"message":"too many requests"}`, and `X-Ratelimit-Limit`, `X-Ratelimit-Remaining`,
 * `X-Ratelimit-Reset` (epoch seconds) on the answers. Windows are fixed minutes of the epoch, counted on
 * kernel's rate counters (Redis with `REDIS_URL`, so every instance shares a count; in process otherwise).
 *
 * What is counted (the principal key): an access token, or a key pair's key id. A token that authorizes a
 * live and a paper account has ONE count across both hosts, as the anchor counts per credential, not per
 * host; a key pair belongs to one environment, so it is counted on its host only.
 *
 * Decision: when the counter fails (Redis down or slower than `COUNTER_TIMEOUT_MS`), requests are let
 * through (fail open) and a warning is logged at most once a minute. The limit protects capacity, not
 * access: authentication has already decided who may act, and refusing every trading request (cancelling an
 * order included) because an auxiliary store is away would turn a Redis outage into a trading outage. The
 * warning is rate limited itself so an outage at hundreds of requests a second does not flood the log.
 */
import type { Logger, RateCounter } from "@platform/kernel";
import { hashSecret } from "../../domain/secrets.ts";

/** The anchor's message of its 429 (code 42910000), kept verbatim. */
export const TOO_MANY_REQUESTS = "too many requests";

const WINDOW_MS = 60_000;
/**
 * A window's counter outlives its minute by one more: instances whose clocks differ by a few seconds still
 * count into the same live key. An expired window is never read again (the next one has another key).
 */
const COUNTER_TTL_SEC = 120;
/** A counter that answers later than this is treated as failed: Redis latency must not become the API's. */
export const COUNTER_TIMEOUT_MS = 250;
/** At most one warning about a failing counter per this many milliseconds. */
const WARNING_INTERVAL_MS = 60_000;

export interface RateLimitDecision {
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in this window after this one (0 when over the limit). */
  remaining: number;
  /** End of the current window, epoch seconds (`X-Ratelimit-Reset`). */
  reset: number;
  /** Whole seconds until the window ends, at least 1 (`Retry-After` of a refused request). */
  retryAfter: number;
  /** False once the window's count exceeds the limit. */
  allowed: boolean;
}

export interface TradingRateLimit {
  /** Counts one request of `principalKey` (see `bearerRateKey`, `keyPairRateKey`) and decides on it. */
  check(principalKey: string): Promise<RateLimitDecision>;
}

export interface TradingRateLimitParameters {
  counter: RateCounter;
  /** Requests per minute per principal (config `brokerageRateLimit`, the anchor's 200). */
  limitPerMinute: number;
  /** Where a failing counter is reported (once a minute). */
  logger: Pick<Logger, "warn">;
  /**
   * Which API's budget this is (default `trading`): the anchor counts the trading and the market data APIs
   * apart, so the data host has a limiter of its own over the same counters.
   */
  api?: "trading" | "data";
  /** The clock, epoch milliseconds. */
  now?: () => number;
}

/**
 * The principal key of an access token: the first 16 bytes of its SHA-256 (as `hashSecret`, the hash the
 * tokens are stored by), in hex. Never the token itself: the key lands in Redis and could land in logs; 128
 * bits of a hash of a 256-bit random token cannot be turned back into it nor collide by chance.
 */
export const bearerRateKey = (token: string): string => `token:${hashSecret(token).subarray(0, 16).toString("hex")}`;

/** The principal key of a key pair: its key id, which is not a secret (the secret is the other half). */
export const keyPairRateKey = (keyId: string): string => `key:${keyId}`;

class CounterTimeoutError extends Error {
  override name = "CounterTimeoutError" as const;
}

/** `promise`, or a rejection once `ms` have passed without it settling. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CounterTimeoutError(`rate counter did not answer in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The per-principal limit of the trading hosts: one fixed one-minute window per principal key, counted on
 * `counter`. Create it once per brokerage and give it to both trading hosts, so a token has one count.
 *
 * @example
 * const rateLimit = createTradingRateLimit({ counter, limitPerMinute: 200, logger });
 * const { allowed, remaining, reset } = await rateLimit.check(bearerRateKey(token));
 */
export function createTradingRateLimit({
  counter,
  limitPerMinute,
  logger,
  api = "trading",
  now = Date.now,
}: TradingRateLimitParameters): TradingRateLimit {
  let lastWarningAt = Number.NEGATIVE_INFINITY;
  let failuresSinceWarning = 0;

  function reportFailure(error: unknown, at: number): void {
    failuresSinceWarning += 1;
    if (at - lastWarningAt < WARNING_INTERVAL_MS) return;
    logger.warn(
      { err: error, failures: failuresSinceWarning },
      `${api} rate limit counter failed: requests are let through uncounted until it answers again`,
    );
    lastWarningAt = at;
    failuresSinceWarning = 0;
  }

  return {
    async check(principalKey) {
      const at = now();
      const window = Math.floor(at / WINDOW_MS);
      const resetMs = (window + 1) * WINDOW_MS;
      const reset = resetMs / 1000;
      const retryAfter = Math.max(1, Math.ceil((resetMs - at) / 1000));
      let count: number;
      try {
        // Counters may be shared with other services (one Redis): the key says whose it is.
        count = await within(
          counter.increment(`brokerage:${api}:${principalKey}:m:${window}`, COUNTER_TTL_SEC),
          COUNTER_TIMEOUT_MS,
        );
      } catch (error) {
        reportFailure(error, at);
        // Nothing could be counted: the request passes and the client is not told to slow down.
        return { limit: limitPerMinute, remaining: limitPerMinute, reset, retryAfter, allowed: true };
      }
      return {
        limit: limitPerMinute,
        remaining: Math.max(0, limitPerMinute - count),
        reset,
        retryAfter,
        allowed: count <= limitPerMinute,
      };
    },
  };
}
