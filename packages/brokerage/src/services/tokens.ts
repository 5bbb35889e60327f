/**
 * Access tokens: the authorization code grant's exchange (RFC 6749 §4.1.3, RFC 7636, RFC 9700 §2.1.1 and
 * §4.8), what a bearer token grants (RFC 6750; the trading hosts read it together with the account, in the
 * accounts service), revocation by the client (RFC 7009) and by the user (the authorized applications page).
 * Tokens are 256 random bits, stored as hashes only, valid until revoked (as Alpaca's: no expiry, no refresh
 * token), bound to at most one live and one paper account.
 *
 * Callers authenticate the client first (`http/oauth/clientAuthentication.ts`): `clientId` here is always
 * the client the request proved to be.
 */
import { OAuthError } from "../domain/oauthErrors.ts";
import { verifierMatchesChallenge } from "../domain/pkce.ts";
import { SCOPES, type Scope } from "../domain/scopes.ts";
import { hashSecret, randomSecret } from "../domain/secrets.ts";
import type { AccessTokensRepository, AuthorizedAccountRow } from "../store/accessTokensRepository.ts";
import type { AuthorizationCodesRepository } from "../store/authorizationCodesRepository.ts";

export interface ExchangeCodeParameters {
  code: string;
  /** The client the token request authenticated as. */
  clientId: string;
  /** Must be identical to the authorization request's. */
  redirectUri: string;
  /** RFC 7636 verifier; required exactly when the code was issued with a challenge. */
  codeVerifier?: string | undefined;
}

/** The token response, exactly Alpaca's (no `expires_in`, no `refresh_token`). */
export interface AccessTokenGrant {
  access_token: string;
  token_type: "bearer";
  /** Space-delimited granted scopes; "" = read-only. */
  scope: string;
}

/** What a valid bearer token grants. */
export interface VerifiedAccessToken {
  tokenId: string;
  userId: string;
  clientId: string;
  scopes: Scope[];
  /** The token's live account, or null when it has none. */
  liveAccountId: string | null;
  /** The token's paper account, or null when it has none. */
  paperAccountId: string | null;
}

/** One application a user authorized (its active tokens taken together). */
export interface AuthorizedApp {
  clientId: string;
  name: string;
  /** Union of the scopes of its active tokens, in `SCOPES` order. */
  scopes: Scope[];
  /** The accounts its active tokens reach: live first, then paper. */
  accounts: { env: "live" | "paper"; account_number: string }[];
  /** When its newest active token was issued. */
  authorizedAt: Date;
}

/** Our tokens are `randomSecret()`s: anything else is refused without a database read. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

const invalidGrant = (description: string) => new OAuthError("invalid_grant", description);

const storedScopes = (scope: string): Scope[] => SCOPES.filter((s) => scope.split(" ").includes(s));

/**
 * PKCE (RFC 7636 §4.6) and its downgrade (RFC 9700 §4.8.2): a code issued with a challenge needs the
 * matching verifier; a verifier for a code issued without a challenge is refused too, so an attacker cannot
 * strip the challenge from the authorization request.
 */
function checkPkce(challenge: string | null, verifier: string | undefined) {
  if (challenge === null) {
    if (verifier !== undefined) throw invalidGrant("code_verifier sent for a code issued without code_challenge");
    return;
  }
  if (verifier === undefined) throw invalidGrant("code_verifier required: the code was issued with a code_challenge");
  if (!verifierMatchesChallenge(verifier, challenge)) throw invalidGrant("code_verifier does not match code_challenge");
}

/** One entry per application, from the rows of its active tokens (newest first). */
function groupAuthorizedApps(rows: readonly AuthorizedAccountRow[]): AuthorizedApp[] {
  const apps = new Map<string, AuthorizedApp & { scopeSet: Set<string> }>();
  for (const row of rows) {
    let app = apps.get(row.client_id);
    if (!app) {
      // Rows come newest first, so the first row of an application is its newest token.
      app = {
        clientId: row.client_id,
        name: row.name,
        scopes: [],
        accounts: [],
        authorizedAt: row.created_at,
        scopeSet: new Set(),
      };
      apps.set(row.client_id, app);
    }
    for (const s of storedScopes(row.scope)) app.scopeSet.add(s);
    if (!app.accounts.some((a) => a.account_number === row.account_number)) {
      app.accounts.push({ env: row.env, account_number: row.account_number });
    }
  }
  return [...apps.values()].map(({ scopeSet, ...app }) => ({
    ...app,
    scopes: SCOPES.filter((s) => scopeSet.has(s)),
    accounts: [...app.accounts.filter((a) => a.env === "live"), ...app.accounts.filter((a) => a.env === "paper")],
  }));
}

