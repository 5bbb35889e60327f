import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { csrfToken, csrfTokenMatches } from "./csrf.ts";

describe("CSRF tokens", () => {
  const secret = randomBytes(32);

  it("a token matches only its own secret, purpose and binding", () => {
    const token = csrfToken(secret, "consent", "client_id=a&state=x");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrfTokenMatches(secret, "consent", "client_id=a&state=x", token)).toBe(true);
    expect(csrfTokenMatches(randomBytes(32), "consent", "client_id=a&state=x", token)).toBe(false);
    expect(csrfTokenMatches(secret, "revoke", "client_id=a&state=x", token)).toBe(false);
    expect(csrfTokenMatches(secret, "consent", "client_id=a&state=y", token)).toBe(false);
  });

  it("purpose and binding cannot be shifted into each other", () => {
    // Without a separator, ("login", "x") and ("logi", "nx") would hash the same text.
    expect(csrfToken(secret, "login", "")).not.toBe(csrfToken(secret, "logout", ""));
    expect(csrfToken(secret, "revoke", "ab")).not.toBe(csrfToken(secret, "revoke", "a"));
  });

  it("refuses absent, empty, malformed and truncated tokens", () => {
    const token = csrfToken(secret, "logout");
    for (const presented of [undefined, null, "", "x", token.slice(0, 42), `${token}A`, `${token.slice(0, 42)}=`]) {
      expect(csrfTokenMatches(secret, "logout", "", presented)).toBe(false);
    }
  });
});
