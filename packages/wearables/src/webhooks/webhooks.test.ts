/**
 * Outgoing webhooks over HTTP against the real database and a real receiver: the endpoint routes, deliveries
 * verified by the receivers' own libraries (`standardwebhooks`, `svix`), the Svix retry schedule on a fake
 * clock (a failing, rate-limiting and slow receiver), the five-day disable rule, recovery, secret rotation,
 * and events from the data write path.
 */
import { createJobWorker, enqueueJob, type JobWorker } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { wearablesService } from "../index.ts";
import { createHealthDataWriter } from "../store/healthDataWriter.ts";
import { waitFor } from "../testing/jobWorkers.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../testing/webhookReceiver.ts";
import { withWebhookEvents } from "./eventingWriter.ts";
import { RETRY_SCHEDULE_SEC } from "./retrySchedule.ts";
import { WEBHOOK_DELIVERY_QUEUE } from "./webhookOutbox.ts";
import { createWebhooksModule, WEBHOOK_PRUNE_QUEUE, type WebhooksModule } from "./webhooksModule.ts";

let s: TestService;
let receiver: WebhookReceiver;
let other: WebhookReceiver;
let worker: JobWorker;
let module: WebhooksModule;
/** The fake clock of the delivery handler; `advance` makes the attempts it scheduled due. */
let clock = Date.now();
let userId: string;

