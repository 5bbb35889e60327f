/**
 * Outgoing wearables webhooks on the real `platform start` (SERVICES=wearables, ephemeral ports, receivers on
 * 127.0.0.1 let through WEARABLES_WEBHOOK_ALLOWED_NETWORKS): two endpoints registered over the API, one for
 * every event on a receiver that answers 500 to each message's first attempt, one filtered to
 * `workout.created`; a GPX workout imported through the upload route; the events arrive signed (verified by
 * the receivers' own libraries, `standardwebhooks` and `svix`), the failing endpoint gets each message again
 * with the same `webhook-id` after Svix's first retry delay (5 s ± 20 %), and the attempts route lists the
 * failed attempt and then the successful one.
 */
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeGpxFile } from "../packages/wearables/src/testing/gpxFile.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../packages/wearables/src/testing/webhookReceiver.ts";
import { makeWorkoutFixture } from "../packages/wearables/src/testing/workoutFixture.ts";
import {
  createPlatformEnv,
  EPHEMERAL_PORTS,
  type PlatformProcess,
  startPlatformProcess,
} from "./support/platformProcess.ts";

/** Svix's first retry delay and its jitter (retrySchedule.ts). */
const FIRST_RETRY_MS = 5_000;
const JITTER = 0.2;

let platform: PlatformProcess | undefined;
let removeEnv: (() => Promise<void>) | undefined;
let flaky: WebhookReceiver;
let steady: WebhookReceiver;
let base: string;
let key: string;

