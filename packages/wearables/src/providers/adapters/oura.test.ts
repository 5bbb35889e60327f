/**
 * The Oura adapter against its stand-in (testing/standins/oura.ts), through the OAuth flow and client the sync
 * uses, and its webhook notifications through a local receiver.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import { type OuraStandIn, ouraDocumentsOf, startOuraStandIn } from "../../testing/standins/oura.ts";
import { connectToStandIn, rawWorkoutsQuery } from "../../testing/vendorHarness.ts";
import { type PushRequest, VendorAuthError } from "../types.ts";
import { oura } from "./oura.ts";

const DAY = 86_400_000;
const credentials = { clientId: "oura-client", clientSecret: "oura-secret" };
const secrets = { clientSecret: credentials.clientSecret, pushSecret: "oura-verification-token" };
const window = { start: Date.parse("2026-03-01T00:00:00Z"), end: Date.parse("2026-03-15T00:00:00Z") };
const id = (code: string) => seriesTypeByCode(code)?.id;
let cloud: OuraStandIn;
let receiver: Server;
let receiverUrl: string;
const received: PushRequest[] = [];

beforeAll(async () => {
  cloud = await startOuraStandIn({ clients: { [credentials.clientId]: credentials.clientSecret } });
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
  receiverUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/api/v1/providers/oura/webhooks`;
});
afterAll(async () => {
  await cloud.close();
  await new Promise((r) => receiver.close(r));
});

describe("oura adapter", () => {
  it("connects with body client authentication and reads the user from personal_info", async () => {
    expect(oura.oauth.scope).toBe(
      "personal daily activity heartrate workout session spo2 ring_configuration heart_health",
    );
    const h = await connectToStandIn({ adapter: oura, origin: cloud.origin, credentials, login: "oura-user-7" });
    expect(h.tokens.refreshToken).toBeTruthy();
    expect(h.tokens.providerUserId).toBe("oura-user-7");
    expect(cloud.hits.get("/v2/usercollection/personal_info")).toBeGreaterThanOrEqual(1);
  });

  it("maps workouts page by page, value by value", async () => {
    const h = await connectToStandIn({ adapter: oura, origin: cloud.origin, credentials, login: "oura-user-7" });
    const pages = await h.fetchAll("workouts", window);
    expect(pages.length).toBeGreaterThan(1);
    const workouts = pages.flatMap((p) => p.records.workouts);
    expect(workouts.length).toBeGreaterThan(5);
    for (const w of workouts) expect(w.start >= window.start && w.start < window.end).toBe(true);
    const types = { running: 35, cycling: 60, walking: 45 } as const;
    for (const w of workouts) {
      const raw = ouraDocumentsOf("workout", "oura-user-7", 20_000, 20_600).find((d) => d.id === w.externalId);
      if (!raw) throw new Error(`no raw workout ${w.externalId}`);
      expect(w.type).toBe(raw.activity);
      expect(w.start).toBe(Date.parse(String(raw.start_datetime)));
      expect(w.end - w.start).toBe(types[raw.activity as keyof typeof types] * 60_000);
      expect(w.zoneOffset).toBe("+01:00");
      expect(w.details).toEqual({ energyBurned: raw.calories, distance: raw.distance });
    }
    const run = workouts.find((w) => w.type === "running");
    expect(run?.details).toEqual({ energyBurned: 402, distance: 6480 }); // kcal, m
  });

  it("maps sleep periods with their hypnogram, and the night's resting HR, HRV and breathing", async () => {
    const h = await connectToStandIn({ adapter: oura, origin: cloud.origin, credentials, login: "oura-user-7" });
    const pages = await h.fetchAll("sleep", window);
    expect(pages.length).toBeGreaterThan(1);
    const sleeps = pages.flatMap((p) => p.records.sleeps);
    const nights = sleeps.filter((s) => !s.details.isNap);
    expect(nights.length).toBe(14);
    const night = nights[3];
    if (!night) throw new Error("no night");
    const raw = ouraDocumentsOf("sleep", "oura-user-7", 20_000, 20_600).find((d) => d.id === night.externalId);
    if (!raw) throw new Error("no raw night");
    expect(night.start).toBe(Date.parse(String(raw.bedtime_start)));
    expect(night.end).toBe(Date.parse(String(raw.bedtime_end)));
    expect(night.zoneOffset).toBe("+01:00");
    expect(night.details.timeInBedMinutes).toBe(Number(raw.time_in_bed) / 60);
    expect(night.details.totalDurationMinutes).toBe(Math.round(Number(raw.total_sleep_duration) / 60));
    expect(night.details.deepMinutes).toBe(Math.round(Number(raw.deep_sleep_duration) / 60));
    expect(night.details.lightMinutes).toBe(Math.round(Number(raw.light_sleep_duration) / 60));
    expect(night.details.remMinutes).toBe(Math.round(Number(raw.rem_sleep_duration) / 60));
    expect(night.details.awakeMinutes).toBe(Math.round(Number(raw.awake_time) / 60));
    expect(night.details.efficiencyScore).toBe(raw.efficiency);
    // The hypnogram: contiguous intervals covering the whole period, 5 minutes a digit.
    const stages = night.details.stages;
    expect(stages[0]).toEqual({ stage: "awake", start: night.start, end: night.start + 10 * 60_000 });
    expect(stages[stages.length - 1]?.end).toBe(night.end);
    for (let i = 1; i < stages.length; i++) expect(stages[i]?.start).toBe(stages[i - 1]?.end);
    const deepMs = stages.filter((s) => s.stage === "deep").reduce((n, s) => n + s.end - s.start, 0);
    expect(deepMs).toBe(Number(raw.deep_sleep_duration) * 1000);
    const naps = sleeps.filter((s) => s.details.isNap);
    expect(naps.length).toBeGreaterThan(0);
    expect(naps[0]?.details.stages.map((s) => s.stage)).toEqual(["awake", "light"]);

    const samples = pages.flatMap((p) => p.records.samples).filter((s) => s.recordedAt === night.end);
    expect(samples).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          seriesType: id("resting_heart_rate"),
          value: raw.lowest_heart_rate,
          zoneOffsetMinutes: 60,
        }),
        expect.objectContaining({ seriesType: id("heart_rate_variability_rmssd"), value: raw.average_hrv }),
        expect.objectContaining({ seriesType: id("respiratory_rate"), value: raw.average_breath }),
      ]),
    );
  });

  it("maps daily activity, SpO2 and readiness into daily samples", async () => {
    const h = await connectToStandIn({ adapter: oura, origin: cloud.origin, credentials, login: "oura-user-7" });
    const pages = await h.fetchAll("daily", window);
    expect(pages.length).toBeGreaterThanOrEqual(6); // three collections, two pages each
    const samples = pages.flatMap((p) => p.records.samples);
    const day = "2026-03-05";
    const at = Date.parse(`${day}T00:00:00Z`);
    const activity = ouraDocumentsOf("daily_activity", "oura-user-7", at / DAY, at / DAY)[0];
    const spo2 = ouraDocumentsOf("daily_spo2", "oura-user-7", at / DAY, at / DAY)[0] as {
      spo2_percentage: { average: number };
    };
    const readiness = ouraDocumentsOf("daily_readiness", "oura-user-7", at / DAY, at / DAY)[0];
    const of = (code: string) => samples.filter((s) => s.recordedAt === at && s.seriesType === id(code));
    expect(of("steps")).toEqual([
      expect.objectContaining({ value: activity?.steps, isDailyTotal: true, zoneOffsetMinutes: 0 }),
    ]);
    expect(of("active_energy")).toEqual([
      expect.objectContaining({ value: activity?.active_calories, isDailyTotal: true }),
    ]);
    expect(of("distance_walking_running")).toEqual([
      expect.objectContaining({ value: activity?.equivalent_walking_distance }),
    ]);
    expect(of("oxygen_saturation")).toEqual([expect.objectContaining({ value: spo2.spo2_percentage.average })]);
    expect(of("skin_temperature_deviation")).toEqual([
      expect.objectContaining({ value: readiness?.temperature_deviation }),
    ]);
    // 14 days × (3 activity + 1 SpO2 + 2 readiness values).
    expect(samples.length).toBe(14 * 6);
  });

  it("pages heart rate within Oura's 30-day limit", async () => {
    const h = await connectToStandIn({ adapter: oura, origin: cloud.origin, credentials, login: "oura-user-7" });
    const pages = await h.fetchAll("samples", { start: window.start, end: window.start + 2 * DAY });
    expect(pages.length).toBe(2); // 576 readings, 500 a page
    const hr = pages.flatMap((p) => p.records.samples);
    expect(hr.length).toBe(576);
    expect(hr[0]).toEqual({
      seriesType: id("heart_rate"),
      recordedAt: window.start,
      value: expect.any(Number),
      zoneOffsetMinutes: 0,
      source: "oura",
      deviceModel: "Oura Ring",
    });
    // A 45-day window is two requests' spans; the stand-in refuses longer ones, so none was asked.
    const long = await h.fetchAll("samples", { start: window.start, end: window.start + 45 * DAY });
    expect(long.flatMap((p) => p.records.samples).length).toBe(45 * 288);
    await expect(
      h.client.getJson(`${h.urls.apiBase}/usercollection/heartrate`, {
        start_datetime: new Date(window.start).toISOString(),
        end_datetime: new Date(window.start + 31 * DAY).toISOString(),
      }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("passes the raw workout list through", async () => {
    const h = await connectToStandIn({ adapter: oura, origin: cloud.origin, credentials, login: "oura-user-7" });
    const raw = (await oura.listRawWorkouts?.(
      h.client,
      h.urls,
      rawWorkoutsQuery({
        since: window.start / 1000,
        limit: 12,
        offset: 3,
      }),
    )) as {
      data: { id: string; activity: string }[];
    };
    expect(raw.data).toHaveLength(12);
    expect(raw.data[0]?.id).toMatch(/^workout-/);
  });

  it("retries a 429 after Retry-After and refreshes an expired token, rotating the refresh token", async () => {
    const h = await connectToStandIn({ adapter: oura, origin: cloud.origin, credentials, login: "oura-user-8" });
    const before = h.tokens.refreshToken;
    cloud.expireAccessTokens();
    cloud.throttle(1, 1);
    const pages = await h.fetchAll("workouts", window);
    expect(pages.flatMap((p) => p.records.workouts).length).toBeGreaterThan(3);
    expect(h.refreshes).toBe(1);
    expect(h.tokens.refreshToken).not.toBe(before);
    expect(h.tokens.providerUserId).toBe("oura-user-8");
  });

  it("answers VendorAuthError when the user revoked access", async () => {
    const h = await connectToStandIn({ adapter: oura, origin: cloud.origin, credentials, login: "oura-user-9" });
    cloud.revokeUser("oura-user-9");
    await expect(h.fetchAll("sleep", window)).rejects.toBeInstanceOf(VendorAuthError);
  });

  describe("webhooks", () => {
    const push = oura.push;
    if (!push) throw new Error("oura pushes");
    const notification = {
      event_type: "create",
      data_type: "sleep",
      object_id: "sleep-oura-user-7-2026-03-05",
      event_time: "2026-03-05T06:20:00+00:00",
      user_id: "oura-user-7",
    };
    const deliver = async (body: object, sign: { clientSecret: string; timestampSec?: number }) => {
      received.length = 0;
      expect((await cloud.push(receiverUrl, body as Record<string, unknown>, sign)).status).toBe(200);
      const req = received[0];
      if (!req) throw new Error("nothing received");
      return req;
    };

    it("answers the verification challenge with the verification token", () => {
      expect(push.challenge?.({ verification_token: secrets.pushSecret, challenge: "abc123" }, secrets)).toEqual({
        status: 200,
        body: { challenge: "abc123" },
      });
      expect(push.challenge?.({ verification_token: "nope", challenge: "abc123" }, secrets)?.status).toBe(401);
      expect(push.challenge?.({}, secrets)).toBeUndefined();
    });

    it("verifies a signed notification and parses it into a pull", async () => {
      const req = await deliver(notification, { clientSecret: secrets.clientSecret });
      expect(req.headers["x-oura-signature"]).toMatch(/^[0-9A-F]{64}$/);
      expect(push.verify(req, secrets, Date.now())).toBe(true);
      const at = Date.parse(notification.event_time);
      expect(push.parse(req)).toEqual([
        { providerUserId: "oura-user-7", pull: { kinds: ["sleep"], window: { start: at - 2 * DAY, end: at + DAY } } },
      ]);
      const daily = await deliver(
        { ...notification, data_type: "daily_activity" },
        { clientSecret: secrets.clientSecret },
      );
      expect(push.parse(daily)[0]?.pull?.kinds).toEqual(["daily"]);
      const deleted = await deliver({ ...notification, event_type: "delete" }, { clientSecret: secrets.clientSecret });
      expect(push.parse(deleted)).toEqual([]);
    });

    it("refuses a wrong signature, a stale timestamp and a missing signature", async () => {
      const now = Date.now();
      expect(push.verify(await deliver(notification, { clientSecret: "other" }), secrets, now)).toBe(false);
      const stale = await deliver(notification, {
        clientSecret: secrets.clientSecret,
        timestampSec: Math.floor(now / 1000) - 600,
      });
      expect(push.verify(stale, secrets, now)).toBe(false);
      const signed = await deliver(notification, { clientSecret: secrets.clientSecret });
      expect(
        push.verify({ ...signed, headers: { ...signed.headers, "x-oura-signature": undefined } }, secrets, now),
      ).toBe(false);
      expect(push.verify({ ...signed, rawBody: Buffer.from(`${signed.rawBody} `) }, secrets, now)).toBe(false);
    });
  });
});
