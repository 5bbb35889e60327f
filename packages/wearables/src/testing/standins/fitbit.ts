/**
 * A stand-in for the Fitbit Web API (https://dev.fitbit.com/build/reference/web-api/): Fitbit's OAuth paths
 * (`/oauth2/authorize`, `/oauth2/token`, `/oauth2/revoke`), PKCE required, Basic client authentication, `user_id`
 * in the token answer, 8-hour access tokens and rotating refresh tokens; the data routes an adapter reads, with
 * deterministic data per user and local day (every user lives in Europe/Berlin winter time, UTC+1):
 * - `GET /1/user/-/profile.json`;
 * - `GET /1/user/-/activities/list.json` and `GET /1.2/user/-/sleep/list.json` (`afterDate` xor `beforeDate`, `sort`
 *   asc with afterDate and desc with beforeDate, `limit` ≤ 100, `offset`; `pagination.next` links);
 * - `GET /1/user/-/activities/steps/date/{start}/{end}.json`, `…/activities/heart/date/…` (≤ 1 year) and
 *   `GET /1/user/-/hrv/date/{start}/{end}.json` (≤ 30 days).
 * Errors are Fitbit's `{errors: [{errorType, fieldName, message}], success: false}`.
 * `push()` sends a subscription notification signed as Fitbit signs them (`X-Fitbit-Signature`, base64 HMAC-SHA1
 * with `<client secret>&`), and `verifySubscriber()` makes Fitbit's two verification GETs.
 */
import { createHmac } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type Grant, startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

const DAY = 86_400_000;
const MINUTE = 60_000;
const OFFSET_MIN = 60;
const HISTORY_DAYS = 200;

export interface FitbitNotification {
  collectionType: string;
  date?: string;
  ownerId: string;
  ownerType: "user";
  subscriptionId: string;
}
export interface FitbitStandIn extends VendorCloud {
  /** POSTs a notification array to `targetUrl`, signed with the app's `clientSecret`. */
  push(targetUrl: string, notifications: FitbitNotification[], clientSecret: string): Promise<Response>;
}

const seed = (user: string, n: number) => {
  let h = 2166136261 ^ n;
  for (const c of user) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return (h >>> 0) % 1000;
};
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Local wall clock (UTC+1), milliseconds, no zone: Fitbit's sleep times. */
const localClock = (ms: number) => new Date(ms + OFFSET_MIN * MINUTE).toISOString().slice(0, 23);
const withOffset = (ms: number) => `${localClock(ms)}+01:00`;

const TYPES = [
  { id: 90009, name: "Run", speedKmh: 10.8, steps: true },
  { id: 90001, name: "Bike", speedKmh: 24, steps: false },
  { id: 90013, name: "Walk", speedKmh: 5.4, steps: true },
  { id: 52001, name: "Yoga", speedKmh: 0, steps: false },
  { id: 20047, name: "Elliptical", speedKmh: 0, steps: true },
];

/** The activity of a local day (day number of the local date), none every fourth day. */
export function fitbitActivityOf(user: string, day: number) {
  if (day % 4 === 3) return undefined;
  const r = seed(user, day);
  const t = TYPES[day % TYPES.length] as (typeof TYPES)[number];
  const start = day * DAY + (17 * 60 + (r % 60) - OFFSET_MIN) * MINUTE;
  const duration = (30 + (r % 40)) * MINUTE;
  const activeDuration = duration - 60_000;
  const km = t.speedKmh > 0 ? Math.round(((t.speedKmh * activeDuration) / 3600_000) * 1000) / 1000 : undefined;
  return {
    activeDuration,
    activityLevel: [{ minutes: 0, name: "sedentary" }],
    activityName: t.name,
    activityTypeId: t.id,
    averageHeartRate: 110 + (r % 40),
    calories: 200 + (r % 300),
    ...(km !== undefined
      ? { distance: km, distanceUnit: "Kilometer", speed: t.speedKmh, pace: 3600 / t.speedKmh }
      : {}),
    duration,
    elevationGain: t.speedKmh > 0 ? 12.5 + (r % 20) : 0,
    hasActiveZoneMinutes: true,
    lastModified: new Date(start + duration + 10 * MINUTE).toISOString(),
    logId: 19_000_000_000 + day * 10,
    logType: "auto_detected",
    originalDuration: duration,
    originalStartTime: withOffset(start),
    source: { id: "1", name: "Charge 6", type: "tracker", url: "https://www.fitbit.com/" },
    startTime: withOffset(start),
    ...(t.steps ? { steps: Math.round((activeDuration / 60_000) * 140) } : {}),
  };
}

