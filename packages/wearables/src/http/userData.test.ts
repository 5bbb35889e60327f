/**
 * The per-user lists that are not time series: connections, data sources and health scores, over HTTP
 * against the real database — fields, order, filters, offset paging, unknown users and bad parameters.
 */
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wearablesService } from "../index.ts";
import { createHealthDataWriter } from "../store/healthDataWriter.ts";

let s: TestService;
const writer = createHealthDataWriter();
let userId: string;
let friendId: string;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const get = async (path: string) => {
  const res = await fetch(`${s.url}/api/v1${path}`, { headers: { "X-Service-API-Key": s.apiKey } });
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are checked field by field
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  s = await startTestService(wearablesService);
  const [a, b] = await s.database.db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('ud@example.com'), ('friend@example.com') RETURNING id",
  );
  userId = a?.id as string;
  friendId = b?.id as string;
});
afterAll(() => s.close());

describe("GET /connections", () => {
  beforeAll(async () => {
    await s.database.db.query(
      `INSERT INTO wearables.user_connections (user_id, provider, provider_user_id, status, created_at, last_synced_at,
         access_token_sealed)
       VALUES ($1, 'garmin', 'g-42', 'active', '2026-04-01T10:00:00Z', '2026-05-01T06:00:00Z', 'v1.k.sealed'),
              ($1, 'polar', 'p-1', 'revoked', '2026-04-02T10:00:00Z', NULL, NULL),
              ($2, 'garmin', 'g-42', 'active', '2026-04-03T10:00:00Z', NULL, NULL)`,
      [userId, friendId],
    );
  });

  it("lists connections with capabilities, linked users, and no tokens", async () => {
    const { status, body } = await get(`/users/${userId}/connections`);
    expect(status).toBe(200);
    expect(body).toHaveLength(2);
    expect(body[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: userId,
      provider: "garmin",
      provider_user_id: "g-42",
      provider_username: null,
      scope: null,
      status: "active",
      last_synced_at: "2026-05-01T06:00:00.000Z",
      created_at: "2026-04-01T10:00:00.000Z",
      updated_at: expect.any(String),
      icon_url: "/static/provider-icons/garmin.svg",
      max_historical_days: 30,
      rest_pull: false,
      webhook_stream: true,
      webhook_ping: false,
      webhook_callback: true,
      live_sync_mode: "webhook",
      linked_user_ids: [friendId],
    });
    expect(body[1]).toMatchObject({
      provider: "polar",
      status: "revoked",
      live_sync_mode: "pull",
      linked_user_ids: [],
    });
  });

  it("an unknown user has none; a malformed id is 400", async () => {
    expect(await get(`/users/${UNKNOWN}/connections`)).toEqual({ status: 200, body: [] });
    const bad = await get("/users/xyz/connections");
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/path\.user_id/);
  });
});

describe("GET /data-sources", () => {
  beforeAll(async () => {
    await s.database.db.transaction(async (tx) => {
      await writer.ensureDataSource(tx, userId, {
        provider: "garmin",
        deviceModel: "Forerunner 255",
        source: "fit_file",
      });
      await writer.ensureDataSource(tx, userId, {
        provider: "apple",
        source: "com.example.scale",
        originalSourceName: "Smart Scale",
        deviceType: "scale",
      });
      await writer.ensureDataSource(tx, userId, { provider: "apple", deviceModel: "Watch7,5", deviceType: "watch" });
    });
  });

  it("lists them by provider then model, with a display name", async () => {
    const { status, body } = await get(`/users/${userId}/data-sources`);
    expect(status).toBe(200);
    expect(body.total).toBe(3);
    expect(body.items.map((d: { display_name: string }) => d.display_name)).toEqual([
      "Apple - Watch7,5",
      "Apple - Smart Scale",
      "Garmin - Forerunner 255",
    ]);
    expect(body.items[2]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: userId,
      provider: "garmin",
      user_connection_id: null,
      device_model: "Forerunner 255",
      software_version: null,
      source: "fit_file",
      device_type: null,
      original_source_name: null,
      display_name: "Garmin - Forerunner 255",
    });
  });

  it("an unknown user has none", async () => {
    expect((await get(`/users/${UNKNOWN}/data-sources`)).body).toEqual({ items: [], total: 0 });
  });
});

