/**
 * Fitbit Web API (https://dev.fitbit.com/build/reference/web-api/): OAuth 2.0 authorization code with PKCE
 * (S256) and Basic client authentication (developer guide "Authorization"), scopes `activity heartrate sleep
 * profile`; the token answer carries the Fitbit user id (`user_id`) and refresh tokens rotate (a used one stops
 * working). Tokens are revoked at `POST /oauth2/revoke`.
 *
 * Data (bearer token, https://api.fitbit.com; units of the default locale: km, km/h, metres):
 * - `GET /1/user/-/activities/list.json?afterDate&sort=asc&limit≤100&offset=0` → `{activities, pagination: {next}}`
 *   (`startTime` ISO with offset, `duration`/`activeDuration` ms, `distance` + `distanceUnit`, `speed` km/h,
 *   `elevationGain`, `calories`, `steps`, `averageHeartRate`); later pages follow `pagination.next`;
 * - `GET /1.2/user/-/sleep/list.json?afterDate&sort=asc&limit≤100&offset=0` → `{sleep, pagination}`, times in the
 *   user's local time without an offset: the offset is the profile's (`GET /1/user/-/profile.json`,
 *   `user.offsetFromUTCMillis`); `levels.data` are the stage intervals (`deep|light|rem|wake`, or the classic
 *   `asleep|restless|awake`);
 * - daily: `GET /1/user/-/activities/steps/date/{start}/{end}.json`, `…/activities/heart/date/…`
 *   (`restingHeartRate`), `GET /1/user/-/hrv/date/{start}/{end}.json` (`dailyRmssd`, at most 30 days).
 * Subscriptions (https://dev.fitbit.com/build/reference/web-api/developer-guide/using-subscriptions/): a JSON array
 * of `{collectionType, date, ownerId, ownerType, subscriptionId}` signed in `X-Fitbit-Signature`, the base64
 * HMAC-SHA1 of the body with the key `<client secret>&`; the subscriber is verified with `GET ?verify=<code>`,
 * answered 204 for the verification code (the push secret) and 404 otherwise.
 * Rate limit ("Rate Limits"): 150 requests per hour per user; the budget enforces it for the whole app.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { formatZoneOffset } from "../../domain/queryDates.ts";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import type { SleepStage } from "../../store/healthDataWriter.ts";
import type {
  MappedRecords,
  PushNotice,
  PushRequest,
  SyncKind,
  VendorAdapter,
  VendorClient,
  VendorPage,
} from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};
const STEPS = series("steps");
const RESTING_HR = series("resting_heart_rate");
const HRV_RMSSD = series("heart_rate_variability_rmssd");

const DAY = 86_400_000;
const PAGE_LIMIT = 100;
/** HRV answers at most 30 days a request: a daily page is 30 days. */
const DAILY_CHUNK_DAYS = 30;

export interface FitbitActivity {
  logId: number;
  activityName?: string;
  activityTypeId?: number;
  startTime: string;
  duration: number;
  activeDuration?: number;
  calories?: number;
  distance?: number;
  distanceUnit?: string;
  speed?: number;
  elevationGain?: number;
  steps?: number;
  averageHeartRate?: number;
  source?: { name?: string; type?: string };
}
export interface FitbitSleep {
  logId: number;
  dateOfSleep: string;
  startTime: string;
  endTime: string;
  duration: number;
  efficiency?: number;
  isMainSleep: boolean;
  minutesAsleep?: number;
  minutesAwake?: number;
  timeInBed?: number;
  type: "stages" | "classic";
  levels?: {
    data?: { dateTime: string; level: string; seconds: number }[];
    summary?: Record<string, { count?: number; minutes?: number }>;
  };
}
interface FitbitPagination {
  next?: string;
}

