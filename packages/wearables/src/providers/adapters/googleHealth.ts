/**
 * Google Health API (the Fitbit / Pixel Watch cloud, OAuth 2.0 through Google). Docs:
 * https://developers.google.com/health (data types, `dataPoints` list with AIP-160 `filter`, `pageToken`),
 * https://developers.google.com/health/notifications, https://developers.google.com/health/rate-limits and
 * https://developers.google.com/identity/protocols/oauth2/web-server (offline access, revocation).
 *
 * What is Google-specific:
 * - consent needs `access_type=offline&prompt=consent` for a refresh token; the client goes in the body; no PKCE
 *   for a confidential web client (as the anchor does);
 * - the user id is the Health API's `healthUserId` (`GET /v4/users/me/identity`), the id notifications carry;
 * - each data type is its own collection `GET /v4/users/me/dataTypes/{type}/dataPoints?filter&pageSize&pageToken`,
 *   filtered on the type's time member (`exercise.interval.start_time`, `heart_rate.sample_time.physical_time`,
 *   `daily_resting_heart_rate.date`); a kind that spans several types walks them in turn (the cursor says which);
 * - lengths are millimetres, durations `"1830s"` strings, offsets `"3600s"`, int64 values JSON strings;
 * - notifications are notify-only (a data type and changed intervals, no data), authenticated by the bearer
 *   secret configured on the subscriber, echoed in `Authorization` (the push secret).
 */
import { timingSafeEqual } from "node:crypto";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import { parseStandardTokens } from "../oauthClient.ts";
import type { MappedRecords, PushNotice, SyncKind, SyncWindow, VendorAdapter, VendorPage } from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};
const HEART_RATE = series("heart_rate");
const HRV_RMSSD = series("heart_rate_variability_rmssd");
const HRV_SDNN = series("heart_rate_variability_sdnn");
const STEPS = series("steps");
const RESTING_HR = series("resting_heart_rate");

/** Exercise.ExerciseType → the anchor's WorkoutType (the anchor's `constants/workout_types/google.py`). */
const EXERCISE_TYPE: Record<string, string> = {
  RUNNING: "running",
  TRAIL_RUN: "trail_running",
  TREADMILL: "treadmill",
  WALKING: "walking",
  HIKING: "hiking",
  BIKING: "cycling",
  OUTDOOR_BIKE: "cycling",
  MOUNTAIN_BIKE: "mountain_biking",
  STATIONARY_BIKE: "indoor_cycling",
  SPINNING: "indoor_cycling",
  ELECTRIC_BIKE: "e_biking",
  SWIMMING: "swimming",
  SWIMMING_POOL: "pool_swimming",
  SWIMMING_OPEN_WATER: "open_water_swimming",
  ROWING: "rowing",
  ROWING_MACHINE: "rowing_machine",
  KAYAKING: "kayaking",
  STRENGTH_TRAINING: "strength_training",
  FUNCTIONAL_STRENGTH_TRAINING: "strength_training",
  CALISTHENICS: "strength_training",
  ELLIPTICAL: "elliptical",
  STAIR_CLIMBER: "stair_climbing",
  YOGA: "yoga",
  PILATES: "pilates",
  HIIT: "cardio_training",
  DANCING: "dance",
  TENNIS: "tennis",
  GOLF: "golf",
  SOCCER: "soccer",
  BASKETBALL: "basketball",
};
const SLEEP_STAGE: Record<string, "awake" | "light" | "deep" | "rem" | "sleeping" | "unknown"> = {
  AWAKE: "awake",
  LIGHT: "light",
  DEEP: "deep",
  REM: "rem",
  ASLEEP: "sleeping",
};

/** How each data type is filtered by time: an interval, an instant, or a civil date. */
type Shape = "interval" | "sample" | "date";
interface DataType {
  type: string;
  shape: Shape;
}
/** The data types each kind reads, in order. */
const TYPES: Record<SyncKind, DataType[]> = {
  workouts: [{ type: "exercise", shape: "interval" }],
  sleep: [{ type: "sleep", shape: "interval" }],
  samples: [
    { type: "heart-rate", shape: "sample" },
    { type: "heart-rate-variability", shape: "sample" },
    { type: "steps", shape: "interval" },
  ],
  daily: [{ type: "daily-resting-heart-rate", shape: "date" }],
};
/** A notification's `dataType` → the kind to pull. */
const KIND_OF = Object.fromEntries(
  Object.entries(TYPES).flatMap(([kind, types]) => types.map((t) => [t.type, kind as SyncKind])),
) as Record<string, SyncKind>;

