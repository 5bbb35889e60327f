/**
 * A stand-in for Polar AccessLink v3 (https://www.polar.com/accesslink-api/): Polar's OAuth paths
 * (`/oauth2/authorization`, `/v2/oauth2/token`), Basic client authentication, `x_user_id` in the token answer,
 * long-lived access tokens and no refresh token; the data routes an adapter reads, with deterministic data per
 * user and day (every user lives in UTC+2):
 * - `GET /v3/exercises?samples&zones&route` → the last 30 days' exercises, with heart rate samples (one a second,
 *   `sample_type` 0), heart rate zones and the route when asked (`true`);
 * - `GET /v3/users/sleep/available` and `GET /v3/users/sleep/{date}` → the last 28 nights;
 * - `GET /v3/users/activities?from&to` and `GET /v3/users/continuous-heart-rate?from&to` (inclusive dates, at most 28
 *   days, activities' `from` at most 365 days ago; 400 otherwise).
 * `push()` sends a notification signed as Polar signs them, the PING too (`Polar-Webhook-Signature`, hex
 * HMAC-SHA256 of the body).
 */
import { createHmac } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type Grant, startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

const DAY = 86_400_000;
const OFFSET_MIN = 120;
const TEN_YEARS_SEC = 315_359_999;

export interface PolarStandIn extends VendorCloud {
  /** POSTs a Polar webhook notification to `targetUrl`, signed with `secret` (a wrong one to test rejection). */
  push(targetUrl: string, event: PolarNotification, secret: string): Promise<Response>;
}
export interface PolarNotification {
  event: "EXERCISE" | "SLEEP" | "CONTINUOUS_HEART_RATE" | "ACTIVITY_SUMMARY" | "PING";
  user_id?: number;
  entity_id?: string;
  timestamp?: string;
  date?: string;
  url?: string;
}

const pad = (n: number) => String(n).padStart(2, "0");
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Local wall clock (UTC+2) of an instant, without zone, as Polar writes `start_time`. */
const localClock = (ms: number) => new Date(ms + OFFSET_MIN * 60_000).toISOString().slice(0, 19);
const withOffset = (ms: number) => `${new Date(ms + OFFSET_MIN * 60_000).toISOString().slice(0, 23)}+02:00`;
const seed = (user: string, day: number) => {
  let h = 2166136261 ^ day;
  for (const c of user) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return (h >>> 0) % 1000;
};

const SPORTS = [
  { sport: "RUNNING", detailed_sport_info: "RUNNING_ROAD", speed: 2.9, kcalPerMin: 11 },
  { sport: "CYCLING", detailed_sport_info: "CYCLING_ROAD", speed: 7.5, kcalPerMin: 9 },
  { sport: "OTHER", detailed_sport_info: "FITNESS_YOGA", speed: 0, kcalPerMin: 4 },
];

/** The exercise of a day (UTC day number), or none on rest days. */
export function polarExerciseOf(user: string, day: number) {
  const r = seed(user, day);
  if (day % 4 === 3) return undefined;
  const s = SPORTS[day % SPORTS.length] as (typeof SPORTS)[number];
  const start = day * DAY + (5 * 60 + 30 + (r % 60)) * 60_000; // 07:30–08:29 local
  const seconds = 1800 + (r % 30) * 60 + 30;
  return {
    id: `ex-${user}-${day}`,
    upload_time: new Date(start + seconds * 1000 + 600_000).toISOString(),
    polar_user: `https://www.polaraccesslink.com/v3/users/${user}`,
    device: "Polar Vantage V3",
    device_id: "1111AAAA",
    start_time: localClock(start),
    start_time_utc_offset: OFFSET_MIN,
    duration: `PT${Math.floor(seconds / 60)}M${seconds % 60}S`,
    calories: Math.round((s.kcalPerMin * seconds) / 60),
    distance: s.speed > 0 ? Math.round(s.speed * seconds * 10) / 10 : undefined,
    heart_rate: { average: 120 + (r % 30), maximum: 160 + (r % 25) },
    training_load: 80.5,
    sport: s.sport,
    has_route: s.speed > 0,
    detailed_sport_info: s.detailed_sport_info,
  };
}

type PolarExerciseFixture = NonNullable<ReturnType<typeof polarExerciseOf>>;
const exerciseSeconds = (e: PolarExerciseFixture) => {
  const m = /^PT(\d+)M(\d+)S$/.exec(e.duration);
  return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
};

