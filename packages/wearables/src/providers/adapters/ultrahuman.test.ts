/**
 * The Ultrahuman adapter against its stand-in (testing/standins/ultrahuman.ts): OAuth with the client in the body,
 * the user id from `user_info`, the day-by-day metrics walked page by page and mapped (sleep, heart rate, HRV,
 * temperature, steps, glucose, VO2 max, active minutes), 429, refresh with rotation and a revoked grant.
 * Ultrahuman has no webhooks, so the adapter has no push.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import type { VendorCloud } from "../../sandbox/vendorCloud.ts";
import { startUltrahumanStandIn } from "../../testing/standins/ultrahuman.ts";
import { connectToStandIn } from "../../testing/vendorHarness.ts";
import { VendorAuthError, VendorHttpError } from "../types.ts";
import { ultrahuman } from "./ultrahuman.ts";

const credentials = { clientId: "uh-client", clientSecret: "uh-secret" };
const window = { start: Date.parse("2026-03-02T00:00:00Z"), end: Date.parse("2026-03-16T00:00:00Z") };
const id = (code: string) => seriesTypeByCode(code)?.id;
let cloud: VendorCloud;

beforeAll(async () => {
  cloud = await startUltrahumanStandIn({ clients: { [credentials.clientId]: credentials.clientSecret } });
});
afterAll(() => cloud.close());

describe("ultrahuman adapter", () => {
  it("connects with the client in the body and reads the user id from user_info", async () => {
    expect(ultrahuman.oauth).toMatchObject({ pkce: false, clientAuth: "body", scope: "ring_data cgm_data profile" });
    expect(ultrahuman.push).toBeUndefined();
    const h = await connectToStandIn({ adapter: ultrahuman, origin: cloud.origin, credentials, login: "4242" });
    expect(h.tokens.refreshToken).toBeTruthy();
    expect(h.tokens.providerUserId).toBe("4242");
    expect(await ultrahuman.fetchIdentity?.(h.client, h.urls)).toEqual({
      providerUserId: "4242",
      providerUsername: "uh-4242",
    });
  });

  it("walks the window a day per page and maps the nights", async () => {
    const h = await connectToStandIn({ adapter: ultrahuman, origin: cloud.origin, credentials });
    const pages = await h.fetchAll("sleep", window);
    expect(pages.length).toBe(14);
    const sleeps = pages.flatMap((p) => p.records.sleeps);
    // The night dated 2 March began on 1 March, before the window.
    expect(sleeps.length).toBe(13);
    expect(sleeps.find((s) => s.externalId === "sleep-2026-03-03")).toEqual({
      start: Date.parse("2026-03-02T23:00:00Z"),
      end: Date.parse("2026-03-03T06:50:00Z"),
      zoneOffset: null,
      externalId: "sleep-2026-03-03",
      deviceModel: "Ultrahuman Ring",
      details: {
        totalDurationMinutes: 430,
        timeInBedMinutes: 470,
        deepMinutes: 85,
        lightMinutes: 245,
        remMinutes: 100,
        awakeMinutes: 40,
        efficiencyScore: 91,
        isNap: false,
        stages: [],
      },
    });
  });

  it("maps heart rate, HRV, temperature, steps and glucose samples", async () => {
    const h = await connectToStandIn({ adapter: ultrahuman, origin: cloud.origin, credentials });
    const samples = (await h.fetchAll("samples", window)).flatMap((p) => p.records.samples);
    expect(samples.length).toBe(14 * (96 + 24 + 24 + 48 + 96));
    const find = (code: string, at: string) =>
      samples.find((s) => s.seriesType === id(code) && s.recordedAt === Date.parse(at));
    expect(find("heart_rate", "2026-03-03T00:15:00Z")).toEqual({
      seriesType: id("heart_rate"),
      recordedAt: Date.parse("2026-03-03T00:15:00Z"),
      value: 59,
      deviceModel: "Ultrahuman Ring",
    });
    expect(find("heart_rate_variability_sdnn", "2026-03-03T02:00:00Z")?.value).toBe(47);
    expect(find("body_temperature", "2026-03-03T01:00:00Z")?.value).toBeCloseTo(34.3, 6);
    expect(find("steps", "2026-03-03T08:00:00Z")).toMatchObject({ value: 100, isDailyTotal: false });
    expect(find("blood_glucose", "2026-03-03T00:30:00Z")).toMatchObject({ value: 97, deviceModel: "Ultrahuman M1" });
  });

  it("maps the day's VO2 max, active minutes and step total", async () => {
    const h = await connectToStandIn({ adapter: ultrahuman, origin: cloud.origin, credentials });
    const samples = (await h.fetchAll("daily", window)).flatMap((p) => p.records.samples);
    expect(samples.length).toBe(14 * 3);
    const at = Date.parse("2026-03-03T00:00:00Z");
    const of = (code: string) => samples.find((s) => s.recordedAt === at && s.seriesType === id(code));
    expect(of("vo2_max")).toEqual({
      seriesType: id("vo2_max"),
      recordedAt: at,
      value: 45,
      deviceModel: "Ultrahuman Ring",
    });
    expect(of("active_time")).toMatchObject({ value: 52, isDailyTotal: true });
    expect(of("steps")).toMatchObject({ value: 5730, isDailyTotal: true });
  });

  it("retries a 429 after Retry-After and refreshes an expired token, rotating the refresh token", async () => {
    const h = await connectToStandIn({ adapter: ultrahuman, origin: cloud.origin, credentials });
    const before = h.tokens.refreshToken;
    cloud.expireAccessTokens();
    cloud.throttle(1, 1);
    const pages = await h.fetchAll("daily", { start: window.start, end: window.start + 2 * 86_400_000 });
    expect(pages.flatMap((p) => p.records.samples).length).toBe(6);
    expect(h.refreshes).toBe(1);
    expect(h.tokens.refreshToken).not.toBe(before);
  });

  it("answers VendorAuthError when the grant was revoked, and VendorHttpError on a bad date", async () => {
    const h = await connectToStandIn({ adapter: ultrahuman, origin: cloud.origin, credentials, login: "gone" });
    await expect(
      h.client.getJson(`${h.urls.apiBase}/user_data/metrics`, { date: "03/03/2026" }),
    ).rejects.toBeInstanceOf(VendorHttpError);
    cloud.revokeUser("gone");
    await expect(h.fetchAll("sleep", window)).rejects.toBeInstanceOf(VendorAuthError);
  });
});
