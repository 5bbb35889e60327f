/**
 * A user's brokerage accounts, as the consent page offers them and the trading hosts read them.
 */
import type { AccountEnv } from "../domain/accountNumbers.ts";
import { SCOPES, type Scope } from "../domain/scopes.ts";
import { hashSecret } from "../domain/secrets.ts";
import type { AccountRow, AccountsRepository } from "../store/accountsRepository.ts";

/** What a bearer token opens on a trading host: the account of the host's environment and the token's scopes. */
export interface BearerAccount {
  account: AccountRow;
  scopes: Scope[];
}

export function createAccountsService({ accounts }: { accounts: AccountsRepository }) {
  return {
    /** The user's accounts: the live one first, then the paper ones in the order they were opened. */
    listForUser: (userId: string): Promise<AccountRow[]> => accounts.listForUser(userId),
    get: (accountId: string): Promise<AccountRow | undefined> => accounts.get(accountId),

    /**
     * The account of `env` an active (unrevoked, of an unrevoked client) access token is bound to, with the
     * token's scopes; undefined for an unknown or revoked token, or one without an account of `env`. One
     * statement, so revocation takes effect at once on every instance (nothing is cached).
     */
    async forAccessToken(token: string, env: AccountEnv): Promise<BearerAccount | undefined> {
      const found = await accounts.findForAccessToken(hashSecret(token), env);
      if (!found) return undefined;
      const granted = found.scope.split(" ");
      return { account: found.account, scopes: SCOPES.filter((s) => granted.includes(s)) };
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
