/**
 * Polar AccessLink v3 (https://www.polar.com/accesslink-api/): OAuth 2.0 with Basic client authentication and
 * scope `accesslink.read_all`; the token answer carries the Polar user id as `x_user_id`. Access tokens are
 * long-lived (about ten years) and Polar issues no refresh token: an expired or revoked token needs a new consent.
 *
 * Data (bearer token, https://www.polaraccesslink.com):
 * - `GET /v3/exercises[?samples=true&zones=true&route=true]` → exercises of the last 30 days (`start_time` local,
 *   `start_time_utc_offset` minutes, `duration` ISO 8601, `distance` m, `calories` kcal, `heart_rate {average,
 *   maximum}`), one list, no paging; `samples=true` adds each exercise's `samples: [{recording_rate (s),
 *   sample_type, data}]` (type `0` heart rate in bpm, `data` comma-separated values from the start), `zones=true`
 *   its `heart_rate_zones`, `route=true` its `route` (the anchor's Polar knobs);
 * - `GET /v3/users/sleep/available` → `{available: [{date, start_time, end_time}]}`, then
 *   `GET /v3/users/sleep/{date}` per night (durations in seconds, `hypnogram` and `heart_rate_samples` keyed by
 *   local `HH:MM`; hypnogram 0 wake, 1 REM, 2 lighter non-REM, 3 light non-REM, 4 deep non-REM, 5 unknown);
 * - `GET /v3/users/activities?from&to` (dates, at most 28 days, `from` at most 365 days ago) → daily summaries
 *   (`steps`, `active_calories`, `distance_from_steps` m);
 * - `GET /v3/users/continuous-heart-rate?from&to` (inclusive dates; 28 days a request, as the anchor asks) →
 *   `{heart_rates: [{date, heart_rate_samples: [{heart_rate, sample_time}]}]}`, 5-minute samples, `sample_time` the
 *   device's clock without a zone.
 * Webhooks (notify-only): `{event, user_id, entity_id, timestamp, url}` signed with `Polar-Webhook-Signature`, the
 * hex HMAC-SHA256 of the body with the `signature_secret_key` the webhook registration answered (the push secret).
 * The registration's `PING` arrives before that secret is known (it is answered only once the PING got its 200):
 * a PING is accepted unverified and yields no notice.
 * Rate limits (AccessLink "Rate limiting"): 500 + 20 × users requests per 15 minutes and 5,000 + 100 × users per
 * 24 hours per client; the budget holds the user-independent part.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { formatZoneOffset } from "../../domain/queryDates.ts";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import type { SleepStage } from "../../store/healthDataWriter.ts";
import { parseStandardTokens } from "../oauthClient.ts";
import type { MappedRecords, PushNotice, PushRequest, SyncKind, VendorAdapter, VendorPage } from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};
const HEART_RATE = series("heart_rate");
const STEPS = series("steps");
const ACTIVE_ENERGY = series("active_energy");
const DISTANCE = series("distance_walking_running");

const DAY = 86_400_000;
/** Polar answers at most 28 days per activities or continuous heart rate request. */
const RANGE_DAYS = 28;
/** `/v3/users/activities` refuses a `from` older than 365 days. */
const ACTIVITY_HISTORY_DAYS = 365;
/** Nights fetched per sleep page (one request each). */
const NIGHTS_PER_PAGE = 7;

export interface PolarExercise {
  id: string;
  device?: string | null;
  start_time: string;
  start_time_utc_offset: number;
  duration: string;
  calories?: number | null;
  distance?: number | null;
  heart_rate?: { average?: number | null; maximum?: number | null } | null;
  sport: string;
  detailed_sport_info?: string | null;
  /** With `samples=true`: the exercise's recordings (the v3 list writes snake_case; kebab-case is read too). */
  samples?: PolarExerciseSamples[] | null;
}

export interface PolarExerciseSamples {
  recording_rate?: number;
  "recording-rate"?: number;
  sample_type?: string | number;
  "sample-type"?: string | number;
  data?: string | null;
}

/** AccessLink's sample type of heart rate (bpm). */
const POLAR_HEART_RATE_SAMPLES = "0";

