/**
 * Suunto Cloud API (https://apizone.suunto.com/how-to-start, workout API https://apizone.suunto.com/docs/services/
 * workout-api, 24/7 samples API): OAuth 2.0 at cloudapi-oauth.suunto.com with Basic client authentication and no
 * scope; the token answer names the Suunto user (`user`, the username the notifications carry). Every API request
 * also carries the app's Azure API Management subscription key, header `Ocp-Apim-Subscription-Key` (the vendor
 * client adds it: `apiKeyHeader`, the key from `WEARABLES_VENDOR_API_KEYS=suunto=<key>`).
 *
 * Data (bearer token, https://cloudapi.suunto.com):
 * - `GET /v3/workouts?since&limit&offset&filter-by-modification-time` → `{error, metadata, payload: [workout]}`,
 *   newest first (`startTime`/`stopTime` epoch ms, `totalTime` s, `totalDistance` m, `avgSpeed`/`maxSpeed` m/s,
 *   `energyConsumption` kcal, `hrdata {workoutAvgHR, workoutMaxHR, min}`, `totalAscent` m, `timeOffsetInMinutes`);
 * - `GET /247samples/sleep?from&to` and `GET /247samples/activity?from&to` (epoch ms, at most 28 days) →
 *   `[{timestamp, entryData}]` (sleep durations in seconds; activity `HR` bpm, `StepCount`, `SpO2` 0–1,
 *   `EnergyConsumption` joules, `HRV` RMSSD ms);
 * - `GET /247/daily-activity-statistics?startdate&enddate` (UTC date-times without a zone, end inclusive, at most
 *   28 days) → `[{Name: stepcount|energyconsumption, Aggregation: sum, Sources: [{Samples: [{TimeISO8601, Value}]}]}]`,
 *   one sample per 24 hours from `startdate`, in UTC without a zone, energy in joules, `Value` null when unknown
 *   (https://apizone.suunto.com/docs/services/activity-and-sleep-data-api/operations/daily-activity-statistics).
 * Notifications: Suunto pushes the data itself (`WORKOUT_CREATED` with the workout, `SUUNTO_247_*_CREATED` with
 * `samples`), signed in `X-HMAC-SHA256-Signature` (hex HMAC-SHA256 of the body with the app's notification secret,
 * the push secret).
 * Rate limits: the API Zone pages do not publish a number for the Developer API; 429s are honoured through
 * Retry-After, and the budget below (60 per minute) is this platform's conservative choice, not Suunto's.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { formatZoneOffset } from "../../domain/queryDates.ts";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import { parseStandardTokens } from "../oauthClient.ts";
import type { MappedRecords, PushNotice, PushRequest, VendorAdapter, VendorPage } from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};
const HEART_RATE = series("heart_rate");
const STEPS = series("steps");
const SPO2 = series("oxygen_saturation");
const ACTIVE_ENERGY = series("active_energy");
const HRV_RMSSD = series("heart_rate_variability_rmssd");
const RESTING_HR = series("resting_heart_rate");

const DAY = 86_400_000;
const JOULES_PER_KCAL = 4184;
/** Suunto answers at most 28 days of 24/7 samples a request; a page asks for less. */
const SLEEP_CHUNK_DAYS = 14;
const ACTIVITY_CHUNK_DAYS = 7;
const WORKOUTS_PER_PAGE = 100;

