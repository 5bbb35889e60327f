/**
 * Key pairs service and repository on a real database: Alpaca-shaped ids by environment, the secret shown
 * once and stored hashed, creation by account id or number, and authentication.
 */
import type { TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountNotFoundError } from "../domain/brokerageErrors.ts";
import { hashSecret } from "../domain/secrets.ts";
import { createAccountsRepository } from "../store/accountsRepository.ts";
import { createKeyPairsRepository } from "../store/keyPairsRepository.ts";
import { createUsersRepository, type UserWithAccounts } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { createKeyPairsService, type KeyPairsService } from "./keyPairs.ts";

let database: TestDatabase;
let keyPairs: KeyPairsService;
let user: UserWithAccounts;

beforeAll(async () => {
  database = await createBrokerageTestDatabase();
  keyPairs = createKeyPairsService({
    keyPairs: createKeyPairsRepository(database.db),
    accounts: createAccountsRepository(database.db),
  });
  user = await createUsersRepository(database.db).insertWithAccounts({
    email: "keys@example.com",
    passwordHash: "x",
    startingCash: "100000",
    paperAccounts: 1,
  });
});
afterAll(() => database.drop());

const live = () => user.accounts[0] as UserWithAccounts["accounts"][number];
const paper = () => user.accounts[1] as UserWithAccounts["accounts"][number];

describe("create", () => {
  it("makes a PK… key for a paper account (by id) and an AK… key for a live account (by number)", async () => {
    const p = await keyPairs.create({ accountId: paper().id });
    expect(p).toEqual({
      key_id: expect.stringMatching(/^PK[A-Z0-9]{18}$/),
      secret_key: expect.stringMatching(/^[A-Za-z0-9_-]{40}$/),
      account_id: paper().id,
      account_number: paper().account_number,
      env: "paper",
    });
    const l = await keyPairs.create({ accountId: live().account_number });
    expect(l.key_id).toMatch(/^AK[A-Z0-9]{18}$/);
    expect(l.account_id).toBe(live().id);
    const [row] = await database.db.query<{ secret_hash: Buffer }>(
      "SELECT secret_hash FROM brokerage.api_key_pairs WHERE key_id = $1",
      [p.key_id],
    );
    expect(row?.secret_hash.equals(hashSecret(p.secret_key))).toBe(true);
  });

  it("refuses an unknown account id or number", async () => {
    await expect(keyPairs.create({ accountId: "00000000-0000-4000-8000-000000000000" })).rejects.toBeInstanceOf(
      AccountNotFoundError,
    );
    await expect(keyPairs.create({ accountId: "PANOSUCHACCT" })).rejects.toBeInstanceOf(AccountNotFoundError);
  });
});

describe("authenticate", () => {
  it("answers the key's account for its secret only", async () => {
    const k = await keyPairs.create({ accountId: paper().id });
    expect(await keyPairs.authenticate(k.key_id, k.secret_key)).toEqual(paper());
    expect(await keyPairs.authenticate(k.key_id, `${k.secret_key.slice(0, 39)}A`)).toBeUndefined();
    expect(await keyPairs.authenticate(k.key_id, "")).toBeUndefined();
    expect(await keyPairs.authenticate(k.key_id, k.secret_key + "x".repeat(1000))).toBeUndefined();
    expect(await keyPairs.authenticate(`PK${"0".repeat(18)}`, k.secret_key)).toBeUndefined();
    expect(await keyPairs.authenticate("not-a-key-id", k.secret_key)).toBeUndefined();
  });

  it("refuses a revoked key pair", async () => {
    const k = await keyPairs.create({ accountId: live().id });
    await database.db.query("UPDATE brokerage.api_key_pairs SET revoked_at = now() WHERE key_id = $1", [k.key_id]);
    expect(await keyPairs.authenticate(k.key_id, k.secret_key)).toBeUndefined();
  });
});
