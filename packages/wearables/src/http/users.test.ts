import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wearablesService } from "../index.ts";

let s: TestService;
const api = (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const headers = new Headers(init.headers);
  if (init.key !== null) headers.set("X-Service-API-Key", init.key ?? s.apiKey);
  return fetch(`${s.url}/api/v1${path}`, { ...init, headers });
};
const post = (body: unknown, headers: Record<string, string> = {}) =>
  api("/users", {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });

beforeAll(async () => {
  s = await startTestService(wearablesService);
});
afterAll(() => s.close());

describe("authentication", () => {
  it("401 without a key, with a bad key, and with another service's key", async () => {
    const missing = await api("/users", { key: null });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ detail: expect.stringContaining("X-Service-API-Key") });
    expect((await api("/users", { key: "nope" })).status).toBe(401);
    const other = await s.context.apiKeys.create({ service: "crosschain", name: "other" });
    const wrongService = await api("/users", { key: other.key });
    expect(wrongService.status).toBe(401);
    expect(await wrongService.json()).toEqual({ detail: "Invalid or missing API key" });
  });

  it("accepts the anchor's X-Open-Wearables-API-Key header", async () => {
    const res = await api("/users", { key: null, headers: { "X-Open-Wearables-API-Key": s.apiKey } });
    expect(res.status).toBe(200);
  });

  it("rejects a revoked key", async () => {
    const k = await s.context.apiKeys.create({ service: "wearables", name: "short-lived" });
    expect((await api("/users", { key: k.key })).status).toBe(200);
    await s.context.apiKeys.revoke(k.id);
    expect((await api("/users", { key: k.key })).status).toBe(401);
  });
});

describe("POST /users", () => {
  it("creates a user with the anchor's fields", async () => {
    const res = await post({
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
      external_user_id: "ext-1",
    });
    expect(res.status).toBe(201);
    const user = await res.json();
    expect(user).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
      external_user_id: "ext-1",
      last_synced_at: null,
      last_synced_provider: null,
      has_active_connection: false,
      connections: null,
    });
    const fetched = await api(`/users/${user.id}`);
    expect(await fetched.json()).toEqual({ ...user, has_womens_health_data: false });
  });

  it("creates a user from an empty body", async () => {
    const res = await post({});
    expect(res.status).toBe(201);
    expect((await res.json()).email).toBeNull();
  });

  it("409 on a duplicate email, whatever its case", async () => {
    expect((await post({ email: "dup@example.com" })).status).toBe(201);
    const res = await post({ email: "DUP@example.com" });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: "User with this email already exists." });
  });

  it("409 on a duplicate external_user_id", async () => {
    expect((await post({ external_user_id: "ext-dup" })).status).toBe(201);
    const res = await post({ external_user_id: "ext-dup", email: "other@example.com" });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: "User with this external_user_id already exists." });
  });

  it("400 on bad input, never 500", async () => {
    const cases: [unknown, RegExp][] = [
      [{ email: "not-an-email" }, /body\.email/],
      [{ first_name: "x".repeat(101) }, /body\.first_name/],
      [{ first_name: 42 }, /body\.first_name/],
      ["{not json", /not valid JSON/],
      ["[1,2]", /body/],
    ];
    for (const [body, detail] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).detail).toMatch(detail);
    }
  });

  it("reads bodies as the anchor (FastAPI + pydantic): undeclared fields ignored, null as absent, JSON without a type", async () => {
    const lenient = await post({ first_name: "Ada", nickname: "ada", last_name: null, email: null });
    expect(lenient.status).toBe(201);
    const created = await lenient.json();
    expect(created).toMatchObject({ first_name: "Ada", last_name: null, email: null });
    expect(created).not.toHaveProperty("nickname");
    // A body without a Content-Type (curl -d without -H sends a form type; bytes through fetch send none).
    const untyped = await api("/users", {
      method: "POST",
      body: new TextEncoder().encode(JSON.stringify({ first_name: "Grace" })),
    });
    expect(untyped.status).toBe(201);
    expect((await untyped.json()).first_name).toBe("Grace");
    const garbage = await api("/users", { method: "POST", body: new TextEncoder().encode("first_name=ada") });
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toEqual({ detail: "Request body is not valid JSON" });
  });

  it("413 on an oversized body and 415 on a non-JSON body", async () => {
    const big = await post({ first_name: "x".repeat(2_000_000) });
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ detail: expect.any(String) });
    // FastAPI does not read text/plain as JSON: it stays refused.
    const text = await post('{"first_name":"ada"}', { "content-type": "text/plain" });
    expect(text.status).toBe(415);
  });
});

