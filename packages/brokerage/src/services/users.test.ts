/**
 * Users service and repository on a real database: creation with accounts in one statement, the input
 * rules, case-insensitive unique emails, the list, and password login (argon2id, a decoy hash for unknown
 * emails so the timing does not tell which exist).
 */
import type { TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BrokerageInputError, UserAlreadyExistsError } from "../domain/brokerageErrors.ts";
import * as passwords from "../domain/passwords.ts";
import { createAccountsRepository } from "../store/accountsRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { createUsersService, MAX_PAPER_ACCOUNTS, type UsersService } from "./users.ts";

vi.mock("../domain/passwords.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof passwords>();
  return { ...actual, verifyPassword: vi.fn(actual.verifyPassword) };
});

let database: TestDatabase;
let users: UsersService;
const PASSWORD = "correct horse battery";

beforeAll(async () => {
  database = await createBrokerageTestDatabase();
  users = createUsersService({ users: createUsersRepository(database.db) });
});
afterAll(() => database.drop());

const create = (o: Partial<Parameters<UsersService["create"]>[0]> = {}) =>
  users.create({
    email: `u${Math.random().toString(36).slice(2)}@example.com`,
    password: PASSWORD,
    startingCash: "100000",
    ...o,
  });

describe("create", () => {
  it("creates the user with one live and N paper accounts, ACTIVE, USD, the starting cash", async () => {
    const user = await create({ email: "ada@example.com", paperAccounts: 3, startingCash: "2500.50" });
    expect(user).toMatchObject({ id: expect.any(String), email: "ada@example.com", created_at: expect.any(Date) });
    expect(user.accounts.map((a) => a.env)).toEqual(["live", "paper", "paper", "paper"]);
    for (const a of user.accounts) {
      expect(a).toMatchObject({ user_id: user.id, status: "ACTIVE", currency: "USD", cash: "2500.500000000" });
    }
    expect(user.accounts[0]?.account_number).toMatch(/^[A-Z0-9]{10}$/);
    for (const a of user.accounts.slice(1)) expect(a.account_number).toMatch(/^PA[A-Z0-9]{10}$/);
    expect(new Set(user.accounts.map((a) => a.account_number)).size).toBe(4);
    // The accounts list of the repository answers them in the same order.
    const listed = await createAccountsRepository(database.db).listForUser(user.id);
    expect(listed).toEqual(user.accounts);
  });

  it("stores an argon2id hash, never the password", async () => {
    const user = await create();
    const [row] = await database.db.query<{ password_hash: string }>(
      "SELECT password_hash FROM brokerage.users WHERE id = $1",
      [user.id],
    );
    expect(row?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row?.password_hash).not.toContain(PASSWORD);
  });

  it("defaults to one paper account and trims the email", async () => {
    const user = await create({ email: "  trim@example.com " });
    expect(user.email).toBe("trim@example.com");
    expect(user.accounts.map((a) => a.env)).toEqual(["live", "paper"]);
  });

  it("refuses a taken email whatever its case, and writes nothing", async () => {
    await create({ email: "Taken@Example.com" });
    const before = await database.db.query("SELECT id FROM brokerage.accounts");
    const error = await create({ email: "taken@example.COM" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserAlreadyExistsError);
    expect((error as UserAlreadyExistsError).email).toBe("taken@example.COM");
    expect(await database.db.query("SELECT id FROM brokerage.accounts")).toHaveLength(before.length);
  });

  it.each([
    ["email", { email: "not-an-email" }],
    ["email", { email: "a@b" }],
    ["email", { email: "two@@example.com" }],
    ["email", { email: "sp ace@example.com" }],
    ["email", { email: `${"a".repeat(250)}@example.com` }],
    ["password", { password: "short7!" }],
    ["password", { password: "x".repeat(passwords.MAX_PASSWORD_LENGTH + 1) }],
    ["paperAccounts", { paperAccounts: 0 }],
    ["paperAccounts", { paperAccounts: MAX_PAPER_ACCOUNTS + 1 }],
    ["paperAccounts", { paperAccounts: 1.5 }],
    ["startingCash", { startingCash: "-1" }],
    ["startingCash", { startingCash: "1.234" }],
    ["startingCash", { startingCash: "1e6" }],
    ["startingCash", { startingCash: "1".repeat(19) }],
  ])("refuses a bad %s: %j", async (field, input) => {
    const error = await create(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerageInputError);
    expect((error as BrokerageInputError).field).toBe(field);
  });

  it("counts password characters as a person does: 8 emoji are a valid password", async () => {
    await expect(create({ password: "🔑".repeat(8) })).resolves.toBeDefined();
  });
});

describe("list and get", () => {
  it("lists every user with its accounts, live first", async () => {
    const a = await create({ paperAccounts: 2 });
    const listed = await users.list();
    const found = listed.find((u) => u.id === a.id);
    expect(found).toEqual({ id: a.id, email: a.email, created_at: a.created_at, accounts: a.accounts });
    for (const u of listed) expect(u.accounts[0]?.env).toBe("live");
    expect(JSON.stringify(listed)).not.toContain("argon2id");
  });

  it("gets a user by id; an unknown or malformed id is undefined", async () => {
    const a = await create();
    expect(await users.get(a.id)).toEqual({ id: a.id, email: a.email, created_at: a.created_at });
    expect(await users.get("00000000-0000-4000-8000-000000000000")).toBeUndefined();
    expect(await users.get("nope")).toBeUndefined();
  });
});

describe("authenticate", () => {
  it("answers the user for the right password, whatever the email's case", async () => {
    const user = await create({ email: "Login@Example.com" });
    expect(await users.authenticate("login@example.com", PASSWORD)).toEqual({
      id: user.id,
      email: "Login@Example.com",
      created_at: user.created_at,
    });
  });

  it("answers undefined for a wrong password, an unknown email, an oversized input", async () => {
    await create({ email: "wrong@example.com" });
    expect(await users.authenticate("wrong@example.com", "not the password")).toBeUndefined();
    expect(await users.authenticate("nobody@example.com", PASSWORD)).toBeUndefined();
    expect(await users.authenticate("x".repeat(1000), PASSWORD)).toBeUndefined();
    expect(await users.authenticate("wrong@example.com", "x".repeat(10_000))).toBeUndefined();
  });

  it("verifies an argon2id hash for an unknown email too (the decoy), so timing does not reveal accounts", async () => {
    const verify = vi.mocked(passwords.verifyPassword);
    verify.mockClear();
    await users.authenticate("nobody-at-all@example.com", PASSWORD);
    expect(verify).toHaveBeenCalledTimes(1);
    const [presented, stored] = verify.mock.calls[0] as [string, string];
    expect(presented).toBe(PASSWORD);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    // The same decoy every time: computed once, in the factory.
    await users.authenticate("another-nobody@example.com", PASSWORD);
    expect(verify.mock.calls[1]?.[1]).toBe(stored);
  });
});
