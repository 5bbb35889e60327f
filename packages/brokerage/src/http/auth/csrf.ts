/**
 * CSRF tokens of the authorization host's forms: HMAC-SHA256 of the form's purpose and of what the form acts
 * on (the authorization request of a consent form, the client of a revoke button), keyed by a per-session
 * secret. A token therefore only works for that session, that form and that request: a token seen in one
 * consent form cannot approve another request. Before login there is no session: the login form's key is the
 * random value of the `brokerage_login_csrf` cookie (a signed double-submit cookie), which a cross-site page
 * can neither read nor set.
 *
 * @example
 * const token = csrfToken(session.csrfSecret, "consent", bindingOf(request));   // hidden field
 * csrfTokenMatches(session.csrfSecret, "consent", bindingOf(request), form.get("csrf_token")); // on POST
 */
import { createHmac } from "node:crypto";
import { hashesEqual } from "../../domain/secrets.ts";

/** The forms of the authorization host. */
export type CsrfPurpose = "login" | "consent" | "revoke" | "logout";

/** Name of the hidden field carrying the token. */
export const CSRF_FIELD = "csrf_token";

const mac = (secret: Uint8Array, purpose: CsrfPurpose, binding: string): Buffer =>
  // The NUL separator keeps (purpose, binding) pairs distinct: no purpose contains it.
  createHmac("sha256", secret).update(`${purpose}\u0000${binding}`, "utf8").digest();

/** The token a form of `purpose` acting on `binding` carries (43 base64url characters). */
export const csrfToken = (secret: Uint8Array, purpose: CsrfPurpose, binding = ""): string =>
  mac(secret, purpose, binding).toString("base64url");

/** Whether `presented` is the token of that form (constant-time; false when absent or malformed). */
export function csrfTokenMatches(
  secret: Uint8Array,
  purpose: CsrfPurpose,
  binding: string,
  presented: string | null | undefined,
): boolean {
  if (typeof presented !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(presented)) return false;
  return hashesEqual(mac(secret, purpose, binding), Buffer.from(presented, "base64url"));
}
