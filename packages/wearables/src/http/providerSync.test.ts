/**
 * Connecting a user to the sandbox vendor and syncing, over HTTP against the real database, as a client
 * does: authorize (API key) → the vendor's consent form → the callback (303) → a connection with sealed
 * tokens → the historical sync run on the job layer → workouts, sleep and samples through the API, and the
 * run visible with its stage and counts. Then a live sync, disconnect, and the errors.
 */
import { enqueueJob } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wearablesService } from "../index.ts";
import { sandbox } from "../providers/adapters/sandbox.ts";
import { SANDBOX_CLIENT } from "../providers/registry.ts";
import { sandboxSignature } from "../sandbox/sandboxCloud.ts";
import { createProvidersModule, SCHEDULED_SYNC_QUEUE } from "../sync/providersModule.ts";
import { SYNC_QUEUE } from "../sync/syncJob.ts";
import { drainQueue } from "../testing/jobWorkers.ts";
import { allowOnStandIn, connectToStandIn } from "../testing/vendorHarness.ts";

let s: TestService;
let userId: string;
const KEY = () => ({ "X-Service-API-Key": s.apiKey });

const api = async (method: string, path: string) => {
  const res = await fetch(`${s.url}/api/v1${path}`, { method, headers: KEY(), redirect: "manual" });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are checked field by field
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any, headers: res.headers };
};

/** Runs `queue`'s jobs until none is left, with the service's own queue definition. */
async function drainProviderQueue(queue: string) {
  const module = createProvidersModule({
    config: s.context.config,
    db: s.database.db,
    logger: s.context.logger,
    originOf: (host) => (host === "sandbox" ? (s.urls.sandbox as string) : s.url),
  });
  try {
    await drainQueue(s.database.db, s.context.logger, queue, module.queues[queue] as never);
  } finally {
    await module.close();
  }
}
const drainSync = () => drainProviderQueue(SYNC_QUEUE);

/** The browser's part: the consent form allowed, the callback followed; answers the callback's answer. */
async function connect(login: string, redirectUri?: string) {
  const q = new URLSearchParams({ user_id: userId, ...(redirectUri ? { redirect_uri: redirectUri } : {}) });
  const authorize = await api("GET", `/oauth/sandbox/authorize?${q}`);
  expect(authorize.status).toBe(200);
  const back = await allowOnStandIn(authorize.body.authorization_url, login);
  const callback = new URL(`${s.url}/api/v1/oauth/sandbox/callback`);
  for (const [k, v] of back) callback.searchParams.set(k, v);
  return { authorize: authorize.body, callback: await fetch(callback, { redirect: "manual" }) };
}

beforeAll(async () => {
  // The sandbox pushes only when asked (its own minute-by-minute pushes would add runs the test counts).
  s = await startTestService(wearablesService, {
    config: { wearablesHistoricalDaysOnConnect: 14, wearablesSandboxPushIntervalSec: 0 },
  });
  const [u] = await s.database.db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('sync@example.com') RETURNING id",
  );
  userId = u?.id as string;
});
afterAll(() => s.close());

