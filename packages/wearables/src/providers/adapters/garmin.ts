/**
 * Garmin Connect Developer Program, Health API (OAuth 2.0 with PKCE). Docs: https://developer.garmin.com/
 * gc-developer-program/health-api/ and the Health REST API / Push specifications (partner portal, gated; the
 * anchor's `services/providers/garmin/*` and `docs/providers/garmin-data-pipeline.mdx` are the public record).
 *
 * What is Garmin-specific:
 * - Garmin pushes: each notification carries whole summaries inline, grouped by type (`activities`, `sleeps`,
 *   `dailies`, …), each with the Garmin `userId`; deregistrations and permission changes arrive the same way. The
 *   only mark of a genuine push is the `garmin-client-id` header (the consumer key), as the anchor checks.
 * - Pulling is by *upload* time: `GET /wellness-api/rest/{activities,sleeps,dailies}?uploadStartTimeInSeconds&
 *   uploadEndTimeInSeconds`, at most 86,400 s per call (a window is walked a day at a time: the cursor is the
 *   next chunk's start). Garmin keeps summaries for a limited time; the anchor backfills 30 days at most.
 * - Times are epoch seconds with a separate `…OffsetInSeconds` (the local offset).
 * - The token answer has no user id: `GET /wellness-api/rest/user/id` answers `{userId}`.
 */
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import { parseStandardTokens } from "../oauthClient.ts";
import type {
  MappedRecords,
  PushNotice,
  SyncKind,
  SyncWindow,
  VendorAdapter,
  VendorClient,
  VendorPage,
  VendorUrls,
} from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};
const HEART_RATE = series("heart_rate");
const RESTING_HR = series("resting_heart_rate");
const STEPS = series("steps");
const DISTANCE = series("distance_walking_running");
const ACTIVE_ENERGY = series("active_energy");
const BASAL_ENERGY = series("basal_energy");
const FLIGHTS = series("flights_climbed");
const STRESS = series("garmin_stress_level");

/** Garmin `activityType` → the anchor's WorkoutType (the anchor's `constants/workout_types/garmin.py`). */
const ACTIVITY_TYPE: Record<string, string> = {
  RUNNING: "running",
  INDOOR_RUNNING: "treadmill",
  STREET_RUNNING: "running",
  TRACK_RUNNING: "running",
  TRAIL_RUNNING: "trail_running",
  TREADMILL_RUNNING: "treadmill",
  ULTRA_RUN: "running",
  VIRTUAL_RUN: "virtual_activity",
  CYCLING: "cycling",
  ROAD_BIKING: "cycling",
  GRAVEL_CYCLING: "cycling",
  CYCLOCROSS: "cyclocross",
  MOUNTAIN_BIKING: "mountain_biking",
  INDOOR_CYCLING: "indoor_cycling",
  VIRTUAL_RIDE: "virtual_activity",
  E_BIKE_FITNESS: "e_biking",
  FITNESS_EQUIPMENT: "fitness_equipment",
  ELLIPTICAL: "elliptical",
  INDOOR_CARDIO: "cardio_training",
  HIIT: "cardio_training",
  INDOOR_ROWING: "rowing_machine",
  STAIR_CLIMBING: "stair_climbing",
  STRENGTH_TRAINING: "strength_training",
  PILATES: "pilates",
  YOGA: "yoga",
  MEDITATION: "meditation",
  BOULDERING: "bouldering",
  INDOOR_CLIMBING: "indoor_climbing",
  SWIMMING: "swimming",
  LAP_SWIMMING: "pool_swimming",
  OPEN_WATER_SWIMMING: "open_water_swimming",
  WALKING: "walking",
  CASUAL_WALKING: "casual_walking",
  SPEED_WALKING: "walking_fitness",
  HIKING: "hiking",
  RESORT_SKIING_SNOWBOARDING_WS: "downhill_skiing",
  BACKCOUNTRY_SKIING: "backcountry_skiing",
  CROSS_COUNTRY_SKIING_WS: "cross_country_skiing",
  SNOW_SHOE_WS: "snowshoeing",
  ROWING: "rowing",
  KAYAKING: "kayaking",
  STAND_UP_PADDLEBOARDING: "stand_up_paddleboarding",
  SAILING: "sailing",
  MULTI_SPORT: "multisport",
  TENNIS: "tennis",
  GOLF: "golf",
};