const PAGE_SIZE = 1000;

interface Interval {
  startTime: string;
  endTime: string;
  startUtcOffset?: string;
}
interface DataSource {
  platform?: string;
  device?: { displayName?: string; manufacturer?: string; formFactor?: string };
}
type Num = number | string | undefined;
export interface GoogleDataPoint {
  name: string;
  dataSource?: DataSource;
  exercise?: {
    interval: Interval;
    exerciseType: string;
    activeDuration?: string;
    metricsSummary?: {
      caloriesKcal?: Num;
      distanceMillimeters?: Num;
      steps?: Num;
      averageSpeedMillimetersPerSecond?: Num;
      averageHeartRateBeatsPerMinute?: Num;
      elevationGainMillimeters?: Num;
      mobilityMetrics?: { avgCadenceStepsPerMinute?: Num };
    };
  };
  sleep?: {
    interval: Interval;
    stages?: { startTime: string; endTime: string; type: string }[];
    summary?: {
      minutesInSleepPeriod?: Num;
      minutesAsleep?: Num;
      minutesAwake?: Num;
      stagesSummary?: { type: string; minutes: Num }[];
    };
    metadata?: { nap?: boolean };
  };
  heartRate?: { sampleTime: { physicalTime: string; utcOffset?: string }; beatsPerMinute: Num };
  heartRateVariability?: {
    sampleTime: { physicalTime: string; utcOffset?: string };
    rootMeanSquareOfSuccessiveDifferencesMilliseconds?: Num;
    standardDeviationMilliseconds?: Num;
  };
  steps?: { interval: Interval; count: Num };
  dailyRestingHeartRate?: { date: { year: number; month: number; day: number }; beatsPerMinute: Num };
}