/** Fitbit activity type ids and names (the anchor's constants/workout_types/fitbit.py). */
const ACTIVITY_TYPE: Record<number, string> = {
  90009: "running",
  2131: "running",
  91: "treadmill",
  90013: "walking",
  90001: "cycling",
  90024: "indoor_cycling",
  82: "swimming",
  3000: "strength_training",
  52001: "yoga",
  1071: "hiking",
  15: "soccer",
  16: "basketball",
  27: "tennis",
  90019: "other",
};
const ACTIVITY_NAME: Record<string, string> = {
  run: "running",
  running: "running",
  treadmill: "treadmill",
  walk: "walking",
  walking: "walking",
  bike: "cycling",
  "outdoor bike": "cycling",
  cycling: "cycling",
  "indoor cycling": "indoor_cycling",
  spinning: "indoor_cycling",
  swim: "swimming",
  swimming: "swimming",
  yoga: "yoga",
  pilates: "pilates",
  hike: "hiking",
  hiking: "hiking",
  "strength training": "strength_training",
  weights: "strength_training",
  "interval workout": "cardio_training",
  "aerobic workout": "aerobics",
  tennis: "tennis",
  soccer: "soccer",
  basketball: "basketball",
  rowing: "rowing",
  elliptical: "elliptical",
  "stair climbing": "stair_climbing",
  golf: "golf",
  dance: "dance",
  stretching: "stretching",
  sport: "sport",
};
export const fitbitWorkoutType = (typeId?: number, name?: string) =>
  (typeId !== undefined ? ACTIVITY_TYPE[typeId] : undefined) ??
  (name ? ACTIVITY_NAME[name.toLowerCase().trim()] : undefined) ??
  "other";

const SLEEP_LEVEL: Record<string, SleepStage> = {
  deep: "deep",
  light: "light",
  rem: "rem",
  wake: "awake",
  awake: "awake",
  restless: "awake",
  asleep: "sleeping",
};

