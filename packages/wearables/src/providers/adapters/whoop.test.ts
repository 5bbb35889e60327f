/**
 * The WHOOP adapter against its stand-in (testing/standins/whoop.ts), through the OAuth flow and client the sync
 * uses, and its webhooks through a local receiver.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import { startWhoopStandIn, type WhoopStandIn, whoopRecordsOf } from "../../testing/standins/whoop.ts";
import { connectToStandIn, rawWorkoutsQuery } from "../../testing/vendorHarness.ts";
import { type PushRequest, VendorAuthError } from "../types.ts";
import { mapWhoopWorkout, whoop } from "./whoop.ts";

const DAY = 86_400_000;
const credentials = { clientId: "whoop-client", clientSecret: "whoop-secret" };
const secrets = { clientSecret: credentials.clientSecret };
const window = { start: Date.parse("2026-04-01T00:00:00Z"), end: Date.parse("2026-05-11T00:00:00Z") };
const id = (code: string) => seriesTypeByCode(code)?.id;
const rawOf = (collection: string, member: string) => whoopRecordsOf(collection, member, window.start, window.end);
let cloud: WhoopStandIn;
let receiver: Server;
let receiverUrl: string;
const received: PushRequest[] = [];

beforeAll(async () => {
  cloud = await startWhoopStandIn({ clients: { [credentials.clientId]: credentials.clientSecret } });
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
  receiverUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/api/v1/providers/whoop/webhooks`;
});
afterAll(async () => {
  await cloud.close();
  await new Promise((r) => receiver.close(r));
});

describe("whoop adapter", () => {
  it("connects with body client authentication and reads the member from the basic profile", async () => {
    expect(whoop.oauth.scope.split(" ")).toContain("offline");
    const h = await connectToStandIn({ adapter: whoop, origin: cloud.origin, credentials, login: "10129" });
    expect(h.tokens.refreshToken).toBeTruthy();
    expect(h.tokens.providerUserId).toBe("10129");
    expect(cloud.hits.get("/developer/v2/user/profile/basic")).toBeGreaterThanOrEqual(1);
  });

  it("maps workouts page by page, value by value (kJ → kcal)", async () => {
    const h = await connectToStandIn({ adapter: whoop, origin: cloud.origin, credentials, login: "10129" });
    const pages = await h.fetchAll("workouts", window);
    expect(pages.length).toBe(2);
    expect(pages[0]?.fetched).toBe(25);
    const workouts = pages.flatMap((p) => p.records.workouts);
    const raw = rawOf("workout", "10129");
    expect(workouts.length).toBe(raw.length);
    expect(new Set(workouts.map((w) => w.externalId)).size).toBe(workouts.length);
    const run = workouts.find((w) => w.type === "running");
    const r = raw.find((x) => x.id === run?.externalId) as {
      start: string;
      end: string;
      score: {
        kilojoule: number;
        average_heart_rate: number;
        max_heart_rate: number;
        distance_meter: number;
        altitude_gain_meter: number;
      };
    };
    if (!run || !r) throw new Error("no run");
    expect(run.start).toBe(Date.parse(r.start));
    expect(run.end).toBe(Date.parse(r.end));
    expect(run.zoneOffset).toBe("-04:00");
    expect(run.details).toEqual({
      energyBurned: Math.round((r.score.kilojoule / 4.184) * 10) / 10,
      heartRateAvg: r.score.average_heart_rate,
      heartRateMax: r.score.max_heart_rate,
      distance: r.score.distance_meter,
      totalElevationGain: r.score.altitude_gain_meter,
    });
    // 1569 kJ is 375 kcal; an unscored workout has no score values.
    const scored = { ...(r as unknown as Parameters<typeof mapWhoopWorkout>[0]), score_state: "SCORED" as const };
    expect(mapWhoopWorkout({ ...scored, score: { ...r.score, strain: 8, kilojoule: 1569 } }).details.energyBurned).toBe(
      375,
    );
    expect(mapWhoopWorkout({ ...scored, score_state: "PENDING_SCORE" }).details.heartRateAvg).toBeNull();
    expect(new Set(workouts.map((w) => w.type))).toEqual(
      new Set(["running", "cycling", "strength_training", "cardio_training", "yoga", "walking"]),
    );
  });

  it("maps sleeps (stage totals, naps) and the night's breathing", async () => {
    const h = await connectToStandIn({ adapter: whoop, origin: cloud.origin, credentials, login: "10129" });
    const pages = await h.fetchAll("sleep", window);
    expect(pages.length).toBeGreaterThan(1);
    const sleeps = pages.flatMap((p) => p.records.sleeps);
    const nights = sleeps.filter((s) => !s.details.isNap);
    expect(nights.length).toBe(40);
    const night = nights[5];
    const r = rawOf("sleep", "10129").find((x) => x.id === night?.externalId) as {
      end: string;
      score: {
        respiratory_rate: number;
        sleep_efficiency_percentage: number;
        stage_summary: Record<string, number>;
      };
    };
    if (!night || !r) throw new Error("no night");
    const st = r.score.stage_summary;
    const min = (ms: number | undefined) => Math.round((ms ?? 0) / 60_000);
    expect(night.zoneOffset).toBe("-04:00");
    expect(night.details).toEqual({
      totalDurationMinutes: min(
        (st.total_light_sleep_time_milli ?? 0) +
          (st.total_slow_wave_sleep_time_milli ?? 0) +
          (st.total_rem_sleep_time_milli ?? 0),
      ),
      timeInBedMinutes: min(st.total_in_bed_time_milli),
      efficiencyScore: r.score.sleep_efficiency_percentage,
      deepMinutes: min(st.total_slow_wave_sleep_time_milli),
      lightMinutes: min(st.total_light_sleep_time_milli),
      remMinutes: min(st.total_rem_sleep_time_milli),
      awakeMinutes: min(st.total_awake_time_milli),
      isNap: false,
      stages: [],
    });
    expect((night.details.totalDurationMinutes ?? 0) + (night.details.awakeMinutes ?? 0)).toBe(
      night.details.timeInBedMinutes,
    );
    expect(sleeps.some((s) => s.details.isNap && s.details.timeInBedMinutes === 40)).toBe(true);
    const breathing = pages.flatMap((p) => p.records.samples).find((s) => s.recordedAt === Date.parse(r.end));
    expect(breathing).toMatchObject({
      seriesType: id("respiratory_rate"),
      value: r.score.respiratory_rate,
      zoneOffsetMinutes: -240,
    });
  });

  it("maps recoveries into resting HR, HRV RMSSD, SpO2 and skin temperature", async () => {
    const h = await connectToStandIn({ adapter: whoop, origin: cloud.origin, credentials, login: "10129" });
    const pages = await h.fetchAll("daily", window);
    expect(pages.length).toBe(2);
    const samples = pages.flatMap((p) => p.records.samples);
    const raw = rawOf("recovery", "10129");
    expect(samples.length).toBe(raw.length * 4);
    const r = raw[10] as { created_at: string; score: Record<string, number> };
    const at = Date.parse(r.created_at);
    const value = (code: string) => samples.find((s) => s.recordedAt === at && s.seriesType === id(code))?.value;
    expect(value("resting_heart_rate")).toBe(r.score.resting_heart_rate);
    expect(value("heart_rate_variability_rmssd")).toBe(r.score.hrv_rmssd_milli);
    expect(value("oxygen_saturation")).toBe(r.score.spo2_percentage);
    expect(value("skin_temperature")).toBe(r.score.skin_temp_celsius);
  });

  it("passes the raw workout list through, and answers 400 on a limit over 25", async () => {
    const h = await connectToStandIn({ adapter: whoop, origin: cloud.origin, credentials, login: "10129" });
    const raw = (await whoop.listRawWorkouts?.(
      h.client,
      h.urls,
      rawWorkoutsQuery({
        since: window.start / 1000,
        limit: 30,
        offset: 2,
      }),
    )) as {
      records: { id: string; sport_name: string }[];
    };
    expect(raw.records).toHaveLength(30);
    expect(raw.records[0]?.sport_name).toBeTruthy();
    await expect(h.client.getJson(`${h.urls.apiBase}/v2/activity/workout`, { limit: 50 })).rejects.toMatchObject({
      status: 400,
    });
  });

  it("retries a 429 after Retry-After and refreshes an expired token, rotating the refresh token", async () => {
    const h = await connectToStandIn({ adapter: whoop, origin: cloud.origin, credentials, login: "20230" });
    const before = h.tokens.refreshToken;
    cloud.expireAccessTokens();
    cloud.throttle(1, 1);
    const pages = await h.fetchAll("workouts", { start: window.start, end: window.start + 10 * DAY });
    expect(pages.flatMap((p) => p.records.workouts).length).toBeGreaterThan(3);
    expect(h.refreshes).toBe(1);
    expect(h.tokens.refreshToken).not.toBe(before);
  });

  it("answers VendorAuthError when the member revoked access", async () => {
    const h = await connectToStandIn({ adapter: whoop, origin: cloud.origin, credentials, login: "30340" });
    cloud.revokeUser("30340");
    await expect(h.fetchAll("daily", window)).rejects.toBeInstanceOf(VendorAuthError);
  });

  describe("webhooks", () => {
    const push = whoop.push;
    if (!push) throw new Error("whoop pushes");
    const notification = {
      user_id: 10129,
      id: "ecfc6a15-4661-442f-a9a4-f160dd7afae8",
      type: "workout.updated",
      trace_id: "d3709ee7-104e-4f70-a928-2932964b017b",
    };
    const deliver = async (body: object, sign: { clientSecret: string; timestampMs?: number }) => {
      received.length = 0;
      expect((await cloud.push(receiverUrl, body as Record<string, unknown>, sign)).status).toBe(200);
      const req = received[0];
      if (!req) throw new Error("nothing received");
      return req;
    };

    it("verifies a signed webhook and parses it into a pull", async () => {
      const req = await deliver(notification, { clientSecret: secrets.clientSecret });
      expect(push.verify(req, secrets, Date.now())).toBe(true);
      const before = Date.now();
      const [notice] = push.parse(req);
      expect(notice?.providerUserId).toBe("10129");
      expect(notice?.pull?.kinds).toEqual(["workouts"]);
      expect(notice?.pull?.window.start).toBeLessThanOrEqual(before - 3 * DAY + 1000);
      expect(notice?.pull?.window.end).toBeGreaterThan(before);
      const recovery = await deliver({ ...notification, type: "recovery.updated" }, secrets);
      expect(push.parse(recovery)[0]?.pull?.kinds).toEqual(["daily"]);
      const sleep = await deliver({ ...notification, type: "sleep.updated" }, secrets);
      expect(push.parse(sleep)[0]?.pull?.kinds).toEqual(["sleep"]);
      expect(push.parse(await deliver({ ...notification, type: "workout.deleted" }, secrets))).toEqual([]);
      expect(() => push.parse({ ...req, rawBody: Buffer.from("{}") })).toThrow();
    });

    it("refuses a wrong signature, a stale timestamp and missing headers", async () => {
      const now = Date.now();
      expect(push.verify(await deliver(notification, { clientSecret: "other" }), secrets, now)).toBe(false);
      expect(push.verify(await deliver(notification, { ...secrets, timestampMs: now - 301_000 }), secrets, now)).toBe(
        false,
      );
      const signed = await deliver(notification, secrets);
      expect(
        push.verify(
          { ...signed, headers: { ...signed.headers, "x-whoop-signature-timestamp": undefined } },
          secrets,
          now,
        ),
      ).toBe(false);
      expect(
        push.verify({ ...signed, rawBody: Buffer.from(JSON.stringify({ ...notification, user_id: 1 })) }, secrets, now),
      ).toBe(false);
      expect(push.challenge).toBeUndefined();
    });
  });
});