const num = (v: Num): number | null => {
  if (v === undefined || v === null || v === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};
const mm = (v: Num) => {
  const n = num(v);
  return n === null ? null : n / 1000;
};
/** `"3600s"` → seconds. */
const durationSec = (v: string | undefined) => (v ? num(v.endsWith("s") ? v.slice(0, -1) : v) : null);
const offsetMinutes = (v: string | undefined) => {
  const s = durationSec(v);
  return s === null ? null : Math.round(s / 60);
};
const zone = (v: string | undefined) => {
  const m = offsetMinutes(v);
  if (m === null) return null;
  const abs = Math.abs(m);
  return `${m < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
};
const deviceOf = (s: DataSource | undefined) =>
  s?.device?.displayName ??
  ([s?.device?.manufacturer, s?.device?.formFactor?.toLowerCase()].filter(Boolean).join(" ") || null);
const empty = (): MappedRecords => ({ workouts: [], sleeps: [], samples: [] });
const iso = (ms: number) => new Date(ms).toISOString();
const ymd = (ms: number) => iso(ms).slice(0, 10);

/** The AIP-160 filter bounding `type` to the window on its time member. */
export function timeFilter(t: DataType, w: SyncWindow): string {
  const field = t.type.replaceAll("-", "_");
  if (t.shape === "date") {
    // Civil dates: every day the window touches.
    const member = `${field}.date`;
    return `${member} >= "${ymd(w.start)}" AND ${member} < "${ymd(w.end - 1 + 86_400_000)}"`;
  }
  const member = `${field}.${t.shape === "interval" ? "interval.start_time" : "sample_time.physical_time"}`;
  return `${member} >= "${iso(w.start)}" AND ${member} < "${iso(w.end)}"`;
}

export function mapDataPoint(p: GoogleDataPoint, records: MappedRecords) {
  const deviceModel = deviceOf(p.dataSource);
  const source = p.dataSource?.platform ?? null;
  if (p.exercise) {
    const e = p.exercise;
    const m = e.metricsSummary ?? {};
    records.workouts.push({
      type: EXERCISE_TYPE[e.exerciseType] ?? "other",
      start: Date.parse(e.interval.startTime),
      end: Date.parse(e.interval.endTime),
      zoneOffset: zone(e.interval.startUtcOffset),
      externalId: p.name,
      deviceModel,
      source,
      details: {
        energyBurned: num(m.caloriesKcal),
        distance: mm(m.distanceMillimeters),
        stepsCount: num(m.steps),
        averageSpeed: mm(m.averageSpeedMillimetersPerSecond),
        heartRateAvg: num(m.averageHeartRateBeatsPerMinute),
        totalElevationGain: mm(m.elevationGainMillimeters),
        averageCadence: num(m.mobilityMetrics?.avgCadenceStepsPerMinute),
        movingTimeSeconds: durationSec(e.activeDuration),
      },
    });
  } else if (p.sleep) {
    const s = p.sleep;
    const summary = s.summary ?? {};
    const stage = (type: string) => num(summary.stagesSummary?.find((x) => x.type === type)?.minutes);
    const inBed = num(summary.minutesInSleepPeriod);
    const asleep = num(summary.minutesAsleep);
    records.sleeps.push({
      start: Date.parse(s.interval.startTime),
      end: Date.parse(s.interval.endTime),
      zoneOffset: zone(s.interval.startUtcOffset),
      externalId: p.name,
      deviceModel,
      source,
      details: {
        totalDurationMinutes: asleep,
        timeInBedMinutes: inBed,
        deepMinutes: stage("DEEP"),
        lightMinutes: stage("LIGHT"),
        remMinutes: stage("REM"),
        awakeMinutes: stage("AWAKE") ?? num(summary.minutesAwake),
        efficiencyScore: asleep !== null && inBed ? Math.round((asleep / inBed) * 1000) / 10 : null,
        isNap: s.metadata?.nap === true,
        stages: (s.stages ?? []).map((x) => ({
          stage: SLEEP_STAGE[x.type] ?? "unknown",
          start: Date.parse(x.startTime),
          end: Date.parse(x.endTime),
        })),
      },
    });
  } else if (p.heartRate) {
    const v = num(p.heartRate.beatsPerMinute);
    if (v !== null)
      records.samples.push({
        seriesType: HEART_RATE,
        recordedAt: Date.parse(p.heartRate.sampleTime.physicalTime),
        value: v,
        zoneOffsetMinutes: offsetMinutes(p.heartRate.sampleTime.utcOffset),
        deviceModel,
        source,
      });
  } else if (p.heartRateVariability) {
    const h = p.heartRateVariability;
    const common = {
      recordedAt: Date.parse(h.sampleTime.physicalTime),
      zoneOffsetMinutes: offsetMinutes(h.sampleTime.utcOffset),
      deviceModel,
      source,
    };
    const rmssd = num(h.rootMeanSquareOfSuccessiveDifferencesMilliseconds);
    const sdnn = num(h.standardDeviationMilliseconds);
    if (rmssd !== null) records.samples.push({ ...common, seriesType: HRV_RMSSD, value: rmssd });
    if (sdnn !== null) records.samples.push({ ...common, seriesType: HRV_SDNN, value: sdnn });
  } else if (p.steps) {
    const v = num(p.steps.count);
    if (v !== null)
      records.samples.push({
        seriesType: STEPS,
        recordedAt: Date.parse(p.steps.interval.startTime),
        value: v,
        zoneOffsetMinutes: offsetMinutes(p.steps.interval.startUtcOffset),
        isDailyTotal: false,
        deviceModel,
        source,
      });
  } else if (p.dailyRestingHeartRate) {
    const { date, beatsPerMinute } = p.dailyRestingHeartRate;
    const v = num(beatsPerMinute);
    // A civil date without a zone: its UTC midnight, zone unknown.
    if (v !== null)
      records.samples.push({
        seriesType: RESTING_HR,
        recordedAt: Date.UTC(date.year, date.month - 1, date.day),
        value: v,
        zoneOffsetMinutes: null,
        deviceModel,
        source,
      });
  }
}

/** The cursor: which of the kind's data types, and Google's page token within it. */
const encodeCursor = (index: number, pageToken: string | undefined) => `${index}:${pageToken ?? ""}`;
const decodeCursor = (cursor: string | null) => {
  if (!cursor) return { index: 0, pageToken: undefined };
  const at = cursor.indexOf(":");
  return { index: Number(cursor.slice(0, at)), pageToken: cursor.slice(at + 1) || undefined };
};

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

interface Notification {
  type?: string;
  data?: {
    healthUserId?: string;
    operation?: "UPSERT" | "DELETE";
    dataType?: string;
    intervals?: { physicalTimeInterval?: { startTime?: string; endTime?: string } }[];
  };
}

export const googleHealth: VendorAdapter = {
  id: "google_health",
  name: "Google Health",
  oauth: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    revokeUrl: "https://oauth2.googleapis.com/revoke",
    pkce: false,
    clientAuth: "body",
    scope: [
      "openid",
      "email",
      ...["activity_and_fitness", "health_metrics_and_measurements", "nutrition", "sleep", "settings"].map(
        (s) => `https://www.googleapis.com/auth/googlehealth.${s}.readonly`,
      ),
    ].join(" "),
    authorizeParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
  },
  apiBase: "https://health.googleapis.com",
  kinds: ["workouts", "sleep", "samples", "daily"],
  // developers.google.com/health/rate-limits: per project 120,000 requests a minute and 86.4 M a day (the
  // per-user 300 a minute is below anything one connection's sync sends).
  rateBudgets: [
    { requests: 120_000, windowSec: 60 },
    { requests: 86_400_000, windowSec: 86_400 },
  ],
  liveSyncMode: "pull",
  maxHistoricalDays: null,
  // The anchor's default granularity for Google (`default_data_granularity`).
  dataGranularity: "raw",

  // Google's token answer names no Health API user (an id_token's `sub` is not the `healthUserId`): the id comes from
  // `fetchIdentity`, whatever else the answer carries.
  parseTokens(body, now) {
    const { providerUserId: _ignored, ...tokens } = parseStandardTokens(body, now);
    return tokens;
  },

  async fetchIdentity(client, urls) {
    const me = await client.getJson<{ healthUserId: string }>(`${urls.apiBase}/v4/users/me/identity`);
    return { providerUserId: String(me.healthUserId) };
  },

  async fetchPage({ client, urls, kind, window, cursor }): Promise<VendorPage> {
    const types = TYPES[kind];
    const { index, pageToken } = decodeCursor(cursor);
    const t = types[index];
    if (!t) return { records: empty(), fetched: 0, nextCursor: null };
    const page = await client.getJson<{ dataPoints?: GoogleDataPoint[]; nextPageToken?: string }>(
      `${urls.apiBase}/v4/users/me/dataTypes/${t.type}/dataPoints`,
      { filter: timeFilter(t, window), pageSize: PAGE_SIZE, pageToken },
    );
    const records = empty();
    const points = page.dataPoints ?? [];
    for (const p of points) mapDataPoint(p, records);
    const nextCursor = page.nextPageToken
      ? encodeCursor(index, page.nextPageToken)
      : index + 1 < types.length
        ? encodeCursor(index + 1, undefined)
        : null;
    return { records, fetched: points.length, nextCursor };
  },

  queryKnobs: { workouts: ["limit"] },

  listRawWorkouts(client, urls, q) {
    const start = q.since > 0 ? q.since * 1000 : Date.now() - 30 * 86_400_000;
    return client.getJson(`${urls.apiBase}/v4/users/me/dataTypes/exercise/dataPoints`, {
      filter: timeFilter({ type: "exercise", shape: "interval" }, { start, end: Date.now() }),
      pageSize: Math.min(Math.max(q.limit, 1), 100),
    });
  },

  push: {
    verify(req, secrets) {
      // The subscriber's bearer secret, echoed by Google in Authorization (Google also checks that a request
      // without it is refused, during endpoint verification).
      const given = req.headers.authorization;
      return Boolean(secrets.pushSecret && given && sameSecret(given, `Bearer ${secrets.pushSecret}`));
    },
    parse(req): PushNotice[] {
      const body = JSON.parse(req.rawBody.toString("utf8")) as Notification | Notification[];
      const out: PushNotice[] = [];
      for (const n of Array.isArray(body) ? body : [body]) {
        if (typeof n !== "object" || n === null) throw new Error("a Google Health notification is an object");
        // The endpoint verification handshake: acknowledged, nothing to pull.
        if (n.type === "verification") continue;
        const d = n.data;
        if (!d?.healthUserId || !d.dataType || !Array.isArray(d.intervals))
          throw new Error("a Google Health notification has data.healthUserId, dataType and intervals");
        const kind = KIND_OF[d.dataType];
        // Deletions have no counterpart in the contract yet, and types we do not read need no pull.
        if (d.operation === "DELETE" || !kind) continue;
        const bounds = d.intervals.map((i) => ({
          start: Date.parse(i.physicalTimeInterval?.startTime ?? ""),
          end: Date.parse(i.physicalTimeInterval?.endTime ?? ""),
        }));
        if (bounds.length === 0 || bounds.some((b) => Number.isNaN(b.start) || Number.isNaN(b.end)))
          throw new Error("a Google Health notification interval has startTime and endTime");
        out.push({
          providerUserId: d.healthUserId,
          pull: {
            kinds: [kind],
            window: { start: Math.min(...bounds.map((b) => b.start)), end: Math.max(...bounds.map((b) => b.end)) },
          },
        });
      }
      return out;
    },
  },
};