/** The main sleep ending on local day `day` (stages, or classic every sixth day), and a nap every fifth day. */
export function fitbitSleepsOf(user: string, day: number) {
  const r = seed(user, day);
  const start = day * DAY - (60 + 20 + (r % 30) + OFFSET_MIN) * MINUTE; // 22:10–22:39 local
  const classic = day % 6 === 0;
  const cycle = classic ? ["asleep", "restless", "asleep", "awake"] : ["wake", "light", "deep", "light", "rem"];
  const data: { dateTime: string; level: string; seconds: number }[] = [];
  let t = start;
  let i = 0;
  const end = start + (8 * 60 + (r % 40)) * MINUTE;
  while (t < end) {
    const level = cycle[i % cycle.length] as string;
    const seconds = Math.min(
      (level === "wake" || level === "awake" || level === "restless" ? 6 : 36) * 60,
      (end - t) / 1000,
    );
    data.push({ dateTime: localClock(t), level, seconds });
    t += seconds * 1000;
    i += 1;
  }
  const minutesOf = (level: string) => data.filter((d) => d.level === level).reduce((n, d) => n + d.seconds / 60, 0);
  const awake = classic ? minutesOf("awake") + minutesOf("restless") : minutesOf("wake");
  const inBed = (end - start) / MINUTE;
  const summary = classic
    ? {
        asleep: { count: 0, minutes: minutesOf("asleep") },
        awake: { count: 1, minutes: minutesOf("awake") },
        restless: { count: 1, minutes: minutesOf("restless") },
      }
    : {
        deep: { count: 3, minutes: minutesOf("deep"), thirtyDayAvgMinutes: 80 },
        light: { count: 20, minutes: minutesOf("light"), thirtyDayAvgMinutes: 250 },
        rem: { count: 5, minutes: minutesOf("rem"), thirtyDayAvgMinutes: 90 },
        wake: { count: 10, minutes: minutesOf("wake"), thirtyDayAvgMinutes: 50 },
      };
  const main = {
    dateOfSleep: isoDate(day * DAY),
    duration: end - start,
    efficiency: Math.round(((inBed - awake) / inBed) * 100),
    endTime: localClock(end),
    infoCode: 0,
    isMainSleep: true,
    levels: { data, shortData: [], summary },
    logId: 30_000_000_000 + day * 10,
    logType: "auto_detected",
    minutesAfterWakeup: 0,
    minutesAsleep: inBed - awake,
    minutesAwake: awake,
    minutesToFallAsleep: 0,
    startTime: localClock(start),
    timeInBed: inBed,
    type: classic ? "classic" : "stages",
  };
  if (day % 5 !== 0) return [main];
  const napStart = day * DAY + (14 * 60 - OFFSET_MIN) * MINUTE;
  const nap = {
    dateOfSleep: isoDate(day * DAY),
    duration: 40 * MINUTE,
    efficiency: 95,
    endTime: localClock(napStart + 40 * MINUTE),
    infoCode: 0,
    isMainSleep: false,
    levels: {
      data: [
        { dateTime: localClock(napStart), level: "asleep", seconds: 38 * 60 },
        { dateTime: localClock(napStart + 38 * MINUTE), level: "awake", seconds: 120 },
      ],
      shortData: [],
      summary: {
        asleep: { count: 0, minutes: 38 },
        awake: { count: 1, minutes: 2 },
        restless: { count: 0, minutes: 0 },
      },
    },
    logId: 30_000_000_000 + day * 10 + 1,
    logType: "auto_detected",
    minutesAfterWakeup: 0,
    minutesAsleep: 38,
    minutesAwake: 2,
    minutesToFallAsleep: 0,
    startTime: localClock(napStart),
    timeInBed: 40,
    type: "classic",
  };
  return [main, nap];
}