beforeAll(async () => {
  flaky = await startWebhookReceiver("/flaky");
  steady = await startWebhookReceiver("/steady");
  // The flaky receiver fails the first attempt of each message and takes the retry.
  const seen = new Set<string>();
  flaky.respond((r) => {
    const id = String(r.headers["webhook-id"]);
    if (seen.has(id)) return { status: 200 };
    seen.add(id);
    return { status: 500, body: "not yet" };
  });
  const made = await createPlatformEnv("webhooks", {
    SERVICES: "wearables",
    ...EPHEMERAL_PORTS,
    DEVNET: "false",
    LOG_LEVEL: "warn",
    WEARABLES_SYNC_INTERVAL_SEC: "0",
    WEARABLES_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
  });
  removeEnv = made.remove;
  platform = await startPlatformProcess(made.env);
  base = platform.baseUrls.wearables as string;
  key = platform.demoKeys.wearables as string;
  expect(key).toBeTruthy();
});
afterAll(async () => {
  await platform?.stop();
  await removeEnv?.();
  await flaky?.close();
  await steady?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: test bodies are checked field by field
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "X-Service-API-Key": key, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

interface Event {
  id: string;
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: checked field by field
  data: any;
  at: number;
}

/** Every delivery `receiver` got, verified as Standard Webhooks and as Svix with the endpoint's secret. */
function verified(receiver: WebhookReceiver, secret: string): Event[] {
  const standard = new StandardWebhook(secret);
  const svix = new SvixWebhook(secret);
  return receiver.received.map((r) => {
    const h = (name: string) => String(r.headers[name]);
    const payload = standard.verify(r.body, {
      "webhook-id": h("webhook-id"),
      "webhook-timestamp": h("webhook-timestamp"),
      "webhook-signature": h("webhook-signature"),
    }) as { type: string; data: unknown };
    const viaSvix = svix.verify(r.body, {
      "svix-id": h("svix-id"),
      "svix-timestamp": h("svix-timestamp"),
      "svix-signature": h("svix-signature"),
    });
    expect(viaSvix).toEqual(payload);
    expect(h("svix-id")).toBe(h("webhook-id"));
    return { id: h("webhook-id"), type: payload.type, data: payload.data, at: r.at };
  });
}

describe("wearables webhooks on the started platform", { timeout: 60_000 }, () => {
  it("delivers an import's events signed, retries a failing receiver on Svix's schedule, and lists the attempts", async () => {
    const all = await api("POST", "/webhooks/endpoints", { url: flaky.url, description: "everything" });
    expect(all.status, JSON.stringify(all.body)).toBe(201);
    const workouts = await api("POST", "/webhooks/endpoints", {
      url: steady.url,
      filter_types: ["workout.created"],
    });
    expect(workouts.status, JSON.stringify(workouts.body)).toBe(201);
    const secretOf = async (id: string) => (await api("GET", `/webhooks/endpoints/${id}/secret`)).body.key as string;

    const user = await api("POST", "/users", { email: "webhooks-e2e@example.com" });
    expect(user.status).toBe(201);
    const userId = user.body.id as string;
    const start = Date.now() - 3_600_000;
    const form = new FormData();
    form.append(
      "file",
      new Blob([writeGpxFile(makeWorkoutFixture({ start, seconds: 300, withPower: true }))]),
      "run.gpx",
    );
    const uploaded = await fetch(`${base}/users/${userId}/import/gpx`, {
      method: "POST",
      headers: { "X-Service-API-Key": key },
      body: form,
    });
    expect(uploaded.status).toBe(200);
    const taskId = ((await uploaded.json()) as { task_id: string }).task_id;
    await vi.waitFor(
      async () => {
        const status = (await api("GET", `/users/${userId}/imports/${taskId}`)).body;
        expect(status.state, JSON.stringify(status)).toBe("completed");
      },
      { timeout: 20_000, interval: 100 },
    );

    // The filtered endpoint: the workout alone, at once.
    await vi.waitFor(() => expect(steady.received.length).toBe(1), { timeout: 10_000, interval: 50 });
    const [workout] = verified(steady, await secretOf(workouts.body.id));
    expect(workout).toMatchObject({
      type: "workout.created",
      data: { user_id: userId, start_time: new Date(start).toISOString(), source: { provider: expect.any(String) } },
    });

    // The flaky endpoint: every message twice, the retry 5 s ± 20 % after the failed attempt.
    const messages = (await api("GET", "/webhooks/messages?limit=250")).body.data as { id: string }[];
    expect(messages.length).toBeGreaterThan(2);
    await vi.waitFor(() => expect(flaky.received.length).toBe(2 * messages.length), {
      timeout: FIRST_RETRY_MS * (1 + JITTER) + 10_000,
      interval: 100,
    });
    const events = verified(flaky, await secretOf(all.body.id));
    const byId = new Map<string, Event[]>();
    for (const e of events) byId.set(e.id, [...(byId.get(e.id) ?? []), e]);
    expect([...byId.keys()].sort()).toEqual(messages.map((m) => m.id).sort());
    for (const [id, [first, second, ...more]] of byId) {
      expect(more, id).toEqual([]);
      const gap = (second as Event).at - (first as Event).at;
      expect(gap, `${id}: retried after ${gap} ms`).toBeGreaterThanOrEqual(FIRST_RETRY_MS * (1 - JITTER));
      // The delay counts from the attempt's record (after the 500), plus the worker's wake-up: a little slack.
      expect(gap, `${id}: retried after ${gap} ms`).toBeLessThanOrEqual(FIRST_RETRY_MS * (1 + JITTER) + 2_000);
      expect(second?.type).toBe(first?.type);
    }
    const types = new Set(events.map((e) => e.type));
    expect(types).toContain("workout.created");
    expect(types).toContain("heart_rate.created");
    expect(types).toContain("series.heart_rate.created");
    expect(events.find((e) => e.type === "workout.created")?.id).toBe(workout?.id);
    const heartRate = events.find((e) => e.type === "heart_rate.created");
    // 300 samples: one chunk, so no chunk_index/total_chunks.
    expect(heartRate?.data).toMatchObject({ user_id: userId, start_time: new Date(start).toISOString() });
    expect(heartRate?.data.samples).toHaveLength(300);
    expect(heartRate?.data.samples[0]).toMatchObject({ type: "heart_rate", unit: "bpm", value: expect.any(Number) });

    // The attempts route: per message, the failed attempt and then the successful one (newest first).
    await vi.waitFor(
      async () => {
        const attempts = (await api("GET", `/webhooks/endpoints/${all.body.id}/attempts?limit=250`)).body;
        expect(attempts.data).toHaveLength(2 * messages.length);
      },
      { timeout: 5_000, interval: 100 },
    );
    const attempts = (await api("GET", `/webhooks/endpoints/${all.body.id}/attempts?limit=250`)).body.data as {
      msgId: string;
      status: number;
      statusText: string;
      responseStatusCode: number;
      response: string;
      triggerType: number;
      timestamp: string;
    }[];
    for (const m of messages) {
      const mine = attempts
        .filter((a) => a.msgId === m.id)
        .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
      expect(mine.map((a) => [a.status, a.statusText, a.responseStatusCode, a.triggerType])).toEqual([
        [2, "fail", 500, 0],
        [0, "success", 200, 0],
      ]);
      expect(mine[0]?.response).toBe("not yet");
    }
    const steadyAttempts = (await api("GET", `/webhooks/endpoints/${workouts.body.id}/attempts`)).body.data;
    expect(steadyAttempts).toMatchObject([{ msgId: workout?.id, status: 0, responseStatusCode: 200 }]);
  });
});