describe("providers and sync", () => {
  it("lists the providers, the sandbox enabled, vendors without a client disabled", async () => {
    const { status, body } = await api("GET", "/oauth/providers");
    expect(status).toBe(200);
    const byId = Object.fromEntries(body.map((p: { provider: string }) => [p.provider, p]));
    expect(byId.sandbox).toMatchObject({ is_enabled: true, has_cloud_api: true, live_sync_mode: "pull" });
    expect(byId.strava).toMatchObject({ is_enabled: false, has_cloud_api: true, name: "Strava" });
    expect(byId.apple).toMatchObject({ has_cloud_api: false });
    const enabled = await api("GET", "/oauth/providers?enabled_only=true&cloud_only=true");
    expect(enabled.body.map((p: { provider: string }) => p.provider)).toEqual(["sandbox"]);
  });

  it("connects through the sandbox's consent page: 303 to redirect_uri, tokens sealed, a backfill queued", async () => {
    const { authorize, callback } = await connect("alice", "https://app.example/done");
    expect(authorize.authorization_url).toContain(`${s.urls.sandbox}/oauth/authorize?`);
    expect(new URL(authorize.authorization_url).searchParams.get("code_challenge_method")).toBe("S256");
    expect(callback.status).toBe(303);
    expect(callback.headers.get("location")).toBe("https://app.example/done");
    const [row] = await s.database.db.query<{ access_token_sealed: string; provider_user_id: string }>(
      "SELECT access_token_sealed, provider_user_id FROM wearables.user_connections WHERE user_id = $1",
      [userId],
    );
    expect(row?.provider_user_id).toBe("alice");
    expect(row?.access_token_sealed).toMatch(/^v1\./);
    const connections = await api("GET", `/users/${userId}/connections`);
    expect(connections.body).toMatchObject([{ provider: "sandbox", status: "active", provider_user_id: "alice" }]);
    const runs = await api("GET", `/users/${userId}/sync/runs`);
    expect(runs.body).toMatchObject([
      { provider: "sandbox", source: "backfill", stage: "queued", status: "in_progress" },
    ]);
  });

  it("runs the backfill on the job layer: workouts, sleep and samples arrive; the run is visible", async () => {
    await drainSync();
    const [run] = (await api("GET", `/users/${userId}/sync/runs`)).body;
    expect(run).toMatchObject({ source: "backfill", stage: "completed", status: "success", progress: 1 });
    expect(run.items_processed).toBeGreaterThan(100);
    const end = new Date().toISOString();
    const start = new Date(Date.now() - 14 * 86_400_000).toISOString();
    const workouts = await api(
      "GET",
      `/users/${userId}/events/workouts?start_date=${start}&end_date=${end}&provider=sandbox`,
    );
    expect(workouts.body.data.length).toBeGreaterThan(3);
    const sleep = await api("GET", `/users/${userId}/events/sleep?start_date=${start}&end_date=${end}`);
    expect(sleep.body.data.length).toBeGreaterThan(10);
    const hr = await api("GET", `/users/${userId}/timeseries?start_time=${start}&end_time=${end}&types=heart_rate`);
    expect(hr.body.data.length).toBeGreaterThan(0);
    const user = await api("GET", `/users/${userId}`);
    expect(user.body).toMatchObject({ last_synced_provider: "sandbox", has_active_connection: true });
    expect(Date.parse(user.body.last_synced_at)).toBeGreaterThan(Date.now() - 60_000);
    const recent = await api("GET", `/users/${userId}/sync/recent?limit=200`);
    const stages = recent.body.map((e: { stage: string }) => e.stage);
    expect(stages).toEqual(expect.arrayContaining(["queued", "started", "processing", "completed"]));
  });

  it("a live sync fetches only what came after the synced span; a historical one only what lies before it", async () => {
    const live = await api("POST", `/providers/sandbox/users/${userId}/sync`);
    expect(live.body).toMatchObject({ success: true, async: true });
    const historical = await api("POST", `/providers/sandbox/users/${userId}/sync/historical?days=10`);
    expect(historical.body).toMatchObject({ success: true, task_id: null, method: "pull_api", days: 10 });
    const older = await api("POST", `/providers/sandbox/users/${userId}/sync/historical?days=20`);
    expect(older.body.task_id).toEqual(expect.any(String));
    // The 20-day backfill ends where the 14-day one began.
    expect(Date.parse(older.body.end_date) - Date.parse(older.body.start_date)).toBeLessThan(6.1 * 86_400_000);
    await drainSync();
    const runs = (await api("GET", `/sync/runs?user_id=${userId}&provider=sandbox`)).body;
    expect(runs.map((r: { status: string }) => r.status)).toEqual(["success", "success", "success"]);
  });

  it("answers the vendor's workouts as the vendor sends them", async () => {
    const { status, body } = await api("GET", `/providers/sandbox/users/${userId}/workouts?limit=5`);
    expect(status).toBe(200);
    expect(body.data.length).toBeLessThanOrEqual(5);
    expect(body.data[0]).toHaveProperty("sport");
  });

  it("honours the vendor knobs the provider takes and refuses the others with a 400 naming who takes them", async () => {
    const sync = await api(
      "POST",
      `/providers/sandbox/users/${userId}/sync?since=${Math.floor(Date.now() / 1000) - 10 * 86_400}&limit=7`,
    );
    expect(sync.status).toBe(200);
    expect(sync.body.message).toBe("Sync task queued for sandbox (limit 7)");
    const [job] = await s.database.db.query<{ payload: { runId: string; query?: unknown } }>(
      "SELECT payload FROM platform.jobs WHERE queue = $1 AND payload->>'runId' = $2",
      [SYNC_QUEUE, sync.body.task_id],
    );
    expect(job?.payload).toEqual({ runId: sync.body.task_id, query: { limit: 7 } });
    await drainSync();
    const [run] = (await api("GET", `/sync/runs?user_id=${userId}&provider=sandbox`)).body.filter(
      (r: { run_id: string }) => r.run_id === sync.body.task_id,
    );
    expect(run).toMatchObject({ status: "success" });
    // Every page the sandbox answered held at most 7 records (its `limit`): the ten days took several pages.
    const events = (await api("GET", `/users/${userId}/sync/recent?limit=200`)).body.filter(
      (e: { run_id?: string; message?: string }) =>
        e.run_id === sync.body.task_id && /: \d+ records$/.test(e.message ?? ""),
    );
    const counts = events.map((e: { message: string }) => Number(/: (\d+) records$/.exec(e.message)?.[1]));
    expect(counts.length).toBeGreaterThan(3);
    expect(Math.max(...counts)).toBeLessThanOrEqual(7);

    const refused = async (method: string, path: string) => {
      const r = await api(method, path);
      expect(r.status).toBe(400);
      return r.body.detail;
    };
    const syncPath = `/providers/sandbox/users/${userId}/sync`;
    expect(await refused("POST", `${syncPath}?samples=true`)).toBe(
      "`samples` of a sync applies to polar only, not sandbox",
    );
    expect(await refused("POST", `${syncPath}?offset=3`)).toBe(
      "`offset` of a sync applies to suunto only, not sandbox",
    );
    expect(await refused("POST", `${syncPath}?filter_by_modification_time=false`)).toBe(
      "`filter_by_modification_time` of a sync applies to suunto only, not sandbox",
    );
    expect(await refused("POST", `${syncPath}?summary_start_time=2026-11-20T00:00:00Z`)).toBe(
      "`summary_start_time`/`summary_end_time` of a sync applies to garmin only, not sandbox",
    );
    expect(await refused("POST", `${syncPath}?route=true`)).toBe(
      "`route` is not taken by a sync of any provider (sandbox included)",
    );
    const workoutsPath = `/providers/sandbox/users/${userId}/workouts`;
    expect(await refused("GET", `${workoutsPath}?filter_by_modification_time=false`)).toBe(
      "`filter_by_modification_time` of the workout list applies to suunto, withings only, not sandbox",
    );
    expect(await refused("GET", `${workoutsPath}?zones=true`)).toBe(
      "`zones` of the workout list applies to polar only, not sandbox",
    );
    expect(await refused("GET", `${workoutsPath}?summary_end_time=1764000000`)).toBe(
      "`summary_start_time`/`summary_end_time` of the workout list applies to garmin only, not sandbox",
    );
    await refused("GET", `${workoutsPath}?limit=101`);
    // The knobs are checked before the connection is looked up.
    expect(await refused("GET", `/providers/sandbox/users/${crypto.randomUUID()}/workouts?samples=true`)).toBe(
      "`samples` of the workout list applies to polar only, not sandbox",
    );
    // The defaults, given explicitly, ask for nothing.
    const plain = await api(
      "GET",
      `${workoutsPath}?limit=50&offset=0&filter_by_modification_time=true&samples=false&zones=false&route=false`,
    );
    expect(plain.status).toBe(200);
  });

  it("takes the sandbox's pushes: a signed notification queues a pull of its window; a forged one is refused", async () => {
    // A token of the same sandbox account, as a vendor's own app would hold, to ask the sandbox for a push.
    const vendorApp = await connectToStandIn({
      adapter: sandbox,
      origin: s.urls.sandbox as string,
      credentials: SANDBOX_CLIENT,
      login: "alice",
    });
    const sent = await fetch(`${s.urls.sandbox}/v1/notifications/test`, {
      method: "POST",
      headers: { authorization: `Bearer ${vendorApp.tokens.accessToken}` },
    });
    expect(await sent.json()).toEqual({ sent: 4, statuses: [200, 200, 200, 200] });
    await drainSync();
    const pushed = (await api("GET", `/sync/runs?user_id=${userId}&source=webhook`)).body;
    expect(pushed.map((r: { status: string }) => r.status)).toEqual(["success", "success", "success", "success"]);
    const body = JSON.stringify({
      account: "alice",
      data_type: "workouts",
      start: "2026-01-01T00:00:00Z",
      end: "2026-01-02T00:00:00Z",
    });
    const forged = await fetch(`${s.url}/api/v1/providers/sandbox/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-sandbox-signature": sandboxSignature("not-the-secret", body, Math.floor(Date.now() / 1000)),
      },
      body,
    });
    expect(forged.status).toBe(401);
    const stale = await fetch(`${s.url}/api/v1/providers/sandbox/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-sandbox-signature": sandboxSignature(
          SANDBOX_CLIENT.clientSecret,
          body,
          Math.floor(Date.now() / 1000) - 3_600,
        ),
      },
      body,
    });
    expect(stale.status).toBe(401);
  });

  it("refuses what it must: a used state, an unknown provider, an SDK provider, a missing key", async () => {
    const { authorize } = await connect("alice");
    const replay = await fetch(`${s.url}/api/v1/oauth/sandbox/callback?code=x&state=${authorize.state}`, {
      redirect: "manual",
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ detail: "Invalid or expired state parameter" });
    expect((await api("GET", `/oauth/apple/authorize?user_id=${userId}`)).body).toEqual({
      detail: "Provider 'apple' does not support OAuth",
    });
    expect((await api("GET", `/oauth/strava/authorize?user_id=${userId}`)).status).toBe(400);
    expect((await api("GET", `/oauth/acme/authorize?user_id=${userId}`)).status).toBe(404);
    expect((await api("POST", `/providers/strava/users/${userId}/sync`)).status).toBe(404);
    const denied = await fetch(`${s.url}/api/v1/oauth/sandbox/callback?error=access_denied&error_description=no`, {
      redirect: "manual",
    });
    expect(denied.status).toBe(303);
    expect(denied.headers.get("location")).toContain("/api/v1/oauth/error?message=access_denied");
    expect((await fetch(`${s.url}/api/v1/oauth/providers`)).status).toBe(401);
  });

  it("the scheduled pass fails a run whose job died, so its connection is not busy for good", async () => {
    const [run] = await s.database.db.query<{ id: string }>(
      `INSERT INTO wearables.sync_runs (user_id, provider, source, scope, stage, status, kinds, window_start, window_end)
       VALUES ($1, 'sandbox', 'pull', 'live', 'processing', 'in_progress', '{workouts}', now() - interval '1 day', now())
       RETURNING id`,
      [userId],
    );
    // A job whose attempts were spent by kills that committed nothing: the kernel marked it dead.
    const jobId = await enqueueJob(s.database.db, SYNC_QUEUE, { runId: run?.id }, { maxAttempts: 1 });
    await s.database.db.query(
      "UPDATE platform.jobs SET state = 'dead', attempts = 1, last_error = 'lock expired' WHERE id = $1",
      [jobId],
    );
    await enqueueJob(s.database.db, SCHEDULED_SYNC_QUEUE, {});
    await drainProviderQueue(SCHEDULED_SYNC_QUEUE);
    const runs = (await api("GET", `/sync/runs?user_id=${userId}&status=failed`)).body;
    expect(runs).toMatchObject([{ run_id: run?.id, stage: "failed", status: "failed", error: "lock expired" }]);
  });

  it("disconnects: tokens revoked and forgotten, the data kept; /data deletes it too", async () => {
    expect((await api("DELETE", `/users/${userId}/connections/sandbox`)).status).toBe(204);
    expect((await api("GET", `/users/${userId}/connections`)).body).toEqual([]);
    const sources = await api("GET", `/users/${userId}/data-sources`);
    expect(sources.body.total).toBeGreaterThan(0);
    await connect("alice");
    expect((await api("DELETE", `/users/${userId}/connections/sandbox/data`)).status).toBe(204);
    expect((await api("GET", `/users/${userId}/data-sources`)).body.total).toBe(0);
    expect((await api("DELETE", `/users/${userId}/connections/sandbox`)).status).toBe(404);
  });
});
