/**
 * OAuth clients service and repository on a real database: registration (exact redirect URIs, the secret
 * shown once and stored as its hash), listing, revocation (with every token issued to the client), and
 * client authentication.
 */
import type { TestDatabase } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrokerageInputError, ClientNotFoundError } from "../domain/brokerageErrors.ts";
import { hashSecret } from "../domain/secrets.ts";
import { createClientsRepository } from "../store/clientsRepository.ts";
import { createUsersRepository } from "../store/usersRepository.ts";
import { createBrokerageTestDatabase } from "../testing/brokerageDatabase.ts";
import { type ClientsService, createClientsService, MAX_REDIRECT_URIS } from "./clients.ts";

let database: TestDatabase;
let clients: ClientsService;
const REDIRECT = "http://127.0.0.1:8765/callback";

beforeAll(async () => {
  database = await createBrokerageTestDatabase();
  clients = createClientsService({ clients: createClientsRepository(database.db) });
});
afterAll(() => database.drop());

describe("create", () => {
  it("registers a client: a 32-hex client_id, a 256-bit secret shown once, stored as its SHA-256", async () => {
    const created = await clients.create({
      name: "  My app ",
      redirectUris: [REDIRECT, "https://app.example.com/cb?x=1"],
    });
    expect(created).toEqual({
      client_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      name: "My app",
      redirect_uris: [REDIRECT, "https://app.example.com/cb?x=1"],
    });
    const [row] = await database.db.query<{ secret_hash: Buffer }>(
      "SELECT secret_hash FROM brokerage.oauth_clients WHERE client_id = $1",
      [created.client_id],
    );
    expect(row?.secret_hash.equals(hashSecret(created.client_secret))).toBe(true);
    const stored = await clients.get(created.client_id);
    expect(JSON.stringify(stored)).not.toContain(created.client_secret);
  });

  it("keeps each redirect URI exactly as given (no normalisation), duplicates once", async () => {
    const uris = ["https://app.example.com/cb/", "https://app.example.com/CB", "https://app.example.com/cb/"];
    const created = await clients.create({ name: "Exact", redirectUris: uris });
    expect(created.redirect_uris).toEqual(["https://app.example.com/cb/", "https://app.example.com/CB"]);
    expect((await clients.get(created.client_id))?.redirect_uris).toEqual(created.redirect_uris);
  });

  it.each([
    ["name", { name: "" }],
    ["name", { name: "   " }],
    ["name", { name: "x".repeat(101) }],
    ["name", { name: "new\nline" }],
    ["redirectUris", { redirectUris: [] }],
    ["redirectUris", { redirectUris: Array.from({ length: MAX_REDIRECT_URIS + 1 }, (_, i) => `${REDIRECT}${i}`) }],
    ["redirectUris", { redirectUris: ["/relative"] }],
    ["redirectUris", { redirectUris: ["http://example.com/cb"] }],
    ["redirectUris", { redirectUris: ["https://example.com/cb#fragment"] }],
    ["redirectUris", { redirectUris: ["javascript:alert(1)"] }],
    ["redirectUris", { redirectUris: [`https://example.com/${"x".repeat(2000)}`] }],
  ])("refuses a bad %s: %j", async (field, input) => {
    const error = await clients.create({ name: "App", redirectUris: [REDIRECT], ...input }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerageInputError);
    expect((error as BrokerageInputError).field).toBe(field);
  });
});

describe("list, get, revoke", () => {
  it("lists clients without their secrets' hashes", async () => {
    const created = await clients.create({ name: "Listed", redirectUris: [REDIRECT] });
    const listed = await clients.list();
    expect(listed.find((c) => c.client_id === created.client_id)).toEqual({
      client_id: created.client_id,
      name: "Listed",
      redirect_uris: [REDIRECT],
      created_at: expect.any(Date),
      revoked_at: null,
    });
    for (const c of listed) expect(c).not.toHaveProperty("secret_hash");
  });

  it("gets unknown and malformed ids as undefined", async () => {
    expect(await clients.get("0".repeat(32))).toBeUndefined();
    expect(await clients.get("'; DROP TABLE x; --")).toBeUndefined();
  });

  it("revokes a client once, with every access token issued to it; unknown → ClientNotFoundError", async () => {
    const created = await clients.create({ name: "Revoked", redirectUris: [REDIRECT] });
    const other = await clients.create({ name: "Kept", redirectUris: [REDIRECT] });
    const user = await createUsersRepository(database.db).insertWithAccounts({
      email: "owner@example.com",
      passwordHash: "x",
      startingCash: "1",
      paperAccounts: 1,
    });
    const token = (clientId: string, n: number) =>
      database.db.query(
        `INSERT INTO brokerage.access_tokens (token_hash, client_id, user_id, code_hash, scope, live_account_id)
         VALUES ($1, $2, $3, $4, '', $5) RETURNING id`,
        [hashSecret(`token${n}`), clientId, user.id, hashSecret(`code${n}`), user.accounts[0]?.id],
      );
    await token(created.client_id, 1);
    await token(other.client_id, 2);

    expect(await clients.revoke(created.client_id)).toBe(true);
    expect((await clients.get(created.client_id))?.revoked_at).toBeInstanceOf(Date);
    const tokens = await database.db.query<{ client_id: string; revoked: boolean }>(
      "SELECT client_id, revoked_at IS NOT NULL AS revoked FROM brokerage.access_tokens",
    );
    expect(tokens).toEqual(
      expect.arrayContaining([
        { client_id: created.client_id, revoked: true },
        { client_id: other.client_id, revoked: false },
      ]),
    );
    expect(await clients.revoke(created.client_id)).toBe(false);
    await expect(clients.revoke("f".repeat(32))).rejects.toBeInstanceOf(ClientNotFoundError);
    await expect(clients.revoke("not a client id")).rejects.toBeInstanceOf(ClientNotFoundError);
  });
});

describe("authenticate", () => {
  it("answers the active client for its secret only", async () => {
    const c = await clients.create({ name: "Auth", redirectUris: [REDIRECT] });
    expect((await clients.authenticate(c.client_id, c.client_secret))?.client_id).toBe(c.client_id);
    expect(await clients.authenticate(c.client_id, `${c.client_secret}x`)).toBeUndefined();
    expect(await clients.authenticate(c.client_id, "")).toBeUndefined();
    expect(await clients.authenticate(c.client_id, c.client_secret + "x".repeat(10_000))).toBeUndefined();
    expect(await clients.authenticate("0".repeat(32), c.client_secret)).toBeUndefined();
    expect(await clients.authenticate("bad id", c.client_secret)).toBeUndefined();
    const other = await clients.create({ name: "Other", redirectUris: [REDIRECT] });
    expect(await clients.authenticate(other.client_id, c.client_secret)).toBeUndefined();
  });

  it("refuses a revoked client even with its right secret", async () => {
    const c = await clients.create({ name: "Gone", redirectUris: [REDIRECT] });
    await clients.revoke(c.client_id);
    expect(await clients.authenticate(c.client_id, c.client_secret)).toBeUndefined();
  });
});