/**
 * The heart rate samples of an exercise fetched with `samples=true`: one per `recording_rate` seconds from the
 * exercise's start; gaps (empty or non-numeric values) are skipped.
 */
export function mapPolarExerciseHeartRate(e: PolarExercise): MappedRecords["samples"] {
  const out: MappedRecords["samples"] = [];
  const start = Date.parse(`${e.start_time.replace(/Z$/, "")}Z`) - e.start_time_utc_offset * 60_000;
  for (const s of e.samples ?? []) {
    const type = String(s.sample_type ?? s["sample-type"] ?? "");
    const rate = Number(s.recording_rate ?? s["recording-rate"] ?? 0);
    if (type !== POLAR_HEART_RATE_SAMPLES || !(rate > 0) || !s.data) continue;
    s.data.split(",").forEach((v, i) => {
      const bpm = Number(v);
      if (v.trim() === "" || !Number.isFinite(bpm) || bpm <= 0) return;
      out.push({
        seriesType: HEART_RATE,
        recordedAt: start + i * rate * 1000,
        value: bpm,
        zoneOffsetMinutes: e.start_time_utc_offset,
        deviceModel: e.device ?? null,
      });
    });
  }
  return out;
}
export interface PolarSleep {
  date: string;
  sleep_start_time: string;
  sleep_end_time: string;
  device_id?: string;
  light_sleep?: number;
  deep_sleep?: number;
  rem_sleep?: number;
  total_interruption_duration?: number;
  sleep_score?: number;
  hypnogram?: Record<string, number>;
  heart_rate_samples?: Record<string, number>;
}
interface PolarActivity {
  start_time: string;
  steps?: number | null;
  active_calories?: number | null;
  distance_from_steps?: number | null;
}
interface PolarContinuousHeartRate {
  date: string;
  heart_rate_samples: { heart_rate: number; sample_time: string }[];
}

