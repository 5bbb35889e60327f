/**
 * Oura (API v2): workouts, sleep periods with their 5-minute hypnogram, daily totals (activity, SpO2, readiness's
 * temperature deviation) and heart rate.
 *
 * Sources:
 * - OAuth: https://cloud.ouraring.com/docs/authentication (authorize `cloud.ouraring.com/oauth/authorize`, token
 *   `api.ouraring.com/oauth/token`, client credentials in the form, space-separated scopes, no PKCE; the token
 *   answer has no user id, so the identity is `GET /v2/usercollection/personal_info`). Oura revokes with
 *   `GET /oauth/revoke?access_token=`, which the POST-form revocation of the contract cannot express: not set.
 * - Data: https://cloud.ouraring.com/v2/docs (`GET /v2/usercollection/{workout,sleep,daily_activity,daily_spo2,
 *   daily_readiness}?start_date&end_date&next_token`, dates `YYYY-MM-DD`; `heartrate?start_datetime&end_datetime
 *   &next_token`, at most 30 days per request; answers `{data, next_token}`).
 * - Rate limits: same page, "Rate Limits": 5,000 requests per 5 minutes.
 * - Webhooks: same page, "Webhook Subscription Routes" (GET `verification_token&challenge` answered `{challenge}`;
 *   notifications `{event_type, data_type, object_id, event_time, user_id}`); signature `x-oura-signature` = hex
 *   HMAC-SHA256 of `x-oura-timestamp` + body with the client secret (the anchor's oura/webhook_handler.py).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { formatZoneOffset } from "../../domain/queryDates.ts";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import type { SleepStage } from "../../store/healthDataWriter.ts";
import type {
  FetchPageParameters,
  MappedRecords,
  PushNotice,
  PushRequest,
  SyncKind,
  VendorAdapter,
  VendorTokens,
} from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};
const HEART_RATE = series("heart_rate");
const RESTING_HR = series("resting_heart_rate");
const HRV_RMSSD = series("heart_rate_variability_rmssd");
const RESPIRATORY_RATE = series("respiratory_rate");
const STEPS = series("steps");
const ACTIVE_ENERGY = series("active_energy");
const DISTANCE_WALKING = series("distance_walking_running");
const SPO2 = series("oxygen_saturation");
const SKIN_TEMP_DEVIATION = series("skin_temperature_deviation");
const SKIN_TEMP_TREND_DEVIATION = series("skin_temperature_trend_deviation");

const DAY_MS = 86_400_000;
/** Oura refuses a heart rate range longer than 30 days. */
const HEARTRATE_SPAN_MS = 30 * DAY_MS;
const SIGNATURE_TOLERANCE_SEC = 300;

/** Oura's workout `activity` → the anchor's workout type. */
const ACTIVITY: Record<string, string> = {
  walking: "walking",
  running: "running",
  cycling: "cycling",
  indoor_cycling: "indoor_cycling",
  swimming: "swimming",
  hiking: "hiking",
  strength_training: "strength_training",
  weight_training: "strength_training",
  yoga: "yoga",
  pilates: "pilates",
  dancing: "dance",
  elliptical: "elliptical",
  rowing: "rowing",
  stairs: "stair_climbing",
  tennis: "tennis",
  golf: "golf",
  soccer: "soccer",
  basketball: "basketball",
  cross_country_skiing: "cross_country_skiing",
  downhill_skiing: "downhill_skiing",
  snowboarding: "snowboarding",
  hiit: "cardio_training",
  meditation: "meditation",
  stretching: "stretching",
  other: "other",
};

/** `sleep_phase_5_min` digits: 1 deep, 2 light, 3 REM, 4 awake. */
const PHASE: Record<string, SleepStage> = { "1": "deep", "2": "light", "3": "rem", "4": "awake" };

interface OuraPage<T> {
  data: T[];
  next_token: string | null;
}
interface OuraWorkout {
  id: string;
  activity: string;
  calories: number | null;
  distance: number | null;
  day: string;
  start_datetime: string;
  end_datetime: string;
  intensity?: string;
  label?: string | null;
  source?: string;
}
interface OuraSleep {
  id: string;
  day: string;
  type: "deleted" | "sleep" | "long_sleep" | "late_nap" | "rest";
  bedtime_start: string;
  bedtime_end: string;
  time_in_bed: number;
  total_sleep_duration: number | null;
  awake_time: number | null;
  deep_sleep_duration: number | null;
  light_sleep_duration: number | null;
  rem_sleep_duration: number | null;
  efficiency: number | null;
  sleep_phase_5_min: string | null;
  lowest_heart_rate: number | null;
  average_hrv: number | null;
  average_breath: number | null;
}
interface OuraDailyActivity {
  day: string;
  steps: number | null;
  active_calories: number | null;
  equivalent_walking_distance: number | null;
}
interface OuraDailySpo2 {
  day: string;
  spo2_percentage: { average: number | null } | null;
}
interface OuraDailyReadiness {
  day: string;
  temperature_deviation: number | null;
  temperature_trend_deviation: number | null;
}
interface OuraHeartRate {
  bpm: number;
  source: string;
  timestamp: string;
}
interface OuraNotification {
  event_type: "create" | "update" | "delete";
  data_type: string;
  object_id?: string;
  event_time: string;
  user_id: string;
}

