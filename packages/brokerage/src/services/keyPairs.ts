/**
 * Operator-issued key pairs for one account, as the anchor's `APCA-API-KEY-ID` / `APCA-API-SECRET-KEY`:
 * the id says the environment (`PK…` paper, `AK…` live), the secret is shown once and stored hashed.
 */
import { randomBytes } from "node:crypto";
import { KEY_ID, newKeyId } from "../domain/accountNumbers.ts";
import { AccountNotFoundError } from "../domain/brokerageErrors.ts";
import { hashesEqual, hashSecret } from "../domain/secrets.ts";
import type { AccountRow, AccountsRepository } from "../store/accountsRepository.ts";
import type { KeyPairsRepository } from "../store/keyPairsRepository.ts";

/** Secrets are 40 characters (as the anchor's), here 240 random bits in base64url. */
const newKeySecret = () => randomBytes(30).toString("base64url");
const KEY_SECRET = /^[A-Za-z0-9_-]{40}$/;

/** A created key pair as shown once, right after creation. */
export interface CreatedKeyPair {
  key_id: string;
  secret_key: string;
  account_id: string;
  account_number: string;
  env: AccountRow["env"];
}

export function createKeyPairsService({
  keyPairs,
  accounts,
}: {
  keyPairs: KeyPairsRepository;
  accounts: AccountsRepository;
}) {
  const decoyHash = hashSecret(newKeySecret());

  return {
    /**
     * Creates a key pair for the account given by its id or its account number.
     * @throws {AccountNotFoundError} when no account has this id or number.
     */
    async create({ accountId }: { accountId: string }): Promise<CreatedKeyPair> {
      const account = (await accounts.get(accountId)) ?? (await accounts.findByNumber(accountId));
      if (!account) throw new AccountNotFoundError(accountId);
      const secret = newKeySecret();
      const row = await keyPairs.insert({
        keyId: newKeyId(account.env),
        secretHash: hashSecret(secret),
        accountId: account.id,
      });
      return {
        key_id: row.key_id,
        secret_key: secret,
        account_id: account.id,
        account_number: account.account_number,
        env: account.env,
      };
    },

    /**
     * The account a key pair opens, or undefined (malformed, unknown, revoked, or wrong secret). The secret's
     * hash is always compared in constant time.
     */
    async authenticate(keyId: string, secret: string): Promise<AccountRow | undefined> {
      const pair = KEY_ID.test(keyId) ? await keyPairs.find(keyId) : undefined;
      const wellFormed = KEY_SECRET.test(secret);
      const matches = hashesEqual(hashSecret(wellFormed ? secret : ""), pair?.secret_hash ?? decoyHash);
      return pair && !pair.revoked_at && wellFormed && matches ? pair.account : undefined;
    },
  };
}

export type KeyPairsService = ReturnType<typeof createKeyPairsService>;
