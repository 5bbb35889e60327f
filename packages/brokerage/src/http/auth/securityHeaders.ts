/**
 * The headers every response of the authorization host carries: a Content-Security-Policy that allows no
 * script, no plugin, no framing (`frame-ancestors 'none'` + `X-Frame-Options: DENY` against clickjacking the
 * Allow button) and forms posting only to this host; no caching and no Referer (pages carry the
 * authorization request, whose `state` and `code_challenge` are not for third parties).
 */
import type { FastifyReply } from "fastify";

/**
 * The policy; `formTargets` are the origins (or private-use schemes) a form's submission may end up at after
 * our redirect: Chrome applies `form-action` to the redirects that follow a POST, so the consent form must
 * allow the application's redirect URI.
 */
export function contentSecurityPolicy(formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self'",
    ["form-action 'self'", ...formTargets].join(" "),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/**
 * What `form-action` must allow for a redirect URI: its origin (`https://app.example`), or its scheme for a
 * private-use URI scheme (`com.example.app:`), whose origin is opaque.
 */
export function formTargetOf(redirectUri: string): string | undefined {
  try {
    const url = new URL(redirectUri);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
  } catch {
    return undefined;
  }
}

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": contentSecurityPolicy(),
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/** Sets the host's headers on a reply (an `onRequest` hook, so error answers carry them too). */
export async function setSecurityHeaders(_request: unknown, reply: FastifyReply): Promise<void> {
  reply.headers(SECURITY_HEADERS);
}
