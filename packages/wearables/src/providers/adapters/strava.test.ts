/**
 * The Strava adapter against its stand-in (testing/standins/strava.ts), through the OAuth flow and client the sync
 * uses, and its webhook events through a local receiver.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StravaStandIn, startStravaStandIn } from "../../testing/standins/strava.ts";
import { connectToStandIn, rawWorkoutsQuery } from "../../testing/vendorHarness.ts";
import { type PushRequest, VendorAuthError } from "../types.ts";
import { strava } from "./strava.ts";

const credentials = { clientId: "strava-client", clientSecret: "strava-secret" };
const secrets = { clientSecret: credentials.clientSecret, pushSecret: "strava-verify-token" };
// About 180 days: some 140 activities, two pages of 100.
const window = { start: Date.parse("2026-01-01T00:00:00Z"), end: Date.parse("2026-07-01T00:00:00Z") };
let cloud: StravaStandIn;
let receiver: Server;
let receiverUrl: string;
const received: PushRequest[] = [];

beforeAll(async () => {
  cloud = await startStravaStandIn({ clients: { [credentials.clientId]: credentials.clientSecret } });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      received.push({
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v])),
        query: Object.fromEntries(url.searchParams),
        rawBody: Buffer.concat(chunks),
        contentType: req.headers["content-type"],
      });
      res.end("{}");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/api/v1/providers/strava/webhooks`;
});
afterAll(async () => {
  await cloud.close();
  await new Promise((r) => receiver.close(r));
});

describe("strava adapter", () => {
  it("connects with body client authentication and no PKCE; the athlete id comes with the tokens", async () => {
    const url = new URL(strava.oauth.authorizeUrl);
    expect(url.origin).toBe("https://www.strava.com");
    expect(strava.oauth.scope).toBe("activity:read_all,profile:read_all");
    const h = await connectToStandIn({ adapter: strava, origin: cloud.origin, credentials, login: "134815" });
    expect(h.tokens.providerUserId).toBe("134815");
    expect(h.tokens.providerUsername).toBe("athlete134815");
    expect(h.tokens.refreshToken).toBeTruthy();
    // expires_at (epoch s) is used as is: about six hours ahead.
    expect(h.tokens.expiresAt).toBeGreaterThan(Date.now() + 5 * 3_600_000);
    expect(cloud.hits.get("/api/v3/athlete") ?? 0).toBe(0);
  });

  it("maps activities page by page, value by value", async () => {
    const h = await connectToStandIn({ adapter: strava, origin: cloud.origin, credentials, login: "134815" });
    const pages = await h.fetchAll("workouts", window);
    expect(pages.length).toBe(2);
    expect(pages[0]?.fetched).toBe(100);
    const workouts = pages.flatMap((p) => p.records.workouts);
    expect(workouts.length).toBe(pages.reduce((n, p) => n + p.fetched, 0));
    expect(new Set(workouts.map((w) => w.externalId)).size).toBe(workouts.length);
    for (const w of workouts) {
      expect(w.start).toBeGreaterThanOrEqual(window.start);
      expect(w.start).toBeLessThan(window.end);
    }
    expect(new Set(workouts.map((w) => w.type))).toEqual(
      new Set(["running", "cycling", "walking", "strength_training"]),
    );

    const ride = workouts.find((w) => w.type === "cycling");
    expect(ride).toBeDefined();
    if (!ride) return;
    expect(ride.end - ride.start).toBe(75 * 60_000); // elapsed_time
    expect(ride.zoneOffset).toBe("-05:00"); // utc_offset -18000 s
    expect(ride.externalId).toMatch(/^9\d{9}$/);
    expect(ride.details).toEqual({
      energyBurned: 766.08, // kilojoules, ≈ kcal
      distance: 31080, // m
      heartRateAvg: 138,
      heartRateMax: 162,
      averageSpeed: 7.4,
      maxSpeed: 10.73,
      totalElevationGain: 412.3,
      elevHigh: 148.6,
      elevLow: 21.2,
      averageCadence: 88.2,
      averageWatts: 182.4,
      maxWatts: 611,
      movingTimeSeconds: 4200,
    });
    const walk = workouts.find((w) => w.type === "walking");
    expect(walk?.details.heartRateAvg).toBeNull(); // has_heartrate false
    expect(walk?.details.distance).toBe(Math.round(1.4 * 1740 * 10) / 10);
  });

  it("passes the raw activity list through", async () => {
    const h = await connectToStandIn({ adapter: strava, origin: cloud.origin, credentials, login: "134815" });
    const raw = (await strava.listRawWorkouts?.(
      h.client,
      h.urls,
      rawWorkoutsQuery({
        since: window.start / 1000,
        limit: 5,
        offset: 5,
      }),
    )) as { id: number; sport_type: string }[];
    expect(raw).toHaveLength(5);
    expect(typeof raw[0]?.id).toBe("number");
    expect(raw[0]?.sport_type).toBeTruthy();
  });

  it("answers the exact slice for an offset inside a page, and takes the sync's limit as per_page", async () => {
    const h = await connectToStandIn({ adapter: strava, origin: cloud.origin, credentials, login: "134815" });
    const q = (limit: number, offset: number) =>
      strava.listRawWorkouts?.(
        h.client,
        h.urls,
        rawWorkoutsQuery({ since: window.start / 1000, limit, offset }),
      ) as Promise<{ id: number }[]>;
    const all = await q(20, 0);
    expect((await q(4, 6)).map((a) => a.id)).toEqual(all.slice(6, 10).map((a) => a.id));
    const before = cloud.seen("/api/v3/athlete/activities").length;
    const pages = await h.fetchAll("workouts", window, { limit: 7 });
    const asked = cloud.seen("/api/v3/athlete/activities").slice(before);
    expect(asked.length).toBe(pages.length);
    expect(asked.length).toBeGreaterThan(1);
    expect(asked.every((a) => a.per_page === "7")).toBe(true);
    expect(pages.flatMap((p) => p.records.workouts).length).toBe(
      (await h.fetchAll("workouts", window)).flatMap((p) => p.records.workouts).length,
    );
  });

  it("answers 400 on a bad per_page as Strava does", async () => {
    const h = await connectToStandIn({ adapter: strava, origin: cloud.origin, credentials });
    await expect(h.client.getJson(`${h.urls.apiBase}/athlete/activities`, { per_page: 500 })).rejects.toMatchObject({
      status: 400,
    });
  });

  it("retries a 429 after Retry-After and refreshes an expired token, rotating the refresh token", async () => {
    const h = await connectToStandIn({ adapter: strava, origin: cloud.origin, credentials, login: "77" });
    const firstRefresh = h.tokens.refreshToken;
    cloud.expireAccessTokens();
    cloud.throttle(2, 1);
    const pages = await h.fetchAll("workouts", { start: window.start, end: window.start + 20 * 86_400_000 });
    expect(pages.flatMap((p) => p.records.workouts).length).toBeGreaterThan(5);
    expect(h.refreshes).toBe(1);
    expect(h.tokens.refreshToken).not.toBe(firstRefresh);
    expect(h.tokens.providerUserId).toBe("77");
  });

  it("answers VendorAuthError when the athlete revoked access", async () => {
    const h = await connectToStandIn({ adapter: strava, origin: cloud.origin, credentials, login: "4242" });
    cloud.revokeUser("4242");
    await expect(h.fetchAll("workouts", window)).rejects.toBeInstanceOf(VendorAuthError);
  });

  describe("webhooks", () => {
    const push = strava.push;
    if (!push) throw new Error("strava pushes");
    const activityEvent = {
      aspect_type: "create",
      event_time: Math.floor(Date.parse("2026-05-02T13:00:00Z") / 1000),
      object_id: 9_020_000_001,
      object_type: "activity",
      owner_id: 134815,
      subscription_id: 120475,
      updates: {},
    };
    const deliver = async (url: string, event: object, signature?: { clientSecret: string; timestampSec?: number }) => {
      received.length = 0;
      const res = await cloud.push(url, event as Record<string, unknown>, signature);
      expect(res.status).toBe(200);
      const req = received[0];
      if (!req) throw new Error("nothing received");
      return req;
    };

    it("answers the subscription challenge with the verify token", () => {
      const q = {
        "hub.mode": "subscribe",
        "hub.challenge": "15f7d1a91c1f40f8a748fd134752feb3",
        "hub.verify_token": secrets.pushSecret,
      };
      expect(push.challenge?.(q, secrets)).toEqual({
        status: 200,
        body: { "hub.challenge": "15f7d1a91c1f40f8a748fd134752feb3" },
      });
      expect(push.challenge?.({ ...q, "hub.verify_token": "nope" }, secrets)?.status).toBe(403);
      expect(push.challenge?.({}, secrets)).toBeUndefined();
    });

    it("verifies an event on the tokened callback URL and parses it into a pull", async () => {
      const req = await deliver(`${receiverUrl}?token=${secrets.pushSecret}`, activityEvent);
      expect(push.verify(req, secrets, Date.now())).toBe(true);
      expect(push.parse(req)).toEqual([
        {
          providerUserId: "134815",
          pull: {
            kinds: ["workouts"],
            window: {
              start: activityEvent.event_time * 1000 - 7 * 86_400_000,
              end: activityEvent.event_time * 1000 + 86_400_000,
            },
          },
        },
      ]);
    });

    it("refuses an event without the token, or with a wrong one", async () => {
      expect(push.verify(await deliver(receiverUrl, activityEvent), secrets, Date.now())).toBe(false);
      expect(push.verify(await deliver(`${receiverUrl}?token=guess`, activityEvent), secrets, Date.now())).toBe(false);
    });

    it("checks an X-Strava-Signature when present: HMAC and timestamp", async () => {
      const now = Date.now();
      const signed = await deliver(receiverUrl, activityEvent, { clientSecret: secrets.clientSecret });
      expect(push.verify(signed, secrets, now)).toBe(true);
      const wrong = await deliver(`${receiverUrl}?token=${secrets.pushSecret}`, activityEvent, {
        clientSecret: "other",
      });
      expect(push.verify(wrong, secrets, now)).toBe(false);
      const stale = await deliver(receiverUrl, activityEvent, {
        clientSecret: secrets.clientSecret,
        timestampSec: Math.floor(now / 1000) - 301,
      });
      expect(push.verify(stale, secrets, now)).toBe(false);
    });

    it("parses a deauthorization, and ignores a deleted activity", async () => {
      const deauth = await deliver(`${receiverUrl}?token=${secrets.pushSecret}`, {
        ...activityEvent,
        aspect_type: "update",
        object_type: "athlete",
        object_id: 134815,
        updates: { authorized: "false" },
      });
      expect(push.parse(deauth)).toEqual([{ providerUserId: "134815", deauthorized: true }]);
      const deleted = await deliver(`${receiverUrl}?token=${secrets.pushSecret}`, {
        ...activityEvent,
        aspect_type: "delete",
      });
      expect(push.parse(deleted)).toEqual([]);
      expect(() => push.parse({ ...deleted, rawBody: Buffer.from("{}") })).toThrow();
    });
  });
});
