import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import {
  type SuuntoStandIn,
  startSuuntoStandIn,
  suuntoActivityAt,
  suuntoDailyOf,
  suuntoSleepsOf,
  suuntoWorkoutOf,
} from "../../testing/standins/suunto.ts";
import { connectToStandIn, rawWorkoutsQuery, receivePush } from "../../testing/vendorHarness.ts";
import { VendorAuthError } from "../types.ts";
import { suunto } from "./suunto.ts";

const DAY = 86_400_000;
const credentials = { clientId: "suunto-client", clientSecret: "suunto-secret" };
const pushSecret = "suunto-notification-secret";
const subscriptionKey = "apim-subscription-key";
const id = (code: string) => seriesTypeByCode(code)?.id;
let cloud: SuuntoStandIn;

beforeAll(async () => {
  cloud = await startSuuntoStandIn({ clients: { [credentials.clientId]: credentials.clientSecret }, subscriptionKey });
});
afterAll(async () => {
  await cloud.close();
});

const received = (send: (url: string) => Promise<unknown>) => receivePush("suunto", send);
/** The stand-in's user `kimmo`, connected with the app's credentials and subscription key. */
const connectKimmo = () =>
  connectToStandIn({ adapter: suunto, origin: cloud.origin, credentials, login: "kimmo", apiKey: subscriptionKey });

