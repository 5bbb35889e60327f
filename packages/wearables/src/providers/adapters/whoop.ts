/**
 * WHOOP (developer API v2): workouts, sleeps (stage totals; WHOOP publishes no stage intervals) and the morning
 * recovery (resting heart rate, HRV RMSSD, SpO2, skin temperature). WHOOP has no steps and no continuous heart
 * rate in its API (the anchor's coverage), so there is no `samples` kind.
 *
 * Sources:
 * - OAuth: https://developer.whoop.com/docs/developing/oauth (authorize `/oauth/oauth2/auth`, token
 *   `/oauth/oauth2/token`, client credentials in the form, no PKCE; `offline` is what yields a refresh token,
 *   the-momentum/open-wearables#257). The token answer names no user: the identity is
 *   `GET /v2/user/profile/basic`, which needs `read:profile` (added to the anchor's default scope for that).
 *   WHOOP revokes with `DELETE /v2/user/access`, which the POST-form revocation of the contract cannot express.
 * - Data: https://developer.whoop.com/api (`GET /v2/activity/workout`, `/v2/activity/sleep`, `/v2/recovery`, each
 *   `?start&end&limit&nextToken`, ISO 8601 date-times, limit ≤ 25, answers `{records, next_token}`).
 * - Rate limits: https://developer.whoop.com/docs/developing/rate-limiting (100 requests per minute and 10,000
 *   per day, per application).
 * - Webhooks: https://developer.whoop.com/docs/developing/webhooks (`{user_id, id, type, trace_id}`, types
 *   `workout|sleep|recovery.updated|deleted`; `X-WHOOP-Signature` = base64 HMAC-SHA256 of
 *   `X-WHOOP-Signature-Timestamp` (epoch ms) + body with the client secret).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { formatZoneOffset } from "../../domain/queryDates.ts";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import type { MappedRecords, PushNotice, PushRequest, SyncKind, VendorAdapter, VendorTokens } from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};
const RESTING_HR = series("resting_heart_rate");
const HRV_RMSSD = series("heart_rate_variability_rmssd");
const SPO2 = series("oxygen_saturation");
const SKIN_TEMP = series("skin_temperature");
const RESPIRATORY_RATE = series("respiratory_rate");

/** WHOOP's page size ceiling. */
const LIMIT = 25;
const SIGNATURE_TOLERANCE_SEC = 300;
const DAY_MS = 86_400_000;
const KJ_PER_KCAL = 4.184;

/** WHOOP's `sport_name` → the anchor's workout type. */
const SPORT: Record<string, string> = {
  activity: "other",
  running: "running",
  "track & field": "running",
  cycling: "cycling",
  "mountain biking": "mountain_biking",
  spin: "indoor_cycling",
  walking: "walking",
  "hiking/rucking": "hiking",
  swimming: "swimming",
  weightlifting: "strength_training",
  powerlifting: "strength_training",
  "strength trainer": "strength_training",
  "functional fitness": "cardio_training",
  "functional-fitness": "cardio_training",
  hiit: "cardio_training",
  yoga: "yoga",
  "hot yoga": "yoga",
  pilates: "pilates",
  stretching: "stretching",
  meditation: "meditation",
  rowing: "rowing",
  elliptical: "elliptical",
  stairmaster: "stair_climbing",
  tennis: "tennis",
  squash: "squash",
  pickleball: "pickleball",
  padel: "padel",
  golf: "golf",
  soccer: "soccer",
  basketball: "basketball",
  "ice hockey": "hockey",
  "field hockey": "hockey",
  boxing: "boxing",
  "martial arts": "martial_arts",
  "jiu jitsu": "martial_arts",
  climber: "stair_climbing",
  "rock climbing": "rock_climbing",
  skiing: "downhill_skiing",
  "cross country skiing": "cross_country_skiing",
  snowboarding: "snowboarding",
  surfing: "surfing",
  dance: "dance",
  barre: "pilates",
};

interface WhoopPage<T> {
  records: T[];
  next_token?: string | null;
}
interface WhoopWorkout {
  id: string;
  user_id: number;
  start: string;
  end: string;
  timezone_offset: string;
  sport_name: string;
  score_state: "SCORED" | "PENDING_SCORE" | "UNSCORABLE";
  score?: {
    strain: number;
    average_heart_rate: number;
    max_heart_rate: number;
    kilojoule: number;
    distance_meter?: number | null;
    altitude_gain_meter?: number | null;
  } | null;
}
interface WhoopSleep {
  id: string;
  user_id: number;
  start: string;
  end: string;
  timezone_offset: string;
  nap: boolean;
  score_state: string;
  score?: {
    stage_summary: {
      total_in_bed_time_milli: number;
      total_awake_time_milli: number;
      total_light_sleep_time_milli: number;
      total_slow_wave_sleep_time_milli: number;
      total_rem_sleep_time_milli: number;
    };
    respiratory_rate?: number | null;
    sleep_efficiency_percentage?: number | null;
  } | null;
}
interface WhoopRecovery {
  cycle_id: number;
  sleep_id: string;
  user_id: number;
  created_at: string;
  score_state: string;
  score?: {
    resting_heart_rate: number;
    hrv_rmssd_milli: number;
    spo2_percentage?: number | null;
    skin_temp_celsius?: number | null;
  } | null;
}