/** AccessLink's `samples` of an exercise: heart rate (type 0) a second at a time, speed (type 1) every 5 s. */
export function polarExerciseSamplesOf(e: PolarExerciseFixture) {
  const seconds = Math.min(exerciseSeconds(e), 600); // the first ten minutes: enough for the tests
  const hr: string[] = [];
  for (let i = 0; i < seconds; i++) hr.push(i === 3 ? "" : String(100 + (i % 40)));
  const speed: string[] = [];
  for (let i = 0; i < seconds; i += 5) speed.push("10.5");
  return [
    { recording_rate: 1, sample_type: "0", data: hr.join(",") },
    { recording_rate: 5, sample_type: "1", data: speed.join(",") },
  ];
}

export function polarZonesOf(e: PolarExerciseFixture) {
  const s = exerciseSeconds(e);
  return [100, 120, 140, 160, 180].map((lower, index) => ({
    index,
    lower_limit: lower,
    upper_limit: lower + 20,
    in_zone: `PT${Math.floor(s / 5 / 60)}M`,
  }));
}

/** The route of an outdoor exercise (a few points in Helsinki, times from the start). */
export function polarRouteOf() {
  return [0, 60, 120].map((t, i) => ({
    latitude: 60.17 + i * 0.001,
    longitude: 24.94 + i * 0.001,
    time: `PT${t}S`,
    satellites: 9,
  }));
}

/** The night ending on `date` (UTC day number of the wake-up day). */
export function polarNightOf(user: string, day: number) {
  const r = seed(user, day);
  // Bed 23:10–23:39 local the evening before, up 06:40 local.
  const start = day * DAY - (50 + (r % 30)) * 60_000 - OFFSET_MIN * 60_000;
  const end = day * DAY + (6 * 60 + 40) * 60_000 - OFFSET_MIN * 60_000;
  const hypnogram: Record<string, number> = {};
  const heartRate: Record<string, number> = {};
  const pattern = [2, 3, 4, 3, 1, 0, 2, 4, 3, 1, 2, 0];
  const clock = (ms: number) => {
    const d = new Date(ms + OFFSET_MIN * 60_000);
    return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  };
  let i = 0;
  for (let t = start; t < end; t += 40 * 60_000) hypnogram[clock(t)] = pattern[i++ % pattern.length] as number;
  for (let t = start; t < end; t += 30 * 60_000) heartRate[clock(t)] = 52 + ((t / 60_000) % 7);
  // Stage seconds as the hypnogram says, interruptions are its wake stages.
  const keys = Object.keys(hypnogram);
  const seconds = { light: 0, deep: 0, rem: 0, wake: 0 };
  keys.forEach((_, k) => {
    const from = start + k * 40 * 60_000;
    const to = Math.min(end, from + 40 * 60_000);
    const stage = hypnogram[keys[k] as string];
    const s = (to - from) / 1000;
    if (stage === 4) seconds.deep += s;
    else if (stage === 1) seconds.rem += s;
    else if (stage === 0) seconds.wake += s;
    else seconds.light += s;
  });
  return {
    polar_user: `https://www.polaraccesslink.com/v3/users/${user}`,
    date: isoDate(day * DAY),
    sleep_start_time: withOffset(start),
    sleep_end_time: withOffset(end),
    device_id: "1111AAAA",
    continuity: 3.1,
    continuity_class: 3,
    light_sleep: seconds.light,
    deep_sleep: seconds.deep,
    rem_sleep: seconds.rem,
    unrecognized_sleep_stage: 0,
    sleep_score: 70 + (r % 20),
    total_interruption_duration: seconds.wake,
    sleep_charge: 3,
    sleep_goal: 28800,
    sleep_rating: 3,
    short_interruption_duration: 0,
    long_interruption_duration: seconds.wake,
    sleep_cycles: 5,
    group_duration_score: 90,
    group_solidity_score: 70,
    group_regeneration_score: 60,
    hypnogram,
    heart_rate_samples: heartRate,
  };
}

export function polarActivityOf(user: string, day: number) {
  const r = seed(user, day);
  const steps = 6000 + r * 7;
  return {
    start_time: `${isoDate(day * DAY)}T00:00:00`,
    end_time: `${isoDate(day * DAY)}T23:59:59`,
    active_duration: "PT2H10M",
    inactive_duration: "PT12H",
    daily_activity: 88.5,
    calories: 2300 + r,
    active_calories: 500 + (r % 300),
    steps,
    inactivity_alert_count: 1,
    distance_from_steps: Math.round(steps * 0.78 * 10) / 10,
  };
}

/** Dates `from`..`to` as day numbers, or a reason for Polar's 400. */
function dateRange(
  q: Record<string, string | undefined>,
  oldestFrom?: number,
): { first: number; last: number } | string {
  if (!q.from || !q.to || !/^\d{4}-\d{2}-\d{2}$/.test(q.from) || !/^\d{4}-\d{2}-\d{2}$/.test(q.to))
    return "from and to are required dates (YYYY-MM-DD)";
  const first = Date.parse(`${q.from}T00:00:00Z`) / DAY;
  const last = Date.parse(`${q.to}T00:00:00Z`) / DAY;
  if (Number.isNaN(first) || Number.isNaN(last) || last < first) return "to must not be before from";
  if (last - first + 1 > 28) return "the maximum range is 28 days";
  if (oldestFrom !== undefined && first < oldestFrom) return "from date cannot be older than 365 days from today";
  return { first, last };
}

