import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import {
  type PolarStandIn,
  polarActivityOf,
  polarExerciseOf,
  startPolarStandIn,
} from "../../testing/standins/polar.ts";
import { connectToStandIn, rawWorkoutsQuery, receivePush } from "../../testing/vendorHarness.ts";
import { VendorAuthError } from "../types.ts";
import { isoDurationSeconds, polar } from "./polar.ts";

const DAY = 86_400_000;
const credentials = { clientId: "polar-client", clientSecret: "polar-secret" };
const pushSecret = "polar-signature-secret-key";
const id = (code: string) => seriesTypeByCode(code)?.id;
let cloud: PolarStandIn;

beforeAll(async () => {
  cloud = await startPolarStandIn({ clients: { [credentials.clientId]: credentials.clientSecret } });
});
afterAll(() => cloud.close());

const received = (send: (url: string) => Promise<unknown>) => receivePush("polar", send);

describe("polar adapter", () => {
  const today = Math.floor(Date.now() / DAY) * DAY;
  const window = { start: today - 20 * DAY, end: today };

  it("connects with Basic client authentication and reads x_user_id; tokens are long-lived, without refresh token", async () => {
    const h = await connectToStandIn({ adapter: polar, origin: cloud.origin, credentials, login: "475" });
    expect(polar.oauth).toMatchObject({ pkce: false, clientAuth: "basic", scope: "accesslink.read_all" });
    expect(h.tokens.providerUserId).toBe("475");
    expect(h.tokens.refreshToken).toBeUndefined();
    expect(h.tokens.expiresAt).toBeGreaterThan(Date.now() + 3000 * DAY);
  });

  it("maps exercises: local start minus the offset, ISO duration, metres, kcal, heart rate, sport", async () => {
    const h = await connectToStandIn({ adapter: polar, origin: cloud.origin, credentials, login: "475" });
    const pages = await h.fetchAll("workouts", window);
    const workouts = pages.flatMap((p) => p.records.workouts);
    expect(workouts.length).toBeGreaterThan(8);
    for (const w of workouts) expect(w.start >= window.start && w.start < window.end).toBe(true);
    const day = today / DAY - 2 - ((today / DAY - 2) % 4 === 3 ? 1 : 0);
    const raw = polarExerciseOf("475", day);
    if (!raw) throw new Error("a rest day");
    const w = workouts.find((x) => x.externalId === raw.id);
    expect(w).toBeDefined();
    const start = Date.parse(`${raw.start_time}Z`) - 120 * 60_000;
    expect(w?.start).toBe(start);
    expect(w?.end).toBe(start + isoDurationSeconds(raw.duration) * 1000);
    expect(w?.zoneOffset).toBe("+02:00");
    expect(w?.type).toBe(
      { RUNNING_ROAD: "running", CYCLING_ROAD: "cycling", FITNESS_YOGA: "yoga" }[raw.detailed_sport_info],
    );
    expect(w?.deviceModel).toBe("Polar Vantage V3");
    expect(w?.details).toMatchObject({
      energyBurned: raw.calories,
      distance: raw.distance ?? null,
      heartRateAvg: raw.heart_rate.average,
      heartRateMax: raw.heart_rate.maximum,
    });
    expect(isoDurationSeconds("PT1H2M3.5S")).toBe(3723.5);
  });

  it("with the sync's `samples`, asks /v3/exercises?samples=true and writes each exercise's heart rate samples", async () => {
    const h = await connectToStandIn({ adapter: polar, origin: cloud.origin, credentials, login: "475" });
    const before = cloud.seen("/v3/exercises").length;
    const plain = await h.fetchAll("workouts", window);
    expect(cloud.seen("/v3/exercises")[before]).toEqual({});
    expect(plain.flatMap((p) => p.records.samples)).toEqual([]);
    const pages = await h.fetchAll("workouts", window, {
      detail: { samples: true, zones: false, route: false },
    });
    expect(cloud.seen("/v3/exercises").at(-1)).toEqual({ samples: "true" });
    const workouts = pages.flatMap((p) => p.records.workouts);
    const samples = pages.flatMap((p) => p.records.samples);
    expect(workouts.length).toBe(plain.flatMap((p) => p.records.workouts).length);
    const first = workouts[0];
    if (!first) throw new Error("no workout");
    const own = samples.filter((s) => s.recordedAt >= first.start && s.recordedAt < first.start + 600_000);
    // One a second for the stand-in's first ten minutes, its gap (the fourth second) skipped; speed is not heart rate.
    expect(own.length).toBe(599);
    expect(own.every((s) => s.seriesType === id("heart_rate") && s.zoneOffsetMinutes === 120)).toBe(true);
    expect(own[0]).toMatchObject({ recordedAt: first.start, value: 100 });
    expect(own[3]).toMatchObject({ recordedAt: first.start + 4000, value: 104 });
  });

  it("passes samples, zones and route through to AccessLink's exercise list", async () => {
    const h = await connectToStandIn({ adapter: polar, origin: cloud.origin, credentials, login: "475" });
    const raw = (await polar.listRawWorkouts?.(
      h.client,
      h.urls,
      rawWorkoutsQuery({ detail: { samples: false, zones: true, route: true } }),
    )) as { heart_rate_zones?: unknown[]; route?: unknown[]; samples?: unknown }[];
    expect(cloud.seen("/v3/exercises").at(-1)).toEqual({ zones: "true", route: "true" });
    expect(raw.every((e) => Array.isArray(e.heart_rate_zones) && e.samples === undefined)).toBe(true);
    expect(raw.some((e) => Array.isArray(e.route))).toBe(true);
    await polar.listRawWorkouts?.(h.client, h.urls, rawWorkoutsQuery());
    expect(cloud.seen("/v3/exercises").at(-1)).toEqual({});
  });

  it("maps nights with hypnogram stages across midnight, sleep heart rate, seven nights a page", async () => {
    const h = await connectToStandIn({ adapter: polar, origin: cloud.origin, credentials, login: "475" });
    // Twenty nights that have all ended (tonight's may not have, early in the UTC day).
    const pages = await h.fetchAll("sleep", { start: today - 21 * DAY, end: today - DAY });
    expect(pages.length).toBe(3); // 20 nights, 7 a page
    const sleeps = pages.flatMap((p) => p.records.sleeps);
    expect(sleeps.length).toBe(20);
    const raw = (await h.client.getJson(`${h.urls.apiBase}/v3/users/sleep/${sleeps[0]?.externalId}`)) as {
      sleep_start_time: string;
      sleep_end_time: string;
      light_sleep: number;
      deep_sleep: number;
      rem_sleep: number;
      total_interruption_duration: number;
    };
    const s = sleeps[0];
    expect(s?.start).toBe(Date.parse(raw.sleep_start_time));
    expect(s?.end).toBe(Date.parse(raw.sleep_end_time));
    expect(s?.zoneOffset).toBe("+02:00");
    expect(s?.details).toMatchObject({
      deepMinutes: Math.round(raw.deep_sleep / 60),
      lightMinutes: Math.round(raw.light_sleep / 60),
      remMinutes: Math.round(raw.rem_sleep / 60),
      awakeMinutes: Math.round(raw.total_interruption_duration / 60),
      totalDurationMinutes: Math.round((raw.deep_sleep + raw.light_sleep + raw.rem_sleep) / 60),
      isNap: false,
    });
    const stages = s?.details.stages ?? [];
    expect(stages[0]?.start).toBe(s?.start);
    expect(stages[stages.length - 1]?.end).toBe(s?.end);
    for (let i = 1; i < stages.length; i++) expect(stages[i]?.start).toBe(stages[i - 1]?.end);
    const minutesOf = (stage: string) =>
      stages.filter((x) => x.stage === stage).reduce((n, x) => n + (x.end - x.start) / 60_000, 0);
    expect(Math.round(minutesOf("deep"))).toBe(s?.details.deepMinutes);
    expect(Math.round(minutesOf("awake"))).toBe(s?.details.awakeMinutes);
    const hr = pages[0]?.records.samples ?? [];
    expect(hr.length).toBeGreaterThan(0);
    for (const x of hr) expect(x.seriesType).toBe(id("heart_rate"));
  });

  it("maps daily summaries in 28-day requests, and continuous heart rate a week a page", async () => {
    const h = await connectToStandIn({ adapter: polar, origin: cloud.origin, credentials, login: "475" });
    const long = { start: today - 40 * DAY, end: today };
    const pages = await h.fetchAll("daily", long);
    expect(pages.map((p) => p.fetched)).toEqual([28, 12]);
    const samples = pages.flatMap((p) => p.records.samples);
    const day = today / DAY - 3;
    const raw = polarActivityOf("475", day);
    const of = (code: string) => samples.find((x) => x.seriesType === id(code) && x.recordedAt === day * DAY);
    expect(of("steps")).toMatchObject({ value: raw.steps, isDailyTotal: true });
    expect(of("active_energy")?.value).toBe(raw.active_calories);
    expect(of("distance_walking_running")?.value).toBe(raw.distance_from_steps);
    await expect(
      h.client.getJson(`${h.urls.apiBase}/v3/users/activities`, { from: "2026-01-01", to: "2026-03-01" }),
    ).rejects.toMatchObject({ status: 400 });
    // A window reaching past 365 days asks only for what Polar still answers.
    const year = await h.fetchAll("daily", { start: today - 400 * DAY, end: today - 360 * DAY });
    expect(year.reduce((n, p) => n + p.fetched, 0)).toBe(5);

    const hr = await h.fetchAll("samples", { start: today - 10 * DAY, end: today });
    expect(hr.length).toBe(2);
    const all = hr.flatMap((p) => p.records.samples);
    expect(all.length).toBe(10 * 288);
    expect(all[0]).toMatchObject({ seriesType: id("heart_rate"), recordedAt: today - 10 * DAY });
  });

  it("retries a 429 after Retry-After", async () => {
    const h = await connectToStandIn({ adapter: polar, origin: cloud.origin, credentials, login: "476" });
    cloud.throttle(2, 1);
    const pages = await h.fetchAll("workouts", window);
    expect(pages[0]?.records.workouts.length).toBeGreaterThan(0);
  });

  it("has no refresh token: an expired or revoked token is a VendorAuthError (the user consents again)", async () => {
    const expired = await connectToStandIn({ adapter: polar, origin: cloud.origin, credentials, login: "477" });
    cloud.expireAccessTokens();
    await expect(expired.fetchAll("workouts", window)).rejects.toBeInstanceOf(VendorAuthError);
    const revoked = await connectToStandIn({ adapter: polar, origin: cloud.origin, credentials, login: "478" });
    cloud.revokeUser("478");
    await expect(revoked.fetchAll("workouts", window)).rejects.toBeInstanceOf(VendorAuthError);
  });

  it("verifies a signed notification and parses it into a pull; a wrong or missing signature does not verify", async () => {
    const push = polar.push;
    if (!push) throw new Error("polar pushes");
    const secrets = { clientSecret: credentials.clientSecret, pushSecret };
    const event = {
      event: "EXERCISE" as const,
      user_id: 475,
      entity_id: "aQlC83",
      timestamp: "2026-03-10T14:22:24Z",
      url: "https://www.polaraccesslink.com/v3/exercises/aQlC83",
    };
    const good = await received((url) => cloud.push(url, event, pushSecret));
    expect(push.verify(good, secrets, Date.now())).toBe(true);
    expect(push.parse(good)).toEqual([
      {
        providerUserId: "475",
        pull: {
          kinds: ["workouts"],
          window: { start: Date.parse(event.timestamp) - 2 * DAY, end: Date.parse(event.timestamp) + DAY },
        },
      },
    ]);
    const sleep = await received((url) =>
      cloud.push(url, { ...event, event: "SLEEP", date: "2026-03-09" }, pushSecret),
    );
    expect(push.parse(sleep)[0]?.pull?.kinds).toEqual(["sleep"]);
    const wrong = await received((url) => cloud.push(url, event, "another-secret"));
    expect(push.verify(wrong, secrets, Date.now())).toBe(false);
    expect(push.verify({ ...good, headers: { "content-type": "application/json" } }, secrets, Date.now())).toBe(false);
    expect(push.verify(good, { clientSecret: credentials.clientSecret }, Date.now())).toBe(false);
    const tampered = { ...good, rawBody: Buffer.from(good.rawBody.toString().replace("475", "476")) };
    expect(push.verify(tampered, secrets, Date.now())).toBe(false);
    // The registration's PING comes before its secret is known: accepted whatever its signature, it asks for nothing.
    const ping = await received((url) => cloud.push(url, { event: "PING", timestamp: event.timestamp }, "unknown-yet"));
    expect(push.verify(ping, secrets, Date.now())).toBe(true);
    expect(push.parse(ping)).toEqual([]);
    expect(() => push.parse({ ...good, rawBody: Buffer.from("not json") })).toThrow();
  });
});
