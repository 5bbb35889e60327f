/**
 * OAuth 2.0 errors (RFC 6749 §4.1.2.1 and §5.2, RFC 7009 §2.2.1) as one typed error. The token and revocation
 * endpoints answer them as JSON `{error, error_description}`; the authorization endpoint puts the same two
 * fields in the redirect to the client.
 *
 * @example
 * throw new OAuthError("invalid_grant", "authorization code expired");
 * // → 400 {"error":"invalid_grant","error_description":"authorization code expired"}
 */

export const OAUTH_ERROR_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "access_denied",
  "unsupported_response_type",
  "unsupported_token_type",
  "server_error",
  "temporarily_unavailable",
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** Longest `error_description` sent: it is for developers, and it may echo (sanitised) request input. */
const MAX_DESCRIPTION_LENGTH = 300;

/**
 * RFC 6749 §5.2 allows only %x20-21 / %x23-5B / %x5D-7E in `error_description` (printable ASCII without `"`
 * and `\`): anything else, e.g. a control character or a non-ASCII letter echoed from a parameter, becomes `?`.
 */
export function toErrorDescription(text: string): string {
  const safe = text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/gu, "?");
  return safe.length > MAX_DESCRIPTION_LENGTH ? `${safe.slice(0, MAX_DESCRIPTION_LENGTH - 3)}...` : safe;
}

/** The HTTP status of an error code at the token and revocation endpoints. */
export function oauthErrorStatus(error: OAuthErrorCode): number {
  switch (error) {
    case "invalid_client":
      return 401;
    case "server_error":
      return 500;
    case "temporarily_unavailable":
      return 503;
    default:
      return 400;
  }
}

/** An OAuth error: its `error` code, a `description` for developers, and the HTTP status it is answered with. */
export class OAuthError extends Error {
  override name = "OAuthError" as const;
  /** RFC 6749 `error_description`: printable ASCII only, at most 300 characters. */
  readonly description: string;
  readonly statusCode: number;

  constructor(
    readonly error: OAuthErrorCode,
    description: string,
    /** `statusCode` overrides the code's status (429 for a client address over the failed-credentials limit). */
    options?: ErrorOptions & { statusCode?: number },
  ) {
    const safe = toErrorDescription(description);
    super(`${error}: ${safe}`, options);
    this.description = safe;
    this.statusCode = options?.statusCode ?? oauthErrorStatus(error);
  }

  /** The RFC 6749 §5.2 body (and the parameters of an authorization error redirect, without `state`). */
  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}
export type OAuthErrorType = OAuthError & { name: "OAuthError" };
