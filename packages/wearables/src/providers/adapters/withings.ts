/**
 * Withings (Public API, OAuth 2.0). Docs: https://developer.withings.com/api-reference (Measure v2 getworkouts,
 * getactivity; Sleep v2 getsummary; Measure getmeas; Notify), https://developer.withings.com/developer-guide/v3/
 * integration-guide/public-health-data-api/get-access/oauth-authorization-url and the anchor's
 * `docs/providers/withings-api-integration.mdx`.
 *
 * What is Withings-specific:
 * - every call is a form POST with `action=…`, answered `{status, body}`; `status != 0` is an error on HTTP 200
 *   (the token endpoint too: the `withings` dialect of the shared OAuth client);
 * - the scope is comma-separated; the user id is `userid` in the token answer;
 * - measures are `value × 10^unit` (e.g. `{value: 72345, unit: -3}` = 72.345 kg);
 * - times are epoch seconds and each series names its IANA `timezone`;
 * - paging is `more` + `offset` (echo the offset back);
 * - a night's summary (`getsummary`) and its stage intervals (`get`, state 0 awake … 3 REM) are two calls;
 * - notifications are unsigned form posts `userid, startdate, enddate, appli`; the callback URL carries our own
 *   shared `?token=` (the push secret), which is the only proof the post is Withings'.
 */
import { timingSafeEqual } from "node:crypto";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import {
  type MappedRecords,
  type PushNotice,
  type PushRequest,
  type SyncKind,
  type SyncWindow,
  type VendorAdapter,
  type VendorClient,
  VendorHttpError,
  type VendorPage,
} from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};

/** getmeas `meastype` → our series and the factor from Withings' unit to ours (height m → cm). */
const MEASURE: Record<number, { series: number; factor: number }> = {
  1: { series: series("weight"), factor: 1 },
  4: { series: series("height"), factor: 100 },
  5: { series: series("lean_body_mass"), factor: 1 },
  6: { series: series("body_fat_percentage"), factor: 1 },
  8: { series: series("body_fat_mass"), factor: 1 },
  9: { series: series("blood_pressure_diastolic"), factor: 1 },
  10: { series: series("blood_pressure_systolic"), factor: 1 },
  11: { series: series("heart_rate"), factor: 1 },
  12: { series: series("body_temperature"), factor: 1 },
  54: { series: series("oxygen_saturation"), factor: 1 },
  71: { series: series("body_temperature"), factor: 1 },
  73: { series: series("skin_temperature"), factor: 1 },
  76: { series: series("skeletal_muscle_mass"), factor: 1 },
  77: { series: series("body_water_mass"), factor: 1 },
  88: { series: series("bone_mass"), factor: 1 },
  91: { series: series("withings_pulse_wave_velocity"), factor: 1 },
};
const MEASTYPES = Object.keys(MEASURE).join(",");
const STEPS = series("steps");
const DISTANCE = series("distance_walking_running");
const ACTIVE_ENERGY = series("active_energy");
const FLIGHTS = series("flights_climbed");

/** Withings workout `category` (Measure v2 getworkouts) → the anchor's WorkoutType. */
const CATEGORY: Record<number, string> = {
  1: "walking",
  2: "running",
  3: "hiking",
  4: "skating",
  5: "cycling",
  6: "cycling",
  7: "swimming",
  8: "surfing",
  9: "kitesurfing",
  10: "windsurfing",
  12: "tennis",
  13: "table_tennis",
  14: "squash",
  15: "badminton",
  16: "strength_training",
  17: "fitness_equipment",
  18: "elliptical",
  19: "pilates",
  20: "basketball",
  21: "soccer",
  22: "american_football",
  23: "rugby",
  24: "volleyball",
  25: "water_polo",
  26: "horseback_riding",
  27: "golf",
  28: "yoga",
  29: "dance",
  30: "boxing",
  31: "fencing",
  32: "wrestling",
  33: "martial_arts",
  34: "alpine_skiing",
  35: "snowboarding",
  187: "rowing",
  188: "aerobics",
  191: "baseball",
  192: "handball",
  193: "hockey",
  194: "hockey",
  195: "rock_climbing",
  196: "ice_skating",
  272: "multisport",
  306: "walking",
  307: "treadmill",
  308: "indoor_cycling",
};

/** Notify `appli` → the kinds to pull (Withings Notify: 1 weight, 2 temperature, 4 pressure/SpO2, 16 activity, 44 sleep). */
const APPLI: Record<number, SyncKind[]> = {
  1: ["samples"],
  2: ["samples"],
  4: ["samples"],
  16: ["workouts", "daily"],
  44: ["sleep"],
};

