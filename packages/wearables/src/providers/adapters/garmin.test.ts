import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import { type GarminStandIn, garminActivityOf, startGarminStandIn } from "../../testing/standins/garmin.ts";
import { connectToStandIn, rawWorkoutsQuery, receivePush } from "../../testing/vendorHarness.ts";
import { VendorAuthError } from "../types.ts";
import { garmin, requestGarminBackfill } from "./garmin.ts";

const credentials = { clientId: "garmin-consumer", clientSecret: "garmin-secret" };
const window = { start: Date.parse("2026-03-02T00:00:00Z"), end: Date.parse("2026-03-16T00:00:00Z") };
const id = (code: string) => seriesTypeByCode(code)?.id;
let cloud: GarminStandIn;

beforeAll(async () => {
  cloud = await startGarminStandIn({ clients: { [credentials.clientId]: credentials.clientSecret } });
});
afterAll(() => cloud.close());

const receiveOne = (send: (url: string) => Promise<unknown>) => receivePush("garmin", send);

describe("garmin adapter", () => {
  it("connects with PKCE, the client in the body, and reads the Garmin user id", async () => {
    expect(garmin.oauth).toMatchObject({ pkce: true, clientAuth: "body", scope: "" });
    const h = await connectToStandIn({ adapter: garmin, origin: cloud.origin, credentials, login: "g-user-1" });
    expect(h.tokens.refreshToken).toBeTruthy();
    expect(h.tokens.providerUserId).toBe("g-user-1");
  });

  it("pulls activities a day of upload time per page and maps them", async () => {
    const h = await connectToStandIn({ adapter: garmin, origin: cloud.origin, credentials, login: "g-user-1" });
    const pages = await h.fetchAll("workouts", window);
    expect(pages.length).toBe(14);
    const workouts = pages.flatMap((p) => p.records.workouts);
    expect(workouts.length).toBe(14);
    expect(workouts.find((w) => w.externalId === "8000020515")).toEqual({
      type: "running",
      start: Date.parse("2026-03-03T15:00:00Z"),
      end: Date.parse("2026-03-03T15:50:00Z"),
      zoneOffset: "+02:00",
      externalId: "8000020515",
      deviceModel: "forerunner965",
      details: {
        energyBurned: 425,
        distance: 9000,
        stepsCount: 7150,
        heartRateAvg: 150,
        heartRateMax: 178,
        averageSpeed: 3.05,
        maxSpeed: 4.12,
        totalElevationGain: 55.4,
        averageCadence: 168,
        averageWatts: null,
        maxWatts: null,
        movingTimeSeconds: 3000,
      },
    });
    const ride = workouts.find((w) => w.externalId === "8000020516");
    expect(ride).toMatchObject({ type: "cycling", details: { averageCadence: 88, averageWatts: 215, maxWatts: 540 } });
  });

  it("maps sleeps with their stage intervals", async () => {
    const h = await connectToStandIn({ adapter: garmin, origin: cloud.origin, credentials, login: "g-user-1" });
    const sleeps = (await h.fetchAll("sleep", window)).flatMap((p) => p.records.sleeps);
    expect(sleeps.length).toBe(14);
    const start = Date.parse("2026-03-02T23:00:00Z");
    const at = (s: number) => start + s * 1000;
    expect(sleeps.find((s) => s.externalId === "xg-user-1-sleep-20515")).toEqual({
      start,
      end: at(27_000),
      zoneOffset: "+02:00",
      externalId: "xg-user-1-sleep-20515",
      details: {
        totalDurationMinutes: 420,
        timeInBedMinutes: 450,
        deepMinutes: 90,
        lightMinutes: 240,
        remMinutes: 90,
        awakeMinutes: 30,
        efficiencyScore: 93.3,
        isNap: false,
        stages: [
          { stage: "light", start: at(0), end: at(7_200) },
          { stage: "deep", start: at(7_200), end: at(12_600) },
          { stage: "light", start: at(12_600), end: at(19_800) },
          { stage: "rem", start: at(19_800), end: at(25_200) },
          { stage: "awake", start: at(25_200), end: at(27_000) },
        ],
      },
    });
  });

  it("maps dailies into daily totals, resting HR, stress and heart rate samples", async () => {
    const h = await connectToStandIn({ adapter: garmin, origin: cloud.origin, credentials, login: "g-user-1" });
    const samples = (await h.fetchAll("daily", window)).flatMap((p) => p.records.samples);
    expect(samples.length).toBe(14 * 10);
    const at = Date.parse("2026-03-02T22:00:00Z"); // 3 March, local midnight at UTC+2
    const value = (code: string, t = at) => samples.find((s) => s.recordedAt === t && s.seriesType === id(code));
    expect(value("steps")).toEqual({
      recordedAt: at,
      zoneOffsetMinutes: 120,
      seriesType: id("steps"),
      value: 10_400,
      isDailyTotal: true,
    });
    expect(value("distance_walking_running")?.value).toBe(7_800.5);
    expect(value("active_energy")?.value).toBe(520);
    expect(value("basal_energy")?.value).toBe(1_650);
    expect(value("flights_climbed")?.value).toBe(7);
    expect(value("resting_heart_rate")).toMatchObject({ value: 52 });
    expect(value("resting_heart_rate")?.isDailyTotal).toBeUndefined();
    expect(value("garmin_stress_level")?.value).toBe(31);
    expect(value("heart_rate", at + 900_000)?.value).toBe(56);
  });

  it("retries a 429 after Retry-After and refreshes an expired token, rotating the refresh token", async () => {
    const h = await connectToStandIn({ adapter: garmin, origin: cloud.origin, credentials });
    const before = h.tokens.refreshToken;
    cloud.expireAccessTokens();
    cloud.throttle(2, 1);
    const pages = await h.fetchAll("workouts", { start: window.start, end: window.start + 3 * 86_400_000 });
    expect(pages.flatMap((p) => p.records.workouts).length).toBe(3);
    expect(h.refreshes).toBe(1);
    expect(h.tokens.refreshToken).not.toBe(before);
  });

  it("passes the raw activity list through", async () => {
    const h = await connectToStandIn({ adapter: garmin, origin: cloud.origin, credentials, login: "g-user-1" });
    const since = Date.parse("2026-03-03T00:00:00Z") / 1000;
    const raw = (await garmin.listRawWorkouts?.(
      h.client,
      h.urls,
      rawWorkoutsQuery({ since, limit: 50, offset: 0 }),
    )) as {
      summaryId: string;
    }[];
    expect(raw.map((a) => a.summaryId)).toEqual(["8000020515"]);
  });

  it("passes the summary window through as uploadStartTimeInSeconds/uploadEndTimeInSeconds", async () => {
    const h = await connectToStandIn({ adapter: garmin, origin: cloud.origin, credentials, login: "g-user-1" });
    const start = Date.parse("2026-03-03T00:00:00Z") / 1000;
    const summaryWindow = { start, end: start + 43_200 };
    await garmin.listRawWorkouts?.(h.client, h.urls, rawWorkoutsQuery({ since: 0, summaryWindow }));
    expect(cloud.seen("/wellness-api/rest/activities").at(-1)).toEqual({
      uploadStartTimeInSeconds: String(start),
      uploadEndTimeInSeconds: String(start + 43_200),
    });
    expect(garmin.queryKnobs).toEqual({ sync: ["summary_window"], workouts: ["summary_window"] });
  });

  it("asks Garmin for a backfill in ranges of at most 90 days of summary time", async () => {
    const h = await connectToStandIn({ adapter: garmin, origin: cloud.origin, credentials, login: "g-user-1" });
    const start = Date.parse("2026-01-01T00:00:00Z");
    const requests = await requestGarminBackfill(h.client, h.urls, { start, end: start + 100 * 86_400_000 }, [
      "activities",
    ]);
    expect(requests).toBe(2);
    expect(cloud.backfills.slice(-2)).toEqual([
      { type: "activities", from: start / 1000, to: start / 1000 + 90 * 86_400 },
      { type: "activities", from: start / 1000 + 90 * 86_400, to: start / 1000 + 100 * 86_400 },
    ]);
  });

  it("answers VendorAuthError when the grant was revoked", async () => {
    const h = await connectToStandIn({ adapter: garmin, origin: cloud.origin, credentials, login: "gone" });
    cloud.revokeUser("gone");
    await expect(h.fetchAll("daily", window)).rejects.toBeInstanceOf(VendorAuthError);
  });

  it("takes pushed summaries inline, deregistrations as deauthorizations, and checks garmin-client-id", async () => {
    const push = garmin.push;
    if (!push) throw new Error("garmin pushes");
    const activity = garminActivityOf(20515, "u-77").summary;
    const body = {
      activities: [activity],
      deregistrations: [{ userId: "u-78", userAccessToken: "uat-u-78" }],
    };
    const req = await receiveOne((url) => cloud.push(url, body, credentials.clientId));
    const secrets = { clientSecret: credentials.clientSecret };
    expect(push.verify(req, secrets, Date.now())).toBe(true);
    expect(push.verify(req, { ...secrets, pushSecret: credentials.clientId }, Date.now())).toBe(true);
    expect(push.verify(req, { ...secrets, pushSecret: "another-consumer" }, Date.now())).toBe(false);
    const notices = push.parse(req);
    expect(notices).toHaveLength(2);
    expect(notices[0]?.providerUserId).toBe("u-77");
    expect(notices[0]?.records?.workouts).toEqual([
      expect.objectContaining({ type: "running", externalId: "8000020515", start: Date.parse("2026-03-03T15:00:00Z") }),
    ]);
    expect(notices[1]).toEqual({ providerUserId: "u-78", deauthorized: true });
    const unsigned = await receiveOne((url) => cloud.push(url, body, undefined));
    expect(push.verify(unsigned, secrets, Date.now())).toBe(false);
    expect(() => push.parse({ ...req, rawBody: Buffer.from('{"activities": {}}') })).toThrow();
    // Ping mode: a callbackURL and the upload range to pull.
    const ping = {
      sleeps: [
        {
          userId: "u-79",
          userAccessToken: "uat-u-79",
          uploadStartTimeInSeconds: 1772496000,
          uploadEndTimeInSeconds: 1772499600,
          callbackURL:
            "https://apis.garmin.com/wellness-api/rest/sleeps?uploadStartTimeInSeconds=1772496000&uploadEndTimeInSeconds=1772499600",
        },
      ],
    };
    expect(push.parse({ ...req, rawBody: Buffer.from(JSON.stringify(ping)) })).toEqual([
      { providerUserId: "u-79", pull: { kinds: ["sleep"], window: { start: 1772496000_000, end: 1772499600_000 } } },
    ]);
  });
});