/** Minutes east of UTC of an ISO 8601 date-time's offset (`+01:00`, `Z`), null when it has none. */
export function offsetMinutesOf(iso: string): number | null {
  if (/Z$/i.test(iso)) return 0;
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(iso);
  if (!m) return null;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

const minutes = (seconds: number | null | undefined) =>
  typeof seconds === "number" && Number.isFinite(seconds) ? Math.round(seconds / 60) : null;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const midnightUtc = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** One request stream of a kind: an endpoint and its range parameters. */
interface Segment {
  path: string;
  query: Record<string, string>;
}

/**
 * The requests a kind's window takes. Day-keyed collections are asked one day wider on each side (a record's
 * `day` is its local day, up to 14 h off UTC) and filtered by time afterwards; heart rate goes in 30-day spans.
 */
function segmentsOf(kind: SyncKind, start: number, end: number): Segment[] {
  const dates = { start_date: isoDate(start - DAY_MS), end_date: isoDate(end + DAY_MS) };
  if (kind === "workouts") return [{ path: "workout", query: dates }];
  if (kind === "sleep") return [{ path: "sleep", query: dates }];
  if (kind === "daily")
    return ["daily_activity", "daily_spo2", "daily_readiness"].map((path) => ({ path, query: dates }));
  const out: Segment[] = [];
  for (let from = start; from < end; from += HEARTRATE_SPAN_MS) {
    const to = Math.min(end, from + HEARTRATE_SPAN_MS);
    out.push({
      path: "heartrate",
      query: { start_datetime: new Date(from).toISOString(), end_datetime: new Date(to).toISOString() },
    });
  }
  return out;
}

interface OuraCursor {
  /** Index of the segment. */
  s: number;
  /** Oura's `next_token` inside it. */
  t?: string;
}

const empty = (): MappedRecords => ({ workouts: [], sleeps: [], samples: [] });
const inWindow = (at: number, w: { start: number; end: number }) => at >= w.start && at < w.end;

export function mapOuraWorkout(w: OuraWorkout): MappedRecords["workouts"][number] {
  return {
    type: ACTIVITY[w.activity] ?? "other",
    start: Date.parse(w.start_datetime),
    end: Date.parse(w.end_datetime),
    zoneOffset: formatZoneOffset(offsetMinutesOf(w.start_datetime)),
    externalId: w.id,
    sourceName: w.label ?? null,
    source: "oura",
    deviceModel: "Oura Ring",
    // Oura reports no heart rate of a workout (the anchor's coverage: "Oura no workout HR").
    details: { energyBurned: w.calories, distance: w.distance },
  };
}

export function mapOuraSleep(s: OuraSleep): {
  sleep: MappedRecords["sleeps"][number];
  samples: MappedRecords["samples"];
} {
  const start = Date.parse(s.bedtime_start);
  const end = Date.parse(s.bedtime_end);
  const offset = offsetMinutesOf(s.bedtime_start);
  const stages: { stage: SleepStage; start: number; end: number }[] = [];
  // Runs of the same phase become one interval of 5-minute epochs from bedtime_start.
  for (const [i, c] of [...(s.sleep_phase_5_min ?? "")].entries()) {
    const stage = PHASE[c] ?? "unknown";
    const from = start + i * 300_000;
    const to = Math.min(end, from + 300_000);
    const last = stages[stages.length - 1];
    if (last && last.stage === stage && last.end === from) last.end = to;
    else if (from < end) stages.push({ stage, start: from, end: to });
  }
  const common = { recordedAt: end, zoneOffsetMinutes: offset, source: "oura", deviceModel: "Oura Ring" };
  const samples: MappedRecords["samples"] = [];
  if (s.lowest_heart_rate !== null) samples.push({ ...common, seriesType: RESTING_HR, value: s.lowest_heart_rate });
  if (s.average_hrv !== null) samples.push({ ...common, seriesType: HRV_RMSSD, value: s.average_hrv });
  if (s.average_breath !== null) samples.push({ ...common, seriesType: RESPIRATORY_RATE, value: s.average_breath });
  return {
    sleep: {
      start,
      end,
      zoneOffset: formatZoneOffset(offset),
      externalId: s.id,
      source: "oura",
      deviceModel: "Oura Ring",
      details: {
        totalDurationMinutes: minutes(s.total_sleep_duration),
        timeInBedMinutes: minutes(s.time_in_bed),
        efficiencyScore: s.efficiency,
        deepMinutes: minutes(s.deep_sleep_duration),
        lightMinutes: minutes(s.light_sleep_duration),
        remMinutes: minutes(s.rem_sleep_duration),
        awakeMinutes: minutes(s.awake_time),
        // `long_sleep` is the night; `sleep`, `late_nap` and `rest` are shorter periods.
        isNap: s.type !== "long_sleep",
        stages,
      },
    },
    samples,
  };
}

/** A daily document's values, each recorded at its day's UTC midnight (as the sandbox's daily totals). */
function mapOuraDaily(path: string, doc: Record<string, unknown>): MappedRecords["samples"] {
  const day = String(doc.day);
  const common = { recordedAt: midnightUtc(day), zoneOffsetMinutes: 0, source: "oura", deviceModel: "Oura Ring" };
  const out: MappedRecords["samples"] = [];
  const add = (seriesType: number, value: unknown, isDailyTotal = false) => {
    if (typeof value === "number" && Number.isFinite(value))
      out.push({ ...common, seriesType, value, ...(isDailyTotal ? { isDailyTotal: true } : {}) });
  };
  if (path === "daily_activity") {
    const a = doc as unknown as OuraDailyActivity;
    add(STEPS, a.steps, true);
    add(ACTIVE_ENERGY, a.active_calories, true);
    add(DISTANCE_WALKING, a.equivalent_walking_distance, true);
  } else if (path === "daily_spo2") {
    add(SPO2, (doc as unknown as OuraDailySpo2).spo2_percentage?.average);
  } else if (path === "daily_readiness") {
    const r = doc as unknown as OuraDailyReadiness;
    add(SKIN_TEMP_DEVIATION, r.temperature_deviation);
    add(SKIN_TEMP_TREND_DEVIATION, r.temperature_trend_deviation);
  }
  return out;
}

async function fetchOuraPage({ client, urls, kind, window, cursor }: FetchPageParameters) {
  const segments = segmentsOf(kind, window.start, window.end);
  const at: OuraCursor = cursor ? (JSON.parse(cursor) as OuraCursor) : { s: 0 };
  const segment = segments[at.s];
  if (!segment) return { records: empty(), fetched: 0, nextCursor: null };
  const page = await client.getJson<OuraPage<Record<string, unknown>>>(
    `${urls.apiBase}/usercollection/${segment.path}`,
    {
      ...segment.query,
      next_token: at.t,
    },
  );
  const records = empty();
  for (const doc of page.data) {
    if (segment.path === "workout") {
      const w = mapOuraWorkout(doc as unknown as OuraWorkout);
      if (inWindow(w.start, window)) records.workouts.push(w);
    } else if (segment.path === "sleep") {
      const s = doc as unknown as OuraSleep;
      if (s.type === "deleted") continue;
      const mapped = mapOuraSleep(s);
      if (!inWindow(mapped.sleep.start, window)) continue;
      records.sleeps.push(mapped.sleep);
      records.samples.push(...mapped.samples);
    } else if (segment.path === "heartrate") {
      const h = doc as unknown as OuraHeartRate;
      const recordedAt = Date.parse(h.timestamp);
      if (inWindow(recordedAt, window))
        records.samples.push({
          seriesType: HEART_RATE,
          recordedAt,
          value: h.bpm,
          zoneOffsetMinutes: offsetMinutesOf(h.timestamp),
          source: "oura",
          deviceModel: "Oura Ring",
        });
    } else if (inWindow(midnightUtc(String(doc.day)), window)) {
      records.samples.push(...mapOuraDaily(segment.path, doc));
    }
  }
  const next: OuraCursor | null = page.next_token
    ? { s: at.s, t: page.next_token }
    : at.s + 1 < segments.length
      ? { s: at.s + 1 }
      : null;
  return { records, fetched: page.data.length, nextCursor: next ? JSON.stringify(next) : null };
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** `x-oura-timestamp` as epoch seconds: Unix seconds (or milliseconds) or an ISO 8601 date-time. */
const timestampSec = (t: string) => {
  if (/^\d+$/.test(t)) return Number(t) > 1e12 ? Number(t) / 1000 : Number(t);
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? Number.NaN : ms / 1000;
};

function verifyOuraPush(req: PushRequest, secrets: { clientSecret: string }, now: number) {
  const signature = req.headers["x-oura-signature"];
  const timestamp = req.headers["x-oura-timestamp"];
  if (!signature || !timestamp || !secrets.clientSecret) return false;
  const at = timestampSec(timestamp);
  if (!Number.isFinite(at) || Math.abs(now / 1000 - at) > SIGNATURE_TOLERANCE_SEC) return false;
  const expected = createHmac("sha256", secrets.clientSecret).update(timestamp).update(req.rawBody).digest("hex");
  // Oura sends upper-case hex.
  return sameText(expected, signature.toLowerCase());
}

/** Notified `data_type` → the kind that pulls it. */
const KIND_OF: Record<string, SyncKind> = {
  workout: "workouts",
  sleep: "sleep",
  daily_sleep: "sleep",
  daily_activity: "daily",
  daily_spo2: "daily",
  daily_readiness: "daily",
};

function parseOuraPush(req: PushRequest): PushNotice[] {
  const n = JSON.parse(req.rawBody.toString("utf8")) as OuraNotification;
  if (typeof n !== "object" || n === null || !n.user_id || !n.data_type || !n.event_type)
    throw new Error("not an Oura notification: user_id, data_type and event_type are required");
  const kind = KIND_OF[n.data_type];
  // Deletions have no notice in the contract; unknown data types are not synced.
  if (!kind || n.event_type === "delete") return [];
  const at = Date.parse(n.event_time);
  const when = Number.isNaN(at) ? Date.now() : at;
  // The notice names the object, not its day: the two days before the event hold it (a night ends the next day).
  return [
    {
      providerUserId: String(n.user_id),
      pull: { kinds: [kind], window: { start: when - 2 * DAY_MS, end: when + DAY_MS } },
    },
  ];
}

export const oura: VendorAdapter = {
  id: "oura",
  name: "Oura",
  oauth: {
    authorizeUrl: "https://cloud.ouraring.com/oauth/authorize",
    tokenUrl: "https://api.ouraring.com/oauth/token",
    // Oura revokes with a GET carrying the token (cloud.ouraring.com/docs/authentication).
    revokeUrl: "https://api.ouraring.com/oauth/revoke",
    revokeMethod: "get-query",
    pkce: false,
    clientAuth: "body",
    scope: "personal daily activity heartrate workout session spo2 ring_configuration heart_health",
  },
  apiBase: "https://api.ouraring.com/v2",
  kinds: ["workouts", "sleep", "daily", "samples"],
  rateBudgets: [{ requests: 5000, windowSec: 300 }],
  liveSyncMode: "pull",
  maxHistoricalDays: null,
  dataGranularity: "raw",

  /** RFC 6749 fields only: Oura's token answer names no user (the identity is personal_info's `id`). */
  parseTokens(body, now): VendorTokens {
    const accessToken = body.access_token;
    if (typeof accessToken !== "string" || accessToken === "") throw new Error("the token answer has no access_token");
    const expiresIn = Number(body.expires_in);
    const tokens: VendorTokens = { accessToken };
    if (typeof body.refresh_token === "string") tokens.refreshToken = body.refresh_token;
    if (Number.isFinite(expiresIn) && expiresIn > 0) tokens.expiresAt = now + expiresIn * 1000;
    if (typeof body.scope === "string") tokens.scope = body.scope;
    return tokens;
  },

  async fetchIdentity(client, urls) {
    const me = await client.getJson<{ id: string; email?: string | null }>(
      `${urls.apiBase}/usercollection/personal_info`,
    );
    return { providerUserId: String(me.id), providerUsername: me.email ?? undefined };
  },

  fetchPage: fetchOuraPage,
  queryKnobs: { workouts: ["limit", "offset"] },

  async listRawWorkouts(client, urls, q) {
    // Oura pages by `next_token` only: the list is the window's workouts, sliced as asked.
    const start = q.since > 0 ? q.since * 1000 : Date.now() - 30 * DAY_MS;
    const data: unknown[] = [];
    let token: string | undefined;
    do {
      const page: OuraPage<unknown> = await client.getJson(`${urls.apiBase}/usercollection/workout`, {
        start_date: isoDate(start),
        end_date: isoDate(Date.now() + DAY_MS),
        next_token: token,
      });
      data.push(...page.data);
      token = page.next_token ?? undefined;
    } while (token && data.length < q.offset + q.limit);
    return { data: data.slice(q.offset, q.offset + q.limit), next_token: null };
  },

  push: {
    verify: verifyOuraPush,
    parse: parseOuraPush,
    challenge(query, secrets) {
      if (query.verification_token === undefined && query.challenge === undefined) return undefined;
      const token = query.verification_token;
      if (!secrets.pushSecret || !token || !sameText(secrets.pushSecret, token))
        return { status: 401, body: { detail: "Invalid verification token" } };
      return { status: 200, body: { challenge: query.challenge ?? "" } };
    },
  },
};