interface Envelope<T> {
  status: number;
  body?: T;
  error?: string;
}
interface SeriesPage<T> {
  series: T[];
  more: boolean | number;
  offset: number;
}
export interface WithingsWorkout {
  id: number;
  category: number;
  timezone: string;
  model?: number | null;
  startdate: number;
  enddate: number;
  date: string;
  data: {
    calories?: number;
    effduration?: number;
    hr_average?: number;
    hr_min?: number;
    hr_max?: number;
    steps?: number;
    distance?: number;
    elevation?: number;
  };
}
export interface WithingsSleep {
  id: number;
  timezone: string;
  startdate: number;
  enddate: number;
  date: string;
  data: {
    total_sleep_time?: number;
    total_timeinbed?: number;
    deepsleepduration?: number;
    lightsleepduration?: number;
    remsleepduration?: number;
    wakeupduration?: number;
    sleep_efficiency?: number;
  };
}
interface MeasureGroup {
  grpid: number;
  date: number;
  category: number;
  measures: { value: number; type: number; unit: number }[];
}
interface Activity {
  date: string;
  timezone: string;
  steps?: number;
  distance?: number;
  elevation?: number;
  calories?: number;
}

/** Minutes east of UTC of `timeZone` at `at` (Withings names zones, not offsets); null for an unknown zone. */
export function zoneOffsetMinutes(timeZone: string, at: number): number | null {
  try {
    const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
      .formatToParts(at)
      .find((p) => p.type === "timeZoneName")?.value;
    if (name === "GMT") return 0;
    const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name ?? "");
    return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : null;
  } catch {
    return null;
  }
}
const formatOffset = (minutes: number | null) => {
  if (minutes === null) return null;
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
};

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const empty = (): MappedRecords => ({ workouts: [], sleeps: [], samples: [] });
const minutes = (seconds: number | undefined) => (seconds === undefined ? null : Math.round(seconds / 60));

/** Calls a Withings action and removes the envelope; a non-zero status is an error even on HTTP 200. */
async function call<T>(client: VendorClient, url: string, form: Record<string, string | number>): Promise<T> {
  const answer = await client.postForm<Envelope<T>>(url, form);
  if (answer?.status !== 0 || answer.body === undefined)
    // A 401 in the envelope reaches here only after the client refreshed once (`isAuthFailure`) and it stayed.
    throw new VendorHttpError(answer?.status === 401 ? 401 : 400, JSON.stringify(answer), url);
  return answer.body;
}

/** `startdateymd`/`enddateymd` covering the window (inclusive days); records are then kept by their start. */
const dayRange = (w: SyncWindow) => ({ startdateymd: ymd(w.start), enddateymd: ymd(w.end - 1) });
const inWindow = (w: SyncWindow, ms: number) => ms >= w.start && ms < w.end;
const nextOffset = (page: { more: boolean | number; offset: number }) =>
  page.more === true || page.more === 1 ? String(page.offset) : null;

export function mapWorkout(w: WithingsWorkout): MappedRecords["workouts"][number] {
  const start = w.startdate * 1000;
  const d = w.data;
  return {
    type: CATEGORY[w.category] ?? "other",
    start,
    end: w.enddate * 1000,
    zoneOffset: formatOffset(zoneOffsetMinutes(w.timezone, start)),
    externalId: String(w.id),
    deviceModel: w.model === undefined || w.model === null ? null : `Withings model ${w.model}`,
    details: {
      energyBurned: d.calories ?? null,
      distance: d.distance ?? null,
      heartRateAvg: d.hr_average ?? null,
      heartRateMin: d.hr_min ?? null,
      heartRateMax: d.hr_max ?? null,
      stepsCount: d.steps ?? null,
      totalElevationGain: d.elevation ?? null,
      movingTimeSeconds: d.effduration ?? null,
      averageSpeed: d.distance && d.effduration ? d.distance / d.effduration : null,
    },
  };
}

export function mapSleep(s: WithingsSleep): MappedRecords["sleeps"][number] {
  const start = s.startdate * 1000;
  const d = s.data;
  return {
    start,
    end: s.enddate * 1000,
    zoneOffset: formatOffset(zoneOffsetMinutes(s.timezone, start)),
    externalId: String(s.id),
    details: {
      totalDurationMinutes: minutes(d.total_sleep_time),
      timeInBedMinutes: minutes(d.total_timeinbed),
      deepMinutes: minutes(d.deepsleepduration),
      lightMinutes: minutes(d.lightsleepduration),
      remMinutes: minutes(d.remsleepduration),
      awakeMinutes: minutes(d.wakeupduration),
      // Withings gives a ratio (0.92); the data model keeps a percentage.
      efficiencyScore: d.sleep_efficiency === undefined ? null : Math.round(d.sleep_efficiency * 1000) / 10,
      // Withings has no nap flag; the stage intervals come from `action=get` (fetchStages).
      isNap: false,
      stages: [],
    },
  };
}

