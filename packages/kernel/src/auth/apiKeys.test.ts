import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../db/migrate.ts";
import { createTestDatabase, type TestDatabase } from "../db/testDatabase.ts";
import { kernelMigrations } from "../index.ts";
import { type ApiKeyStore, createApiKeyStore, parseApiKey } from "./apiKeys.ts";

let t: TestDatabase;
let keys: ApiKeyStore;
beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, kernelMigrations());
  keys = createApiKeyStore({ db: t.db, cacheTtlMs: 0 });
});
afterAll(() => t.drop());

describe("api keys", () => {
  it("creates a key that verifies for its service only, and stores only a hash", async () => {
    const created = await keys.create({ service: "wearables", name: "ci" });
    expect(parseApiKey(created.key)).toEqual({
      prefix: created.prefix,
      secret: expect.stringMatching(/^[A-Za-z0-9]{43}$/),
    });
    expect(created.key.startsWith("wearables_")).toBe(true);
    expect((await keys.verify("wearables", created.key))?.id).toBe(created.id);
    expect(await keys.verify("crosschain", created.key)).toBeUndefined();
    const stored = await t.db.query<Record<string, unknown>>("SELECT * FROM platform.api_keys WHERE id = $1", [
      created.id,
    ]);
    const secret = created.key.slice(created.prefix.length + 1);
    expect(secret).toHaveLength(43);
    expect(JSON.stringify(stored)).not.toContain(secret);
  });

  it("rejects a wrong secret with the right prefix, and malformed keys", async () => {
    const created = await keys.create({ service: "wearables", name: "x" });
    const wrong = `${created.prefix}_${"A".repeat(43)}`;
    expect(await keys.verify("wearables", wrong)).toBeUndefined();
    expect(await keys.verify("wearables", "")).toBeUndefined();
    expect(await keys.verify("wearables", "sk-0123")).toBeUndefined();
  });

  it("revokes", async () => {
    const created = await keys.create({ service: "wearables", name: "gone" });
    expect(await keys.revoke(created.id)).toBe(true);
    expect(await keys.revoke(created.id)).toBe(false);
    expect(await keys.revoke("not-a-uuid")).toBe(false);
    expect(await keys.verify("wearables", created.key)).toBeUndefined();
    const listed = await keys.list({ service: "wearables" });
    expect(listed.find((k) => k.id === created.id)?.revoked_at).toBeInstanceOf(Date);
  });

  it("gives two keys different secrets", async () => {
    const a = await keys.create({ service: "wearables", name: "a" });
    const b = await keys.create({ service: "wearables", name: "b" });
    expect(a.key).not.toBe(b.key);
    expect(a.prefix).not.toBe(b.prefix);
  });
});