/** `detailed_sport_info` first, then `sport` (the anchor's constants/workout_types/polar.py). */
const DETAILED_SPORT: Record<string, string> = {
  RUNNING_ROAD: "running",
  RUNNING_TRAIL: "trail_running",
  RUNNING_TREADMILL: "treadmill",
  TREADMILL_RUNNING: "treadmill",
  CYCLING_ROAD: "cycling",
  CYCLING_MOUNTAIN: "mountain_biking",
  CYCLING_MOUNTAIN_BIKE: "mountain_biking",
  CYCLING_INDOOR: "indoor_cycling",
  INDOOR_CYCLING: "indoor_cycling",
  CYCLING_CYCLOCROSS: "cyclocross",
  SWIMMING_POOL: "pool_swimming",
  POOL_SWIMMING: "pool_swimming",
  SWIMMING_OPEN_WATER: "open_water_swimming",
  AQUATICS_SWIMMING: "swimming",
  WALKING: "walking",
  WALKING_NORDIC: "walking",
  HIKING: "hiking",
  MOUNTAINEERING: "mountaineering",
  WINTERSPORTS_CROSS_COUNTRY_SKIING: "cross_country_skiing",
  WINTERSPORTS_ALPINE_SKIING: "alpine_skiing",
  WINTERSPORTS_DOWNHILL_SKIING: "alpine_skiing",
  WINTERSPORTS_BACKCOUNTRY_SKIING: "backcountry_skiing",
  WINTERSPORTS_SNOWBOARDING: "snowboarding",
  WINTERSPORTS_SNOWSHOEING: "snowshoeing",
  WINTERSPORTS_ICE_SKATING: "ice_skating",
  STRENGTH_TRAINING: "strength_training",
  HIIT: "cardio_training",
  FITNESS_CARDIO: "cardio_training",
  JUMP_ROPE: "cardio_training",
  FITNESS_ELLIPTICAL: "elliptical",
  FITNESS_INDOOR_ROWING: "rowing_machine",
  FITNESS_STAIR_CLIMBING: "stair_climbing",
  FITNESS_YOGA: "yoga",
  FITNESS_PILATES: "pilates",
  FITNESS_STRETCHING: "stretching",
  WATERSPORTS_ROWING: "rowing",
  WATERSPORTS_KAYAKING: "kayaking",
  WATERSPORTS_CANOEING: "canoeing",
  WATERSPORTS_STAND_UP_PADDLING: "stand_up_paddleboarding",
  WATERSPORTS_SURFING: "surfing",
  WATERSPORTS_KITESURFING: "kitesurfing",
  WATERSPORTS_WINDSURFING: "windsurfing",
  WATERSPORTS_SAILING: "sailing",
  WATERSPORTS_WATERSKI: "water_skiing",
  TEAMSPORTS_SOCCER: "soccer",
  TEAMSPORTS_FOOTBALL: "football",
  TEAMSPORTS_AMERICAN_FOOTBALL: "american_football",
  TEAMSPORTS_BASEBALL: "baseball",
  TEAMSPORTS_BASKETBALL: "basketball",
  TEAMSPORTS_VOLLEYBALL: "volleyball",
  TEAMSPORTS_HANDBALL: "handball",
  TEAMSPORTS_RUGBY: "rugby",
  TEAMSPORTS_HOCKEY: "hockey",
  TEAMSPORTS_FLOORBALL: "floorball",
  RACKET_SPORTS_TENNIS: "tennis",
  RACKET_SPORTS_BADMINTON: "badminton",
  RACKET_SPORTS_SQUASH: "squash",
  RACKET_SPORTS_TABLE_TENNIS: "table_tennis",
  RACKET_SPORTS_PADEL: "padel",
  COMBAT_SPORTS_BOXING: "boxing",
  COMBAT_SPORTS_MARTIAL_ARTS: "martial_arts",
  KICKBOXING_MARTIAL_ARTS: "boxing",
  OUTDOOR_CLIMBING: "rock_climbing",
  INDOOR_CLIMBING: "indoor_climbing",
  ORIENTEERING: "orienteering",
  GOLF: "golf",
  INLINE_SKATING: "inline_skating",
  SKATEBOARDING: "skateboarding",
  HORSEBACK_RIDING: "horseback_riding",
  TRIATHLON: "triathlon",
  MOTORSPORTS: "motorcycling",
  DANCE: "dance",
};
const SPORT: Record<string, string> = {
  RUNNING: "running",
  CYCLING: "cycling",
  SWIMMING: "swimming",
  WALKING: "walking",
  STRENGTH_TRAINING: "strength_training",
  BASKETBALL: "basketball",
  SOCCER: "soccer",
  TENNIS: "tennis",
  MULTISPORT: "multisport",
  OTHER: "generic",
};
export const polarWorkoutType = (sport: string, detailed?: string | null) =>
  (detailed ? DETAILED_SPORT[detailed] : undefined) ?? SPORT[sport] ?? "other";

const HYPNOGRAM: Record<number, SleepStage> = { 0: "awake", 1: "rem", 2: "light", 3: "light", 4: "deep", 5: "unknown" };

/** Seconds of an ISO 8601 duration (`PT1H2M3.5S`, `P1DT2H`). */
export function isoDurationSeconds(d: string): number {
  const m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(d);
  if (!m) throw new Error(`not an ISO 8601 duration: ${d}`);
  const [days, hours, minutes, seconds] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number];
  return days * 86_400 + hours * 3600 + minutes * 60 + seconds;
}