export interface GarminActivity {
  userId: string;
  summaryId: string;
  activityId?: number;
  activityName?: string;
  activityType: string;
  deviceName?: string;
  startTimeInSeconds: number;
  startTimeOffsetInSeconds: number;
  durationInSeconds: number;
  activeKilocalories?: number;
  distanceInMeters?: number;
  steps?: number;
  averageHeartRateInBeatsPerMinute?: number;
  maxHeartRateInBeatsPerMinute?: number;
  averageSpeedInMetersPerSecond?: number;
  maxSpeedInMetersPerSecond?: number;
  totalElevationGainInMeters?: number;
  averageRunCadenceInStepsPerMinute?: number;
  averageBikeCadenceInRoundsPerMinute?: number;
  averagePowerInWatts?: number;
  maxPowerInWatts?: number;
}
interface Interval {
  startTimeInSeconds: number;
  endTimeInSeconds: number;
}
export interface GarminSleep {
  userId: string;
  summaryId: string;
  calendarDate: string;
  startTimeInSeconds: number;
  startTimeOffsetInSeconds: number;
  durationInSeconds: number;
  deepSleepDurationInSeconds?: number;
  lightSleepDurationInSeconds?: number;
  remSleepInSeconds?: number;
  awakeDurationInSeconds?: number;
  sleepLevelsMap?: Partial<Record<"deep" | "light" | "rem" | "awake", Interval[]>>;
}
export interface GarminDaily {
  userId: string;
  summaryId: string;
  calendarDate: string;
  startTimeInSeconds: number;
  startTimeOffsetInSeconds: number;
  durationInSeconds: number;
  steps?: number;
  distanceInMeters?: number;
  activeKilocalories?: number;
  bmrKilocalories?: number;
  floorsClimbed?: number;
  restingHeartRateInBeatsPerMinute?: number;
  averageStressLevel?: number;
  /** Seconds after `startTimeInSeconds` → bpm. */
  timeOffsetHeartRateSamples?: Record<string, number>;
}

const zone = (offsetSeconds: number) => {
  const minutes = Math.round(offsetSeconds / 60);
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
};
const empty = (): MappedRecords => ({ workouts: [], sleeps: [], samples: [] });
const minutes = (seconds: number | undefined) => (seconds === undefined ? null : Math.round(seconds / 60));

export function mapActivity(a: GarminActivity): MappedRecords["workouts"][number] {
  const start = a.startTimeInSeconds * 1000;
  return {
    type: ACTIVITY_TYPE[a.activityType] ?? "other",
    start,
    end: start + a.durationInSeconds * 1000,
    zoneOffset: zone(a.startTimeOffsetInSeconds),
    externalId: a.summaryId,
    deviceModel: a.deviceName ?? null,
    details: {
      energyBurned: a.activeKilocalories ?? null,
      distance: a.distanceInMeters ?? null,
      stepsCount: a.steps ?? null,
      heartRateAvg: a.averageHeartRateInBeatsPerMinute ?? null,
      heartRateMax: a.maxHeartRateInBeatsPerMinute ?? null,
      averageSpeed: a.averageSpeedInMetersPerSecond ?? null,
      maxSpeed: a.maxSpeedInMetersPerSecond ?? null,
      totalElevationGain: a.totalElevationGainInMeters ?? null,
      averageCadence: a.averageRunCadenceInStepsPerMinute ?? a.averageBikeCadenceInRoundsPerMinute ?? null,
      averageWatts: a.averagePowerInWatts ?? null,
      maxWatts: a.maxPowerInWatts ?? null,
      movingTimeSeconds: a.durationInSeconds,
    },
  };
}

export function mapSleep(s: GarminSleep): MappedRecords["sleeps"][number] {
  const start = s.startTimeInSeconds * 1000;
  const deep = minutes(s.deepSleepDurationInSeconds);
  const light = minutes(s.lightSleepDurationInSeconds);
  const rem = minutes(s.remSleepInSeconds);
  const asleep = (deep ?? 0) + (light ?? 0) + (rem ?? 0);
  const inBed = Math.round(s.durationInSeconds / 60);
  const stages = (["deep", "light", "rem", "awake"] as const).flatMap((stage) =>
    (s.sleepLevelsMap?.[stage] ?? []).map((i) => ({
      stage,
      start: i.startTimeInSeconds * 1000,
      end: i.endTimeInSeconds * 1000,
    })),
  );
  stages.sort((a, b) => a.start - b.start);
  return {
    start,
    end: start + s.durationInSeconds * 1000,
    zoneOffset: zone(s.startTimeOffsetInSeconds),
    externalId: s.summaryId,
    details: {
      totalDurationMinutes: asleep,
      timeInBedMinutes: inBed,
      deepMinutes: deep,
      lightMinutes: light,
      remMinutes: rem,
      awakeMinutes: minutes(s.awakeDurationInSeconds),
      efficiencyScore: inBed > 0 ? Math.round((asleep / inBed) * 1000) / 10 : null,
      // Garmin reports naps separately (`napDurationInSeconds`); a sleeps summary is the night.
      isNap: false,
      stages,
    },
  };
}

