/**
 * Login sessions of the authorization pages. The cookie carries 256 random bits; the store keeps only their
 * SHA-256 (a stolen database holds no usable session). Each session has its own random CSRF secret, from
 * which its forms' tokens are derived. A login always opens a new session (no fixation); sessions end at a
 * fixed time after login (no sliding renewal: a brokerage login should not live on by being used).
 */
import { randomBytes } from "node:crypto";
import { hashSecret, randomSecret } from "../domain/secrets.ts";
import type { SessionsRepository } from "../store/sessionsRepository.ts";

/** Default lifetime of a login session: one hour. */
export const DEFAULT_SESSION_TTL_MS = 60 * 60 * 1000;

/** What a session cookie's value looks like (a `randomSecret()`); anything else is unknown without a lookup. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export interface OpenedSession {
  /** The session cookie's value: given to the browser, never stored. */
  cookieValue: string;
  csrfSecret: Buffer;
  expiresAt: Date;
}

export interface ActiveSession {
  userId: string;
  email: string;
  csrfSecret: Buffer;
  expiresAt: Date;
}

export function createSessionsService({
  sessions,
  ttlMs = DEFAULT_SESSION_TTL_MS,
}: {
  sessions: SessionsRepository;
  ttlMs?: number;
}) {
  return {
    /** Lifetime of a new session (the cookie's Max-Age). */
    ttlMs,

    /** Opens a session for a user who just proved who they are. */
    async open(userId: string): Promise<OpenedSession> {
      const now = Date.now();
      // Logins clean up after expired sessions, a bounded batch at a time.
      await sessions.deleteExpired(new Date(now));
      const cookieValue = randomSecret();
      const csrfSecret = randomBytes(32);
      const expiresAt = new Date(now + ttlMs);
      await sessions.insert({ idHash: hashSecret(cookieValue), userId, csrfSecret, expiresAt });
      return { cookieValue, csrfSecret, expiresAt };
    },

    /** The unexpired session of this cookie value, or undefined. */
    async find(cookieValue: string | undefined): Promise<ActiveSession | undefined> {
      if (!cookieValue || !COOKIE_VALUE.test(cookieValue)) return undefined;
      const row = await sessions.find(hashSecret(cookieValue), new Date());
      return row && { userId: row.user_id, email: row.email, csrfSecret: row.csrf_secret, expiresAt: row.expires_at };
    },

    /** Ends the session (logout, or before a new login in the same browser). */
    async close(cookieValue: string | undefined): Promise<void> {
      if (cookieValue && COOKIE_VALUE.test(cookieValue)) await sessions.delete(hashSecret(cookieValue));
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
