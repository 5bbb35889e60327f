/**
 * Who asks the data host: the end user behind an OAuth access token or a key pair, and what they may do. The
 * data host serves every environment, so a token counts whichever of its accounts (live, paper) it opens; the
 * end user is what the stream connection limit and the market data plan are about. One statement per
 * credential. The REST hook (http/marketData/marketDataAuth.ts) and the streams
 * (http/dataStream/dataStreamConnection.ts) both ask here.
 */
import { SCOPES, type Scope } from "../domain/scopes.ts";
import type { AccountRow } from "../store/accountsRepository.ts";
import type { VerifiedAccessToken } from "./tokens.ts";

export interface DataPrincipal {
  userId: string;
  /** The token's scopes; a key pair has them all. */
  scopes: readonly Scope[];
  via: "oauth" | "key";
}

export interface CreateDataPrincipalsParameters {
  /** The tokens service's `verifyAccessToken` (active token, unrevoked client). */
  tokens: { verifyAccessToken(token: string): Promise<VerifiedAccessToken | undefined> };
  /** The key pairs service's `authenticate`. */
  keyPairs: { authenticate(keyId: string, secret: string): Promise<AccountRow | undefined> };
}

export function createDataPrincipals({ tokens, keyPairs }: CreateDataPrincipalsParameters) {
  return {
    /** The user of an active access token, with its scopes; undefined for an unknown or revoked one. */
    async byAccessToken(token: string): Promise<DataPrincipal | undefined> {
      const verified = await tokens.verifyAccessToken(token);
      return verified && { userId: verified.userId, scopes: verified.scopes, via: "oauth" };
    },
    /** The user whose account a key pair opens; undefined for a wrong key id or secret. */
    async byKeyPair(keyId: string, secret: string): Promise<DataPrincipal | undefined> {
      const account = await keyPairs.authenticate(keyId, secret);
      return account && { userId: account.user_id, scopes: SCOPES, via: "key" };
    },
  };
}

export type DataPrincipals = ReturnType<typeof createDataPrincipals>;
