/**
 * Account configurations of a trading account (`/v2/account/configurations`): read them, change any subset.
 * The rules of the values are the domain's (`domain/accountConfigurations.ts`); the settings live on the
 * account row, where order placement reads them.
 */
import {
  type AccountConfigurations,
  type AccountConfigurationsPatch,
  storedChanges,
  toAccountConfigurations,
} from "../domain/accountConfigurations.ts";
import { AccountNotFoundError } from "../domain/brokerageErrors.ts";
import type { AccountConfigurationsRepository } from "../store/accountConfigurationsRepository.ts";

export function createAccountConfigurationsService({ repository }: { repository: AccountConfigurationsRepository }) {
  return {
    /**
     * The account's configurations.
     * @throws {AccountNotFoundError} when no account has this id.
     */
    async get(accountId: string): Promise<AccountConfigurations> {
      const stored = await repository.get(accountId);
      if (!stored) throw new AccountNotFoundError(accountId);
      return toAccountConfigurations(stored);
    },

    /**
     * Applies the fields `patch` has (the others are kept) and returns every configuration.
     * @throws {UnacceptableConfigurationError} for a value that is not accepted (nothing is changed then).
     * @throws {AccountNotFoundError} when no account has this id.
     */
    async update(accountId: string, patch: AccountConfigurationsPatch): Promise<AccountConfigurations> {
      const changes = storedChanges(patch);
      const stored =
        Object.keys(changes).length === 0
          ? await repository.get(accountId)
          : await repository.update(accountId, changes);
      if (!stored) throw new AccountNotFoundError(accountId);
      return toAccountConfigurations(stored);
    },
  };
}

export type AccountConfigurationsService = ReturnType<typeof createAccountConfigurationsService>;