export async function startPolarStandIn(p: {
  clients: Record<string, string>;
  /** Polar's tokens last about ten years; tests shorten them. */
  accessTtlSec?: number;
  host?: string;
  port?: number;
}): Promise<PolarStandIn> {
  const cloud = await startVendorCloud({
    paths: { authorize: "/oauth2/authorization", token: "/v2/oauth2/token" },
    clients: p.clients,
    accessTtlSec: p.accessTtlSec ?? TEN_YEARS_SEC,
    title: "Polar Flow",
    host: p.host,
    port: p.port,
    // Polar answers `x_user_id` (an integer) and no refresh token.
    tokenExtras: (g: Grant) => ({ x_user_id: Number(g.userId), refresh_token: undefined, scope: undefined }),
    routes: (c) => polarRoutes(c),
  });
  return Object.assign(cloud, {
    push: async (targetUrl: string, event: PolarNotification, secret: string) => {
      const body = JSON.stringify(event);
      return fetch(targetUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "polar-webhook-event": event.event,
          "polar-webhook-signature": createHmac("sha256", secret).update(body).digest("hex"),
        },
        body,
      });
    },
  });
}

function polarRoutes(cloud: VendorCloud) {
  const today = () => Math.floor(Date.now() / DAY);
  const guarded =
    (handler: (user: string, req: FastifyRequest, reply: FastifyReply) => unknown) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      const grant = cloud.authenticate(req, reply);
      if (!grant) return reply;
      return handler(grant.userId, req, reply);
    };
  cloud.app.get(
    "/v3/exercises",
    guarded((user, req) => {
      const q = req.query as Record<string, string | undefined>;
      const out = [];
      for (let d = today() - 30; d <= today(); d++) {
        const e = polarExerciseOf(user, d);
        if (e && Date.parse(e.upload_time) <= Date.now())
          out.push({
            ...e,
            ...(q.samples === "true" ? { samples: polarExerciseSamplesOf(e) } : {}),
            ...(q.zones === "true" ? { heart_rate_zones: polarZonesOf(e) } : {}),
            ...(q.route === "true" && e.has_route ? { route: polarRouteOf() } : {}),
          });
      }
      return out;
    }),
  );
  cloud.app.get(
    "/v3/users/sleep/available",
    guarded((user) => {
      const available = [];
      for (let d = today() - 27; d <= today(); d++) {
        const n = polarNightOf(user, d);
        if (Date.parse(n.sleep_end_time) <= Date.now())
          available.push({ date: n.date, start_time: n.sleep_start_time, end_time: n.sleep_end_time });
      }
      return { available };
    }),
  );
  cloud.app.get(
    "/v3/users/sleep/:date",
    guarded((user, req, reply) => {
      const { date } = req.params as { date: string };
      const day = Date.parse(`${date}T00:00:00Z`) / DAY;
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(day)) return reply.code(400).send({ error: "bad date" });
      const n = polarNightOf(user, day);
      if (day < today() - 27 || Date.parse(n.sleep_end_time) > Date.now()) return reply.code(404).send();
      return n;
    }),
  );
  cloud.app.get(
    "/v3/users/activities",
    guarded((user, req, reply) => {
      const range = dateRange(req.query as Record<string, string | undefined>, today() - 365);
      if (typeof range === "string") return reply.code(400).send({ error: range });
      const out = [];
      for (let d = range.first; d <= Math.min(range.last, today() - 1); d++) out.push(polarActivityOf(user, d));
      return out;
    }),
  );
  cloud.app.get(
    "/v3/users/continuous-heart-rate",
    guarded((user, req, reply) => {
      const range = dateRange(req.query as Record<string, string | undefined>);
      if (typeof range === "string") return reply.code(400).send({ error: range });
      const heart_rates = [];
      for (let d = range.first; d <= Math.min(range.last, today() - 1); d++) {
        const samples = [];
        for (let m = 0; m < 1440; m += 5)
          samples.push({
            heart_rate: 60 + ((seed(user, d) + m) % 40),
            sample_time: `${pad(Math.floor(m / 60))}:${pad(m % 60)}:00`,
          });
        heart_rates.push({
          polar_user: `https://www.polaraccesslink.com/v3/users/${user}`,
          date: isoDate(d * DAY),
          heart_rate_samples: samples,
        });
      }
      return { heart_rates };
    }),
  );
}