export function mapDaily(d: GarminDaily): MappedRecords["samples"] {
  const at = d.startTimeInSeconds * 1000;
  const zoneOffsetMinutes = Math.round(d.startTimeOffsetInSeconds / 60);
  const common = { recordedAt: at, zoneOffsetMinutes };
  const out: MappedRecords["samples"] = [];
  const total = (seriesType: number, value: number | undefined) => {
    if (value !== undefined && value !== null) out.push({ ...common, seriesType, value, isDailyTotal: true });
  };
  total(STEPS, d.steps);
  total(DISTANCE, d.distanceInMeters);
  total(ACTIVE_ENERGY, d.activeKilocalories);
  total(BASAL_ENERGY, d.bmrKilocalories);
  total(FLIGHTS, d.floorsClimbed);
  if (d.restingHeartRateInBeatsPerMinute !== undefined)
    out.push({ ...common, seriesType: RESTING_HR, value: d.restingHeartRateInBeatsPerMinute });
  // Garmin's stress level is -1 or -2 when it could not be measured (off wrist, activity).
  if (d.averageStressLevel !== undefined && d.averageStressLevel >= 0)
    out.push({ ...common, seriesType: STRESS, value: d.averageStressLevel });
  for (const [offset, bpm] of Object.entries(d.timeOffsetHeartRateSamples ?? {}))
    out.push({ recordedAt: at + Number(offset) * 1000, zoneOffsetMinutes, seriesType: HEART_RATE, value: bpm });
  return out;
}

/** Pull path and push key of each kind. */
const SUMMARY: Partial<Record<SyncKind, string>> = { workouts: "activities", sleep: "sleeps", daily: "dailies" };
/** Garmin's ceiling of one pull call's upload range. */
const MAX_RANGE_SEC = 86_400;

function mapSummaries(type: string, items: unknown[]): MappedRecords {
  const records = empty();
  if (type === "activities") for (const a of items as GarminActivity[]) records.workouts.push(mapActivity(a));
  if (type === "sleeps") for (const s of items as GarminSleep[]) records.sleeps.push(mapSleep(s));
  if (type === "dailies") for (const d of items as GarminDaily[]) records.samples.push(...mapDaily(d));
  return records;
}

/** Garmin's ceiling of one backfill request's summary range (Health API: 90 days). */
const MAX_BACKFILL_SEC = 90 * 86_400;

/**
 * Asks Garmin to re-push every summary type of `types` whose summary time lies in `window`
 * (`GET /wellness-api/rest/backfill/{type}?summaryStartTimeInSeconds&summaryEndTimeInSeconds`, answered 202; the
 * data then arrives by push). This is how Garmin wants history fetched (the anchor's 30-day backfill); the
 * contract has no hook for it yet (see the report), so it is exported for the sync to call.
 */
export async function requestGarminBackfill(
  client: VendorClient,
  urls: VendorUrls,
  window: SyncWindow,
  types: readonly string[] = ["activities", "sleeps", "dailies"],
): Promise<number> {
  let requests = 0;
  for (const type of types) {
    for (let from = Math.floor(window.start / 1000); from < Math.ceil(window.end / 1000); from += MAX_BACKFILL_SEC) {
      await client.getJson(`${urls.apiBase}/wellness-api/rest/backfill/${type}`, {
        summaryStartTimeInSeconds: from,
        summaryEndTimeInSeconds: Math.min(from + MAX_BACKFILL_SEC, Math.ceil(window.end / 1000)),
      });
      requests += 1;
    }
  }
  return requests;
}

