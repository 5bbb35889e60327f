/**
 * Wearables provider connections and sync as a user meets them on the real `platform start` (SERVICES=wearables,
 * ephemeral ports): the sandbox vendor connected in a real browser (Debian's chromium through playwright-core;
 * `CHROMIUM_PATH` overrides /usr/bin/chromium), its historical sync run followed to completion, its data through
 * the API and its status events on the live stream; then two vendor stand-ins (Strava and Oura) configured into
 * the platform with WEARABLES_VENDOR_ORIGINS and WEARABLES_VENDOR_CLIENTS, each connected and backfilled, a
 * Strava push notification answered and synced (a wrongly signed one refused), and a vendor's data deleted.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type OuraStandIn, startOuraStandIn } from "../packages/wearables/src/testing/standins/oura.ts";
import { type StravaStandIn, startStravaStandIn } from "../packages/wearables/src/testing/standins/strava.ts";
import { allowOnStandIn } from "../packages/wearables/src/testing/vendorHarness.ts";
import {
  createPlatformEnv,
  EPHEMERAL_PORTS,
  hostOrigin,
  type PlatformProcess,
  startPlatformProcess,
} from "./support/platformProcess.ts";

const STRAVA = { clientId: "e2e-strava", clientSecret: "strava-client-secret", pushSecret: "strava-verify-token" };
const OURA = { clientId: "e2e-oura", clientSecret: "oura-client-secret" };
const STRAVA_ATHLETE = "134815";
const DAYS = 7;
const DAY_MS = 86_400_000;

let platform: PlatformProcess | undefined;
let removeEnv: (() => Promise<void>) | undefined;
let strava: StravaStandIn | undefined;
let oura: OuraStandIn | undefined;
let browser: Browser | undefined;
/** The test's own page, where the browser lands after consent. */
let landing: Server | undefined;
let landingOrigin: string;
const landed: URL[] = [];
let base: string;
let key: string;

beforeAll(async () => {
  landing = createServer((request, response) => {
    const url = new URL(request.url ?? "/", landingOrigin);
    if (url.pathname !== "/favicon.ico") landed.push(url);
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<!doctype html><title>Connected</title><p>Back in the app</p>");
  });
  await new Promise<void>((resolve) => landing?.listen(0, "127.0.0.1", resolve));
  landingOrigin = `http://127.0.0.1:${(landing.address() as AddressInfo).port}`;

  strava = await startStravaStandIn({ clients: { [STRAVA.clientId]: STRAVA.clientSecret } });
  oura = await startOuraStandIn({ clients: { [OURA.clientId]: OURA.clientSecret } });
  const made = await createPlatformEnv("providers", {
    SERVICES: "wearables",
    ...EPHEMERAL_PORTS,
    DEVNET: "false",
    LOG_LEVEL: "warn",
    WEARABLES_HISTORICAL_DAYS_ON_CONNECT: String(DAYS),
    WEARABLES_SYNC_INTERVAL_SEC: "0",
    WEARABLES_VENDOR_ORIGINS: `strava=${strava.origin},oura=${oura.origin}`,
    WEARABLES_VENDOR_CLIENTS: `strava=${STRAVA.clientId}:${STRAVA.clientSecret},oura=${OURA.clientId}:${OURA.clientSecret}`,
    WEARABLES_VENDOR_PUSH_SECRETS: `strava=${STRAVA.pushSecret}`,
  });
  removeEnv = made.remove;
  platform = await startPlatformProcess(made.env);
  base = platform.baseUrls.wearables as string;
  key = platform.demoKeys.wearables as string;
  expect(key).toBeTruthy();
});
afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await removeEnv?.();
  await strava?.close();
  await oura?.close();
  await new Promise((resolve) => (landing ? landing.close(resolve) : resolve(undefined)));
});