export const fitbitStepsOf = (user: string, day: number) => 5000 + seed(user, day) * 9;
export const fitbitRestingOf = (user: string, day: number) => 55 + (seed(user, day) % 10);
export const fitbitRmssdOf = (user: string, day: number) => 30 + (seed(user, day) % 300) / 10;

const fitbitError = (reply: FastifyReply, fieldName: string, message: string) =>
  reply.code(400).send({ errors: [{ errorType: "validation", fieldName, message }], success: false });

export async function startFitbitStandIn(p: {
  clients: Record<string, string>;
  /** Default 28,800 s (Fitbit's 8 hours). */
  accessTtlSec?: number;
  host?: string;
  port?: number;
}): Promise<FitbitStandIn> {
  const cloud = await startVendorCloud({
    paths: { authorize: "/oauth2/authorize", token: "/oauth2/token", revoke: "/oauth2/revoke" },
    clients: p.clients,
    accessTtlSec: p.accessTtlSec ?? 28_800,
    requirePkce: true,
    title: "Fitbit",
    host: p.host,
    port: p.port,
    tokenExtras: (g: Grant) => ({ user_id: g.userId }),
    routes: (c) => fitbitRoutes(c),
  });
  return Object.assign(cloud, {
    push: async (targetUrl: string, notifications: FitbitNotification[], clientSecret: string) => {
      const body = JSON.stringify(notifications);
      return fetch(targetUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-fitbit-signature": createHmac("sha1", `${clientSecret}&`).update(body).digest("base64"),
        },
        body,
      });
    },
  });
}

/** The list routes' paging: `afterDate` xor `beforeDate`, the sort that goes with it, limit, offset. */
function listQuery(q: Record<string, string | undefined>, reply: FastifyReply) {
  const after = q.afterDate;
  const before = q.beforeDate;
  if ((after === undefined) === (before === undefined))
    return fitbitError(
      reply,
      after === undefined ? "afterDate" : "beforeDate",
      "Exactly one of afterDate or beforeDate is required.",
    );
  const date = (after ?? before) as string;
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$/.test(date))
    return fitbitError(
      reply,
      after ? "afterDate" : "beforeDate",
      "Invalid date: expected yyyy-MM-dd or yyyy-MM-ddTHH:mm:ss.",
    );
  if ((after && q.sort !== "asc") || (before && q.sort !== "desc"))
    return fitbitError(reply, "sort", "Sort must be asc with afterDate and desc with beforeDate.");
  const limit = Number(q.limit);
  const offset = Number(q.offset);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fitbitError(reply, "limit", "Limit must be 1..100.");
  if (!Number.isInteger(offset) || offset < 0) return fitbitError(reply, "offset", "Invalid offset.");
  // The local date-time as an instant of the user's zone.
  const at = Date.parse(`${date.length === 10 ? `${date}T00:00:00` : date}Z`) - OFFSET_MIN * MINUTE;
  return { after: after !== undefined, at, limit, offset, date };
}