async function fetchWorkouts(client: VendorClient, apiBase: string, w: SyncWindow, cursor: string | null) {
  const page = await call<SeriesPage<WithingsWorkout>>(client, `${apiBase}/v2/measure`, {
    action: "getworkouts",
    ...dayRange(w),
    data_fields: "calories,effduration,hr_average,hr_min,hr_max,steps,distance,elevation",
    ...(cursor ? { offset: cursor } : {}),
  });
  const records = empty();
  for (const item of page.series) {
    if (inWindow(w, item.startdate * 1000)) records.workouts.push(mapWorkout(item));
  }
  return { records, fetched: page.series.length, nextCursor: nextOffset(page) };
}

async function fetchSleep(client: VendorClient, apiBase: string, w: SyncWindow, cursor: string | null) {
  const page = await call<SeriesPage<WithingsSleep>>(client, `${apiBase}/v2/sleep`, {
    action: "getsummary",
    // A night is dated by the day it ends: a night starting in the window may end the day after it.
    ...dayRange({ start: w.start, end: w.end + 86_400_000 }),
    data_fields:
      "total_sleep_time,total_timeinbed,deepsleepduration,lightsleepduration,remsleepduration,wakeupduration,sleep_efficiency",
    ...(cursor ? { offset: cursor } : {}),
  });
  const records = empty();
  for (const item of page.series) {
    if (!inWindow(w, item.startdate * 1000)) continue;
    const sleep = mapSleep(item);
    sleep.details.stages = await fetchStages(client, apiBase, item);
    records.sleeps.push(sleep);
  }
  return { records, fetched: page.series.length, nextCursor: nextOffset(page) };
}

/** Withings sleep `state` (Sleep v2 get) → our stage; 4 (manual) and 5 (unspecified) carry no stage. */
const STATE: Record<number, "awake" | "light" | "deep" | "rem"> = { 0: "awake", 1: "light", 2: "deep", 3: "rem" };

/**
 * The stage intervals of one night: `action=get` over the night's bounds (Withings allows ≤ 24 h per call, a
 * night is less). A tracker that records no stages answers none.
 */
async function fetchStages(client: VendorClient, apiBase: string, s: WithingsSleep) {
  const answer = await call<{ series: { startdate: number; enddate: number; state: number }[] }>(
    client,
    `${apiBase}/v2/sleep`,
    { action: "get", startdate: s.startdate, enddate: Math.min(s.enddate, s.startdate + 86_400) },
  );
  return answer.series
    .filter((x) => STATE[x.state] !== undefined)
    .map((x) => ({
      stage: STATE[x.state] as "awake" | "light" | "deep" | "rem",
      start: x.startdate * 1000,
      end: x.enddate * 1000,
    }))
    .sort((a, b) => a.start - b.start);
}

async function fetchMeasures(client: VendorClient, apiBase: string, w: SyncWindow, cursor: string | null) {
  const page = await call<{ measuregrps: MeasureGroup[]; timezone?: string; more: number; offset: number }>(
    client,
    `${apiBase}/measure`,
    {
      action: "getmeas",
      meastypes: MEASTYPES,
      // 1 = real measures (2 would be the user's objectives).
      category: 1,
      startdate: Math.floor(w.start / 1000),
      enddate: Math.ceil(w.end / 1000) - 1,
      ...(cursor ? { offset: cursor } : {}),
    },
  );
  const records = empty();
  for (const group of page.measuregrps) {
    const at = group.date * 1000;
    const zone = page.timezone ? zoneOffsetMinutes(page.timezone, at) : null;
    for (const m of group.measures) {
      const target = MEASURE[m.type];
      if (!target) continue;
      records.samples.push({
        seriesType: target.series,
        recordedAt: at,
        value: roundTo(m.value * 10 ** m.unit * target.factor, 6),
        zoneOffsetMinutes: zone,
      });
    }
  }
  return { records, fetched: page.measuregrps.length, nextCursor: nextOffset(page) };
}

