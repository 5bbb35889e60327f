/**
 * The two cookies of the authorization host, read and written without a framework plugin:
 * - `brokerage_session`: the login session (HttpOnly, SameSite=Lax so it comes along when an application
 *   sends the user to `/oauth/authorize`, Secure over https);
 * - `brokerage_login_csrf`: the secret of the login form's CSRF token before there is a session
 *   (HttpOnly, SameSite=Strict: only our own pages post the login form).
 */

export const SESSION_COOKIE = "brokerage_session";
export const LOGIN_CSRF_COOKIE = "brokerage_login_csrf";

/** Values we issue are base64url secrets; anything else in the header is ignored. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{16,128}$/;

/** The value of cookie `name` in a `Cookie` header (the first one when repeated), if it is well-formed. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return COOKIE_VALUE.test(value) ? value : undefined;
  }
  return undefined;
}

export interface CookieOptions {
  /** Lifetime in seconds; 0 deletes the cookie. */
  maxAgeSec: number;
  sameSite: "Lax" | "Strict";
  secure: boolean;
}

/** A `Set-Cookie` value: always HttpOnly and `Path=/` (no script reads our cookies; one host, one path). */
export function serializeCookie(name: string, value: string, { maxAgeSec, sameSite, secure }: CookieOptions): string {
  const attributes = [`${name}=${value}`, "Path=/", `Max-Age=${Math.max(0, Math.floor(maxAgeSec))}`, "HttpOnly"];
  attributes.push(`SameSite=${sameSite}`);
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}