/** Minutes east of UTC of an ISO 8601 time with an offset (`…+02:00`, `…Z`), null without one. */
function offsetMinutesOf(iso: string): number | null {
  const m = /(Z|([+-])(\d{2}):?(\d{2}))$/.exec(iso);
  if (!m) return null;
  if (m[1] === "Z") return 0;
  return (m[2] === "-" ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
}

/**
 * Epoch ms of each local `HH:MM[:SS]` key after a local start (a night crosses midnight: a key earlier than the
 * previous one is the next day), given the start's instant and UTC offset.
 */
function clockKeysToInstants(keys: string[], startMs: number, offsetMin: number): number[] {
  const localStart = startMs + offsetMin * 60_000;
  const dayStart = Math.floor(localStart / DAY) * DAY;
  let previous = Number.NEGATIVE_INFINITY;
  return keys.map((key) => {
    const [h = 0, m = 0, s = 0] = key.split(":").map(Number);
    let at = dayStart + ((h * 60 + m) * 60 + s) * 1000;
    // A clock time well before the start is after midnight; the keys only move forward.
    if (at < localStart - 12 * 3600_000) at += DAY;
    while (at < previous) at += DAY;
    previous = at;
    return at - offsetMin * 60_000;
  });
}

export function mapPolarExercise(e: PolarExercise): MappedRecords["workouts"][number] {
  // `start_time` is the local wall clock: the instant is local minus the offset.
  const start = Date.parse(`${e.start_time.replace(/Z$/, "")}Z`) - e.start_time_utc_offset * 60_000;
  const seconds = isoDurationSeconds(e.duration);
  return {
    type: polarWorkoutType(e.sport, e.detailed_sport_info),
    start,
    end: start + Math.round(seconds * 1000),
    zoneOffset: formatZoneOffset(e.start_time_utc_offset),
    externalId: e.id,
    sourceName: e.device ?? "Polar",
    deviceModel: e.device ?? null,
    details: {
      energyBurned: e.calories ?? null,
      distance: e.distance ?? null,
      heartRateAvg: e.heart_rate?.average ?? null,
      heartRateMax: e.heart_rate?.maximum ?? null,
      averageSpeed: e.distance && seconds > 0 ? e.distance / seconds : null,
    },
  };
}

export function mapPolarSleep(s: PolarSleep): {
  sleep: MappedRecords["sleeps"][number];
  heartRate: MappedRecords["samples"];
} {
  const start = Date.parse(s.sleep_start_time);
  const end = Date.parse(s.sleep_end_time);
  const offset = offsetMinutesOf(s.sleep_start_time) ?? 0;
  const minutes = (sec: number | undefined) => (sec === undefined ? null : Math.round(sec / 60));
  const stages: MappedRecords["sleeps"][number]["details"]["stages"] = [];
  if (s.hypnogram) {
    const keys = Object.keys(s.hypnogram);
    const at = clockKeysToInstants(keys, start, offset);
    keys.forEach((key, i) => {
      const stage = HYPNOGRAM[s.hypnogram?.[key] ?? 5] ?? "unknown";
      const from = Math.max(start, at[i] as number);
      const to = Math.min(end, at[i + 1] ?? end);
      if (to <= from) return;
      const last = stages[stages.length - 1];
      if (last && last.stage === stage && last.end === from) last.end = to;
      else stages.push({ stage, start: from, end: to });
    });
  }
  const hrKeys = Object.keys(s.heart_rate_samples ?? {});
  const hrAt = clockKeysToInstants(hrKeys, start, offset);
  const asleep = (s.light_sleep ?? 0) + (s.deep_sleep ?? 0) + (s.rem_sleep ?? 0);
  return {
    sleep: {
      start,
      end,
      zoneOffset: formatZoneOffset(offset),
      externalId: s.date,
      sourceName: "Polar",
      details: {
        totalDurationMinutes: Math.round(asleep / 60),
        timeInBedMinutes: Math.round((end - start) / 60_000),
        deepMinutes: minutes(s.deep_sleep),
        lightMinutes: minutes(s.light_sleep),
        remMinutes: minutes(s.rem_sleep),
        awakeMinutes: minutes(s.total_interruption_duration),
        isNap: false,
        stages,
      },
    },
    heartRate: hrKeys.map((k, i) => ({
      seriesType: HEART_RATE,
      recordedAt: hrAt[i] as number,
      value: s.heart_rate_samples?.[k] as number,
      zoneOffsetMinutes: offset,
    })),
  };
}

const empty = (): MappedRecords => ({ workouts: [], sleeps: [], samples: [] });
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The window's UTC dates in chunks of at most `days`: the chunk starting at `cursor` (a date) or the window's. */
function dateChunk(window: { start: number; end: number }, cursor: string | null, days: number) {
  const from = cursor ? Date.parse(`${cursor}T00:00:00Z`) : Math.floor(window.start / DAY) * DAY;
  const last = Math.floor((window.end - 1) / DAY) * DAY;
  const to = Math.min(from + (days - 1) * DAY, last);
  return { from: isoDate(from), to: isoDate(to), next: to < last ? isoDate(to + DAY) : null };
}

const PUSH_KINDS: Record<string, SyncKind[]> = {
  EXERCISE: ["workouts"],
  SLEEP: ["sleep"],
  CONTINUOUS_HEART_RATE: ["samples"],
  ACTIVITY_SUMMARY: ["daily"],
};
const header = (req: PushRequest, name: string) => {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(req.headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
};
const isPing = (raw: Buffer) => {
  try {
    return (JSON.parse(raw.toString("utf8")) as { event?: string }).event === "PING";
  } catch {
    return false;
  }
};

export const polar: VendorAdapter = {
  id: "polar",
  name: "Polar",
  oauth: {
    authorizeUrl: "https://flow.polar.com/oauth2/authorization",
    tokenUrl: "https://polarremote.com/v2/oauth2/token",
    pkce: false,
    clientAuth: "basic",
    scope: "accesslink.read_all",
  },
  apiBase: "https://www.polaraccesslink.com",
  kinds: ["workouts", "sleep", "daily", "samples"],
  rateBudgets: [
    { requests: 500, windowSec: 900 },
    { requests: 5000, windowSec: 86_400 },
  ],
  liveSyncMode: "pull",
  maxHistoricalDays: null,
  dataGranularity: "raw",

  parseTokens(body, now) {
    const tokens = parseStandardTokens(body, now);
    if (body.x_user_id !== undefined && body.x_user_id !== null) tokens.providerUserId = String(body.x_user_id);
    return tokens;
  },

  // The sync writes heart rate samples of exercises (`samples`); zones and routes have no place in the data
  // model, so only the passthrough takes them.
  queryKnobs: { sync: ["samples"], workouts: ["samples", "zones", "route"] },

  async fetchPage({ client, urls, kind, window, cursor, query }): Promise<VendorPage> {
    const records = empty();
    if (kind === "workouts") {
      // The list holds the last 30 days whatever the window: keep what starts inside it. With the sync's
      // `samples`, the list carries each exercise's samples: its heart rate is written as samples.
      const withSamples = query?.detail?.samples === true;
      const list =
        (await client.getJson<PolarExercise[] | null>(
          `${urls.apiBase}/v3/exercises`,
          withSamples ? { samples: true } : undefined,
        )) ?? [];
      for (const e of list) {
        const w = mapPolarExercise(e);
        if (w.start >= window.start && w.start < window.end) {
          records.workouts.push(w);
          if (withSamples) records.samples.push(...mapPolarExerciseHeartRate(e));
        }
      }
      return { records, fetched: list.length, nextCursor: null };
    }
    if (kind === "sleep") {
      let dates: string[];
      if (cursor) dates = cursor.split(",");
      else {
        const available = await client.getJson<{ available?: { date: string; start_time: string }[] } | null>(
          `${urls.apiBase}/v3/users/sleep/available`,
        );
        dates = (available?.available ?? [])
          .filter((n) => {
            const at = Date.parse(n.start_time);
            return at >= window.start && at < window.end;
          })
          .map((n) => n.date)
          .sort();
      }
      const now = dates.slice(0, NIGHTS_PER_PAGE);
      for (const date of now) {
        const night = await client.getJson<PolarSleep | null>(`${urls.apiBase}/v3/users/sleep/${date}`);
        if (!night) continue;
        const { sleep, heartRate } = mapPolarSleep(night);
        records.sleeps.push(sleep);
        records.samples.push(...heartRate);
      }
      const rest = dates.slice(NIGHTS_PER_PAGE);
      return { records, fetched: now.length, nextCursor: rest.length > 0 ? rest.join(",") : null };
    }
    if (kind === "daily") {
      // Older days are refused: start where Polar still answers.
      const oldest = (Math.floor(Date.now() / DAY) - ACTIVITY_HISTORY_DAYS) * DAY;
      const reachable = { start: Math.max(window.start, oldest), end: window.end };
      if (reachable.start >= reachable.end) return { records, fetched: 0, nextCursor: null };
      const chunk = dateChunk(reachable, cursor, RANGE_DAYS);
      const days =
        (await client.getJson<PolarActivity[] | null>(`${urls.apiBase}/v3/users/activities`, {
          from: chunk.from,
          to: chunk.to,
        })) ?? [];
      for (const d of days) {
        // A daily summary is the user's local day: its date at midnight UTC, zone unknown (as the sandbox's).
        const at = Date.parse(`${d.start_time.slice(0, 10)}T00:00:00Z`);
        const common = { recordedAt: at, zoneOffsetMinutes: null, isDailyTotal: true };
        if (d.steps != null) records.samples.push({ ...common, seriesType: STEPS, value: d.steps });
        if (d.active_calories != null)
          records.samples.push({ ...common, seriesType: ACTIVE_ENERGY, value: d.active_calories });
        if (d.distance_from_steps != null)
          records.samples.push({ ...common, seriesType: DISTANCE, value: d.distance_from_steps });
      }
      return { records, fetched: days.length, nextCursor: chunk.next };
    }
    // samples: continuous heart rate, a week per page (288 samples a day).
    const chunk = dateChunk(window, cursor, 7);
    const answer = await client.getJson<{ heart_rates?: PolarContinuousHeartRate[] } | null>(
      `${urls.apiBase}/v3/users/continuous-heart-rate`,
      { from: chunk.from, to: chunk.to },
    );
    let fetched = 0;
    for (const day of answer?.heart_rates ?? []) {
      for (const s of day.heart_rate_samples) {
        fetched += 1;
        // Polar gives the day and a clock time without a zone: read as UTC (see the report).
        const at = Date.parse(`${day.date}T${s.sample_time.length === 5 ? `${s.sample_time}:00` : s.sample_time}Z`);
        if (at >= window.start && at < window.end)
          records.samples.push({
            seriesType: HEART_RATE,
            recordedAt: at,
            value: s.heart_rate,
            zoneOffsetMinutes: null,
          });
      }
    }
    return { records, fetched, nextCursor: chunk.next };
  },

  async listRawWorkouts(client, urls, q) {
    // AccessLink's list has no paging or since: it is the last 30 days, with the detail asked for.
    return client.getJson(`${urls.apiBase}/v3/exercises`, {
      samples: q.detail.samples || undefined,
      zones: q.detail.zones || undefined,
      route: q.detail.route || undefined,
    });
  },

  push: {
    verify(req, secrets) {
      // The registration's PING carries no signature and asks for nothing: answered 200, parsed into no notice.
      if (isPing(req.rawBody)) return true;
      const given = header(req, "polar-webhook-signature") ?? header(req, "x-polar-webhook-signature");
      if (!given || !secrets.pushSecret) return false;
      const expected = createHmac("sha256", secrets.pushSecret).update(req.rawBody).digest("hex");
      const a = Buffer.from(given.trim().toLowerCase());
      const b = Buffer.from(expected);
      return a.length === b.length && timingSafeEqual(a, b);
    },
    parse(req): PushNotice[] {
      const event = JSON.parse(req.rawBody.toString("utf8")) as {
        event?: string;
        user_id?: number | string;
        timestamp?: string;
        date?: string;
      };
      if (typeof event.event !== "string") throw new Error("a Polar notification names its event");
      if (event.event === "PING") return [];
      const kinds = PUSH_KINDS[event.event];
      if (!kinds) return [];
      if (event.user_id === undefined || event.user_id === null) throw new Error("a Polar notification names its user");
      // The entity is recent: pull the day of the event (or the night's date) and the day before.
      const anchor = event.date ? Date.parse(`${event.date}T00:00:00Z`) + DAY : Date.parse(event.timestamp ?? "");
      if (Number.isNaN(anchor)) throw new Error("a Polar notification has a timestamp");
      return [
        {
          providerUserId: String(event.user_id),
          pull: { kinds, window: { start: anchor - 2 * DAY, end: anchor + DAY } },
        },
      ];
    },
  },
};