/** `-05:00` → -300; null when it is not an offset. */
const offsetMinutes = (offset: string | null | undefined): number | null => {
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(offset ?? "");
  if (!m) return offset === "Z" ? 0 : null;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
};
const minutesOf = (ms: number | null | undefined) => (typeof ms === "number" ? Math.round(ms / 60_000) : null);
const num = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const PATH: Partial<Record<SyncKind, string>> = {
  workouts: "activity/workout",
  sleep: "activity/sleep",
  daily: "recovery",
};

export function mapWhoopWorkout(w: WhoopWorkout): MappedRecords["workouts"][number] {
  const s = w.score_state === "SCORED" ? w.score : null;
  return {
    type: SPORT[w.sport_name?.toLowerCase()] ?? "other",
    start: Date.parse(w.start),
    end: Date.parse(w.end),
    zoneOffset: formatZoneOffset(offsetMinutes(w.timezone_offset)),
    externalId: w.id,
    source: "whoop",
    deviceModel: "WHOOP",
    details: {
      // WHOOP reports energy in kilojoules.
      energyBurned: s ? Math.round((s.kilojoule / KJ_PER_KCAL) * 10) / 10 : null,
      heartRateAvg: num(s?.average_heart_rate),
      heartRateMax: num(s?.max_heart_rate),
      distance: num(s?.distance_meter),
      totalElevationGain: num(s?.altitude_gain_meter),
    },
  };
}

export function mapWhoopSleep(w: WhoopSleep): {
  sleep: MappedRecords["sleeps"][number];
  samples: MappedRecords["samples"];
} {
  const end = Date.parse(w.end);
  const offset = offsetMinutes(w.timezone_offset);
  const st = w.score_state === "SCORED" ? w.score?.stage_summary : undefined;
  const asleep = st
    ? st.total_light_sleep_time_milli + st.total_slow_wave_sleep_time_milli + st.total_rem_sleep_time_milli
    : null;
  const samples: MappedRecords["samples"] = [];
  const breathing = num(w.score?.respiratory_rate);
  if (breathing !== null)
    samples.push({
      seriesType: RESPIRATORY_RATE,
      recordedAt: end,
      value: breathing,
      zoneOffsetMinutes: offset,
      source: "whoop",
      deviceModel: "WHOOP",
    });
  return {
    sleep: {
      start: Date.parse(w.start),
      end,
      zoneOffset: formatZoneOffset(offset),
      externalId: w.id,
      source: "whoop",
      deviceModel: "WHOOP",
      details: {
        totalDurationMinutes: minutesOf(asleep),
        timeInBedMinutes: minutesOf(st?.total_in_bed_time_milli),
        efficiencyScore: num(w.score?.sleep_efficiency_percentage),
        // WHOOP's slow-wave sleep is deep sleep.
        deepMinutes: minutesOf(st?.total_slow_wave_sleep_time_milli),
        lightMinutes: minutesOf(st?.total_light_sleep_time_milli),
        remMinutes: minutesOf(st?.total_rem_sleep_time_milli),
        awakeMinutes: minutesOf(st?.total_awake_time_milli),
        isNap: w.nap,
        stages: [],
      },
    },
    samples,
  };
}