export const garmin: VendorAdapter = {
  id: "garmin",
  name: "Garmin",
  oauth: {
    authorizeUrl: "https://connect.garmin.com/oauth2Confirm",
    tokenUrl: "https://diauth.garmin.com/di-oauth2-service/oauth/token",
    pkce: true,
    clientAuth: "body",
    // Garmin grants what the app's portal configuration says; the authorize URL carries no scope (anchor §A1).
    scope: "",
  },
  apiBase: "https://apis.garmin.com",
  kinds: ["workouts", "sleep", "daily"],
  // Garmin publishes no numeric limit (the Health API specification is partner-gated; it speaks of "excessive
  // usage"): one call a second keeps a backfill well clear of it. Unverified; adjust to the partner agreement.
  rateBudgets: [{ requests: 60, windowSec: 60 }],
  liveSyncMode: "webhook",
  maxHistoricalDays: 30,
  dataGranularity: null,

  // Garmin's token answer names no user: the id comes from `/wellness-api/rest/user/id`, whatever else the answer
  // carries.
  parseTokens(body, now) {
    const { providerUserId: _ignored, ...tokens } = parseStandardTokens(body, now);
    return tokens;
  },

  async fetchIdentity(client, urls) {
    const me = await client.getJson<{ userId: string }>(`${urls.apiBase}/wellness-api/rest/user/id`);
    return { providerUserId: String(me.userId) };
  },

  // The summary upload window (the anchor's `summary_start_time`/`summary_end_time`): a sync's window becomes the
  // run's window (walked a day per call below); the workout list is one call of at most a day.
  queryKnobs: { sync: ["summary_window"], workouts: ["summary_window"] },

  async fetchPage({ client, urls, kind, window, cursor }): Promise<VendorPage> {
    const type = SUMMARY[kind];
    if (!type) return { records: empty(), fetched: 0, nextCursor: null };
    const endSec = Math.ceil(window.end / 1000);
    const from = cursor ? Number(cursor) : Math.floor(window.start / 1000);
    const to = Math.min(from + MAX_RANGE_SEC, endSec);
    const items = await client.getJson<unknown[]>(`${urls.apiBase}/wellness-api/rest/${type}`, {
      uploadStartTimeInSeconds: from,
      uploadEndTimeInSeconds: to,
    });
    const list = Array.isArray(items) ? items : [];
    return { records: mapSummaries(type, list), fetched: list.length, nextCursor: to < endSec ? String(to) : null };
  },

  listRawWorkouts(client, urls, q) {
    // The summary window asked for (at most a day, checked by the API), else one upload day (Garmin's ceiling per
    // call) from `since` or the last 24 hours.
    if (q.summaryWindow)
      return client.getJson(`${urls.apiBase}/wellness-api/rest/activities`, {
        uploadStartTimeInSeconds: q.summaryWindow.start,
        uploadEndTimeInSeconds: q.summaryWindow.end,
      });
    const from = q.since > 0 ? q.since : Math.floor(Date.now() / 1000) - MAX_RANGE_SEC;
    return client.getJson(`${urls.apiBase}/wellness-api/rest/activities`, {
      uploadStartTimeInSeconds: from,
      uploadEndTimeInSeconds: from + MAX_RANGE_SEC,
    });
  },

  push: {
    verify(req, secrets) {
      // Garmin signs nothing: the consumer key in `garmin-client-id` is the whole check (the anchor's too). When
      // the deployment configured a push secret for Garmin, it is that consumer key and must match.
      const clientId = req.headers["garmin-client-id"];
      if (!clientId) return false;
      return secrets.pushSecret ? clientId === secrets.pushSecret : true;
    },
    parse(req): PushNotice[] {
      const body = JSON.parse(req.rawBody.toString("utf8")) as Record<string, unknown>;
      if (typeof body !== "object" || body === null || Array.isArray(body))
        throw new Error("a Garmin push is an object of summary lists");
      const byUser = new Map<string, PushNotice>();
      const noticeOf = (userId: string) => {
        let n = byUser.get(userId);
        if (!n) {
          n = { providerUserId: userId };
          byUser.set(userId, n);
        }
        return n;
      };
      for (const [type, value] of Object.entries(body)) {
        if (!Array.isArray(value)) throw new Error(`Garmin push: ${type} is not a list`);
        for (const item of value as Record<string, unknown>[]) {
          const userId = item?.userId;
          if (typeof userId !== "string" && typeof userId !== "number")
            throw new Error(`Garmin push: ${type} without userId`);
          const notice = noticeOf(String(userId));
          if (type === "deregistrations") notice.deauthorized = true;
          else if (type === "userPermissionsChange") {
            // Every permission withdrawn is a deauthorization in all but name.
            if (Array.isArray(item.permissions) && item.permissions.length === 0) notice.deauthorized = true;
          } else if (type === "activities" || type === "sleeps" || type === "dailies") {
            // Ping mode: a `callbackURL` with the upload range instead of the summary; the pull reads that same
            // upload range (fetchPage's window is upload time). The anchor ignores pings; this takes them.
            if (typeof item.callbackURL === "string") {
              const from = Number(item.uploadStartTimeInSeconds);
              const to = Number(item.uploadEndTimeInSeconds);
              if (!Number.isFinite(from) || !Number.isFinite(to))
                throw new Error(`Garmin ping without its upload range`);
              const kind = (Object.keys(SUMMARY) as SyncKind[]).find((k) => SUMMARY[k] === type) as SyncKind;
              const kinds = new Set(notice.pull?.kinds ?? []).add(kind);
              const window = notice.pull?.window;
              notice.pull = {
                kinds: [...kinds],
                window: {
                  start: Math.min(window?.start ?? Number.POSITIVE_INFINITY, from * 1000),
                  end: Math.max(window?.end ?? 0, to * 1000),
                },
              };
              continue;
            }
            const mapped = mapSummaries(type, [item]);
            const records = notice.records ?? empty();
            records.workouts.push(...mapped.workouts);
            records.sleeps.push(...mapped.sleeps);
            records.samples.push(...mapped.samples);
            notice.records = records;
          }
        }
      }
      return [...byUser.values()];
    },
  },
};
