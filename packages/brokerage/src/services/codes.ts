/**
 * Authorization codes (RFC 6749 §4.1.2): what the consent page's "Allow" creates. A code is 256 random bits,
 * lives 10 minutes, is used once, and is bound to the client, the redirect URI, the scopes, the chosen
 * accounts and the PKCE challenge; only its hash is stored. Redeeming it is the tokens service's.
 */
import { OAuthError } from "../domain/oauthErrors.ts";
import { CODE_CHALLENGE_S256 } from "../domain/pkce.ts";
import { formatScope, InvalidScopeError, parseScope, type Scope } from "../domain/scopes.ts";
import { hashSecret, randomSecret } from "../domain/secrets.ts";
import type { AuthorizationCodesRepository } from "../store/authorizationCodesRepository.ts";

/** RFC 6749 §4.1.2 recommends at most 10 minutes. */
export const CODE_LIFETIME_MS = 10 * 60 * 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IssueCodeParameters {
  clientId: string;
  userId: string;
  /** The redirect URI of the authorization request, exactly as sent (the token request must repeat it). */
  redirectUri: string;
  scopes: readonly Scope[];
  /** At least one of the two accounts; each must be the user's account of that env. */
  liveAccountId?: string | undefined;
  paperAccountId?: string | undefined;
  /** S256 challenge of the authorization request, if it had one. */
  codeChallenge?: string | undefined;
}

export function createCodesService({ codes }: { codes: AuthorizationCodesRepository }) {
  return {
    /**
     * Creates a code and returns it (the only time it exists in clear).
     * @throws {OAuthError} `invalid_request` when no account is chosen, an id is malformed, an account is not
     * the user's account of its env, the client or the user does not exist, or the challenge is not S256's;
     * `invalid_scope` for a scope that is not one of `SCOPES`.
     */
    async issue(p: IssueCodeParameters): Promise<string> {
      if (!p.liveAccountId && !p.paperAccountId) throw new OAuthError("invalid_request", "no account was chosen");
      for (const id of [p.userId, p.liveAccountId, p.paperAccountId]) {
        if (id !== undefined && !UUID.test(id)) throw new OAuthError("invalid_request", "malformed account or user id");
      }
      if (p.codeChallenge !== undefined && !CODE_CHALLENGE_S256.test(p.codeChallenge)) {
        throw new OAuthError("invalid_request", "code_challenge is not a S256 challenge (43 base64url characters)");
      }
      const scope = canonicalScope(p.scopes);
      const code = randomSecret();
      await codes.insert({
        codeHash: hashSecret(code),
        clientId: p.clientId,
        userId: p.userId,
        redirectUri: p.redirectUri,
        scope,
        liveAccountId: p.liveAccountId ?? null,
        paperAccountId: p.paperAccountId ?? null,
        codeChallenge: p.codeChallenge ?? null,
        expiresAt: new Date(Date.now() + CODE_LIFETIME_MS),
      });
      return code;
    },
  };
}

/** The stored form of `scopes`: known scopes only, in `SCOPES` order, without duplicates. */
function canonicalScope(scopes: readonly Scope[]): string {
  try {
    return formatScope(parseScope(scopes.join(" ")));
  } catch (error) {
    if (error instanceof InvalidScopeError) throw new OAuthError("invalid_scope", error.message, { cause: error });
    throw error;
  }
}

export type CodesService = ReturnType<typeof createCodesService>;
