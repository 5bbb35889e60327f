import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import { type GoogleHealthStandIn, startGoogleHealthStandIn } from "../../testing/standins/googleHealth.ts";
import { connectToStandIn, rawWorkoutsQuery, receivePush } from "../../testing/vendorHarness.ts";
import { VendorAuthError } from "../types.ts";
import { googleHealth } from "./googleHealth.ts";

const credentials = { clientId: "google-client.apps.googleusercontent.com", clientSecret: "google-secret" };
const window = { start: Date.parse("2026-03-02T00:00:00Z"), end: Date.parse("2026-03-16T00:00:00Z") };
const id = (code: string) => seriesTypeByCode(code)?.id;
const source = { deviceModel: "Pixel Watch 3", source: "FITBIT" };
let cloud: GoogleHealthStandIn;

beforeAll(async () => {
  cloud = await startGoogleHealthStandIn({ clients: { [credentials.clientId]: credentials.clientSecret } });
});
afterAll(() => cloud.close());

const receiveOne = (send: (url: string) => Promise<unknown>) => receivePush("google_health", send);

describe("google_health adapter", () => {
  it("asks for offline consent with the client in the body, and reads the healthUserId", async () => {
    expect(googleHealth.oauth).toMatchObject({ pkce: false, clientAuth: "body" });
    expect(googleHealth.oauth.scope).toContain("https://www.googleapis.com/auth/googlehealth.sleep.readonly");
    expect(googleHealth.oauth.authorizeParams).toMatchObject({ access_type: "offline", prompt: "consent" });
    const h = await connectToStandIn({ adapter: googleHealth, origin: cloud.origin, credentials, login: "alice" });
    expect(h.tokens.refreshToken).toBeTruthy();
    expect(h.tokens.providerUserId).toBe("hu-alice");
  });

  it("maps exercises (millimetres → metres, Duration strings → seconds)", async () => {
    const h = await connectToStandIn({ adapter: googleHealth, origin: cloud.origin, credentials, login: "alice" });
    const workouts = (await h.fetchAll("workouts", window)).flatMap((p) => p.records.workouts);
    expect(workouts.length).toBe(14);
    const name = "users/hu-alice/dataTypes/exercise/dataPoints/ex-20515";
    expect(workouts.find((w) => w.externalId === name)).toEqual({
      type: "running",
      start: Date.parse("2026-03-03T12:00:00Z"),
      end: Date.parse("2026-03-03T12:40:00Z"),
      zoneOffset: "+01:00",
      externalId: name,
      ...source,
      details: {
        energyBurned: 313.5,
        distance: 7500,
        stepsCount: 6210,
        averageSpeed: 3.125,
        heartRateAvg: 138,
        totalElevationGain: 42,
        averageCadence: 164,
        movingTimeSeconds: 2280,
      },
    });
    expect(workouts.filter((w) => w.type === "pool_swimming").length).toBeGreaterThan(1);
  });

  it("maps sleep sessions with stages and naps", async () => {
    const h = await connectToStandIn({ adapter: googleHealth, origin: cloud.origin, credentials, login: "alice" });
    const sleeps = (await h.fetchAll("sleep", window)).flatMap((p) => p.records.sleeps);
    expect(sleeps.filter((s) => !s.details.isNap).length).toBe(14);
    expect(sleeps.filter((s) => s.details.isNap).length).toBe(2);
    const start = Date.parse("2026-03-02T22:30:00Z");
    const at = (m: number) => start + m * 60_000;
    expect(sleeps.find((s) => s.externalId === "users/hu-alice/dataTypes/sleep/dataPoints/sleep-20515")).toEqual({
      start,
      end: at(450),
      zoneOffset: "+01:00",
      externalId: "users/hu-alice/dataTypes/sleep/dataPoints/sleep-20515",
      ...source,
      details: {
        totalDurationMinutes: 405,
        timeInBedMinutes: 450,
        deepMinutes: 80,
        lightMinutes: 235,
        remMinutes: 90,
        awakeMinutes: 45,
        efficiencyScore: 90,
        isNap: false,
        stages: [
          { stage: "awake", start: at(0), end: at(20) },
          { stage: "light", start: at(20), end: at(140) },
          { stage: "deep", start: at(140), end: at(220) },
          { stage: "light", start: at(220), end: at(335) },
          { stage: "rem", start: at(335), end: at(425) },
          { stage: "awake", start: at(425), end: at(450) },
        ],
      },
    });
    const nap = sleeps.find((s) => s.details.isNap);
    expect(nap?.details.stages).toEqual([{ stage: "sleeping", start: nap?.start, end: nap?.end }]);
  });

  it("walks heart rate, HRV and steps page by page", async () => {
    const h = await connectToStandIn({ adapter: googleHealth, origin: cloud.origin, credentials, login: "alice" });
    const pages = await h.fetchAll("samples", window);
    expect(pages.length).toBe(27 + 1 + 7);
    const samples = pages.flatMap((p) => p.records.samples);
    expect(samples.length).toBe(14 * (48 + 2 + 12));
    const find = (code: string, at: string) =>
      samples.find((s) => s.seriesType === id(code) && s.recordedAt === Date.parse(at));
    expect(find("heart_rate", "2026-03-03T00:30:00Z")).toEqual({
      seriesType: id("heart_rate"),
      recordedAt: Date.parse("2026-03-03T00:30:00Z"),
      value: 61,
      zoneOffsetMinutes: 60,
      ...source,
    });
    expect(find("heart_rate_variability_rmssd", "2026-03-03T03:00:00Z")?.value).toBe(42.5);
    expect(find("heart_rate_variability_sdnn", "2026-03-03T03:00:00Z")?.value).toBe(55.1);
    expect(find("steps", "2026-03-03T08:00:00Z")).toMatchObject({ value: 500, isDailyTotal: false });
  });

  it("maps daily resting heart rate by civil date", async () => {
    const h = await connectToStandIn({ adapter: googleHealth, origin: cloud.origin, credentials, login: "alice" });
    const samples = (await h.fetchAll("daily", window)).flatMap((p) => p.records.samples);
    expect(samples.length).toBe(14);
    expect(samples.find((s) => s.recordedAt === Date.UTC(2026, 2, 3))).toEqual({
      seriesType: id("resting_heart_rate"),
      recordedAt: Date.UTC(2026, 2, 3),
      value: 55,
      zoneOffsetMinutes: null,
      ...source,
    });
  });

  it("retries a 429 after Retry-After and refreshes an expired token, rotating the refresh token", async () => {
    const h = await connectToStandIn({ adapter: googleHealth, origin: cloud.origin, credentials });
    const before = h.tokens.refreshToken;
    cloud.expireAccessTokens();
    cloud.throttle(1, 1);
    const workouts = (await h.fetchAll("workouts", window)).flatMap((p) => p.records.workouts);
    expect(workouts.length).toBe(14);
    expect(h.refreshes).toBe(1);
    expect(h.tokens.refreshToken).not.toBe(before);
  });

  it("passes the raw exercise list through", async () => {
    const h = await connectToStandIn({ adapter: googleHealth, origin: cloud.origin, credentials, login: "alice" });
    const since = Date.parse("2026-03-10T00:00:00Z") / 1000;
    const raw = (await googleHealth.listRawWorkouts?.(
      h.client,
      h.urls,
      rawWorkoutsQuery({ since, limit: 3, offset: 0 }),
    )) as {
      dataPoints: { name: string }[];
      nextPageToken?: string;
    };
    expect(raw.dataPoints.map((p) => p.name)).toEqual(
      [20522, 20523, 20524].map((d) => `users/hu-alice/dataTypes/exercise/dataPoints/ex-${d}`),
    );
    expect(raw.nextPageToken).toBe("3");
  });

  it("answers VendorAuthError when the grant was revoked", async () => {
    const h = await connectToStandIn({ adapter: googleHealth, origin: cloud.origin, credentials, login: "bob" });
    cloud.revokeUser("bob");
    await expect(h.fetchAll("samples", window)).rejects.toBeInstanceOf(VendorAuthError);
  });

  it("verifies notifications by the bearer secret and asks for a pull of the changed intervals", async () => {
    const push = googleHealth.push;
    if (!push) throw new Error("google_health pushes");
    const secrets = { clientSecret: credentials.clientSecret, pushSecret: "subscriber-secret" };
    const body = {
      data: {
        healthUserId: "hu-alice",
        operation: "UPSERT",
        dataType: "sleep",
        intervals: [
          { physicalTimeInterval: { startTime: "2026-03-03T00:00:00Z", endTime: "2026-03-03T08:00:00Z" } },
          { physicalTimeInterval: { startTime: "2026-03-02T22:00:00Z", endTime: "2026-03-03T01:00:00Z" } },
        ],
      },
    };
    const req = await receiveOne((url) => cloud.push(url, body, "subscriber-secret"));
    expect(push.verify(req, secrets, Date.now())).toBe(true);
    expect(push.parse(req)).toEqual([
      {
        providerUserId: "hu-alice",
        pull: {
          kinds: ["sleep"],
          window: { start: Date.parse("2026-03-02T22:00:00Z"), end: Date.parse("2026-03-03T08:00:00Z") },
        },
      },
    ]);
    // Google's endpoint verification: once with the secret (2xx), once without (must be refused).
    const check = await receiveOne((url) => cloud.push(url, { type: "verification" }, "subscriber-secret"));
    expect(push.verify(check, secrets, Date.now())).toBe(true);
    expect(push.parse(check)).toEqual([]);
    const without = await receiveOne((url) => cloud.push(url, { type: "verification" }, undefined));
    expect(push.verify(without, secrets, Date.now())).toBe(false);
    const wrong = await receiveOne((url) => cloud.push(url, body, "not-the-secret"));
    expect(push.verify(wrong, secrets, Date.now())).toBe(false);
    expect(push.verify(req, { clientSecret: "x" }, Date.now())).toBe(false);
    const deleted = { data: { ...body.data, operation: "DELETE" } };
    expect(push.parse({ ...req, rawBody: Buffer.from(JSON.stringify(deleted)) })).toEqual([]);
    expect(() => push.parse({ ...req, rawBody: Buffer.from('{"data": {"dataType": "sleep"}}') })).toThrow();
  });
});
