/**
 * Limits on failed credentials, on the rate counters (Redis with `REDIS_URL`, so a limit holds across
 * instances; memory otherwise). Only failures count; once a key (a client address, an account) has spent its
 * allowance, further attempts are refused before any credential is looked up, so guessing costs the attacker
 * time whether the guess was right or not, and costs the database nothing. A success resets nothing: counters
 * are per key, and one client's valid key says nothing about another's guesses.
 *
 * Windows slide: the estimate is the current fixed window's failures plus the previous window's, weighted by
 * how much of it still overlaps the last `windowSec` seconds (Cloudflare's approximation), rounded up. A burst
 * across a window boundary therefore gets no second allowance.
 *
 * `createFailedCredentials` is the one per-address limit every service applies to its API keys, tokens and
 * client secrets (options `AUTH_FAILURE_LIMIT`, `AUTH_FAILURE_WINDOW_SEC`).
 */
import { createHash } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";
import { HttpError } from "../http/httpError.ts";
import type { RateCounter } from "./rateCounter.ts";

export interface FailureLimit {
  /** Failures allowed within `windowSec`; the next attempt is refused. */
  failures: number;
  windowSec: number;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("base64url");

/**
 * The address as counted: IPv4 as it is (an IPv4-mapped IPv6 address too), IPv6 by its /64 (one subscriber
 * holds a whole /64, so counting single IPv6 addresses would count nothing).
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return `ip:${mapped[1]}`;
  if (isIPv4(address)) return `ip:${address}`;
  if (isIPv6(address)) return `ip:${ipv6Prefix64(address)}::/64`;
  return `ip:${sha256(address)}`;
}

/** The first four groups of an IPv6 address, expanded (`2001:db8::1` → `2001:db8:0:0`). */
function ipv6Prefix64(address: string): string {
  const [head = "", tail] = address.split("%")[0]?.split("::") ?? [""];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(":") : [];
  // An embedded IPv4 tail (`::ffff:1.2.3.4`-like) takes two groups; the prefix never reaches it anyway.
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array.from({ length: Math.max(0, missing) }, () => "0"), ...tailGroups];
  return groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":");
}

/** A sliding-window count of failures per key under one name (counters may be shared: the name says whose). */
export interface FailureWindow {
  readonly limit: FailureLimit;
  /** Seconds until `key` may try again; 0 when it may now. */
  retryAfterSec(key: string): Promise<number>;
  /** Counts one failure of `key`. */
  recordFailure(key: string): Promise<void>;
}

export function createFailureWindow({
  counter,
  name,
  limit,
  now = () => Date.now(),
}: {
  counter: RateCounter;
  /** Prefix of the counters' windows, e.g. `brokerage:login` or `auth:wearables`. */
  name: string;
  limit: FailureLimit;
  now?: () => number;
}): FailureWindow {
  const windowMs = limit.windowSec * 1000;
  const windowOf = (key: string, index: number) => `${name}:${key}:${index}`;

  return {
    limit,
    async retryAfterSec(key) {
      const t = now();
      const index = Math.floor(t / windowMs);
      const [current, previous] = await Promise.all([
        counter.count(windowOf(key, index)),
        counter.count(windowOf(key, index - 1)),
      ]);
      const elapsed = (t % windowMs) / windowMs;
      // Rounded up: a failure is forgotten only once its window has slid past it, never early.
      if (current + Math.ceil(previous * (1 - elapsed)) < limit.failures) return 0;
      // When the estimate drops below the limit: within this window once the previous one's weight is small
      // enough, else in the next window once this one's is.
      const allowed = limit.failures - 1;
      const freeAt = current <= allowed ? index + 1 - (allowed - current) / previous : index + 2 - allowed / current;
      // Whole milliseconds first: the fractions above must not add a second.
      return Math.max(1, Math.ceil(Math.round(freeAt * windowMs - t) / 1000));
    },
    async recordFailure(key) {
      // The previous window is read for the sliding estimate, so a window lives two lengths.
      await counter.increment(windowOf(key, Math.floor(now() / windowMs)), limit.windowSec * 2);
    },
  };
}

/** The per-address limit on failed credentials of one service. */
export interface FailedCredentials {
  readonly limit: FailureLimit;
  /** Seconds the client at `address` must wait before presenting credentials again; 0 when it may now. */
  retryAfterSec(address: string): Promise<number>;
  /** Counts a failed credential presented from `address` (`request.ip`). */
  recordFailure(address: string): Promise<void>;
  /**
   * Refuses a request whose address has spent its allowance: sets `Retry-After` on the reply and throws
   * `HttpError(429, TOO_MANY_FAILURES_MESSAGE, "TOO_MANY_REQUESTS")`, which the service's error format renders.
   * Call it before looking the credential up.
   */
  assertAllowed(request: { ip: string }, reply: { header(name: string, value: string): unknown }): Promise<void>;
}

export function createFailedCredentials({
  counter,
  service,
  limit,
  now,
}: {
  counter: RateCounter;
  /** Whose counters: several services may share one Redis. */
  service: string;
  limit: FailureLimit;
  now?: () => number;
}): FailedCredentials {
  const window = createFailureWindow({ counter, name: `${service}:auth-failures`, limit, now });
  return {
    limit,
    retryAfterSec: (address) => window.retryAfterSec(addressKey(address)),
    recordFailure: (address) => window.recordFailure(addressKey(address)),
    async assertAllowed(request, reply) {
      const wait = await window.retryAfterSec(addressKey(request.ip));
      if (wait === 0) return;
      reply.header("Retry-After", String(wait));
      throw new HttpError(429, TOO_MANY_FAILURES_MESSAGE, "TOO_MANY_REQUESTS");
    },
  };
}

/** The limit the options `AUTH_FAILURE_LIMIT` and `AUTH_FAILURE_WINDOW_SEC` set. */
export const failureLimitOf = (config: { authFailureLimit: number; authFailureWindowSec: number }): FailureLimit => ({
  failures: config.authFailureLimit,
  windowSec: config.authFailureWindowSec,
});

/** The message of a refused attempt, the same in every service's format. */
export const TOO_MANY_FAILURES_MESSAGE = "Too many failed authentication attempts from this address; retry later";