describe("suunto adapter", () => {
  const today = Math.floor(Date.now() / DAY) * DAY;

  it("connects with Basic client authentication and names the user by the token answer's username", async () => {
    const h = await connectKimmo();
    expect(suunto.oauth).toMatchObject({ pkce: false, clientAuth: "basic", scope: "" });
    expect(h.tokens.providerUserId).toBe("kimmo");
    expect(h.tokens.providerUsername).toBe("kimmo");
    expect(h.tokens.refreshToken).toBeTruthy();
  });

  it("pages workouts 100 at a time and maps one value by value", async () => {
    const h = await connectKimmo();
    const window = { start: today - 100 * DAY, end: today - 10 * DAY };
    const pages = await h.fetchAll("workouts", window);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    const workouts = pages.flatMap((p) => p.records.workouts);
    expect(workouts.length).toBe(180);
    const day = today / DAY - 30 - ((today / DAY - 30) % 3); // a running morning (activityId 1)
    const raw = suuntoWorkoutOf("kimmo", day, 0);
    const w = workouts.find((x) => x.externalId === raw.workoutKey);
    expect(w).toEqual({
      type: "running",
      start: raw.startTime,
      end: raw.stopTime,
      zoneOffset: "+02:00",
      externalId: raw.workoutKey,
      sourceName: "Suunto 9 Peak Pro",
      deviceModel: "Suunto 9 Peak Pro",
      details: {
        energyBurned: raw.energyConsumption,
        distance: raw.totalDistance,
        heartRateAvg: raw.hrdata.workoutAvgHR,
        heartRateMax: raw.hrdata.workoutMaxHR,
        heartRateMin: raw.hrdata.min,
        averageSpeed: 3.1,
        maxSpeed: 3.1 * 1.6,
        totalElevationGain: raw.totalAscent,
        elevHigh: raw.maxAltitude,
        elevLow: raw.minAltitude,
        averageWatts: null,
        maxWatts: null,
        averageCadence: null,
        stepsCount: raw.stepCount,
        movingTimeSeconds: raw.totalTime,
      },
    });
    const ride = workouts.find((x) => x.externalId === suuntoWorkoutOf("kimmo", day + 1, 0).workoutKey);
    expect(ride?.type).toBe("cycling");
    expect(ride?.details.averageWatts).toBeGreaterThan(150);
    expect(workouts.find((x) => x.externalId === suuntoWorkoutOf("kimmo", day, 1).workoutKey)?.type).toBe(
      "strength_training",
    );
  });

  it("honours the sync's knobs: page size, first offset, and the modification-time filter reach /v3/workouts", async () => {
    const h = await connectKimmo();
    const window = { start: today - 20 * DAY, end: Date.now() };
    const before = cloud.seen("/v3/workouts").length;
    const pages = await h.fetchAll("workouts", window, { limit: 20, offset: 10, byModificationTime: false });
    const asked = cloud.seen("/v3/workouts").slice(before);
    expect(asked.length).toBe(pages.length);
    expect(asked[0]).toMatchObject({ limit: "20", offset: "10", "filter-by-modification-time": "false" });
    expect(asked[1]).toMatchObject({ limit: "20", offset: "30" });
    // The first ten of the list (newest first) were skipped: the newest workouts of the window are not there.
    const keys = new Set(pages.flatMap((p) => p.records.workouts.map((w) => w.externalId)));
    const all = await h.fetchAll("workouts", window);
    const allKeys = all.flatMap((p) => p.records.workouts.map((w) => w.externalId));
    expect(keys.size).toBeLessThan(allKeys.length);
    // By modification time: the filter goes as true; workouts modified since the window's start are kept.
    const n = cloud.seen("/v3/workouts").length;
    const modified = await h.fetchAll("workouts", window, { byModificationTime: true });
    expect(cloud.seen("/v3/workouts")[n]).toMatchObject({ "filter-by-modification-time": "true", limit: "100" });
    expect(modified.flatMap((p) => p.records.workouts).length).toBeGreaterThan(0);
    // Without knobs (scheduled and backfill syncs): start time, Suunto's 100 a page.
    expect(cloud.seen("/v3/workouts")[before + pages.length]).toMatchObject({
      "filter-by-modification-time": "false",
      limit: "100",
      offset: "0",
    });
  });

  it("passes the workout list through with limit, offset and filter-by-modification-time as asked", async () => {
    const h = await connectKimmo();
    const since = Math.floor((today - 5 * DAY) / 1000);
    const raw = (await suunto.listRawWorkouts?.(
      h.client,
      h.urls,
      rawWorkoutsQuery({ since, limit: 3, offset: 2, byModificationTime: false }),
    )) as { payload: unknown[] };
    expect(raw.payload.length).toBe(3);
    expect(cloud.seen("/v3/workouts").at(-1)).toEqual({
      since: String(since * 1000),
      limit: "3",
      offset: "2",
      "filter-by-modification-time": "false",
    });
  });

  it("maps nights and naps (seconds → minutes), resting heart rate from the night, two-week pages", async () => {
    const h = await connectKimmo();
    const window = { start: today - 30 * DAY, end: today };
    const pages = await h.fetchAll("sleep", window);
    expect(pages.length).toBe(3);
    const sleeps = pages.flatMap((p) => p.records.sleeps);
    const day = today / DAY - 5 - ((today / DAY - 5) % 5); // a day with a nap
    const [night, nap] = suuntoSleepsOf("kimmo", day);
    if (!night || !nap) throw new Error("the stand-in has a night and a nap");
    const e = night.entryData;
    const s = sleeps.find((x) => x.externalId === String(e.SleepId));
    expect(s).toEqual({
      start: Date.parse(e.BedtimeStart),
      end: Date.parse(e.BedtimeEnd),
      zoneOffset: "+02:00",
      externalId: String(e.SleepId),
      sourceName: "Suunto",
      details: {
        totalDurationMinutes: Math.round((e.DeepSleepDuration + e.LightSleepDuration + e.REMSleepDuration) / 60),
        timeInBedMinutes: Math.round(e.Duration / 60),
        efficiencyScore: e.SleepQualityScore,
        deepMinutes: Math.round(e.DeepSleepDuration / 60),
        lightMinutes: Math.round(e.LightSleepDuration / 60),
        remMinutes: Math.round(e.REMSleepDuration / 60),
        awakeMinutes: 25,
        isNap: false,
        stages: [],
      },
    });
    expect(sleeps.find((x) => x.externalId === String(nap.entryData.SleepId))?.details.isNap).toBe(true);
    const rhr = pages.flatMap((p) => p.records.samples).filter((x) => x.seriesType === id("resting_heart_rate"));
    expect(rhr.find((x) => x.recordedAt === Date.parse(e.BedtimeEnd))?.value).toBe(e.HRMin);
    expect(rhr.length).toBe(sleeps.filter((x) => !x.details.isNap).length);
  });

  it("maps 24/7 activity samples (joules → kcal, SpO2 → percent, RMSSD) and daily totals", async () => {
    const h = await connectKimmo();
    const pages = await h.fetchAll("samples", { start: today - 10 * DAY, end: today });
    expect(pages.length).toBe(2);
    expect(pages.reduce((n, p) => n + p.fetched, 0)).toBe(10 * 48);
    const samples = pages.flatMap((p) => p.records.samples);
    const t = today - 2 * DAY; // 02:00 local: a night sample
    const raw = suuntoActivityAt("kimmo", t).entryData;
    const at = (code: string) => samples.find((x) => x.recordedAt === t && x.seriesType === id(code));
    expect(at("heart_rate")?.value).toBe(raw.HR);
    expect(at("steps")?.value).toBe(raw.StepCount);
    expect(at("active_energy")?.value).toBeCloseTo(raw.EnergyConsumption / 4184, 9);
    expect(at("oxygen_saturation")?.value).toBeCloseTo((raw.SpO2 ?? 0) * 100, 9);
    expect(at("heart_rate_variability_rmssd")?.value).toBe(raw.HRV);
    expect(at("oxygen_saturation")?.zoneOffsetMinutes).toBe(120);

    const daily = await h.fetchAll("daily", { start: today - 30 * DAY, end: today });
    expect(daily.length).toBe(3);
    const totals = daily.flatMap((p) => p.records.samples);
    expect(totals.filter((x) => x.seriesType === id("steps")).length).toBe(30);
    const day = today / DAY - 4;
    const totalsOfDay = suuntoDailyOf("kimmo", day);
    const of = (code: string) => totals.find((x) => x.seriesType === id(code) && x.recordedAt === day * DAY);
    expect(of("steps")).toMatchObject({ value: totalsOfDay.steps, isDailyTotal: true, zoneOffsetMinutes: null });
    expect(of("active_energy")?.value).toBeCloseTo(totalsOfDay.joules / 4184, 9);
    // The day not over yet answers null and is left out.
    const unfinished = await h.fetchAll("daily", { start: today, end: today + DAY });
    expect(unfinished.flatMap((p) => p.records.samples)).toEqual([]);
  });

  it("answers 400 on a range over 28 days, and needs the subscription key", async () => {
    const h = await connectKimmo();
    await expect(
      h.client.getJson(`${h.urls.apiBase}/247samples/sleep`, {
        from: today - 40 * DAY,
        to: today,
      }),
    ).rejects.toMatchObject({ status: 400 });
    const keyless = await connectToStandIn({
      adapter: suunto,
      origin: cloud.origin,
      credentials,
      login: "kimmo",
      apiKey: "",
    });
    await expect(keyless.fetchAll("sleep", { start: today - 3 * DAY, end: today })).rejects.toBeInstanceOf(
      VendorAuthError,
    );
  });

  it("retries a 429, refreshes an expired token once with rotation, and a revoked grant is a VendorAuthError", async () => {
    const h = await connectToStandIn({
      adapter: suunto,
      origin: cloud.origin,
      credentials,
      login: "anna",
      apiKey: subscriptionKey,
    });
    const firstRefresh = h.tokens.refreshToken;
    cloud.expireAccessTokens();
    cloud.throttle(2, 1);
    const pages = await h.fetchAll("sleep", { start: today - 5 * DAY, end: today });
    expect(pages[0]?.records.sleeps.length).toBeGreaterThan(0);
    expect(h.refreshes).toBe(1);
    expect(h.tokens.refreshToken).not.toBe(firstRefresh);
    cloud.revokeUser("anna");
    await expect(h.fetchAll("sleep", { start: today - 5 * DAY, end: today })).rejects.toBeInstanceOf(VendorAuthError);
  });

  it("verifies signed notifications: a workout pulls, 24/7 sleep and activity come inline; a bad signature fails", async () => {
    const push = suunto.push;
    if (!push) throw new Error("suunto pushes");
    const secrets = { clientSecret: credentials.clientSecret, pushSecret };
    const workout = suuntoWorkoutOf("kimmo", today / DAY - 1, 0);
    const created = await received((url) =>
      cloud.push(url, { type: "WORKOUT_CREATED", username: "kimmo", workout }, pushSecret),
    );
    expect(push.verify(created, secrets, Date.now())).toBe(true);
    expect(push.parse(created)).toEqual([
      {
        providerUserId: "kimmo",
        pull: { kinds: ["workouts"], window: { start: workout.startTime - 60_000, end: workout.stopTime + 60_000 } },
      },
    ]);
    const nights = suuntoSleepsOf("kimmo", today / DAY - 1);
    const sleep = await received((url) =>
      cloud.push(url, { type: "SUUNTO_247_SLEEP_CREATED", username: "kimmo", samples: nights }, pushSecret),
    );
    expect(push.verify(sleep, secrets, Date.now())).toBe(true);
    const [sleepNotice] = push.parse(sleep);
    expect(sleepNotice?.providerUserId).toBe("kimmo");
    expect(sleepNotice?.records?.sleeps[0]?.start).toBe(Date.parse(nights[0]?.entryData.BedtimeStart ?? ""));
    const t = today - DAY;
    const activity = await received((url) =>
      cloud.push(
        url,
        { type: "SUUNTO_247_ACTIVITY_CREATED", username: "kimmo", samples: [suuntoActivityAt("kimmo", t)] },
        pushSecret,
      ),
    );
    expect(push.parse(activity)[0]?.records?.samples.find((x) => x.seriesType === id("heart_rate"))?.recordedAt).toBe(
      t,
    );
    const route = await received((url) => cloud.push(url, { type: "ROUTE_CREATED", username: "kimmo" }, pushSecret));
    expect(push.parse(route)).toEqual([]);

    const forged = await received((url) =>
      cloud.push(url, { type: "WORKOUT_CREATED", username: "kimmo", workout }, "guess"),
    );
    expect(push.verify(forged, secrets, Date.now())).toBe(false);
    expect(push.verify({ ...created, headers: {} }, secrets, Date.now())).toBe(false);
    expect(push.verify(created, { clientSecret: credentials.clientSecret }, Date.now())).toBe(false);
    expect(() => push.parse({ ...created, rawBody: Buffer.from('{"type":"WORKOUT_CREATED"}') })).toThrow();
  });
});
