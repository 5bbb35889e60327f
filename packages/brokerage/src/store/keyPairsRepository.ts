/**
 * SQL for `brokerage.api_key_pairs`: operator-issued key pairs (`APCA-API-KEY-ID` / `APCA-API-SECRET-KEY`),
 * each for one account. Only the secret's SHA-256 is stored.
 */
import { constraintViolation, type Queryable } from "@platform/kernel";
import { AccountNotFoundError } from "../domain/brokerageErrors.ts";
import { ACCOUNT_COLUMNS, type AccountRow } from "./accountsRepository.ts";

export interface KeyPairRow {
  key_id: string;
  secret_hash: Buffer;
  account_id: string;
  created_at: Date;
  revoked_at: Date | null;
}

/** A key pair with the account it opens, read by one statement (the trading hosts' authentication). */
export interface KeyPairWithAccount extends KeyPairRow {
  account: AccountRow;
}

export interface NewKeyPair {
  keyId: string;
  secretHash: Buffer;
  accountId: string;
}

const ACCOUNT_FIELDS = ACCOUNT_COLUMNS.split(", ");
const PREFIXED_ACCOUNT_COLUMNS = ACCOUNT_FIELDS.map((c) => `a.${c} AS account_${c}`).join(", ");

export function createKeyPairsRepository(db: Queryable) {
  return {
    /** @throws {AccountNotFoundError} when the account does not exist. */
    async insert(pair: NewKeyPair): Promise<KeyPairRow> {
      const [row] = await db
        .query<KeyPairRow>(
          `INSERT INTO brokerage.api_key_pairs (key_id, secret_hash, account_id) VALUES ($1, $2, $3)
           RETURNING key_id, secret_hash, account_id, created_at, revoked_at`,
          [pair.keyId, pair.secretHash, pair.accountId],
        )
        .catch((error) => {
          throw constraintViolation(error)?.kind === "foreignKey" ? new AccountNotFoundError(pair.accountId) : error;
        });
      return row as KeyPairRow;
    },

    /** The key pair with this id and its account, revoked ones too (`revoked_at` set). */
    async find(keyId: string): Promise<KeyPairWithAccount | undefined> {
      const [row] = await db.query<Record<string, unknown>>(
        `SELECT k.key_id, k.secret_hash, k.account_id, k.created_at, k.revoked_at, ${PREFIXED_ACCOUNT_COLUMNS}
         FROM brokerage.api_key_pairs k JOIN brokerage.accounts a ON a.id = k.account_id
         WHERE k.key_id = $1`,
        [keyId],
      );
      if (!row) return undefined;
      const account = Object.fromEntries(ACCOUNT_FIELDS.map((c) => [c, row[`account_${c}`]])) as unknown as AccountRow;
      return {
        key_id: row.key_id as string,
        secret_hash: row.secret_hash as Buffer,
        account_id: row.account_id as string,
        created_at: row.created_at as Date,
        revoked_at: row.revoked_at as Date | null,
        account,
      };
    },
  };
}

export type KeyPairsRepository = ReturnType<typeof createKeyPairsRepository>;
