import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import { startWithingsStandIn, type WithingsStandIn } from "../../testing/standins/withings.ts";
import { connectToStandIn, rawWorkoutsQuery, receivePush } from "../../testing/vendorHarness.ts";
import { VendorAuthError, VendorHttpError } from "../types.ts";
import { withings } from "./withings.ts";

const credentials = { clientId: "withings-client", clientSecret: "withings-secret" };
const window = { start: Date.parse("2026-03-02T00:00:00Z"), end: Date.parse("2026-03-16T00:00:00Z") };
const id = (code: string) => seriesTypeByCode(code)?.id;
let cloud: WithingsStandIn;

beforeAll(async () => {
  cloud = await startWithingsStandIn({ clients: { [credentials.clientId]: credentials.clientSecret } });
});
afterAll(() => cloud.close());

const receiveOne = (send: (url: string) => Promise<unknown>) => receivePush("withings", send);

describe("withings adapter", () => {
  it("connects through the requesttoken envelope with the client in the body; the user id is userid", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials, login: "37465" });
    expect(h.tokens.accessToken).toBeTruthy();
    expect(h.tokens.refreshToken).toBeTruthy();
    expect(h.tokens.providerUserId).toBe("37465");
    expect(withings.oauth.scope).toBe("user.info,user.metrics,user.activity");
  });

  it("maps workouts page by page", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials });
    const pages = await h.fetchAll("workouts", window);
    expect(pages.length).toBeGreaterThan(2);
    const workouts = pages.flatMap((p) => p.records.workouts);
    expect(workouts.length).toBe(14);
    const run = workouts.find((w) => w.externalId === "920515");
    expect(run).toEqual({
      type: "running",
      start: Date.parse("2026-03-03T06:00:00Z"),
      end: Date.parse("2026-03-03T06:45:00Z"),
      zoneOffset: "+01:00",
      externalId: "920515",
      deviceModel: "Withings model 1062",
      details: {
        energyBurned: 350,
        distance: 8000,
        heartRateAvg: 145,
        heartRateMin: 95,
        heartRateMax: 171,
        stepsCount: 6000,
        totalElevationGain: 40,
        movingTimeSeconds: 2400,
        averageSpeed: 8000 / 2400,
      },
    });
    expect(workouts.find((w) => w.externalId === "920514")?.type).toBe("swimming");
  });

  it("maps sleep summaries (seconds → minutes, ratio → percent) with their stage intervals", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials });
    const sleeps = (await h.fetchAll("sleep", window)).flatMap((p) => p.records.sleeps);
    // Nights starting inside the window: 2 Mar 22:00 … 15 Mar 22:00.
    expect(sleeps.length).toBe(14);
    const at = (m: number) => Date.parse("2026-03-02T22:00:00Z") + m * 60_000;
    expect(sleeps.find((s) => s.externalId === "520515")).toEqual({
      start: Date.parse("2026-03-02T22:00:00Z"),
      end: Date.parse("2026-03-03T06:00:00Z"),
      zoneOffset: "+01:00",
      externalId: "520515",
      details: {
        totalDurationMinutes: 440,
        timeInBedMinutes: 480,
        deepMinutes: 90,
        lightMinutes: 250,
        remMinutes: 100,
        awakeMinutes: 40,
        efficiencyScore: 92,
        isNap: false,
        stages: [
          { stage: "awake", start: at(0), end: at(15) },
          { stage: "light", start: at(15), end: at(135) },
          { stage: "deep", start: at(135), end: at(225) },
          { stage: "light", start: at(225), end: at(355) },
          { stage: "rem", start: at(355), end: at(455) },
          { stage: "awake", start: at(455), end: at(480) },
        ],
      },
    });
  });

  it("maps measures as value × 10^unit", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials });
    const pages = await h.fetchAll("samples", window);
    expect(pages.length).toBeGreaterThan(2);
    const samples = pages.flatMap((p) => p.records.samples);
    const at = Date.parse("2026-03-03T07:00:00Z");
    const of = (code: string) => samples.find((s) => s.recordedAt === at && s.seriesType === id(code));
    expect(of("weight")).toEqual({ seriesType: id("weight"), recordedAt: at, value: 72.355, zoneOffsetMinutes: 60 });
    expect(of("body_fat_percentage")?.value).toBe(21.5);
    expect(of("heart_rate")?.value).toBe(58);
    expect(of("oxygen_saturation")?.value).toBe(97);
    expect(samples.length).toBe(14 * 4);
  });

  it("maps daily activity as daily totals at local midnight", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials });
    const samples = (await h.fetchAll("daily", window)).flatMap((p) => p.records.samples);
    const at = Date.parse("2026-03-02T23:00:00Z"); // 3 March, 00:00 in Paris
    const day = samples.filter((s) => s.recordedAt === at);
    const value = (code: string) => day.find((s) => s.seriesType === id(code))?.value;
    expect(value("steps")).toBe(8400);
    expect(value("distance_walking_running")).toBe(6123.4);
    expect(value("active_energy")).toBe(412.5);
    expect(value("flights_climbed")).toBe(3);
    for (const s of day) expect(s).toMatchObject({ isDailyTotal: true, zoneOffsetMinutes: 60 });
    expect(samples.length).toBe(14 * 4);
  });

  it("retries a 429 after Retry-After and refreshes an expired token, rotating the refresh token", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials });
    const before = h.tokens.refreshToken;
    cloud.expireAccessTokens();
    cloud.throttle(2, 1);
    const workouts = (await h.fetchAll("workouts", window)).flatMap((p) => p.records.workouts);
    expect(workouts.length).toBe(14);
    expect(h.refreshes).toBe(1);
    expect(h.tokens.refreshToken).not.toBe(before);
  });

  it("passes the raw workout list through (changed since `since`)", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials });
    const since = Date.parse("2026-03-10T00:00:00Z") / 1000;
    const raw = (await withings.listRawWorkouts?.(
      h.client,
      h.urls,
      rawWorkoutsQuery({ since, limit: 50, offset: 0 }),
    )) as {
      series: { id: number }[];
      more: boolean;
    };
    expect(raw.series[0]?.id).toBe(920522);
    expect(raw.series.length).toBe(5);
    expect(raw.more).toBe(true);
  });

  it("lists workouts by day (startdateymd/enddateymd) when not by modification time, with the offset", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials });
    const since = Date.parse("2026-03-10T00:00:00Z") / 1000;
    await withings.listRawWorkouts?.(
      h.client,
      h.urls,
      rawWorkoutsQuery({ since, byModificationTime: false, offset: 5 }),
    );
    const asked = cloud.seen("/v2/measure").at(-1);
    expect(asked).toMatchObject({ action: "getworkouts", startdateymd: "2026-03-10", offset: "5" });
    expect(asked?.lastupdate).toBeUndefined();
    await withings.listRawWorkouts?.(h.client, h.urls, rawWorkoutsQuery({ since }));
    expect(cloud.seen("/v2/measure").at(-1)).toMatchObject({ action: "getworkouts", lastupdate: String(since) });
    expect(cloud.seen("/v2/measure").at(-1)?.startdateymd).toBeUndefined();
  });

  it("answers VendorAuthError when the grant was revoked", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials, login: "9999" });
    cloud.revokeUser("9999");
    await expect(h.fetchAll("sleep", window)).rejects.toBeInstanceOf(VendorAuthError);
  });

  it("turns a Withings error status on HTTP 200 into a VendorHttpError", async () => {
    const h = await connectToStandIn({ adapter: withings, origin: cloud.origin, credentials });
    await expect(h.fetchAll("workouts", { start: window.end, end: window.start + 1 })).rejects.toBeInstanceOf(
      VendorHttpError,
    );
  });

  it("verifies notifications by the callback's token and asks for the right pull", async () => {
    const push = withings.push;
    if (!push) throw new Error("withings pushes");
    const secrets = { clientSecret: credentials.clientSecret, pushSecret: "hook-token-1" };
    const notice = { userid: "37465", appli: 44, startdate: 1772488800, enddate: 1772517600 };
    const req = await receiveOne((url) => cloud.push(url, notice, "hook-token-1"));
    expect(req.contentType).toContain("application/x-www-form-urlencoded");
    expect(push.verify(req, secrets, Date.now())).toBe(true);
    expect(push.parse(req)).toEqual([
      { providerUserId: "37465", pull: { kinds: ["sleep"], window: { start: 1772488800_000, end: 1772517601_000 } } },
    ]);
    const weight = await receiveOne((url) => cloud.push(url, { ...notice, appli: 1 }, "hook-token-1"));
    expect(push.parse(weight)[0]?.pull?.kinds).toEqual(["samples"]);
    const wrong = await receiveOne((url) => cloud.push(url, notice, "guessed"));
    expect(push.verify(wrong, secrets, Date.now())).toBe(false);
    const missing = await receiveOne((url) => cloud.push(url, notice, undefined));
    expect(push.verify(missing, secrets, Date.now())).toBe(false);
    expect(push.verify(req, { clientSecret: "x" }, Date.now())).toBe(false);
    expect(() => push.parse({ ...req, rawBody: Buffer.from("userid=1") })).toThrow();
  });
});