/** A recovery's values at the moment WHOOP scored it (on waking). */
export function mapWhoopRecovery(r: WhoopRecovery): MappedRecords["samples"] {
  if (r.score_state !== "SCORED" || !r.score) return [];
  const common = { recordedAt: Date.parse(r.created_at), source: "whoop", deviceModel: "WHOOP" };
  const out: MappedRecords["samples"] = [];
  const add = (seriesType: number, value: number | null | undefined) => {
    const v = num(value);
    if (v !== null) out.push({ ...common, seriesType, value: v });
  };
  add(RESTING_HR, r.score.resting_heart_rate);
  add(HRV_RMSSD, r.score.hrv_rmssd_milli);
  add(SPO2, r.score.spo2_percentage);
  add(SKIN_TEMP, r.score.skin_temp_celsius);
  return out;
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

function verifyWhoopPush(req: PushRequest, secrets: { clientSecret: string }, now: number) {
  const signature = req.headers["x-whoop-signature"];
  const timestamp = req.headers["x-whoop-signature-timestamp"];
  if (!signature || !timestamp || !/^\d+$/.test(timestamp) || !secrets.clientSecret) return false;
  if (Math.abs(now - Number(timestamp)) > SIGNATURE_TOLERANCE_SEC * 1000) return false;
  const expected = createHmac("sha256", secrets.clientSecret).update(timestamp).update(req.rawBody).digest("base64");
  return sameText(expected, signature);
}

const KIND_OF: Record<string, SyncKind> = { workout: "workouts", sleep: "sleep", recovery: "daily" };

function parseWhoopPush(req: PushRequest): PushNotice[] {
  const n = JSON.parse(req.rawBody.toString("utf8")) as { user_id?: number; id?: string | number; type?: string };
  if (typeof n !== "object" || n === null || n.user_id === undefined || typeof n.type !== "string")
    throw new Error("not a WHOOP webhook: user_id and type are required");
  const [object, action] = n.type.split(".");
  const kind = KIND_OF[object ?? ""];
  // Deletions have no notice in the contract.
  if (!kind || action !== "updated") return [];
  // The notification names the object, not its time: the last three days hold anything just scored or edited.
  const now = Date.now();
  return [
    {
      providerUserId: String(n.user_id),
      pull: { kinds: [kind], window: { start: now - 3 * DAY_MS, end: now + DAY_MS } },
    },
  ];
}

export const whoop: VendorAdapter = {
  id: "whoop",
  name: "WHOOP",
  oauth: {
    authorizeUrl: "https://api.prod.whoop.com/oauth/oauth2/auth",
    tokenUrl: "https://api.prod.whoop.com/oauth/oauth2/token",
    // WHOOP revokes the app's access with DELETE /v2/user/access and the bearer token.
    revokeUrl: "https://api.prod.whoop.com/developer/v2/user/access",
    revokeMethod: "delete-bearer",
    // WHOOP's refresh request carries scope=offline to get a new refresh token.
    refreshParams: { scope: "offline" },
    pkce: false,
    clientAuth: "body",
    scope: "offline read:profile read:cycles read:sleep read:recovery read:workout",
  },
  apiBase: "https://api.prod.whoop.com/developer",
  kinds: ["workouts", "sleep", "daily"],
  rateBudgets: [
    { requests: 100, windowSec: 60 },
    { requests: 10_000, windowSec: 86_400 },
  ],
  liveSyncMode: "pull",
  maxHistoricalDays: null,
  dataGranularity: "daily",

  /** RFC 6749 fields only: WHOOP's token answer names no user (the identity is the basic profile). */
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
    const me = await client.getJson<{ user_id: number; email?: string }>(`${urls.apiBase}/v2/user/profile/basic`);
    return { providerUserId: String(me.user_id), providerUsername: me.email };
  },

  queryKnobs: { sync: ["limit"], workouts: ["limit", "offset"] },

  async fetchPage({ client, urls, kind, window, cursor, query }) {
    const path = PATH[kind];
    const records: MappedRecords = { workouts: [], sleeps: [], samples: [] };
    if (!path) return { records, fetched: 0, nextCursor: null };
    const page = await client.getJson<WhoopPage<unknown>>(`${urls.apiBase}/v2/${path}`, {
      start: new Date(window.start).toISOString(),
      end: new Date(window.end).toISOString(),
      // The sync's `limit` is the page size, within WHOOP's maximum of 25.
      limit: Math.min(query?.limit ?? LIMIT, LIMIT),
      nextToken: cursor ?? undefined,
    });
    for (const item of page.records) {
      if (kind === "workouts") records.workouts.push(mapWhoopWorkout(item as WhoopWorkout));
      else if (kind === "sleep") {
        const mapped = mapWhoopSleep(item as WhoopSleep);
        records.sleeps.push(mapped.sleep);
        records.samples.push(...mapped.samples);
      } else records.samples.push(...mapWhoopRecovery(item as WhoopRecovery));
    }
    // WHOOP's `next_token` goes back as `nextToken`; as the cursor it is used as is.
    return { records, fetched: page.records.length, nextCursor: page.next_token || null };
  },

  async listRawWorkouts(client, urls, q) {
    // WHOOP pages by token only: walk to the offset, answer one page of `limit` records in WHOOP's shape.
    const start = q.since > 0 ? q.since * 1000 : Date.now() - 30 * DAY_MS;
    const records: unknown[] = [];
    let token: string | undefined;
    do {
      const page: WhoopPage<unknown> = await client.getJson(`${urls.apiBase}/v2/activity/workout`, {
        start: new Date(start).toISOString(),
        limit: LIMIT,
        nextToken: token,
      });
      records.push(...page.records);
      token = page.next_token || undefined;
    } while (token && records.length < q.offset + q.limit);
    return { records: records.slice(q.offset, q.offset + q.limit), next_token: null };
  },

  push: { verify: verifyWhoopPush, parse: parseWhoopPush },
};
