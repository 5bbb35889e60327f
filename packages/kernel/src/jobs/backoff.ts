/**
 * How long a failed job waits before its next attempt: exponential in the attempt number, capped, with
 * "equal jitter" (half the delay fixed, half random), so that jobs failing together (a database or an RPC
 * endpoint down) do not all come back in the same instant, yet none comes back at once.
 *
 * @example
 * retryDelayMs(1, { baseMs: 1_000, maxMs: 60_000 }, () => 0.5) // 750: between 500 and 1,000
 * retryDelayMs(4, { baseMs: 1_000, maxMs: 60_000 }, () => 0.5) // 6,000: between 4,000 and 8,000
 */

export interface BackoffOptions {
  /** The delay before the second attempt (before jitter); default 1 s. */
  baseMs?: number;
  /** The largest delay (before jitter); default 10 minutes. */
  maxMs?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { baseMs: 1_000, maxMs: 600_000 };

/**
 * The delay after attempt `attempt` (1 = the first attempt failed): `min(maxMs, baseMs · 2^(attempt−1))`,
 * of which the upper half is scaled by `random()` (a number in [0, 1), `Math.random` by default).
 */
export function retryDelayMs(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const { baseMs, maxMs } = { ...DEFAULT_BACKOFF, ...options };
  const exponent = Math.max(0, Math.min(attempt - 1, 52));
  const delay = Math.min(maxMs, baseMs * 2 ** exponent);
  return Math.round(delay / 2 + (random() * delay) / 2);
}