export function createTokensService({
  codes,
  tokens,
}: {
  codes: AuthorizationCodesRepository;
  tokens: AccessTokensRepository;
}) {
  /** RFC 6749 §4.1.2: a code used twice is denied, and every token issued from it is revoked. */
  async function refuseReplay(codeHash: Buffer): Promise<never> {
    await tokens.revokeIssuedFromCode(codeHash);
    throw invalidGrant("authorization code was already used; the tokens issued from it are revoked");
  }

  return {
    /**
     * Exchanges a code for a token. The code is consumed and the token issued in one statement, so two
     * exchanges of one code never both succeed; a second one (a replay, from any client: the code leaked)
     * revokes the token of the first. A refused exchange leaves the code as it was, so a stolen code tried
     * with a wrong verifier or redirect URI does not lock its rightful client out.
     * @throws {OAuthError} `invalid_grant`.
     */
    async exchangeCode({
      code,
      clientId,
      redirectUri,
      codeVerifier,
    }: ExchangeCodeParameters): Promise<AccessTokenGrant> {
      const codeHash = hashSecret(code);
      const found = await codes.find(codeHash);
      if (!found) throw invalidGrant("authorization code is invalid");
      if (found.used_at) return refuseReplay(codeHash);
      if (found.client_id !== clientId) throw invalidGrant("authorization code was not issued to this client");
      if (found.expires_at.getTime() <= Date.now()) throw invalidGrant("authorization code expired");
      if (found.redirect_uri !== redirectUri) {
        throw invalidGrant("redirect_uri differs from the one of the authorization request");
      }
      checkPkce(found.code_challenge, codeVerifier);

      const accessToken = randomSecret();
      const issued = await tokens.issueFromCode({ codeHash, tokenHash: hashSecret(accessToken), now: new Date() });
      if (!issued) {
        // Another exchange of this code won the race, or the code expired or was withdrawn meanwhile.
        if ((await codes.find(codeHash))?.used_at) return refuseReplay(codeHash);
        throw invalidGrant("authorization code expired");
      }
      return { access_token: accessToken, token_type: "bearer", scope: issued.scope };
    },

    /** What the bearer token grants, or undefined when it is unknown, revoked, or its client is revoked. */
    async verifyAccessToken(token: string): Promise<VerifiedAccessToken | undefined> {
      if (!TOKEN_SHAPE.test(token)) return undefined;
      const row = await tokens.findActive(hashSecret(token));
      if (!row) return undefined;
      return {
        tokenId: row.id,
        userId: row.user_id,
        clientId: row.client_id,
        scopes: storedScopes(row.scope),
        liveAccountId: row.live_account_id,
        paperAccountId: row.paper_account_id,
      };
    },

    /**
     * RFC 7009: revokes `token` if it was issued to `clientId`; whether it did. The endpoint answers 200
     * either way, so a client learns nothing about tokens that are not its own.
     */
    revoke: async (token: string, clientId: string): Promise<boolean> =>
      TOKEN_SHAPE.test(token) && tokens.revokeForClient({ tokenHash: hashSecret(token), clientId }),

    /** The applications `userId` authorized and has not revoked, newest first. */
    listAuthorizedApps: async (userId: string): Promise<AuthorizedApp[]> =>
      groupAuthorizedApps(await tokens.listAuthorizedAccounts(userId)),

    /** Revokes every token (and withdraws every unused code) `userId` granted `clientId`; how many tokens. */
    revokeForUserAndClient: (userId: string, clientId: string): Promise<number> =>
      tokens.revokeForUserAndClient({ userId, clientId, now: new Date() }),
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
