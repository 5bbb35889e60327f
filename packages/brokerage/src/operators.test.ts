/**
 * Operator commands on a real database: JSON in and out, every refusal an operator can fix as an
 * OperatorInputError with a clear message, and the demo data made once in the life of the database.
 */
import { OperatorInputError } from "@platform/kernel";
import type { TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createOperatorCommands,
  DEMO_CLIENT_NAME,
  DEMO_REDIRECT_URI,
  DEMO_USER_EMAIL,
  type OperatorCommands,
} from "./operators.ts";
import { createClientsService } from "./services/clients.ts";
import { createUsersService } from "./services/users.ts";
import { createClientsRepository } from "./store/clientsRepository.ts";
import { createUsersRepository } from "./store/usersRepository.ts";
import { createBrokerageTestDatabase } from "./testing/brokerageDatabase.ts";

let database: TestDatabase;
let commands: OperatorCommands;

beforeAll(async () => {
  database = await createBrokerageTestDatabase();
  commands = createOperatorCommands({ db: database.db, config: { brokerageStartingCash: "25000.50" } });
});
afterAll(() => database.drop());

/** The OperatorInputError message `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OperatorInputError);
  return (error as OperatorInputError).message;
}

describe("market data access", () => {
  it("sets a user's plan and stream connections (basic and 1 by default), and refuses what an operator can fix", async () => {
    await commands.createUser({ email: "data@example.com", password: "long enough" });
    const [defaults] = await database.db.query<{ data_plan: string; data_stream_connections: number }>(
      "SELECT data_plan, data_stream_connections FROM brokerage.users WHERE email = 'data@example.com'",
    );
    expect(defaults).toEqual({ data_plan: "basic", data_stream_connections: 1 });
    expect(await commands.setMarketData({ email: "DATA@example.com", plan: "plus" })).toMatchObject({
      email: "data@example.com",
      data_plan: "plus",
      data_stream_connections: 1,
    });
    expect(await commands.setMarketData({ email: "data@example.com", streamConnections: 3 })).toMatchObject({
      data_plan: "plus",
      data_stream_connections: 3,
    });
    expect(await refusal(commands.setMarketData({ email: "data@example.com", plan: "gold" }))).toBe(
      "plan: must be basic or plus",
    );
    expect(await refusal(commands.setMarketData({ email: "data@example.com", streamConnections: -1 }))).toMatch(
      /streamConnections/,
    );
    expect(await refusal(commands.setMarketData({ email: "nobody@example.com", plan: "plus" }))).toBe(
      "no user with email nobody@example.com",
    );
  });
});

describe("users", () => {
  it("creates a user with its accounts and the configured starting cash, as JSON", async () => {
    const user = (await commands.createUser({
      email: "op@example.com",
      password: "long enough",
      paperAccounts: 2,
    })) as {
      id: string;
      accounts: { env: string; cash: string; created_at: string }[];
    };
    expect(JSON.parse(JSON.stringify(user))).toEqual(user);
    expect(user).toMatchObject({ email: "op@example.com", created_at: expect.stringMatching(/Z$/) });
    expect(user.accounts.map((a) => [a.env, a.cash])).toEqual([
      ["live", "25000.5"],
      ["paper", "25000.5"],
      ["paper", "25000.5"],
    ]);
    const listed = (await commands.listUsers({})) as { id: string }[];
    expect(listed.find((u) => u.id === user.id)).toEqual(user);
    expect(JSON.stringify(listed)).not.toMatch(/argon2|password/);
  });

  it("refuses bad arguments, a taken email and unknown arguments with clear messages", async () => {
    expect(await refusal(commands.createUser({ email: "x", password: "long enough" }))).toMatch(/not an email/);
    expect(await refusal(commands.createUser({ email: "a@example.com", password: "short" }))).toMatch(/8 to 256/);
    expect(
      await refusal(commands.createUser({ email: "a@example.com", password: "long enough", paperAccounts: 0 })),
    ).toMatch(/1 to 10 paper accounts/);
    expect(
      await refusal(commands.createUser({ email: "a@example.com", password: "long enough", paperAccounts: "2" })),
    ).toMatch(/paperAccounts: must be an integer/);
    expect(await refusal(commands.createUser({ password: "long enough" }))).toMatch(/email: a string is required/);
    expect(
      await refusal(commands.createUser({ email: "a@example.com", password: "long enough", admin: true })),
    ).toMatch(/unknown argument admin/);
    await commands.createUser({ email: "dup@example.com", password: "long enough" });
    expect(await refusal(commands.createUser({ email: "DUP@example.com", password: "long enough" }))).toMatch(
      /exists already/,
    );
    expect(await refusal(commands.listUsers({ all: true }))).toMatch(/unknown argument all/);
  });
});

describe("clients", () => {
  it("creates, lists and revokes a client", async () => {
    const created = (await commands.createClient({ name: "Op app", redirectUris: ["https://app.example.com/cb"] })) as {
      client_id: string;
      client_secret: string;
    };
    expect(created).toEqual({
      client_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      client_secret: expect.any(String),
      name: "Op app",
      redirect_uris: ["https://app.example.com/cb"],
    });
    const listed = (await commands.listClients({})) as { client_id: string; revoked_at: string | null }[];
    expect(listed.find((c) => c.client_id === created.client_id)).toEqual({
      client_id: created.client_id,
      name: "Op app",
      redirect_uris: ["https://app.example.com/cb"],
      created_at: expect.stringMatching(/Z$/),
      revoked_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(created.client_secret);
    expect(await commands.revokeClient({ clientId: created.client_id })).toEqual({
      client_id: created.client_id,
      revoked: true,
    });
    expect(await commands.revokeClient({ clientId: created.client_id })).toEqual({
      client_id: created.client_id,
      revoked: false,
    });
    expect(await refusal(commands.revokeClient({ clientId: "0".repeat(32) }))).toMatch(/No OAuth client/);
  });

  it("refuses a redirect URI that cannot be registered, and a missing list", async () => {
    expect(await refusal(commands.createClient({ name: "A", redirectUris: ["http://example.com/cb"] }))).toMatch(
      /loopback/,
    );
    expect(await refusal(commands.createClient({ name: "A", redirectUris: "https://a.example/cb" }))).toMatch(
      /redirectUris: a list of strings/,
    );
    expect(await refusal(commands.createClient({ name: "", redirectUris: ["https://a.example/cb"] }))).toMatch(/name/);
  });
});

describe("key pairs", () => {
  it("creates a key pair for an account given by number or id; unknown accounts are refused", async () => {
    const user = (await commands.createUser({ email: "keys-op@example.com", password: "long enough" })) as {
      accounts: { id: string; account_number: string }[];
    };
    const [live, paper] = user.accounts as [
      { id: string; account_number: string },
      { id: string; account_number: string },
    ];
    expect(await commands.createKeyPair({ account: paper.account_number })).toMatchObject({
      key_id: expect.stringMatching(/^PK/),
      account_id: paper.id,
      env: "paper",
    });
    expect(await commands.createKeyPair({ account: live.id })).toMatchObject({ key_id: expect.stringMatching(/^AK/) });
    expect(await refusal(commands.createKeyPair({ account: "PA0000000000" }))).toMatch(/No account/);
    expect(await refusal(commands.createKeyPair({}))).toMatch(/account: a string is required/);
  });
});

describe("seedDemo", () => {
  it("makes the demo user and client once in the life of the database; the printed credentials work", async () => {
    const [first, concurrent] = await Promise.all([commands.seedDemo({}), commands.seedDemo({})]);
    const seeded = first ?? concurrent;
    expect([first, concurrent].filter(Boolean)).toHaveLength(1);
    expect(seeded).toEqual({
      email: DEMO_USER_EMAIL,
      password: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      accounts: [
        expect.objectContaining({ env: "live" }),
        expect.objectContaining({ env: "paper" }),
        expect.objectContaining({ env: "paper" }),
      ],
      client_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      client_secret: expect.any(String),
      redirect_uri: DEMO_REDIRECT_URI,
    });
    if (!seeded) return;
    const users = createUsersService({ users: createUsersRepository(database.db) });
    expect((await users.authenticate(DEMO_USER_EMAIL, seeded.password))?.email).toBe(DEMO_USER_EMAIL);
    const clients = createClientsService({ clients: createClientsRepository(database.db) });
    const client = await clients.authenticate(seeded.client_id, seeded.client_secret);
    expect(client).toMatchObject({ name: DEMO_CLIENT_NAME, redirect_uris: [DEMO_REDIRECT_URI] });

    expect(await commands.seedDemo({})).toBeUndefined();
    // A revoked demo client is not made again either.
    await commands.revokeClient({ clientId: seeded.client_id });
    expect(await commands.seedDemo({})).toBeUndefined();
  });
});
