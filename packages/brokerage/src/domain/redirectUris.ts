/**
 * Redirect URIs: registered as absolute URIs without a fragment (RFC 6749 §3.1.2), matched by exact string
 * comparison (RFC 9700 §4.1.3): a path, query or trailing slash that differs is another URI.
 */

export class InvalidRedirectUriError extends Error {
  override name = "InvalidRedirectUriError" as const;
}
export type InvalidRedirectUriErrorType = InvalidRedirectUriError & { name: "InvalidRedirectUriError" };

/**
 * Checks a URI an operator registers: absolute http(s) (http only for loopback hosts, RFC 8252 §7.3 style)
 * or a private-use scheme (`com.example.app:/callback`), no fragment, at most 2,000 characters.
 * @throws {InvalidRedirectUriError}
 */
export function checkRedirectUriForRegistration(uri: string): string {
  if (uri.length > 2000) throw new InvalidRedirectUriError("redirect URI longer than 2000 characters");
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new InvalidRedirectUriError(`redirect URI "${uri}" is not an absolute URI`);
  }
  if (url.hash || uri.includes("#")) throw new InvalidRedirectUriError("a redirect URI has no fragment");
  if (url.protocol === "http:" && !isLoopback(url.hostname)) {
    throw new InvalidRedirectUriError("http redirect URIs are for loopback hosts only; use https");
  }
  if (["javascript:", "data:", "file:", "vbscript:"].includes(url.protocol)) {
    throw new InvalidRedirectUriError(`scheme ${url.protocol} is not allowed`);
  }
  return uri;
}

const isLoopback = (host: string) => host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);

/** Exact match against the registered URIs (no normalisation of any kind). */
export const isRegisteredRedirectUri = (registered: readonly string[], presented: string): boolean =>
  registered.includes(presented);