export interface SuuntoWorkout {
  workoutKey: string;
  workoutId?: number;
  activityId: number;
  startTime: number;
  stopTime: number;
  totalTime: number;
  totalDistance?: number | null;
  totalAscent?: number | null;
  totalDescent?: number | null;
  maxSpeed?: number | null;
  avgSpeed?: number | null;
  energyConsumption?: number | null;
  stepCount?: number | null;
  maxAltitude?: number | null;
  minAltitude?: number | null;
  avgPower?: number | null;
  maxPower?: number | null;
  cadence?: { avg?: number | null; max?: number | null } | null;
  hrdata?: {
    workoutAvgHR?: number | null;
    workoutMaxHR?: number | null;
    avg?: number | null;
    hrmax?: number | null;
    min?: number | null;
    userMaxHR?: number | null;
  } | null;
  timeOffsetInMinutes?: number | null;
  gear?: { name?: string | null; displayName?: string | null; swVersion?: string | null } | null;
}
export interface SuuntoSample<T> {
  timestamp: string;
  entryData: T;
}
export interface SuuntoSleepEntry {
  BedtimeStart: string;
  BedtimeEnd: string;
  Duration?: number;
  DeepSleepDuration?: number;
  LightSleepDuration?: number;
  REMSleepDuration?: number;
  SleepQualityScore?: number;
  IsNap?: boolean;
  HRAvg?: number;
  HRMin?: number;
  AvgHRV?: number;
  MaxSpo2?: number;
  SleepId?: number | string;
}
export interface SuuntoActivityEntry {
  HR?: number;
  StepCount?: number;
  SpO2?: number;
  EnergyConsumption?: number;
  HRV?: number;
}
interface SuuntoDailyStatistic {
  Name: string;
  Sources: { Name?: string; Samples: { TimeISO8601: string; Value: number | null }[] }[];
}

/** Suunto's activity ids (its Activities list), as the anchor maps them (constants/workout_types/suunto.py). */
const ACTIVITY: Record<number, string> = {
  0: "walking",
  1: "running",
  2: "cycling",
  3: "cross_country_skiing",
  4: "sport",
  5: "sport",
  6: "sport",
  7: "sport",
  8: "sport",
  9: "sport",
  10: "mountain_biking",
  11: "hiking",
  12: "inline_skating",
  13: "alpine_skiing",
  14: "paddling",
  15: "rowing",
  16: "golf",
  17: "fitness_equipment",
  18: "parkour",
  19: "team_sports",
  20: "fitness_equipment",
  21: "swimming",
  22: "trail_running",
  23: "strength_training",
  24: "walking",
  25: "horseback_riding",
  26: "motorcycling",
  27: "skateboarding",
  28: "water_sports",
  29: "rock_climbing",
  30: "snowboarding",
  31: "backcountry_skiing",
  32: "aerobics",
  33: "soccer",
  34: "tennis",
  35: "basketball",
  36: "badminton",
  37: "baseball",
  38: "volleyball",
  39: "american_football",
  40: "table_tennis",
  41: "racquetball",
  42: "squash",
  43: "floorball",
  44: "handball",
  45: "baseball",
  46: "bowling",
  47: "cricket",
  48: "rugby",
  49: "ice_skating",
  50: "hockey",
  51: "yoga",
  52: "indoor_cycling",
  53: "treadmill",
  54: "strength_training",
  55: "elliptical",
  56: "cross_country_skiing",
  57: "rowing_machine",
  58: "stretching",
  59: "running",
  60: "orienteering",
  61: "stand_up_paddleboarding",
  62: "martial_arts",
  63: "strength_training",
  64: "dance",
  65: "snowshoeing",
  66: "disc_sports",
  67: "soccer",
  68: "multisport",
  69: "aerobics",
  70: "hiking",
  71: "sailing",
  72: "kayaking",
  73: "strength_training",
  74: "triathlon",
  75: "padel",
  76: "aerobics",
  77: "boxing",
  78: "diving",
  79: "diving",
  80: "multisport",
  81: "fitness_equipment",
  82: "canoeing",
  83: "mountaineering",
  84: "alpine_skiing",
  85: "open_water_swimming",
  86: "windsurfing",
  87: "kitesurfing",
  88: "paragliding",
  90: "diving",
  91: "surfing",
  92: "multisport",
  93: "multisport",
  94: "multisport",
  95: "running",
  96: "fishing",
  97: "hunting",
  98: "transition",
  99: "cycling",
  100: "swimming",
  101: "diving",
  102: "cardio_training",
  103: "running",
  104: "strength_training",
  105: "e_biking",
  106: "e_biking",
  107: "backcountry_skiing",
  108: "para_sports",
  109: "cycling",
  110: "snowboarding",
  111: "multisport",
  112: "stretching",
  113: "hockey",
  114: "cyclocross",
  115: "trail_running",
  116: "mountaineering",
  117: "cross_country_skiing",
  118: "cross_country_skiing",
  119: "chores",
  120: "pilates",
  121: "yoga",
};

const positive = (v: number | null | undefined) => (v === null || v === undefined || v <= 0 ? null : v);

