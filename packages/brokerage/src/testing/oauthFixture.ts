/**
 * Test fixture of the OAuth tests (codes, tokens, token endpoint): a migrated test database with the real
 * repositories and services of users, clients, codes and tokens. Users are inserted with a placeholder
 * password hash (these tests never log in, and argon2id would only slow them down).
 */
import type { TestDatabase } from "@platform/kernel/testing";
import { type CreatedClient, createClientsService } from "../services/clients.ts";
import { createCodesService } from "../services/codes.ts";
import { createTokensService } from "../services/tokens.ts";
import { createAccessTokensRepository } from "../store/accessTokensRepository.ts";
import { createAuthorizationCodesRepository } from "../store/authorizationCodesRepository.ts";
import { createClientsRepository } from "../store/clientsRepository.ts";
import { createUsersRepository, type UserWithAccounts } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "./brokerageDatabase.ts";

export interface OAuthFixture {
  database: TestDatabase;
  clients: ReturnType<typeof createClientsService>;
  codes: ReturnType<typeof createCodesService>;
  tokens: ReturnType<typeof createTokensService>;
  /** A user with one live and `paperAccounts` paper accounts. */
  createUser(paperAccounts?: number): Promise<UserWithAccounts>;
  createClient(redirectUris?: string[]): Promise<CreatedClient>;
  close(): Promise<void>;
}

export async function createOAuthFixture(): Promise<OAuthFixture> {
  const database = await createBrokerageTestDatabase();
  const { db } = database;
  const users = createUsersRepository(db);
  const clients = createClientsService({ clients: createClientsRepository(db) });
  let userCount = 0;
  return {
    database,
    clients,
    codes: createCodesService({ codes: createAuthorizationCodesRepository(db) }),
    tokens: createTokensService({
      codes: createAuthorizationCodesRepository(db),
      tokens: createAccessTokensRepository(db),
    }),
    createUser: (paperAccounts = 1) =>
      users.insertWithAccounts({
        email: `user${++userCount}-${Date.now()}@example.com`,
        passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNo",
        startingCash: "100000",
        paperAccounts,
      }),
    createClient: (redirectUris = ["http://127.0.0.1:8765/callback"]) =>
      clients.create({ name: "Test app", redirectUris }),
    close: () => database.drop(),
  };
}

/** The user's live account and its paper accounts, by env. */
export function accountsOf(user: UserWithAccounts) {
  const live = user.accounts.find((a) => a.env === "live");
  const paper = user.accounts.filter((a) => a.env === "paper");
  if (!live || paper.length === 0) throw new Error("the fixture user has a live and a paper account");
  return { live, paper: paper as [(typeof paper)[number], ...typeof paper] };
}