// biome-ignore lint/suspicious/noExplicitAny: test bodies are checked field by field
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "X-Service-API-Key": key, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    redirect: "manual",
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function createUser(email: string): Promise<string> {
  const created = await api("POST", "/users", { email });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

interface Run {
  provider: string;
  source: string;
  stage: string;
  status: string;
  items_processed: number;
}

/** Polls the user's sync runs until `done` holds of them (or the deadline passes). */
async function waitForRuns(userId: string, done: (runs: Run[]) => boolean, timeout = 30_000): Promise<Run[]> {
  let runs: Run[] = [];
  await vi.waitFor(
    async () => {
      runs = (await api("GET", `/users/${userId}/sync/runs`)).body as Run[];
      if (runs.some((r) => r.status === "failed")) throw new Error(`a run failed: ${JSON.stringify(runs)}`);
      expect(done(runs), JSON.stringify(runs)).toBe(true);
    },
    { timeout, interval: 250 },
  );
  return runs;
}

const completed = (r: Run, provider: string, source: string) =>
  r.provider === provider && r.source === source && r.stage === "completed" && r.status === "success";

const span = () => ({
  start: new Date(Date.now() - (DAYS + 1) * DAY_MS).toISOString(),
  end: new Date(Date.now() + DAY_MS).toISOString(),
});

async function eventsOf(userId: string, kind: "workouts" | "sleep", provider?: string) {
  const { start, end } = span();
  const q = new URLSearchParams({ start_date: start, end_date: end, ...(provider ? { provider } : {}) });
  const res = await api("GET", `/users/${userId}/events/${kind}?${q}`);
  expect(res.status).toBe(200);
  return res.body.data as { id: string }[];
}

async function heartRateOf(userId: string) {
  const { start, end } = span();
  const res = await api("GET", `/users/${userId}/timeseries?start_time=${start}&end_time=${end}&types=heart_rate`);
  expect(res.status).toBe(200);
  return res.body.data as unknown[];
}

async function providersOfSources(userId: string): Promise<string[]> {
  const res = await api("GET", `/users/${userId}/data-sources`);
  expect(res.status).toBe(200);
  return [...new Set((res.body.items as { provider: string }[]).map((s) => s.provider))].sort();
}

/** Connects `userId` to a stand-in: authorize, Allow on its consent form, then the callback as the browser follows it. */
async function connectToStandIn(provider: string, userId: string, login: string) {
  const authorize = await api("GET", `/oauth/${provider}/authorize?user_id=${userId}`);
  expect(authorize.status).toBe(200);
  const back = await allowOnStandIn(authorize.body.authorization_url, login);
  expect(back.get("state")).toBe(authorize.body.state);
  const callback = new URL(`${base}/oauth/${provider}/callback`);
  for (const [k, v] of back) callback.searchParams.set(k, v);
  const answer = await fetch(callback, { redirect: "manual" });
  expect(answer.status).toBe(303);
  const success = new URL(answer.headers.get("location") as string, base);
  expect(success.pathname).toMatch(/\/oauth\/success$/);
  expect(await (await fetch(success)).json()).toMatchObject({ success: true, provider, user_id: userId });
}

describe("wearables providers on the started platform", { timeout: 60_000 }, () => {
  it("lists the sandbox and the two configured vendors as enabled", async () => {
    const res = await api("GET", "/oauth/providers?enabled_only=true&cloud_only=true");
    expect(res.status).toBe(200);
    expect(res.body.map((p: { provider: string }) => p.provider).sort()).toEqual(["oura", "sandbox", "strava"]);
  });

  it("connects the sandbox in a real browser; the historical sync completes, its data and events arrive", async () => {
    const userId = await createUser("sandbox-e2e@example.com");
    const redirectUri = `${landingOrigin}/connected?app=e2e`;
    const authorize = await api(
      "GET",
      `/oauth/sandbox/authorize?${new URLSearchParams({ user_id: userId, redirect_uri: redirectUri })}`,
    );
    expect(authorize.status).toBe(200);
    const sandboxOrigin = hostOrigin(platform as PlatformProcess, "wearables", "sandbox");
    expect(new URL(authorize.body.authorization_url).origin).toBe(sandboxOrigin);

    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox"],
    });
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    const redirects: { url: string; status: number }[] = [];
    page.on("response", (r) => {
      if (r.status() >= 300 && r.status() < 400) redirects.push({ url: r.url(), status: r.status() });
    });
    await page.goto(authorize.body.authorization_url);
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((u) => u.origin === landingOrigin);
    expect(await page.textContent("p")).toBe("Back in the app");
    await page.close();
    // The consent answered 302 to the platform's callback, which answered 303 to the app's page.
    expect(redirects).toEqual([
      { url: expect.stringContaining(`${sandboxOrigin}/oauth/authorize`), status: 302 },
      { url: expect.stringContaining(`${base}/oauth/sandbox/callback?`), status: 303 },
    ]);
    expect(landed.map((u) => `${u.pathname}${u.search}`)).toEqual(["/connected?app=e2e"]);

    const connections = await api("GET", `/users/${userId}/connections`);
    expect(connections.body).toMatchObject([{ provider: "sandbox", status: "active" }]);
    const runs = await waitForRuns(userId, (rs) => rs.some((r) => completed(r, "sandbox", "backfill")));
    expect(runs.find((r) => r.source === "backfill")?.items_processed).toBeGreaterThan(0);

    expect((await eventsOf(userId, "workouts", "sandbox")).length).toBeGreaterThan(0);
    expect((await eventsOf(userId, "sleep")).length).toBeGreaterThan(0);
    expect((await heartRateOf(userId)).length).toBeGreaterThan(0);
    const user = await api("GET", `/users/${userId}`);
    expect(user.body).toMatchObject({ last_synced_provider: "sandbox", has_active_connection: true });
    expect(await providersOfSources(userId)).toEqual(["sandbox"]);

    // The live stream replays the run's status events, then stays open until the client leaves.
    const abort = new AbortController();
    const stream = await fetch(`${base}/users/${userId}/sync/stream?replay=5`, {
      headers: { "X-Service-API-Key": key },
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const events = () => text.split("\n\n").filter((block) => block.includes("event: sync"));
    while (events().length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    abort.abort();
    await reader.cancel().catch(() => {});
    const parsed = events().map((block) => {
      const data = block.split("\n").find((l) => l.startsWith("data: "));
      return JSON.parse((data as string).slice("data: ".length)) as { provider: string; stage: string };
    });
    expect(parsed.length).toBeGreaterThanOrEqual(3);
    expect(parsed.every((e) => e.provider === "sandbox")).toBe(true);
    expect(parsed.map((e) => e.stage)).toContain("completed");
  });

  it("connects to the Strava and Oura stand-ins; backfills, a Strava push, and deleting a vendor's data", async () => {
    const userId = await createUser("vendors-e2e@example.com");
    await connectToStandIn("strava", userId, STRAVA_ATHLETE);
    await connectToStandIn("oura", userId, "oura-user-7");
    const connections = await api("GET", `/users/${userId}/connections`);
    expect(connections.body.map((c: { provider: string }) => c.provider).sort()).toEqual(["oura", "strava"]);
    const backfills = await waitForRuns(
      userId,
      (rs) => rs.some((r) => completed(r, "strava", "backfill")) && rs.some((r) => completed(r, "oura", "backfill")),
    );

    const stravaWorkouts = (await eventsOf(userId, "workouts", "strava")).length;
    expect(stravaWorkouts).toBeGreaterThan(0);
    expect((await eventsOf(userId, "workouts", "oura")).length).toBeGreaterThan(0);
    expect((await eventsOf(userId, "sleep", "oura")).length).toBeGreaterThan(0);
    expect((await heartRateOf(userId)).length).toBeGreaterThan(0);
    expect(await providersOfSources(userId)).toEqual(["oura", "strava"]);

    expect(backfills.filter((r) => r.source === "webhook")).toEqual([]);

    // Strava notifies a new activity: accepted at once, then pulled by a run of source `webhook`.
    const webhooks = `${base}/providers/strava/webhooks`;
    const event = {
      object_type: "activity",
      object_id: 9_999_000_001,
      aspect_type: "create",
      owner_id: Number(STRAVA_ATHLETE),
      subscription_id: 120_475,
      event_time: Math.floor(Date.now() / 1000),
      updates: {},
    };
    const forged = await (strava as StravaStandIn).push(webhooks, event, { clientSecret: "not-the-client-secret" });
    expect(forged.status).toBe(401);
    const unsigned = await (strava as StravaStandIn).push(`${webhooks}?token=a-guess`, event);
    expect(unsigned.status).toBe(401);
    const pushed = await (strava as StravaStandIn).push(`${webhooks}?token=${STRAVA.pushSecret}`, event, {
      clientSecret: STRAVA.clientSecret,
    });
    expect(pushed.status).toBe(200);
    expect(await pushed.json()).toMatchObject({ status: "accepted", notices: 1, runs_queued: 1 });
    await waitForRuns(userId, (rs) => rs.some((r) => completed(r, "strava", "webhook")));
    // The pull re-read the week the backfill had written: the same workouts, not twice.
    expect((await eventsOf(userId, "workouts", "strava")).length).toBe(stravaWorkouts);

    // Deleting Strava's data leaves Oura's.
    expect((await api("DELETE", `/users/${userId}/connections/strava/data`)).status).toBe(204);
    expect(await providersOfSources(userId)).toEqual(["oura"]);
    expect(await eventsOf(userId, "workouts", "strava")).toEqual([]);
    expect((await eventsOf(userId, "workouts", "oura")).length).toBeGreaterThan(0);
    const left = await api("GET", `/users/${userId}/connections`);
    expect(left.body.map((c: { provider: string }) => c.provider)).toEqual(["oura"]);
  });
});