function fitbitRoutes(cloud: VendorCloud) {
  const guarded =
    (handler: (user: string, req: FastifyRequest, reply: FastifyReply) => unknown) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      const grant = cloud.authenticate(req, reply);
      if (!grant) return reply;
      return handler(grant.userId, req, reply);
    };
  const localToday = () => Math.floor((Date.now() + OFFSET_MIN * MINUTE) / DAY);
  const paged = <T>(
    path: string,
    key: string,
    items: T[],
    timeOf: (item: T) => number,
    q: Exclude<ReturnType<typeof listQuery>, FastifyReply>,
  ) => {
    const chosen = items
      .filter((x) => (q.after ? timeOf(x) > q.at : timeOf(x) < q.at))
      .sort((a, b) => (q.after ? timeOf(a) - timeOf(b) : timeOf(b) - timeOf(a)));
    const page = chosen.slice(q.offset, q.offset + q.limit);
    const link = (offset: number) =>
      `https://api.fitbit.com${path}?${q.after ? "afterDate" : "beforeDate"}=${q.date}&sort=${q.after ? "asc" : "desc"}&limit=${q.limit}&offset=${offset}`;
    return {
      [key]: page,
      pagination: {
        ...(q.after ? { afterDate: q.date } : { beforeDate: q.date }),
        limit: q.limit,
        next: q.offset + q.limit < chosen.length ? link(q.offset + q.limit) : "",
        offset: q.offset,
        previous: q.offset > 0 ? link(Math.max(0, q.offset - q.limit)) : "",
        sort: q.after ? "asc" : "desc",
      },
    };
  };

  cloud.app.get(
    "/1/user/-/profile.json",
    guarded((user) => ({
      user: {
        encodedId: user,
        displayName: `Fitbit ${user}`,
        timezone: "Europe/Berlin",
        offsetFromUTCMillis: OFFSET_MIN * MINUTE,
      },
    })),
  );
  cloud.app.get(
    "/1/user/-/activities/list.json",
    guarded((user, req, reply) => {
      const q = listQuery(req.query as Record<string, string | undefined>, reply);
      if ("statusCode" in q) return q;
      const all = [];
      for (let d = localToday() - HISTORY_DAYS; d <= localToday(); d++) {
        const a = fitbitActivityOf(user, d);
        if (a && Date.parse(a.lastModified) <= Date.now()) all.push(a);
      }
      return paged("/1/user/-/activities/list.json", "activities", all, (a) => Date.parse(a.startTime), q);
    }),
  );
  cloud.app.get(
    "/1.2/user/-/sleep/list.json",
    guarded((user, req, reply) => {
      const q = listQuery(req.query as Record<string, string | undefined>, reply);
      if ("statusCode" in q) return q;
      const all = [];
      for (let d = localToday() - HISTORY_DAYS; d <= localToday(); d++)
        for (const s of fitbitSleepsOf(user, d))
          if (Date.parse(`${s.endTime}Z`) - OFFSET_MIN * MINUTE <= Date.now()) all.push(s);
      // Fitbit compares the sleep list's dates with the night's date.
      return paged(
        "/1.2/user/-/sleep/list.json",
        "sleep",
        all,
        (s) => Date.parse(`${s.dateOfSleep}T12:00:00Z`) - OFFSET_MIN * MINUTE,
        q,
      );
    }),
  );
  const series = (maxDays: number, answer: (user: string, days: number[]) => unknown) =>
    guarded((user, req, reply) => {
      const { start, end } = req.params as { start: string; end: string };
      const last = end.replace(/\.json$/, "");
      if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(last) || !end.endsWith(".json"))
        return fitbitError(reply, "date", "Invalid date: expected yyyy-MM-dd.");
      const first = Date.parse(`${start}T00:00:00Z`) / DAY;
      const lastDay = Date.parse(`${last}T00:00:00Z`) / DAY;
      if (lastDay < first) return fitbitError(reply, "endDate", "The end date must not be before the start date.");
      if (lastDay - first + 1 > maxDays)
        return fitbitError(reply, "endDate", `The range must not exceed ${maxDays} days.`);
      const days = [];
      for (let d = first; d <= Math.min(lastDay, localToday() - 1); d++) days.push(d);
      return answer(user, days);
    });
  cloud.app.get(
    "/1/user/-/activities/steps/date/:start/:end",
    series(1095, (user, days) => ({
      "activities-steps": days.map((d) => ({ dateTime: isoDate(d * DAY), value: String(fitbitStepsOf(user, d)) })),
    })),
  );
  cloud.app.get(
    "/1/user/-/activities/heart/date/:start/:end",
    series(366, (user, days) => ({
      "activities-heart": days.map((d) => ({
        dateTime: isoDate(d * DAY),
        value: {
          customHeartRateZones: [],
          heartRateZones: [{ caloriesOut: 1500.5, max: 96, min: 30, minutes: 1200, name: "Out of Range" }],
          ...(d % 7 === 6 ? {} : { restingHeartRate: fitbitRestingOf(user, d) }),
        },
      })),
    })),
  );
  cloud.app.get(
    "/1/user/-/hrv/date/:start/:end",
    series(30, (user, days) => ({
      hrv: days.map((d) => ({
        dateTime: isoDate(d * DAY),
        value: { dailyRmssd: fitbitRmssdOf(user, d), deepRmssd: fitbitRmssdOf(user, d) - 2 },
      })),
    })),
  );
}