describe("GET /health-scores", () => {
  beforeAll(async () => {
    const rows: unknown[][] = [];
    for (let d = 1; d <= 6; d++) {
      rows.push(["internal", "sleep", 70 + d, `2026-05-0${d}T05:00:00Z`]);
      rows.push(["oura", "readiness", 80 + d, `2026-05-0${d}T06:00:00Z`]);
    }
    for (const [provider, category, value, at] of rows) {
      await s.database.db.query(
        `INSERT INTO wearables.health_scores (user_id, provider, category, value, recorded_at, zone_offset, components)
         VALUES ($1, $2, $3, $4, $5, '+02:00', $6)`,
        [userId, provider, category, value, at, JSON.stringify({ duration: { value: 100, qualifier: null } })],
      );
    }
  });

  it("lists scores newest first in the envelope, with the offset semantics", async () => {
    const { status, body } = await get(`/users/${userId}/health-scores?limit=5`);
    expect(status).toBe(200);
    expect(body.data.map((x: { value: number }) => x.value)).toEqual([86, 76, 85, 75, 84]);
    expect(body.data[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      category: "readiness",
      value: 86,
      qualifier: null,
      recorded_at: "2026-05-06T06:00:00.000Z",
      zone_offset: "+02:00",
      components: { duration: { value: 100, qualifier: null } },
      data_source_id: null,
      provider: "oura",
      event_record_id: null,
    });
    expect(body.pagination).toEqual({ next_cursor: null, previous_cursor: null, has_more: true, total_count: 12 });
    expect(body.metadata).toEqual({ resolution: null, sample_count: 5, start_time: null, end_time: null });
    const last = await get(`/users/${userId}/health-scores?limit=5&offset=10`);
    expect(last.body.data).toHaveLength(2);
    expect(last.body.pagination.has_more).toBe(false);
  });

  it("filters by category, provider and [start_date, end_date)", async () => {
    const sleep = await get(`/users/${userId}/health-scores?category=sleep&provider=internal`);
    expect(sleep.body.pagination.total_count).toBe(6);
    const window = await get(
      `/users/${userId}/health-scores?start_date=2026-05-02T05:00:00Z&end_date=2026-05-03T05:00:00Z`,
    );
    expect(window.body.data.map((x: { value: number }) => x.value)).toEqual([82, 72]);
    expect(window.body.metadata).toMatchObject({
      start_time: "2026-05-02T05:00:00.000Z",
      end_time: "2026-05-03T05:00:00.000Z",
    });
    expect((await get(`/users/${userId}/health-scores?provider=garmin`)).body.data).toEqual([]);
  });

  it("speaks the 0.9 provider names and takes the retired `google` for `google_health`", async () => {
    await s.database.db.query(
      `INSERT INTO wearables.health_scores (user_id, provider, category, value, recorded_at)
       VALUES ($1, 'google_health', 'sleep', 66, '2026-04-01T05:00:00Z')`,
      [friendId],
    );
    const current = await get(`/users/${friendId}/health-scores?provider=google_health`);
    expect(current.body.data.map((x: { provider: string; value: number }) => [x.provider, x.value])).toEqual([
      ["google_health", 66],
    ]);
    expect((await get(`/users/${friendId}/health-scores?provider=google`)).body.data).toEqual(current.body.data);
    for (const p of ["health_connect", "withings"]) {
      expect((await get(`/users/${friendId}/health-scores?provider=${p}`)).body.data).toEqual([]);
    }
  });

  it("an unknown user has none", async () => {
    const { body } = await get(`/users/${UNKNOWN}/health-scores`);
    expect(body.data).toEqual([]);
    expect(body.pagination).toMatchObject({ has_more: false, total_count: 0 });
  });

  it("400 on bad parameters", async () => {
    const cases: [string, RegExp][] = [
      ["limit=0", /query\.limit/],
      ["limit=1001", /query\.limit/],
      ["offset=-1", /query\.offset/],
      ["category=mood", /query\.category/],
      ["provider=fitbit2", /query\.provider/],
      ["start_date=soon", /Invalid datetime format: 'soon'/],
      ["start_date=2026-05-03&end_date=2026-05-02", /start_date must be before end_date/],
    ];
    for (const [q, detail] of cases) {
      const res = await get(`/users/${userId}/health-scores?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.detail, q).toMatch(detail);
    }
    expect((await get("/users/1/health-scores")).status).toBe(400);
  });
});

describe("OpenAPI", () => {
  it("documents every read route with an operationId, tags and examples", async () => {
    const spec = await (await fetch(`${s.url}/openapi.json`)).json();
    const routes: [string, string][] = [
      ["/api/v1/users/{user_id}/connections", "get"],
      ["/api/v1/users/{user_id}/data-sources", "get"],
      ["/api/v1/users/{user_id}/timeseries", "get"],
      ["/api/v1/users/{user_id}/events/workouts", "get"],
      ["/api/v1/users/{user_id}/events/sleep", "get"],
      ["/api/v1/users/{user_id}/events/workouts/{workout_id}", "delete"],
      ["/api/v1/users/{user_id}/events/sleep/{sleep_id}", "delete"],
      ["/api/v1/users/{user_id}/health-scores", "get"],
    ];
    for (const [path, method] of routes) {
      const op = spec.paths[path]?.[method];
      expect(op, path).toBeDefined();
      expect(op.operationId, path).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags, path).toHaveLength(1);
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(["400", "401"]));
      expect(JSON.stringify(op.responses), path).toContain("example");
    }
    const params = spec.paths["/api/v1/users/{user_id}/timeseries"].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(
      expect.arrayContaining(["user_id", "start_time", "end_time", "types", "resolution", "cursor", "limit"]),
    );
  });
});