export function mapSuuntoWorkout(w: SuuntoWorkout): MappedRecords["workouts"][number] {
  const device = w.gear?.displayName ?? w.gear?.name ?? null;
  return {
    type: ACTIVITY[w.activityId] ?? "other",
    start: w.startTime,
    end: w.stopTime,
    zoneOffset: formatZoneOffset(w.timeOffsetInMinutes ?? null),
    externalId: w.workoutKey,
    sourceName: device ?? "Suunto",
    deviceModel: device,
    details: {
      energyBurned: w.energyConsumption ?? null,
      distance: w.totalDistance ?? null,
      // `hrdata.max`/`userMaxHR` is the user's setting, not the workout's: use the workout's own.
      heartRateAvg: w.hrdata?.workoutAvgHR ?? w.hrdata?.avg ?? null,
      heartRateMax: w.hrdata?.workoutMaxHR ?? w.hrdata?.hrmax ?? null,
      heartRateMin: w.hrdata?.min ?? null,
      averageSpeed: positive(w.avgSpeed),
      maxSpeed: positive(w.maxSpeed),
      totalElevationGain: w.totalAscent ?? null,
      elevHigh: w.maxAltitude ?? null,
      elevLow: w.minAltitude ?? null,
      averageWatts: positive(w.avgPower),
      maxWatts: positive(w.maxPower),
      averageCadence: positive(w.cadence?.avg),
      stepsCount: w.stepCount ?? null,
      movingTimeSeconds: w.totalTime,
    },
  };
}