async function fetchActivity(client: VendorClient, apiBase: string, w: SyncWindow, cursor: string | null) {
  const page = await call<{ activities: Activity[]; more: boolean; offset: number }>(client, `${apiBase}/v2/measure`, {
    action: "getactivity",
    ...dayRange(w),
    data_fields: "steps,distance,elevation,calories",
    ...(cursor ? { offset: cursor } : {}),
  });
  const records = empty();
  for (const day of page.activities) {
    // A day is its local midnight (the activity's zone).
    const utcMidnight = Date.parse(`${day.date}T00:00:00Z`);
    const zone = zoneOffsetMinutes(day.timezone, utcMidnight) ?? 0;
    const at = utcMidnight - zone * 60_000;
    const common = { recordedAt: at, zoneOffsetMinutes: zone, isDailyTotal: true };
    if (day.steps !== undefined) records.samples.push({ ...common, seriesType: STEPS, value: day.steps });
    if (day.distance !== undefined) records.samples.push({ ...common, seriesType: DISTANCE, value: day.distance });
    if (day.calories !== undefined) records.samples.push({ ...common, seriesType: ACTIVE_ENERGY, value: day.calories });
    // Withings' elevation is metres climbed; one flight is 3 m (Withings counts floors the same way).
    if (day.elevation !== undefined)
      records.samples.push({ ...common, seriesType: FLIGHTS, value: Math.round(day.elevation / 3) });
  }
  return { records, fetched: page.activities.length, nextCursor: nextOffset(page) };
}

const roundTo = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};
const formOf = (req: PushRequest) => new URLSearchParams(req.rawBody.toString("utf8"));

export const withings: VendorAdapter = {
  // Withings refuses a token with HTTP 200 and `{status: 401}`: refreshed and retried as an HTTP 401 would be.
  isAuthFailure: (body) => (body as { status?: unknown } | null)?.status === 401,
  id: "withings",
  name: "Withings",
  oauth: {
    authorizeUrl: "https://account.withings.com/oauth2_user/authorize2",
    tokenUrl: "https://wbsapi.withings.net/v2/oauth2",
    pkce: false,
    clientAuth: "body",
    scope: "user.info,user.metrics,user.activity",
    dialect: "withings",
  },
  apiBase: "https://wbsapi.withings.net",
  kinds: ["workouts", "sleep", "samples", "daily"],
  // Withings' public API: 120 requests per minute per application (developer.withings.com, "Rate limits"; anchor §A1).
  rateBudgets: [{ requests: 120, windowSec: 60 }],
  liveSyncMode: "pull",
  maxHistoricalDays: null,
  dataGranularity: null,

  parseTokens(body, now) {
    const accessToken = body.access_token;
    if (typeof accessToken !== "string" || accessToken === "") throw new Error("the token answer has no access_token");
    const expiresIn = Number(body.expires_in);
    return {
      accessToken,
      refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : undefined,
      expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? now + expiresIn * 1000 : undefined,
      scope: typeof body.scope === "string" ? body.scope : undefined,
      providerUserId: body.userid === undefined || body.userid === null ? undefined : String(body.userid),
    };
  },

  fetchPage({ client, urls, kind, window, cursor }): Promise<VendorPage> {
    if (kind === "workouts") return fetchWorkouts(client, urls.apiBase, window, cursor);
    if (kind === "sleep") return fetchSleep(client, urls.apiBase, window, cursor);
    if (kind === "samples") return fetchMeasures(client, urls.apiBase, window, cursor);
    return fetchActivity(client, urls.apiBase, window, cursor);
  },

  // getworkouts pages by `offset` and filters by `lastupdate` (modification) or by days (`startdateymd`/
  // `enddateymd`): the passthrough takes both knobs; it has no page size.
  queryKnobs: { workouts: ["offset", "filter_by_modification_time"] },

  listRawWorkouts(client, urls, q) {
    const since = q.since > 0 ? q.since : Math.floor(Date.now() / 1000) - 30 * 86_400;
    return call(client, `${urls.apiBase}/v2/measure`, {
      action: "getworkouts",
      // `lastupdate` lists what changed since (epoch seconds); else the workouts of the days from `since` to today.
      ...(q.byModificationTime
        ? { lastupdate: since }
        : { startdateymd: ymd(since * 1000), enddateymd: ymd(Date.now()) }),
      ...(q.offset ? { offset: q.offset } : {}),
    });
  },

  push: {
    verify(req, secrets) {
      const token = req.query.token;
      if (!secrets.pushSecret || !token || !sameSecret(token, secrets.pushSecret)) return false;
      return Boolean(formOf(req).get("userid"));
    },
    parse(req): PushNotice[] {
      const form = formOf(req);
      const userid = form.get("userid");
      const num = (k: string) => Number(form.get(k) ?? Number.NaN);
      const appli = num("appli");
      const start = num("startdate");
      const end = num("enddate");
      if (!userid || !Number.isInteger(appli) || !Number.isInteger(start) || !Number.isInteger(end) || end < start)
        throw new Error("a Withings notification has userid, appli, startdate and enddate");
      const kinds = APPLI[appli];
      // Withings ignores windows longer than 31 days (Notify docs); so do we.
      if (end - start > 31 * 86_400) return [];
      // Other applis (46 user actions, 50/51 bed in/out…) need no pull.
      if (!kinds) return [];
      return [{ providerUserId: userid, pull: { kinds, window: { start: start * 1000, end: end * 1000 + 1000 } } }];
    },
  },
};
