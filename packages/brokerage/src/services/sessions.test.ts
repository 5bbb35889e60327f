/**
 * Login sessions on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): only the cookie's hash
 * is stored, sessions end at their expiry, logins clean up expired ones.
 */
import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createSessionsRepository } from "../store/sessionsRepository.ts";
import type { UserWithAccounts } from "../store/usersRepository.ts";
import { createOAuthFixture, type OAuthFixture } from "../testing/oauthFixture.ts";
import { createSessionsService } from "./sessions.ts";

let f: OAuthFixture;
let user: UserWithAccounts;
let sessions: ReturnType<typeof createSessionsService>;
const TTL = 60_000;

beforeAll(async () => {
  f = await createOAuthFixture();
  user = await f.createUser();
  sessions = createSessionsService({ sessions: createSessionsRepository(f.database.db), ttlMs: TTL });
});
afterAll(() => f.close());
afterEach(() => {
  vi.useRealTimers();
});

const rows = () =>
  f.database.db.query<{ id_hash: Buffer; user_id: string; csrf_secret: Buffer; expires_at: Date }>(
    "SELECT id_hash, user_id, csrf_secret, expires_at FROM brokerage.sessions",
  );

describe("sessions", () => {
  it("opens a session whose cookie value is stored only as its SHA-256", async () => {
    const opened = await sessions.open(user.id);
    expect(opened.cookieValue).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(opened.csrfSecret).toHaveLength(32);
    const stored = (await rows()).find((r) => r.user_id === user.id);
    expect(stored?.id_hash).toEqual(createHash("sha256").update(opened.cookieValue).digest());
    expect(JSON.stringify(await rows())).not.toContain(opened.cookieValue);
    expect(await sessions.find(opened.cookieValue)).toEqual({
      userId: user.id,
      email: user.email,
      csrfSecret: opened.csrfSecret,
      expiresAt: opened.expiresAt,
    });
  });

  it("finds nothing for unknown, malformed or closed cookies", async () => {
    const opened = await sessions.open(user.id);
    expect(await sessions.find(undefined)).toBeUndefined();
    expect(await sessions.find("x")).toBeUndefined();
    const last = opened.cookieValue.at(-1) === "A" ? "B" : "A";
    expect(await sessions.find(`${opened.cookieValue.slice(0, 42)}${last}`)).toBeUndefined();
    await sessions.close(opened.cookieValue);
    expect(await sessions.find(opened.cookieValue)).toBeUndefined();
  });

  it("a session ends at its expiry, and a later login deletes it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const opened = await sessions.open(user.id);
    vi.setSystemTime(Date.now() + TTL - 1);
    expect(await sessions.find(opened.cookieValue)).toBeDefined();
    vi.setSystemTime(Date.now() + 1);
    expect(await sessions.find(opened.cookieValue)).toBeUndefined();
    const idHash = createHash("sha256").update(opened.cookieValue).digest();
    expect((await rows()).some((r) => r.id_hash.equals(idHash))).toBe(true);
    await sessions.open(user.id);
    expect((await rows()).some((r) => r.id_hash.equals(idHash))).toBe(false);
  });

  it("each login is a new session with its own CSRF secret", async () => {
    const a = await sessions.open(user.id);
    const b = await sessions.open(user.id);
    expect(a.cookieValue).not.toBe(b.cookieValue);
    expect(a.csrfSecret.equals(b.csrfSecret)).toBe(false);
  });
});