/** Minutes east of UTC of an ISO 8601 time with an offset, null without one. */
function offsetMinutesOf(iso: string): number | null {
  const m = /(Z|([+-])(\d{2}):?(\d{2}))$/.exec(iso);
  if (!m) return null;
  if (m[1] === "Z") return 0;
  return (m[2] === "-" ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
}

export function mapSuuntoSleep(s: SuuntoSample<SuuntoSleepEntry>): MappedRecords {
  const e = s.entryData;
  const start = Date.parse(e.BedtimeStart);
  const end = Date.parse(e.BedtimeEnd);
  const offset = offsetMinutesOf(e.BedtimeStart);
  const deep = e.DeepSleepDuration ?? 0;
  const light = e.LightSleepDuration ?? 0;
  const rem = e.REMSleepDuration ?? 0;
  const inBed = e.Duration ?? (end - start) / 1000;
  const records: MappedRecords = {
    workouts: [],
    sleeps: [
      {
        start,
        end,
        zoneOffset: formatZoneOffset(offset),
        externalId: e.SleepId !== undefined ? String(e.SleepId) : s.timestamp,
        sourceName: "Suunto",
        details: {
          totalDurationMinutes: Math.round((deep + light + rem) / 60),
          timeInBedMinutes: Math.round(inBed / 60),
          efficiencyScore: e.SleepQualityScore ?? null,
          deepMinutes: Math.round(deep / 60),
          lightMinutes: Math.round(light / 60),
          remMinutes: Math.round(rem / 60),
          awakeMinutes: Math.round(Math.max(0, inBed - deep - light - rem) / 60),
          isNap: e.IsNap ?? false,
          // Suunto gives stage totals, no intervals.
          stages: [],
        },
      },
    ],
    samples: [],
  };
  // No resting heart rate endpoint: a night's lowest heart rate stands for it (as the anchor does); naps do not.
  if (!e.IsNap && e.HRMin !== undefined)
    records.samples.push({ seriesType: RESTING_HR, recordedAt: end, value: e.HRMin, zoneOffsetMinutes: offset });
  return records;
}

export function mapSuuntoActivity(s: SuuntoSample<SuuntoActivityEntry>): MappedRecords["samples"] {
  const at = Date.parse(s.timestamp);
  const common = { recordedAt: at, zoneOffsetMinutes: offsetMinutesOf(s.timestamp) };
  const e = s.entryData;
  const out: MappedRecords["samples"] = [];
  if (e.HR !== undefined) out.push({ ...common, seriesType: HEART_RATE, value: e.HR });
  if (e.StepCount !== undefined) out.push({ ...common, seriesType: STEPS, value: e.StepCount });
  // SpO2 is a fraction (0–1): percent.
  if (e.SpO2 !== undefined) out.push({ ...common, seriesType: SPO2, value: e.SpO2 <= 1 ? e.SpO2 * 100 : e.SpO2 });
  if (e.EnergyConsumption !== undefined)
    out.push({ ...common, seriesType: ACTIVE_ENERGY, value: e.EnergyConsumption / JOULES_PER_KCAL });
  if (e.HRV !== undefined && e.HRV > 0) out.push({ ...common, seriesType: HRV_RMSSD, value: e.HRV });
  return out;
}

const empty = (): MappedRecords => ({ workouts: [], sleeps: [], samples: [] });

/** `[from, to)` of the page: the window cut in chunks of `days`, the cursor is the chunk's start (epoch ms). */
function chunk(window: { start: number; end: number }, cursor: string | null, days: number) {
  const from = cursor ? Number(cursor) : window.start;
  const to = Math.min(from + days * DAY, window.end);
  return { from, to, next: to < window.end ? String(to) : null };
}

const header = (req: PushRequest, name: string) => {
  for (const [k, v] of Object.entries(req.headers)) if (k.toLowerCase() === name) return v;
  return undefined;
};

export const suunto: VendorAdapter = {
  id: "suunto",
  name: "Suunto",
  apiKeyHeader: "Ocp-Apim-Subscription-Key",
  oauth: {
    authorizeUrl: "https://cloudapi-oauth.suunto.com/oauth/authorize",
    tokenUrl: "https://cloudapi-oauth.suunto.com/oauth/token",
    pkce: false,
    clientAuth: "basic",
    scope: "",
  },
  apiBase: "https://cloudapi.suunto.com",
  kinds: ["workouts", "sleep", "samples", "daily"],
  rateBudgets: [{ requests: 60, windowSec: 60 }],
  liveSyncMode: "pull",
  maxHistoricalDays: null,
  dataGranularity: "raw",

  parseTokens(body, now) {
    const tokens = parseStandardTokens(body, now);
    // The notifications name the user by `username`: that is the connection's vendor user id.
    if (typeof body.user === "string" && body.user !== "") {
      tokens.providerUserId = body.user;
      tokens.providerUsername = body.user;
    }
    return tokens;
  },

  // The workout list's own paging and filter (the anchor's Suunto knobs), for the sync and the passthrough.
  queryKnobs: {
    sync: ["limit", "offset", "filter_by_modification_time"],
    workouts: ["limit", "offset", "filter_by_modification_time"],
  },

  async fetchPage({ client, urls, kind, window, cursor, query }): Promise<VendorPage> {
    const records = empty();
    if (kind === "workouts") {
      // The API's sync may set the page size (Suunto allows 100), the first page's offset, and whether the
      // window's start filters by modification time: then every workout modified since is kept (a late upload
      // of an older workout too), else those that start in the window (the default of other syncs).
      const perPage = Math.min(query?.limit ?? WORKOUTS_PER_PAGE, 100);
      const offset = cursor ? Number(cursor) : (query?.offset ?? 0);
      const byModification = query?.byModificationTime ?? false;
      const answer = await client.getJson<{ payload?: SuuntoWorkout[] }>(`${urls.apiBase}/v3/workouts`, {
        since: window.start,
        limit: perPage,
        offset,
        "filter-by-modification-time": byModification,
      });
      const list = answer?.payload ?? [];
      for (const w of list)
        if ((byModification || w.startTime >= window.start) && w.startTime < window.end)
          records.workouts.push(mapSuuntoWorkout(w));
      return {
        records,
        fetched: list.length,
        nextCursor: list.length === perPage ? String(offset + list.length) : null,
      };
    }
    if (kind === "daily") {
      const c = chunk(window, cursor, SLEEP_CHUNK_DAYS);
      // UTC date-times without a zone; the end is inclusive, so the chunk's last second.
      const stats =
        (await client.getJson<SuuntoDailyStatistic[] | null>(`${urls.apiBase}/247/daily-activity-statistics`, {
          startdate: new Date(c.from).toISOString().slice(0, 19),
          enddate: new Date(c.to - 1000).toISOString().slice(0, 19),
        })) ?? [];
      let fetched = 0;
      for (const stat of stats) {
        const seriesType = stat.Name === "stepcount" ? STEPS : stat.Name === "energyconsumption" ? ACTIVE_ENERGY : null;
        for (const source of stat.Sources)
          for (const s of source.Samples) {
            fetched += 1;
            if (seriesType === null || s.Value === null) continue;
            const zoned = offsetMinutesOf(s.TimeISO8601) !== null;
            records.samples.push({
              seriesType,
              recordedAt: Date.parse(zoned ? s.TimeISO8601 : `${s.TimeISO8601}Z`),
              value: seriesType === ACTIVE_ENERGY ? s.Value / JOULES_PER_KCAL : s.Value,
              zoneOffsetMinutes: zoned ? offsetMinutesOf(s.TimeISO8601) : null,
              isDailyTotal: true,
            });
          }
      }
      return { records, fetched, nextCursor: c.next };
    }
    const c = chunk(window, cursor, kind === "sleep" ? SLEEP_CHUNK_DAYS : ACTIVITY_CHUNK_DAYS);
    const path = kind === "sleep" ? "/247samples/sleep" : "/247samples/activity";
    const list =
      (await client.getJson<SuuntoSample<unknown>[] | null>(`${urls.apiBase}${path}`, {
        from: c.from,
        to: c.to,
      })) ?? [];
    for (const s of list) {
      if (kind === "sleep") {
        const mapped = mapSuuntoSleep(s as SuuntoSample<SuuntoSleepEntry>);
        records.sleeps.push(...mapped.sleeps);
        records.samples.push(...mapped.samples);
      } else records.samples.push(...mapSuuntoActivity(s as SuuntoSample<SuuntoActivityEntry>));
    }
    return { records, fetched: list.length, nextCursor: c.next };
  },

  async listRawWorkouts(client, urls, q) {
    return client.getJson(`${urls.apiBase}/v3/workouts`, {
      since: q.since * 1000,
      limit: Math.min(q.limit, 100),
      offset: q.offset,
      "filter-by-modification-time": q.byModificationTime,
    });
  },

  push: {
    verify(req, secrets) {
      const given = header(req, "x-hmac-sha256-signature");
      if (!given || !secrets.pushSecret) return false;
      const expected = createHmac("sha256", secrets.pushSecret).update(req.rawBody).digest("hex");
      const a = Buffer.from(given.trim().toLowerCase());
      const b = Buffer.from(expected);
      return a.length === b.length && timingSafeEqual(a, b);
    },
    parse(req): PushNotice[] {
      const n = JSON.parse(req.rawBody.toString("utf8")) as {
        type?: string;
        username?: string;
        workout?: Partial<SuuntoWorkout>;
        samples?: SuuntoSample<unknown>[];
      };
      if (typeof n.type !== "string" || typeof n.username !== "string" || n.username === "")
        throw new Error("a Suunto notification has a type and a username");
      const providerUserId = n.username;
      if (n.type === "WORKOUT_CREATED") {
        // The inline workout is the summary; the list answers the full one: pull the minutes around it.
        const start = n.workout?.startTime;
        const stop = n.workout?.stopTime ?? start;
        if (typeof start !== "number" || typeof stop !== "number") throw new Error("a workout notification has times");
        return [
          { providerUserId, pull: { kinds: ["workouts"], window: { start: start - 60_000, end: stop + 60_000 } } },
        ];
      }
      if (n.type === "SUUNTO_247_SLEEP_CREATED" || n.type === "SUUNTO_247_ACTIVITY_CREATED") {
        const records = empty();
        for (const s of n.samples ?? []) {
          if (n.type === "SUUNTO_247_SLEEP_CREATED") {
            const mapped = mapSuuntoSleep(s as SuuntoSample<SuuntoSleepEntry>);
            records.sleeps.push(...mapped.sleeps);
            records.samples.push(...mapped.samples);
          } else records.samples.push(...mapSuuntoActivity(s as SuuntoSample<SuuntoActivityEntry>));
        }
        return [{ providerUserId, records }];
      }
      // ROUTE_CREATED and SUUNTO_247_RECOVERY_CREATED (a recovery score) have nothing this data model stores.
      return [];
    },
  },
};
