/**
 * SQL of authorizations in progress (`wearables.oauth_states`): stored by the SHA-256 of their state, taken
 * (deleted) by the callback that uses them, so a state works once and only until it expires.
 */
import { createHash } from "node:crypto";
import type { Queryable } from "@platform/kernel";

export interface OAuthStateRow {
  user_id: string;
  provider: string;
  redirect_uri: string | null;
  code_verifier_sealed: string | null;
  expires_at: Date;
}

const hashOf = (state: string) => createHash("sha256").update(state).digest();

export function createOAuthStatesRepository(db: Queryable) {
  return {
    async put(s: {
      state: string;
      userId: string;
      provider: string;
      redirectUri: string | null;
      codeVerifierSealed: string | null;
      ttlSec: number;
    }) {
      // Expired states of anyone go with each new one: the table holds only live authorizations.
      await db.query("DELETE FROM wearables.oauth_states WHERE expires_at < now()");
      await db.query(
        `INSERT INTO wearables.oauth_states (state_hash, user_id, provider, redirect_uri, code_verifier_sealed, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
        [hashOf(s.state), s.userId, s.provider, s.redirectUri, s.codeVerifierSealed, s.ttlSec],
      );
    },
    /** The state's authorization, deleted as it is read; undefined when unknown, used or expired. */
    async take(state: string): Promise<OAuthStateRow | undefined> {
      const [row] = await db.query<OAuthStateRow & { live: boolean }>(
        `DELETE FROM wearables.oauth_states WHERE state_hash = $1
         RETURNING user_id, provider, redirect_uri, code_verifier_sealed, expires_at, expires_at > now() AS live`,
        [hashOf(state)],
      );
      return row?.live ? row : undefined;
    },
  };
}

export type OAuthStatesRepository = ReturnType<typeof createOAuthStatesRepository>;
