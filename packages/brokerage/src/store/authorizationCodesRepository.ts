/**
 * SQL for `brokerage.authorization_codes`: a code is stored by its SHA-256 only, bound to its client, user,
 * redirect URI, scope, accounts and PKCE challenge. Consuming a code (and issuing its token) is
 * `accessTokensRepository.issueFromCode`, one statement over both tables.
 */
import { constraintViolation, type Queryable } from "@platform/kernel";
import { OAuthError } from "../domain/oauthErrors.ts";

export interface AuthorizationCodeRow {
  code_hash: Buffer;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  /** Space-delimited, canonical order (`formatScope`); "" = read-only. */
  scope: string;
  live_account_id: string | null;
  paper_account_id: string | null;
  /** S256 challenge (RFC 7636), or null when the authorization request carried none. */
  code_challenge: string | null;
  expires_at: Date;
  /** Set by the one exchange that succeeded. */
  used_at: Date | null;
  created_at: Date;
}

export interface NewAuthorizationCode {
  codeHash: Buffer;
  clientId: string;
  userId: string;
  redirectUri: string;
  scope: string;
  liveAccountId: string | null;
  paperAccountId: string | null;
  codeChallenge: string | null;
  expiresAt: Date;
}

const COLUMNS =
  "code_hash, client_id, user_id, redirect_uri, scope, live_account_id, paper_account_id, code_challenge, expires_at, used_at, created_at";

// The accounts must be the user's, of the right env: the store keeps that true whatever the caller checked.
const INSERT_CODE = `
  INSERT INTO brokerage.authorization_codes
    (code_hash, client_id, user_id, redirect_uri, scope, live_account_id, paper_account_id, code_challenge, expires_at)
  SELECT $1::bytea, $2::text, $3::uuid, $4::text, $5::text, $6::uuid, $7::uuid, $8::text, $9::timestamptz
  WHERE ($6::uuid IS NULL OR EXISTS (
          SELECT 1 FROM brokerage.accounts WHERE id = $6::uuid AND user_id = $3::uuid AND env = 'live'))
    AND ($7::uuid IS NULL OR EXISTS (
          SELECT 1 FROM brokerage.accounts WHERE id = $7::uuid AND user_id = $3::uuid AND env = 'paper'))
  RETURNING code_hash`;

export function createAuthorizationCodesRepository(db: Queryable) {
  return {
    /**
     * @throws {OAuthError} `invalid_request` when the client or the user does not exist, or an account is not
     * the user's account of its env.
     */
    async insert(code: NewAuthorizationCode): Promise<void> {
      const rows = await db
        .query(INSERT_CODE, [
          code.codeHash,
          code.clientId,
          code.userId,
          code.redirectUri,
          code.scope,
          code.liveAccountId,
          code.paperAccountId,
          code.codeChallenge,
          code.expiresAt,
        ])
        .catch((error) => {
          if (constraintViolation(error)?.kind === "foreignKey") {
            throw new OAuthError("invalid_request", "unknown client or user", { cause: error });
          }
          throw error;
        });
      if (rows.length === 0) {
        throw new OAuthError("invalid_request", "the accounts chosen are not the user's live and paper accounts");
      }
    },

    async find(codeHash: Buffer): Promise<AuthorizationCodeRow | undefined> {
      const [row] = await db.query<AuthorizationCodeRow>(
        `SELECT ${COLUMNS} FROM brokerage.authorization_codes WHERE code_hash = $1`,
        [codeHash],
      );
      return row;
    },
  };
}

export type AuthorizationCodesRepository = ReturnType<typeof createAuthorizationCodesRepository>;
