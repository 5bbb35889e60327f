import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import {
  type FitbitStandIn,
  fitbitActivityOf,
  fitbitRestingOf,
  fitbitRmssdOf,
  fitbitSleepsOf,
  fitbitStepsOf,
  startFitbitStandIn,
} from "../../testing/standins/fitbit.ts";
import { connectToStandIn, receivePush } from "../../testing/vendorHarness.ts";
import { buildAuthorizeUrl, newState, revokeToken } from "../oauthClient.ts";
import { VendorAuthError } from "../types.ts";
import { resolveVendorUrls } from "../vendorUrls.ts";
import { fitbit } from "./fitbit.ts";

const DAY = 86_400_000;
const credentials = { clientId: "23ABCD", clientSecret: "fitbit-secret" };
const verificationCode = "fitbit-subscriber-verification-code";
const id = (code: string) => seriesTypeByCode(code)?.id;
let cloud: FitbitStandIn;

beforeAll(async () => {
  cloud = await startFitbitStandIn({ clients: { [credentials.clientId]: credentials.clientSecret } });
});
afterAll(() => cloud.close());

const received = (send: (url: string) => Promise<unknown>) => receivePush("fitbit", send);

describe("fitbit adapter", () => {
  // Local days (UTC+1) as day numbers; the windows end at a UTC midnight before now.
  const today = Math.floor(Date.now() / DAY) * DAY;

  it("connects with PKCE and Basic client authentication and reads user_id; consent without PKCE is refused", async () => {
    const h = await connectToStandIn({ adapter: fitbit, origin: cloud.origin, credentials, login: "7QX9ZB" });
    expect(fitbit.oauth).toMatchObject({ pkce: true, clientAuth: "basic", scope: "activity heartrate sleep profile" });
    expect(h.tokens.providerUserId).toBe("7QX9ZB");
    expect(h.tokens.refreshToken).toBeTruthy();
    expect(h.tokens.expiresAt).toBeGreaterThan(Date.now() + 7 * 3600_000);
    const urls = resolveVendorUrls(fitbit, { fitbit: cloud.origin });
    const withoutPkce = buildAuthorizeUrl({
      adapter: fitbit,
      urls,
      credentials,
      redirectUri: "http://127.0.0.1:1/cb",
      state: newState(),
    });
    expect((await fetch(withoutPkce)).status).toBe(400);
    expect(await fitbit.fetchIdentity?.(h.client, h.urls)).toEqual({
      providerUserId: "7QX9ZB",
      providerUsername: "Fitbit 7QX9ZB",
    });
  });

  it("follows pagination.next through the activity list and maps km, km/h and ms", async () => {
    const h = await connectToStandIn({ adapter: fitbit, origin: cloud.origin, credentials, login: "7QX9ZB" });
    const window = { start: today - 150 * DAY, end: today - 5 * DAY };
    const pages = await h.fetchAll("workouts", window);
    expect(pages.length).toBe(2);
    const workouts = pages.flatMap((p) => p.records.workouts);
    for (const w of workouts) expect(w.start >= window.start && w.start < window.end).toBe(true);
    let day = today / DAY - 20;
    while (day % 5 !== 0 || day % 4 === 3) day -= 1; // a Run
    const raw = fitbitActivityOf("7QX9ZB", day);
    if (!raw?.distance || !raw.speed || !raw.steps) throw new Error("a run");
    const w = workouts.find((x) => x.externalId === String(raw.logId));
    expect(w).toEqual({
      type: "running",
      start: Date.parse(raw.startTime),
      end: Date.parse(raw.startTime) + raw.duration,
      zoneOffset: "+01:00",
      externalId: String(raw.logId),
      sourceName: "Charge 6",
      deviceModel: "Charge 6",
      details: {
        energyBurned: raw.calories,
        distance: raw.distance * 1000,
        averageSpeed: raw.speed / 3.6,
        totalElevationGain: raw.elevationGain,
        stepsCount: raw.steps,
        heartRateAvg: raw.averageHeartRate,
        movingTimeSeconds: raw.activeDuration / 1000,
      },
    });
    const types = new Set(workouts.map((x) => x.type));
    expect([...types].sort()).toEqual(["cycling", "elliptical", "running", "walking", "yoga"]);
  });

  it("maps sleep: local times with the profile's offset, stage intervals, classic nights and naps", async () => {
    const h = await connectToStandIn({ adapter: fitbit, origin: cloud.origin, credentials, login: "7QX9ZB" });
    const window = { start: today - 150 * DAY, end: today - 2 * DAY };
    const pages = await h.fetchAll("sleep", window);
    expect(pages.length).toBe(2);
    const sleeps = pages.flatMap((p) => p.records.sleeps);
    let day = today / DAY - 10;
    while (day % 6 === 0 || day % 5 === 0) day -= 1; // a stages night without nap
    const [raw] = fitbitSleepsOf("7QX9ZB", day);
    if (!raw) throw new Error("a night");
    const s = sleeps.find((x) => x.externalId === String(raw.logId));
    const instant = (local: string) => Date.parse(`${local}Z`) - 3600_000;
    const summary = raw.levels.summary as Record<string, { minutes: number }>;
    expect(s?.start).toBe(instant(raw.startTime));
    expect(s?.end).toBe(instant(raw.endTime));
    expect(s?.zoneOffset).toBe("+01:00");
    expect(s?.details).toMatchObject({
      totalDurationMinutes: raw.minutesAsleep,
      timeInBedMinutes: raw.timeInBed,
      efficiencyScore: raw.efficiency,
      deepMinutes: summary.deep?.minutes,
      lightMinutes: summary.light?.minutes,
      remMinutes: summary.rem?.minutes,
      awakeMinutes: summary.wake?.minutes,
      isNap: false,
    });
    const first = raw.levels.data[0];
    expect(s?.details.stages[0]).toEqual({
      stage: "awake",
      start: instant(first?.dateTime ?? ""),
      end: instant(first?.dateTime ?? "") + (first?.seconds ?? 0) * 1000,
    });
    expect(new Set(s?.details.stages.map((x) => x.stage))).toEqual(new Set(["awake", "light", "deep", "rem"]));

    let classicDay = today / DAY - 10;
    while (classicDay % 6 !== 0 || classicDay % 5 !== 0) classicDay -= 1; // classic, with a nap
    const [night, nap] = fitbitSleepsOf("7QX9ZB", classicDay);
    const classic = sleeps.find((x) => x.externalId === String(night?.logId));
    expect(classic?.details).toMatchObject({
      deepMinutes: null,
      remMinutes: null,
      awakeMinutes: night?.minutesAwake,
      isNap: false,
    });
    expect(classic?.details.stages.some((x) => x.stage === "sleeping")).toBe(true);
    expect(sleeps.find((x) => x.externalId === String(nap?.logId))?.details.isNap).toBe(true);
  });

  it("maps daily steps, resting heart rate and HRV thirty days a page", async () => {
    const h = await connectToStandIn({ adapter: fitbit, origin: cloud.origin, credentials, login: "7QX9ZB" });
    const pages = await h.fetchAll("daily", { start: today - 45 * DAY, end: today - DAY });
    expect(pages.map((p) => p.fetched)).toEqual([30, 14]);
    const samples = pages.flatMap((p) => p.records.samples);
    const day = today / DAY - 9;
    const at = (code: string, d = day) => samples.find((x) => x.seriesType === id(code) && x.recordedAt === d * DAY);
    expect(at("steps")).toMatchObject({ value: fitbitStepsOf("7QX9ZB", day), isDailyTotal: true });
    const restDay = day % 7 === 6 ? day - 1 : day;
    expect(at("resting_heart_rate", restDay)?.value).toBe(fitbitRestingOf("7QX9ZB", restDay));
    expect(at("heart_rate_variability_rmssd")?.value).toBe(fitbitRmssdOf("7QX9ZB", day));
    let noRest = day;
    while (noRest % 7 !== 6) noRest -= 1;
    expect(at("resting_heart_rate", noRest)).toBeUndefined();
    await expect(
      h.client.getJson(`${h.urls.apiBase}/1/user/-/hrv/date/2026-01-01/2026-03-01.json`),
    ).rejects.toMatchObject({
      status: 400,
    });
    await expect(
      h.client.getJson(`${h.urls.apiBase}/1/user/-/activities/list.json`, {
        afterDate: "2026-01-01",
        sort: "desc",
        limit: 10,
        offset: 0,
      }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("retries a 429, refreshes an expired token once with rotation, and a revoked grant is a VendorAuthError", async () => {
    const h = await connectToStandIn({ adapter: fitbit, origin: cloud.origin, credentials, login: "ANNA01" });
    const before = h.tokens.refreshToken;
    cloud.expireAccessTokens();
    cloud.throttle(2, 1);
    const pages = await h.fetchAll("workouts", { start: today - 10 * DAY, end: today });
    expect(pages[0]?.records.workouts.length).toBeGreaterThan(0);
    expect(h.refreshes).toBe(1);
    expect(h.tokens.refreshToken).not.toBe(before);
    cloud.revokeUser("ANNA01");
    await expect(h.fetchAll("workouts", { start: today - 10 * DAY, end: today })).rejects.toBeInstanceOf(
      VendorAuthError,
    );

    const other = await connectToStandIn({ adapter: fitbit, origin: cloud.origin, credentials, login: "BOB002" });
    expect(await revokeToken({ adapter: fitbit, urls: other.urls, credentials, token: other.tokens.accessToken })).toBe(
      true,
    );
    await expect(other.fetchAll("sleep", { start: today - 3 * DAY, end: today })).rejects.toBeInstanceOf(
      VendorAuthError,
    );
  });

  it("verifies notifications signed with the client secret, parses them into pulls, and answers the verification GET", async () => {
    const push = fitbit.push;
    if (!push?.challenge) throw new Error("fitbit pushes and verifies subscribers");
    const secrets = { clientSecret: credentials.clientSecret, pushSecret: verificationCode };
    const notifications = [
      {
        collectionType: "activities",
        date: "2026-03-10",
        ownerId: "7QX9ZB",
        ownerType: "user" as const,
        subscriptionId: "1",
      },
      {
        collectionType: "sleep",
        date: "2026-03-11",
        ownerId: "7QX9ZB",
        ownerType: "user" as const,
        subscriptionId: "1",
      },
      {
        collectionType: "foods",
        date: "2026-03-11",
        ownerId: "7QX9ZB",
        ownerType: "user" as const,
        subscriptionId: "1",
      },
      { collectionType: "userRevokedAccess", ownerId: "ANNA01", ownerType: "user" as const, subscriptionId: "2" },
    ];
    const good = await received((url) => cloud.push(url, notifications, credentials.clientSecret));
    expect(push.verify(good, secrets, Date.now())).toBe(true);
    const march10 = Date.parse("2026-03-10T00:00:00Z");
    expect(push.parse(good)).toEqual([
      {
        providerUserId: "7QX9ZB",
        pull: { kinds: ["workouts", "daily"], window: { start: march10 - DAY, end: march10 + 2 * DAY } },
      },
      { providerUserId: "7QX9ZB", pull: { kinds: ["sleep"], window: { start: march10, end: march10 + 3 * DAY } } },
      { providerUserId: "ANNA01", deauthorized: true },
    ]);
    const forged = await received((url) => cloud.push(url, notifications, "not-the-secret"));
    expect(push.verify(forged, secrets, Date.now())).toBe(false);
    expect(push.verify({ ...good, headers: {} }, secrets, Date.now())).toBe(false);
    expect(
      push.verify(
        { ...good, rawBody: Buffer.from(good.rawBody.toString().replace("sleep", "body!")) },
        secrets,
        Date.now(),
      ),
    ).toBe(false);
    expect(() => push.parse({ ...good, rawBody: Buffer.from('{"collectionType":"sleep"}') })).toThrow();

    // Fitbit verifies a subscriber with the right code (204 expected) and a wrong one (404 expected).
    expect(push.challenge({ verify: verificationCode }, secrets)).toEqual({ status: 204, body: null });
    expect(push.challenge({ verify: "wrong" }, secrets)).toEqual({ status: 404, body: null });
    expect(push.challenge({ verify: verificationCode }, { clientSecret: credentials.clientSecret })).toEqual({
      status: 404,
      body: null,
    });
    expect(push.challenge({}, secrets)).toBeUndefined();
  });
});