describe("GET /users/{user_id}", () => {
  it("404 for an unknown user and 400 for a non-UUID id", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    const missing = await api(`/users/${id}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: `User with ID: ${id} not found.` });
    const bad = await api("/users/123");
    expect(bad.status).toBe(400);
    expect((await bad.json()).detail).toMatch(/path\.user_id/);
  });
});

describe("GET /users", () => {
  beforeAll(async () => {
    await s.database.db.exec("DELETE FROM wearables.users");
    const names = ["Carol", "alice", "Bob", "dave", "Eve"];
    for (const [i, name] of names.entries()) {
      await s.database.db.query(
        "INSERT INTO wearables.users (first_name, last_name, email, created_at) VALUES ($1, 'Smith', $2, $3)",
        [name, `${name.toLowerCase()}@list.test`, new Date(Date.UTC(2026, 0, 1 + i))],
      );
    }
    const [bob] = await s.database.db.query<{ id: string }>("SELECT id FROM wearables.users WHERE first_name = 'Bob'");
    await s.database.db.query(
      "INSERT INTO wearables.user_connections (user_id, provider, status, last_synced_at) VALUES ($1, 'garmin', 'active', $2)",
      [bob?.id, new Date("2026-02-01T00:00:00Z")],
    );
  });

  it("returns the envelope, newest first by default", async () => {
    const body = await (await api("/users")).json();
    expect(body).toMatchObject({ total: 5, page: 1, limit: 20, pages: 1, has_next: false, has_prev: false });
    expect(body.items.map((u: { first_name: string }) => u.first_name)).toEqual([
      "Eve",
      "dave",
      "Bob",
      "alice",
      "Carol",
    ]);
  });

  it("pages", async () => {
    const body = await (await api("/users?page=2&limit=2&sort_order=asc")).json();
    expect(body).toMatchObject({ total: 5, page: 2, limit: 2, pages: 3, has_next: true, has_prev: true });
    expect(body.items.map((u: { first_name: string }) => u.first_name)).toEqual(["Bob", "dave"]);
  });

  it("sorts by each column", async () => {
    const names = async (q: string) =>
      ((await (await api(`/users?${q}`)).json()).items as { first_name: string }[]).map((u) => u.first_name);
    expect(await names("sort_by=email&sort_order=asc")).toEqual(["alice", "Bob", "Carol", "dave", "Eve"]);
    expect((await names("sort_by=last_synced_at"))[0]).toBe("Bob");
    expect(await names("sort_by=first_name&sort_order=desc")).toHaveLength(5);
  });

  it("derives sync fields from connections", async () => {
    const body = await (await api("/users?email=BOB@list.test")).json();
    expect(body.total).toBe(1);
    expect(body.items[0]).toMatchObject({
      first_name: "Bob",
      last_synced_provider: "garmin",
      last_synced_at: "2026-02-01T00:00:00.000Z",
      has_active_connection: true,
    });
  });

  it("filters by connection (the anchor's 0.9): provider, status, active or not, last sync before", async () => {
    const [carol] = await s.database.db.query<{ id: string }>(
      "SELECT id FROM wearables.users WHERE first_name = 'Carol'",
    );
    await s.database.db.query(
      "INSERT INTO wearables.user_connections (user_id, provider, status, last_synced_at) VALUES ($1, 'polar', 'revoked', $2)",
      [carol?.id, new Date("2026-01-15T00:00:00Z")],
    );
    const names = async (q: string) =>
      ((await (await api(`/users?sort_by=name&sort_order=asc&${q}`)).json()).items as { first_name: string }[]).map(
        (u) => u.first_name,
      );
    expect(await names("provider=garmin")).toEqual(["Bob"]);
    expect(await names("provider=garmin&provider=polar")).toEqual(["Bob", "Carol"]);
    expect(await names("connection_status=revoked")).toEqual(["Carol"]);
    expect(await names("provider=garmin&connection_status=revoked")).toEqual([]);
    expect(await names("has_active_connection=true")).toEqual(["Bob"]);
    expect(await names("has_active_connection=false")).toEqual(["alice", "Carol", "dave", "Eve"]);
    expect(await names("last_synced_before=2026-01-20")).toEqual(["Carol"]);
    expect(await names("last_synced_before=2026-03-01T00:00:00Z")).toEqual(["Bob", "Carol"]);
    expect((await api("/users?last_synced_before=yesterday")).status).toBe(400);
    expect((await api("/users?provider=fitbit2")).status).toBe(400);
    const listed = (await (await api("/users?provider=garmin&include=connections")).json()).items;
    expect(listed[0].connections).toEqual([
      { provider: "garmin", status: "active", last_synced_at: "2026-02-01T00:00:00.000Z" },
    ]);
    expect((await (await api("/users?provider=garmin")).json()).items[0].connections).toBeNull();
    const one = await (await api(`/users/${carol?.id}?include=connections`)).json();
    expect(one).toMatchObject({
      first_name: "Carol",
      has_womens_health_data: false,
      connections: [{ provider: "polar", status: "revoked", last_synced_at: "2026-01-15T00:00:00.000Z" }],
    });
    await s.database.db.query("DELETE FROM wearables.user_connections WHERE user_id = $1", [carol?.id]);
  });

  it("searches names and emails case-insensitively, and treats % literally", async () => {
    expect((await (await api("/users?search=ALI")).json()).total).toBe(1);
    expect((await (await api("/users?search=smith")).json()).total).toBe(5);
    expect((await (await api("/users?search=%25")).json()).total).toBe(0);
  });

  it("400 on bad parameters", async () => {
    for (const q of ["page=0", "limit=0", "limit=101", "page=abc", "limit=1.5", "sort_by=password", "sort_order=up"]) {
      const res = await api(`/users?${q}`);
      expect(res.status, q).toBe(400);
      expect((await res.json()).detail, q).toMatch(/^query\./);
    }
  });
});

describe("PATCH and DELETE /users/{user_id}", () => {
  const send = (path: string, method: string, body?: unknown) =>
    api(path, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });

  it("PATCH sets the given fields, clears nulls, keeps the others, and keeps uniqueness", async () => {
    const user = await (await post({ first_name: "Grace", last_name: "Hopper", email: "grace@example.com" })).json();
    const res = await send(`/users/${user.id}`, "PATCH", { first_name: "Rear Admiral", email: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      ...user,
      first_name: "Rear Admiral",
      email: null,
    });
    expect(await (await api(`/users/${user.id}`)).json()).toMatchObject({ first_name: "Rear Admiral", email: null });
    expect((await send(`/users/${user.id}`, "PATCH", {})).status).toBe(200);
    await post({ email: "taken@example.com" });
    const taken = await send(`/users/${user.id}`, "PATCH", { email: "TAKEN@example.com" });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toEqual({ detail: "User with this email already exists." });
    expect((await send(`/users/${user.id}`, "PATCH", { email: "nope" })).status).toBe(400);
    // Unknown fields are dropped, as on create (and by the anchor's model).
    expect((await send(`/users/${user.id}`, "PATCH", { password: "x" })).status).toBe(200);
    const missing = await send("/users/00000000-0000-4000-8000-000000000000", "PATCH", { first_name: "X" });
    expect(missing.status).toBe(404);
  });

  it("DELETE answers the user as it was and removes it with its data", async () => {
    const user = await (await post({ first_name: "Temp", external_user_id: "tmp-1" })).json();
    await s.database.db.query(
      "INSERT INTO wearables.data_sources (user_id, provider, device_model) VALUES ($1, 'garmin', 'Edge 540')",
      [user.id],
    );
    const res = await send(`/users/${user.id}`, "DELETE");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(user);
    expect((await api(`/users/${user.id}`)).status).toBe(404);
    const left = await s.database.db.query("SELECT 1 FROM wearables.data_sources WHERE user_id = $1", [user.id]);
    expect(left).toEqual([]);
    expect((await send(`/users/${user.id}`, "DELETE")).status).toBe(404);
    expect((await send("/users/nope", "DELETE")).status).toBe(400);
  });
});

describe("service basics", () => {
  it("serves OpenAPI 3.1, docs, health, and request ids", async () => {
    const spec = await (await fetch(`${s.url}/openapi.json`)).json();
    expect(spec.openapi).toBe("3.1.0");
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(["/api/v1/users", "/api/v1/users/{user_id}"]));
    expect(spec.components.securitySchemes.ServiceApiKey).toMatchObject({ in: "header", name: "X-Service-API-Key" });
    const docs = await fetch(`${s.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("swagger");
    expect(await (await fetch(`${s.url}/health`)).json()).toEqual({ status: "ok" });
    const res = await api("/users", { headers: { "x-request-id": "abc-123" } });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
    expect((await api("/users")).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("404 with the error body on unknown routes", async () => {
    const res = await api("/nowhere");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: expect.stringContaining("Not found") });
  });
});
