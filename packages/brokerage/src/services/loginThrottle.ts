/**
 * Rate limit of failed logins on the authorization pages, per account (the email tried) and per client
 * address, on kernel's rate counters (Redis when several instances share the limits, memory otherwise). Only
 * failures count; a throttled attempt is refused before its password is checked, so guessing costs the
 * attacker time whether the password was right or not.
 *
 * Windows slide (kernel's `createFailureWindow`, the same mechanism as every service's limit on failed
 * credentials): a burst across a window boundary gets no second allowance.
 */
import { createHash } from "node:crypto";
import { addressKey, createFailureWindow, type FailureLimit, type RateCounter } from "@platform/kernel";

export { addressKey };

export type LoginLimit = FailureLimit;

/** OWASP-style defaults: 5 failures per account and 20 per address in 15 minutes. */
export const DEFAULT_LOGIN_LIMITS = {
  perEmail: { failures: 5, windowSec: 15 * 60 },
  perAddress: { failures: 20, windowSec: 15 * 60 },
} as const satisfies Record<string, LoginLimit>;

export interface LoginAttempt {
  email: string;
  /** The client's address (`request.ip`: the forwarded one behind a trusted proxy, see TRUST_PROXY). */
  address: string;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("base64url");

/** The email as counted: case and surrounding spaces do not make another account. Hashed: no PII in Redis. */
const emailKey = (email: string) => `email:${sha256(email.trim().toLowerCase())}`;

export function createLoginThrottle({
  counter,
  perEmail = DEFAULT_LOGIN_LIMITS.perEmail,
  perAddress = DEFAULT_LOGIN_LIMITS.perAddress,
}: {
  counter: RateCounter;
  perEmail?: LoginLimit;
  perAddress?: LoginLimit;
}) {
  // Counters may be shared with other services (one Redis): the name says whose they are.
  const byEmail = createFailureWindow({ counter, name: "brokerage:login", limit: perEmail });
  const byAddress = createFailureWindow({ counter, name: "brokerage:login", limit: perAddress });
  const limits = (attempt: LoginAttempt) =>
    [
      [emailKey(attempt.email), byEmail],
      [addressKey(attempt.address), byAddress],
    ] as const;

  return {
    perEmail,
    perAddress,

    /** Whether this attempt must be refused without checking its password. */
    async isThrottled(attempt: LoginAttempt): Promise<boolean> {
      const waits = await Promise.all(limits(attempt).map(([key, window]) => window.retryAfterSec(key)));
      return waits.some((wait) => wait > 0);
    },

    /** Counts a failed login against the account and the address. */
    async recordFailure(attempt: LoginAttempt): Promise<void> {
      await Promise.all(limits(attempt).map(([key, window]) => window.recordFailure(key)));
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
