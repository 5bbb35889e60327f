/**
 * Rate limit of failed logins on the authorization pages, per account (the email tried) and per client
 * address, on kernel's rate counters (Redis when several instances share the limits, memory otherwise). Only
 * failures count; a throttled attempt is refused before its password is checked, so guessing costs the
 * attacker time whether the password was right or not.
 *
 * Windows slide: the estimate is the current fixed window's failures plus the previous window's, weighted by
 * how much of it still overlaps the last `windowSec` seconds (Cloudflare's approximation), rounded up. A burst
 * across a window boundary therefore gets no second allowance.
 */
import { createHash } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";
import type { RateCounter } from "@platform/kernel";

export interface LoginLimit {
  /** Failures allowed within `windowSec`; the next attempt is refused. */
  failures: number;
  windowSec: number;
}

/** OWASP-style defaults: 5 failures per account and 20 per address in 15 minutes. */
export const DEFAULT_LOGIN_LIMITS = {
  perEmail: { failures: 5, windowSec: 15 * 60 },
  perAddress: { failures: 20, windowSec: 15 * 60 },
} as const satisfies Record<string, LoginLimit>;

export interface LoginAttempt {
  email: string;
  /** The client's address (`request.ip`). */
  address: string;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("base64url");

/** The email as counted: case and surrounding spaces do not make another account. Hashed: no PII in Redis. */
const emailKey = (email: string) => `email:${sha256(email.trim().toLowerCase())}`;

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

export function createLoginThrottle({
  counter,
  perEmail = DEFAULT_LOGIN_LIMITS.perEmail,
  perAddress = DEFAULT_LOGIN_LIMITS.perAddress,
}: {
  counter: RateCounter;
  perEmail?: LoginLimit;
  perAddress?: LoginLimit;
}) {
  // Counters may be shared with other services (one Redis): the keys say whose they are.
  const windowOf = (key: string, { windowSec }: LoginLimit, offset: number) =>
    `brokerage:login:${key}:${Math.floor(Date.now() / (windowSec * 1000)) + offset}`;

  /** Failures within the last `windowSec`, estimated from the current and previous fixed windows. */
  async function recentFailures(key: string, limit: LoginLimit): Promise<number> {
    const [current, previous] = await Promise.all([
      counter.count(windowOf(key, limit, 0)),
      counter.count(windowOf(key, limit, -1)),
    ]);
    const windowMs = limit.windowSec * 1000;
    const elapsed = (Date.now() % windowMs) / windowMs;
    // Rounded up: a failure is forgotten only once its window has slid past it, never early.
    return current + Math.ceil(previous * (1 - elapsed));
  }

  const limits = (attempt: LoginAttempt) =>
    [
      [emailKey(attempt.email), perEmail],
      [addressKey(attempt.address), perAddress],
    ] as const;

  return {
    perEmail,
    perAddress,

    /** Whether this attempt must be refused without checking its password. */
    async isThrottled(attempt: LoginAttempt): Promise<boolean> {
      const counts = await Promise.all(limits(attempt).map(([key, limit]) => recentFailures(key, limit)));
      return limits(attempt).some(([, limit], i) => (counts[i] as number) >= limit.failures);
    },

    /** Counts a failed login against the account and the address. */
    async recordFailure(attempt: LoginAttempt): Promise<void> {
      // The previous window is read for the sliding estimate, so a window lives two lengths.
      await Promise.all(
        limits(attempt).map(([key, limit]) => counter.increment(windowOf(key, limit, 0), limit.windowSec * 2)),
      );
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
