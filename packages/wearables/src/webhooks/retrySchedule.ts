/**
 * When to try a webhook delivery again, as the Svix server does (reference §A2, its `config.default.toml` and
 * `worker.rs`): 8 attempts, the first at once and then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the
 * failure before, each ±20 % jitter; after a timeout or a 429 at least 60 s; a `Retry-After` the receiver
 * sends is honoured within [delay, 2 × delay]. A manual attempt (a test or a recovery's) is scheduled the same.
 */

/** Seconds between a failed attempt and the next. */
export const RETRY_SCHEDULE_SEC: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** The first attempt and one per retry. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SEC.length + 1;
const JITTER = 0.2;
/** Svix's OVERLOAD_PENALTY_SECS. */
const OVERLOAD_MIN_MS = 60_000;

export interface FailedAttempt {
  /** Attempts made so far, this one included (1 after the first). */
  attempts: number;
  /** A timeout or a 429: the receiver is overloaded. */
  overloaded: boolean;
  /** What the receiver's `Retry-After` asked for, if anything. */
  retryAfterMs?: number | undefined;
}

/**
 * Milliseconds until the next attempt, or undefined when every attempt is spent.
 *
 * @example
 * nextAttemptDelayMs({ attempts: 1, overloaded: false }, () => 0.5); // 5000
 */
export function nextAttemptDelayMs(failed: FailedAttempt, random: () => number = Math.random): number | undefined {
  const baseSec = RETRY_SCHEDULE_SEC[failed.attempts - 1];
  if (baseSec === undefined) return undefined;
  const base = baseSec * 1000;
  let delay =
    failed.retryAfterMs !== undefined
      ? Math.min(Math.max(failed.retryAfterMs, base), 2 * base)
      : Math.round(base * (1 + (random() * 2 - 1) * JITTER));
  if (failed.overloaded) delay = Math.max(delay, OVERLOAD_MIN_MS);
  return delay;
}