const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
  const res = await fetch(`${s.url}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: {
      "X-Open-Wearables-API-Key": s.apiKey,
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
};

/** Moves the fake clock on; attempts scheduled up to it run now. */
async function advance(ms: number) {
  clock += ms;
  await s.database.db.query(
    "UPDATE platform.jobs SET run_at = now() WHERE queue = $1 AND state = 'queued' AND run_at <= $2",
    [WEBHOOK_DELIVERY_QUEUE, new Date(clock)],
  );
  worker.wake();
}

const createEndpoint = async (body: Record<string, unknown>) => {
  const r = await api("/webhooks/endpoints", { method: "POST", body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string };
};
/** Waits until the endpoint's delivery has recorded `n` attempts (so that the next one is queued). */
const attemptsRecorded = (endpointId: string, n: number) =>
  waitFor(`attempt ${n} recorded`, async () => {
    const [row] = await s.database.db.query<{ attempts: number }>(
      "SELECT attempts FROM wearables.webhook_deliveries WHERE endpoint_id = $1 ORDER BY message_key LIMIT 1",
      [endpointId],
    );
    return row?.attempts === n;
  });
const secretOf = async (id: string) => (await api(`/webhooks/endpoints/${id}/secret`)).body.key as string;

beforeAll(async () => {
  s = await startTestService(wearablesService, { config: { wearablesWebhookAllowedNetworks: ["127.0.0.0/8"] } });
  module = createWebhooksModule({
    // A 1 s receiver deadline, for the slow receiver.
    config: { ...s.context.config, wearablesWebhookTimeoutSec: 1 },
    db: s.database.db,
    logger: s.context.logger,
    now: () => clock,
    random: () => 0.5, // no jitter: the schedule's exact delays
  });
  worker = createJobWorker({
    db: s.database.db,
    logger: s.context.logger,
    pollIntervalMs: 50,
    lockMs: 2_000,
    queues: module.queues,
  });
  await worker.start();
  receiver = await startWebhookReceiver();
  other = await startWebhookReceiver("/other");
  const [u] = await s.database.db.query<{ id: string }>(
    "INSERT INTO wearables.users (email) VALUES ('hooks@example.com') RETURNING id",
  );
  userId = u?.id as string;
});
afterAll(async () => {
  await worker.stop();
  module.close();
  await receiver.close();
  await other.close();
  await s.close();
});
beforeEach(() => {
  clock = Date.now();
  receiver.respond(() => ({ status: 200 }));
  receiver.received.length = 0;
  other.received.length = 0;
});
afterEach(async () => {
  for (const e of (await api("/webhooks/endpoints")).body as { id: string }[])
    await api(`/webhooks/endpoints/${e.id}`, { method: "DELETE" });
});

describe("endpoint routes", () => {
  it("lists the anchor's event types, 0.9 names, groups with their children", async () => {
    const r = await api("/webhooks/event-types");
    expect(r.status).toBe(200);
    const byName = new Map(r.body.map((e: { name: string }) => [e.name, e]));
    for (const name of ["connection.created", "connection.revoked", "sync.started", "sync.completed", "sync.failed"])
      expect(byName.has(name), name).toBe(true);
    expect(byName.get("calories.created")).toMatchObject({
      child_events: ["series.active_energy.created", "series.basal_energy.created"],
    });
    expect(byName.has("series.energy.created")).toBe(false);
    expect((await fetch(`${s.url}/api/v1/webhooks/event-types`)).status).toBe(401);
  });

  it("registers, reads, changes (null clears), gives the secret, deletes", async () => {
    const e = await createEndpoint({ url: receiver.url, description: "main", filter_types: ["workout.created"] });
    expect(e).toMatchObject({
      url: receiver.url,
      description: "main",
      filter_types: ["workout.created"],
      user_id: null,
    });
    expect(await secretOf(e.id)).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const patched = await api(`/webhooks/endpoints/${e.id}`, {
      method: "PATCH",
      body: { filter_types: null, user_id: userId },
    });
    expect(patched.body).toMatchObject({ description: "main", filter_types: null, user_id: userId });
    // The retired series name is taken for the 0.9 one.
    const renamed = await api(`/webhooks/endpoints/${e.id}`, {
      method: "PATCH",
      body: { filter_types: ["series.energy.created"] },
    });
    expect(renamed.body.filter_types).toEqual(["series.active_energy.created"]);
    expect((await api("/webhooks/endpoints")).body).toHaveLength(1);
    expect((await api(`/webhooks/endpoints/${e.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/webhooks/endpoints/${e.id}`)).status).toBe(404);
  });

  it("refuses an unknown event type, a private address, another scheme, an unknown user", async () => {
    const bad = async (body: Record<string, unknown>) => {
      const r = await api("/webhooks/endpoints", { method: "POST", body: { url: receiver.url, ...body } });
      return [r.status, r.body.detail];
    };
    expect(await bad({ filter_types: ["workout.updated"] })).toEqual([
      400,
      "Unknown event type 'workout.updated' (see GET /webhooks/event-types)",
    ]);
    expect((await bad({ url: "http://10.0.0.8/hook" }))[0]).toBe(400);
    expect((await bad({ url: "http://[::ffff:10.0.0.8]/hook" }))[0]).toBe(400);
    expect((await bad({ url: "ftp://example.com/hook" }))[0]).toBe(400);
    expect((await bad({ user_id: "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12" }))[0]).toBe(404);
  });
});

describe("delivery", () => {
  it("signs a test message as Standard Webhooks and Svix receivers verify it, and lists message and attempt", async () => {
    const e = await createEndpoint({ url: receiver.url });
    const sent = await api(`/webhooks/endpoints/${e.id}/test`, {
      method: "POST",
      body: { event_type: "sleep.created" },
    });
    expect(sent.body).toMatchObject({ success: true, event_type: "sleep.created" });
    await waitFor("the test message", () => receiver.received.length === 1);
    const [got] = receiver.received;
    const secret = await secretOf(e.id);
    const payload = new StandardWebhook(secret).verify(got?.body as string, got?.headers as Record<string, string>);
    expect(payload).toMatchObject({ type: "sleep.created", data: { is_nap: false } });
    const svixHeaders = Object.fromEntries(
      ["svix-id", "svix-timestamp", "svix-signature"].map((h) => [h, got?.headers[h] as string]),
    );
    expect(new SvixWebhook(secret).verify(got?.body as string, svixHeaders)).toEqual(payload);
    expect(got?.headers["webhook-id"]).toBe(sent.body.message_id);
    expect(got?.headers["content-type"]).toBe("application/json");

    const messages = await api("/webhooks/messages?limit=10");
    expect(messages.body.data[0]).toMatchObject({ id: sent.body.message_id, eventType: "sleep.created" });
    await waitFor(
      "the attempt",
      async () => (await api(`/webhooks/endpoints/${e.id}/attempts`)).body.data.length === 1,
    );
    const attempts = await api(`/webhooks/endpoints/${e.id}/attempts`);
    expect(attempts.body).toMatchObject({
      done: true,
      data: [
        { msgId: sent.body.message_id, status: 0, statusText: "success", responseStatusCode: 200, triggerType: 0 },
      ],
    });
  });

  it("retries on Svix's schedule: 5 s, 5 min, 30 min, …; at least 60 s after a 429 or timeout; Retry-After within bounds", async () => {
    const e = await createEndpoint({ url: receiver.url });
    // 500, then 429 asking 1 s (below the 5 min base: 5 min), then a timeout, then success.
    const answers = [
      { status: 500 },
      { status: 429, headers: { "retry-after": "1" } },
      { status: 200, delayMs: 2_500 },
      { status: 200 },
    ];
    receiver.respond(() => answers.shift() ?? { status: 200 });
    const at0 = clock;
    await api(`/webhooks/endpoints/${e.id}/test`, { method: "POST", body: {} });
    const scheduled = async () =>
      (
        await s.database.db.query<{ next_attempt_at: Date | null; attempts: number; status: string }>(
          "SELECT next_attempt_at, attempts, status FROM wearables.webhook_deliveries WHERE endpoint_id = $1",
          [e.id],
        )
      )[0];
    await waitFor("the first attempt", async () => (await scheduled())?.attempts === 1);
    expect((await scheduled())?.next_attempt_at?.getTime()).toBe(at0 + RETRY_SCHEDULE_SEC[0]! * 1000);
    await advance(RETRY_SCHEDULE_SEC[0]! * 1000);
    await waitFor("the second attempt", async () => (await scheduled())?.attempts === 2);
    // 429 with Retry-After 1 s: clamped to the 5 min base.
    expect((await scheduled())?.next_attempt_at?.getTime()).toBe(clock + RETRY_SCHEDULE_SEC[1]! * 1000);
    await advance(RETRY_SCHEDULE_SEC[1]! * 1000);
    await waitFor("the third attempt", async () => (await scheduled())?.attempts === 3, 40_000);
    expect((await scheduled())?.next_attempt_at?.getTime()).toBe(clock + RETRY_SCHEDULE_SEC[2]! * 1000);
    await advance(RETRY_SCHEDULE_SEC[2]! * 1000);
    await waitFor("the success", async () => (await scheduled())?.status === "success");
    expect(receiver.received).toHaveLength(4);
    // One message id throughout.
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    const attempts = (await api(`/webhooks/endpoints/${e.id}/attempts`)).body.data;
    expect(attempts.map((a: { responseStatusCode: number }) => a.responseStatusCode)).toEqual([200, 0, 429, 500]);
  }, 60_000);

  it("exhausts 8 attempts, then a recovery sends exactly the failed messages again, with their ids", async () => {
    const e = await createEndpoint({ url: receiver.url });
    receiver.respond(() => ({ status: 503 }));
    const since = new Date(Date.now() - 1000).toISOString();
    const first = (await api(`/webhooks/endpoints/${e.id}/test`, { method: "POST", body: {} })).body.message_id;
    for (let attempt = 1; attempt <= RETRY_SCHEDULE_SEC.length; attempt++) {
      await attemptsRecorded(e.id, attempt);
      await advance(RETRY_SCHEDULE_SEC[attempt - 1]! * 1000);
    }
    await waitFor("the last attempt", () => receiver.received.length === 8);
    const state = async () =>
      (
        await s.database.db.query<{ status: string }>(
          "SELECT status FROM wearables.webhook_deliveries WHERE endpoint_id = $1",
          [e.id],
        )
      ).map((r) => r.status);
    await waitFor("the delivery to fail", async () => (await state()).join() === "failed");
    // A second message that succeeds: not recovered.
    receiver.respond(() => ({ status: 200 }));
    await api(`/webhooks/endpoints/${e.id}/test`, { method: "POST", body: { event_type: "workout.created" } });
    await waitFor("the second message", () => receiver.received.length === 9);
    const recovered = await api(`/webhooks/endpoints/${e.id}/recover`, { method: "POST", body: { since } });
    expect(recovered).toMatchObject({ status: 202, body: { task: "endpoint.recover", data: { messages: 1 } } });
    await waitFor("the resend", () => receiver.received.length === 10);
    expect(receiver.received[9]?.headers["webhook-id"]).toBe(first);
    const manual = (await api(`/webhooks/endpoints/${e.id}/attempts?limit=1`)).body.data[0];
    expect(manual).toMatchObject({ msgId: first, triggerType: 1, status: 0 });
    const tooLong = await api(`/webhooks/endpoints/${e.id}/recover`, {
      method: "POST",
      body: { since: "2026-01-01T00:00:00Z", until: "2026-02-01T00:00:00Z" },
    });
    expect(tooLong.status).toBe(400);
  }, 60_000);

  it("disables an endpoint after five days of failures only, and tells the other endpoints", async () => {
    const failing = await createEndpoint({ url: receiver.url, filter_types: ["workout.created"] });
    const watcher = await createEndpoint({ url: other.url, filter_types: ["endpoint.disabled"] });
    receiver.respond(() => ({ status: 500 }));
    await s.database.db.query("UPDATE wearables.webhook_endpoints SET failing_since = $2 WHERE id = $1", [
      failing.id,
      new Date(clock - 6 * 86_400_000),
    ]);
    await api(`/webhooks/endpoints/${failing.id}/test`, { method: "POST", body: {} });
    for (let attempt = 1; attempt <= RETRY_SCHEDULE_SEC.length; attempt++) {
      await attemptsRecorded(failing.id, attempt);
      await advance(RETRY_SCHEDULE_SEC[attempt - 1]! * 1000);
    }
    await waitFor("the disabled event", () => other.received.length === 1);
    const event = JSON.parse(other.received[0]?.body as string);
    expect(event).toMatchObject({ type: "endpoint.disabled", data: { endpoint_id: failing.id } });
    expect((await api(`/webhooks/endpoints/${failing.id}`)).body.disabled).toBe(true);
    expect((await api(`/webhooks/endpoints/${failing.id}/test`, { method: "POST", body: {} })).status).toBe(409);
    const enabled = await api(`/webhooks/endpoints/${failing.id}`, { method: "PATCH", body: { disabled: false } });
    expect(enabled.body.disabled).toBe(false);
    expect(watcher.id).toBeDefined();
  }, 60_000);

  it("a slow receiver holds its own slots only: a fast endpoint's messages all arrive meanwhile", async () => {
    const slow = await createEndpoint({ url: receiver.url });
    const fast = await createEndpoint({ url: other.url });
    receiver.respond(() => ({ status: 200, delayMs: 700 })); // within the 1 s deadline
    const events = [slow.id, fast.id].flatMap((endpoint) =>
      Array.from({ length: 20 }, (_, i) => ({
        type: "workout.created",
        eventId: `slow-test.${endpoint}.${i}`,
        userId: null,
        data: { i },
        onlyEndpointId: endpoint,
      })),
    );
    await s.database.db.transaction((tx) => module.outbox.emit(tx, events));
    await waitFor("the fast endpoint's 20 messages", () => other.received.length === 20);
    // At most 4 attempts of the slow endpoint run at once (WEARABLES_WEBHOOK_ENDPOINT_CONCURRENCY): 20 take
    // at least 5 × 700 ms, and the fast endpoint did not wait for them.
    expect(receiver.received.length).toBeLessThan(20);
    await waitFor("the slow endpoint's 20 messages", () => receiver.received.length === 20, 30_000);
  }, 40_000);

  it("signs with the old secret too for 24 hours after a rotation", async () => {
    const e = await createEndpoint({ url: receiver.url });
    const old = await secretOf(e.id);
    expect((await api(`/webhooks/endpoints/${e.id}/secret/rotate`, { method: "POST", body: {} })).status).toBe(204);
    const current = await secretOf(e.id);
    expect(current).not.toBe(old);
    await api(`/webhooks/endpoints/${e.id}/test`, { method: "POST", body: {} });
    await waitFor("the message", () => receiver.received.length === 1);
    const got = receiver.received[0];
    expect(String(got?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [old, current])
      expect(() =>
        new StandardWebhook(secret).verify(got?.body as string, got?.headers as Record<string, string>),
      ).not.toThrow();
  });
});

describe("retention", () => {
  it("the hourly job deletes messages past WEARABLES_WEBHOOK_RETENTION_DAYS with their deliveries and attempts", async () => {
    const e = await createEndpoint({ url: receiver.url });
    const recent = (await api(`/webhooks/endpoints/${e.id}/test`, { method: "POST", body: {} })).body.message_id;
    await waitFor("the recent message's attempt", () => receiver.received.length === 1);
    const [old] = await s.database.db.query<{ key: string }>(
      `INSERT INTO wearables.webhook_messages (id, event_type, event_id, payload, created_at)
       VALUES ('msg_old', 'workout.created', 'retention-test', '{}', now() - interval '40 days') RETURNING key::text`,
    );
    await s.database.db.query(
      "INSERT INTO wearables.webhook_deliveries (endpoint_id, message_key, status) VALUES ($1, $2, 'failed')",
      [e.id, old?.key],
    );
    await enqueueJob(s.database.db, WEBHOOK_PRUNE_QUEUE, {});
    worker.wake();
    const ids = async () =>
      (await s.database.db.query<{ id: string }>("SELECT id FROM wearables.webhook_messages")).map((r) => r.id);
    await waitFor("the old message deleted", async () => !(await ids()).includes("msg_old"));
    expect(await ids()).toContain(recent);
    const left = await s.database.db.query("SELECT 1 FROM wearables.webhook_deliveries WHERE message_key = $1", [
      old?.key,
    ]);
    expect(left).toHaveLength(0);
  });
});

describe("events from the data", () => {
  it("a workout and samples written through the eventing writer arrive, per user and type filter, once", async () => {
    await createEndpoint({
      url: receiver.url,
      user_id: userId,
      filter_types: ["workout.created", "heart_rate.created"],
    });
    await createEndpoint({ url: other.url, filter_types: ["series.heart_rate.created"] });
    const writer = withWebhookEvents(createHealthDataWriter(), module.outbox);
    const T0 = Date.UTC(2026, 4, 1, 6);
    const samples = Array.from({ length: 3000 }, (_, i) => ({
      seriesType: 1,
      recordedAt: T0 + i * 1000,
      value: 60 + (i % 40),
    }));
    const write = () =>
      s.database.db.transaction(async (tx) => {
        const source = await writer.ensureDataSource(tx, userId, { provider: "garmin", deviceModel: "Forerunner 255" });
        await writer.writeWorkout(tx, userId, source, {
          start: T0,
          end: T0 + 3_000_000,
          type: "running",
          zoneOffset: "+02:00",
          details: { distance: 10_000, energyBurned: 700, heartRateAvg: 151.4 },
        });
        await writer.writeSamples(tx, source, samples);
      });
    await write();
    // The user's endpoint: the workout and 2 chunks of the heart rate group; the other: 2 granular chunks.
    await waitFor("the user's events", () => receiver.received.length === 3);
    await waitFor("the granular events", () => other.received.length === 2);
    const types = receiver.received.map((r) => JSON.parse(r.body).type).sort();
    expect(types).toEqual(["heart_rate.created", "heart_rate.created", "workout.created"]);
    const workout = JSON.parse(receiver.received.find((r) => r.body.includes("workout.created"))?.body as string);
    expect(workout.data).toMatchObject({
      user_id: userId,
      type: "running",
      duration_seconds: 3000,
      distance_meters: 10_000,
      avg_heart_rate_bpm: 151,
      avg_pace_sec_per_km: 300,
      source: { provider: "garmin", device: "Forerunner 255" },
    });
    const chunks = other.received.map((r) => JSON.parse(r.body).data).sort((a, b) => a.chunk_index - b.chunk_index);
    expect(chunks.map((c) => [c.chunk_index, c.total_chunks, c.samples.length, c.sample_count])).toEqual([
      [0, 2, 2500, 3000],
      [1, 2, 500, 3000],
    ]);
    expect(chunks[0].samples[0]).toEqual({
      timestamp: new Date(T0).toISOString(),
      zone_offset: null,
      type: "heart_rate",
      value: 60,
      unit: "bpm",
      is_daily_total: null,
    });
    // The same data again: nothing new.
    await write();
    const messages = (await api("/webhooks/messages?limit=250")).body.data.length;
    await write();
    expect((await api("/webhooks/messages?limit=250")).body.data.length).toBe(messages);
  });

  it("writes nothing when no endpoint wants the user's events", async () => {
    const before = (await api("/webhooks/messages?limit=250")).body.data.length;
    const writer = withWebhookEvents(createHealthDataWriter(), module.outbox);
    await s.database.db.transaction(async (tx) => {
      const source = await writer.ensureDataSource(tx, userId, { provider: "polar" });
      await writer.writeSamples(tx, source, [{ seriesType: 1, recordedAt: Date.UTC(2026, 0, 1), value: 70 }]);
    });
    expect((await api("/webhooks/messages?limit=250")).body.data.length).toBe(before);
  });
});