function offsetMinutesOf(iso: string): number | null {
  const m = /(Z|([+-])(\d{2}):?(\d{2}))$/.exec(iso);
  if (!m) return null;
  if (m[1] === "Z") return 0;
  return (m[2] === "-" ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
}

export function mapFitbitActivity(a: FitbitActivity): MappedRecords["workouts"][number] {
  const start = Date.parse(a.startTime);
  // Distance and speed follow the unit system of the request's locale: metric unless Fitbit says miles.
  const imperial = /mile/i.test(a.distanceUnit ?? "");
  const metres = imperial ? 1609.344 : 1000;
  return {
    type: fitbitWorkoutType(a.activityTypeId, a.activityName),
    start,
    end: start + a.duration,
    zoneOffset: formatZoneOffset(offsetMinutesOf(a.startTime)),
    externalId: String(a.logId),
    sourceName: a.source?.name ?? "Fitbit",
    deviceModel: a.source?.name ?? null,
    details: {
      energyBurned: a.calories ?? null,
      distance: a.distance !== undefined ? a.distance * metres : null,
      averageSpeed: a.speed !== undefined ? (a.speed * metres) / 3600 : null,
      totalElevationGain: a.elevationGain !== undefined ? a.elevationGain * (imperial ? 0.3048 : 1) : null,
      stepsCount: a.steps ?? null,
      heartRateAvg: a.averageHeartRate ?? null,
      movingTimeSeconds: a.activeDuration !== undefined ? Math.round(a.activeDuration / 1000) : null,
    },
  };
}

/** `offsetMin`: the user's offset from the profile (sleep times are local without one). */
export function mapFitbitSleep(s: FitbitSleep, offsetMin: number): MappedRecords["sleeps"][number] {
  const instant = (local: string) => Date.parse(`${local.replace(/Z$/, "")}Z`) - offsetMin * 60_000;
  const summary = s.levels?.summary ?? {};
  const stages = s.type === "stages";
  return {
    start: instant(s.startTime),
    end: instant(s.endTime),
    zoneOffset: formatZoneOffset(offsetMin),
    externalId: String(s.logId),
    sourceName: "Fitbit",
    details: {
      totalDurationMinutes: s.minutesAsleep ?? null,
      timeInBedMinutes: s.timeInBed ?? Math.round(s.duration / 60_000),
      efficiencyScore: s.efficiency ?? null,
      deepMinutes: stages ? (summary.deep?.minutes ?? null) : null,
      lightMinutes: stages ? (summary.light?.minutes ?? null) : null,
      remMinutes: stages ? (summary.rem?.minutes ?? null) : null,
      awakeMinutes: stages ? (summary.wake?.minutes ?? null) : (s.minutesAwake ?? null),
      isNap: !s.isMainSleep,
      stages: (s.levels?.data ?? []).map((d) => {
        const from = instant(d.dateTime);
        return { stage: SLEEP_LEVEL[d.level] ?? "unknown", start: from, end: from + d.seconds * 1000 };
      }),
    },
  };
}

const empty = (): MappedRecords => ({ workouts: [], sleeps: [], samples: [] });
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** GETs a `pagination.next` link on the configured origin (the link names Fitbit's). */
function getNext<T>(client: VendorClient, apiBase: string, next: string) {
  const u = new URL(next);
  return client.getJson<T>(`${apiBase}${u.pathname}`, Object.fromEntries(u.searchParams));
}

interface SleepCursor {
  next: string;
  offsetMin: number;
}

const header = (req: PushRequest, name: string) => {
  for (const [k, v] of Object.entries(req.headers)) if (k.toLowerCase() === name) return v;
  return undefined;
};
const PUSH_KINDS: Record<string, SyncKind[]> = { activities: ["workouts", "daily"], sleep: ["sleep"] };

export const fitbit: VendorAdapter = {
  id: "fitbit",
  name: "Fitbit",
  oauth: {
    authorizeUrl: "https://www.fitbit.com/oauth2/authorize",
    tokenUrl: "https://api.fitbit.com/oauth2/token",
    revokeUrl: "https://api.fitbit.com/oauth2/revoke",
    pkce: true,
    clientAuth: "basic",
    scope: "activity heartrate sleep profile",
  },
  apiBase: "https://api.fitbit.com",
  kinds: ["workouts", "sleep", "daily"],
  // Fitbit counts 150 requests an hour per user (dev.fitbit.com "Rate Limits").
  rateBudgets: [{ requests: 150, windowSec: 3600, per: "user" }],
  liveSyncMode: "pull",
  maxHistoricalDays: null,
  dataGranularity: "daily",

  async fetchIdentity(client, urls) {
    const profile = await client.getJson<{ user: { encodedId: string; displayName?: string } }>(
      `${urls.apiBase}/1/user/-/profile.json`,
    );
    return { providerUserId: profile.user.encodedId, providerUsername: profile.user.displayName };
  },

  // Fitbit's lists take only `offset=0` (paging follows `pagination.next`): no offset knob.
  queryKnobs: { sync: ["limit"], workouts: ["limit"] },

  async fetchPage({ client, urls, kind, window, cursor, query }): Promise<VendorPage> {
    const records = empty();
    // The lists' afterDate is the user's local date: a day early covers any zone; the window filter does the rest.
    // The sync's `limit` is the page size (Fitbit allows 100).
    const limit = Math.min(query?.limit ?? PAGE_LIMIT, PAGE_LIMIT);
    const first = { afterDate: isoDate(window.start - DAY), sort: "asc", limit, offset: 0 };
    if (kind === "workouts") {
      const page = cursor
        ? await getNext<{ activities: FitbitActivity[]; pagination?: FitbitPagination }>(client, urls.apiBase, cursor)
        : await client.getJson<{ activities: FitbitActivity[]; pagination?: FitbitPagination }>(
            `${urls.apiBase}/1/user/-/activities/list.json`,
            first,
          );
      let past = false;
      for (const a of page.activities) {
        const w = mapFitbitActivity(a);
        if (w.start >= window.end) past = true;
        else if (w.start >= window.start) records.workouts.push(w);
      }
      const next = page.pagination?.next;
      return { records, fetched: page.activities.length, nextCursor: !past && next ? next : null };
    }
    if (kind === "sleep") {
      let state: SleepCursor | null = cursor ? (JSON.parse(cursor) as SleepCursor) : null;
      let offsetMin = state?.offsetMin;
      if (offsetMin === undefined) {
        const profile = await client.getJson<{ user: { offsetFromUTCMillis?: number } }>(
          `${urls.apiBase}/1/user/-/profile.json`,
        );
        offsetMin = Math.round((profile.user.offsetFromUTCMillis ?? 0) / 60_000);
      }
      const page = state
        ? await getNext<{ sleep: FitbitSleep[]; pagination?: FitbitPagination }>(client, urls.apiBase, state.next)
        : await client.getJson<{ sleep: FitbitSleep[]; pagination?: FitbitPagination }>(
            `${urls.apiBase}/1.2/user/-/sleep/list.json`,
            first,
          );
      let past = false;
      for (const s of page.sleep) {
        const mapped = mapFitbitSleep(s, offsetMin);
        if (mapped.start >= window.end) past = true;
        else if (mapped.start >= window.start) records.sleeps.push(mapped);
      }
      const next = page.pagination?.next;
      state = !past && next ? { next, offsetMin } : null;
      return { records, fetched: page.sleep.length, nextCursor: state ? JSON.stringify(state) : null };
    }
    if (kind !== "daily") return { records, fetched: 0, nextCursor: null };
    // Daily: local dates, 30 a page; each at midnight UTC of its date, zone unknown (as the sandbox's).
    const from = cursor ?? isoDate(window.start);
    const lastDate = isoDate(window.end - 1);
    const toMs = Math.min(
      Date.parse(`${from}T00:00:00Z`) + (DAILY_CHUNK_DAYS - 1) * DAY,
      Date.parse(`${lastDate}T00:00:00Z`),
    );
    const to = isoDate(toMs);
    const range = `${from}/${to}.json`;
    const steps = await client.getJson<{ "activities-steps"?: { dateTime: string; value: string }[] }>(
      `${urls.apiBase}/1/user/-/activities/steps/date/${range}`,
    );
    const heart = await client.getJson<{
      "activities-heart"?: { dateTime: string; value: { restingHeartRate?: number } }[];
    }>(`${urls.apiBase}/1/user/-/activities/heart/date/${range}`);
    const hrv = await client.getJson<{ hrv?: { dateTime: string; value: { dailyRmssd?: number } }[] }>(
      `${urls.apiBase}/1/user/-/hrv/date/${range}`,
    );
    const at = (date: string) => ({ recordedAt: Date.parse(`${date}T00:00:00Z`), zoneOffsetMinutes: null });
    let fetched = 0;
    for (const d of steps["activities-steps"] ?? []) {
      fetched += 1;
      records.samples.push({ ...at(d.dateTime), seriesType: STEPS, value: Number(d.value), isDailyTotal: true });
    }
    for (const d of heart["activities-heart"] ?? [])
      if (d.value.restingHeartRate !== undefined)
        records.samples.push({ ...at(d.dateTime), seriesType: RESTING_HR, value: d.value.restingHeartRate });
    for (const d of hrv.hrv ?? [])
      if (d.value.dailyRmssd !== undefined)
        records.samples.push({ ...at(d.dateTime), seriesType: HRV_RMSSD, value: d.value.dailyRmssd });
    return { records, fetched, nextCursor: to < lastDate ? isoDate(toMs + DAY) : null };
  },

  async listRawWorkouts(client, urls, q) {
    const after = q.since > 0 ? q.since * 1000 : Date.now() - 30 * DAY;
    return client.getJson(`${urls.apiBase}/1/user/-/activities/list.json`, {
      afterDate: new Date(after).toISOString().slice(0, 19),
      sort: "asc",
      limit: Math.min(q.limit, PAGE_LIMIT),
      offset: 0,
    });
  },

  push: {
    verify(req, secrets) {
      const given = header(req, "x-fitbit-signature");
      if (!given) return false;
      const expected = createHmac("sha1", `${secrets.clientSecret}&`).update(req.rawBody).digest("base64");
      const a = Buffer.from(given.trim());
      const b = Buffer.from(expected);
      return a.length === b.length && timingSafeEqual(a, b);
    },
    parse(req): PushNotice[] {
      const list = JSON.parse(req.rawBody.toString("utf8")) as {
        collectionType?: string;
        date?: string;
        ownerId?: string;
      }[];
      if (!Array.isArray(list)) throw new Error("a Fitbit notification is an array");
      const notices: PushNotice[] = [];
      for (const n of list) {
        if (typeof n.ownerId !== "string" || typeof n.collectionType !== "string")
          throw new Error("a Fitbit notification names its owner and collection");
        if (n.collectionType === "userRevokedAccess" || n.collectionType === "deleteUser") {
          notices.push({ providerUserId: n.ownerId, deauthorized: true });
          continue;
        }
        const kinds = PUSH_KINDS[n.collectionType];
        if (!kinds) continue;
        const day = Date.parse(`${n.date}T00:00:00Z`);
        if (Number.isNaN(day)) throw new Error("a Fitbit notification has a date");
        // The date is the user's local day: a day either side covers its zone.
        notices.push({ providerUserId: n.ownerId, pull: { kinds, window: { start: day - DAY, end: day + 2 * DAY } } });
      }
      return notices;
    },
    challenge(query, secrets) {
      if (query.verify === undefined) return undefined;
      const expected = secrets.pushSecret;
      const ok =
        expected !== undefined &&
        Buffer.from(query.verify).length === Buffer.from(expected).length &&
        timingSafeEqual(Buffer.from(query.verify), Buffer.from(expected));
      return ok ? { status: 204, body: null } : { status: 404, body: null };
    },
  },
};
