/**
 * Strava (API v3). Workouts only: Strava is an activity log, it has no sleep or 24/7 data.
 *
 * Sources:
 * - OAuth: https://developers.strava.com/docs/authentication/ (authorize `/oauth/authorize`, token `/oauth/token`
 *   with client_id/client_secret in the form, no PKCE, comma-separated scopes, the token answer carries
 *   `athlete` and `expires_at`; deauthorize `POST /oauth/deauthorize`).
 * - Activities: https://developers.strava.com/docs/reference/#api-Activities-getLoggedInAthleteActivities
 *   (`GET /athlete/activities?before&after&page&per_page`, epoch seconds, per_page ≤ 200, a bare JSON array).
 * - Rate limits: https://developers.strava.com/docs/rate-limits/ (per application: overall 200 per 15 minutes and
 *   2,000 per day; "non-upload" (every read) 100 per 15 minutes and 1,000 per day — the adapter only reads, so
 *   the read limits are its budget).
 * - Webhooks: https://developers.strava.com/docs/webhooks/ (GET `hub.mode=subscribe&hub.challenge&hub.verify_token`
 *   echoed as `{"hub.challenge"}`; events `{object_type, object_id, aspect_type, owner_id, subscription_id,
 *   event_time, updates}`; a deauthorization is `athlete` `update` with `updates.authorized = "false"`).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { formatZoneOffset } from "../../domain/queryDates.ts";
import type { WorkoutDetailsInput } from "../../store/healthDataWriter.ts";
import type { MappedRecords, PushNotice, PushRequest, VendorAdapter, VendorTokens } from "../types.ts";

/** Activities per page; Strava allows 200, 100 keeps a page's answer small. */
const PER_PAGE = 100;
/** The anchor's replay window for `X-Strava-Signature` (strava_webhook_signature_tolerance_seconds). */
const SIGNATURE_TOLERANCE_SEC = 300;
const DAY_MS = 86_400_000;

/** Strava's `SportType` → the anchor's workout type. */
const SPORT_TYPE: Record<string, string> = {
  AlpineSki: "alpine_skiing",
  BackcountrySki: "backcountry_skiing",
  Badminton: "badminton",
  Canoeing: "canoeing",
  Crossfit: "cardio_training",
  EBikeRide: "e_biking",
  EMountainBikeRide: "e_biking",
  Elliptical: "elliptical",
  Golf: "golf",
  GravelRide: "cycling",
  Handcycle: "cycling",
  HighIntensityIntervalTraining: "cardio_training",
  Hike: "hiking",
  IceSkate: "ice_skating",
  InlineSkate: "inline_skating",
  Kayaking: "kayaking",
  Kitesurf: "kitesurfing",
  MountainBikeRide: "mountain_biking",
  NordicSki: "cross_country_skiing",
  Pickleball: "pickleball",
  Pilates: "pilates",
  Racquetball: "racquetball",
  Ride: "cycling",
  RockClimbing: "rock_climbing",
  RollerSki: "cross_country_skiing",
  Rowing: "rowing",
  Run: "running",
  Sail: "sailing",
  Skateboard: "skateboarding",
  Snowboard: "snowboarding",
  Snowshoe: "snowshoeing",
  Soccer: "soccer",
  Squash: "squash",
  StairStepper: "stair_climbing",
  StandUpPaddling: "stand_up_paddleboarding",
  Surfing: "surfing",
  Swim: "swimming",
  TableTennis: "table_tennis",
  Tennis: "tennis",
  TrailRun: "trail_running",
  Velomobile: "cycling",
  VirtualRide: "indoor_cycling",
  VirtualRow: "rowing_machine",
  VirtualRun: "treadmill",
  Walk: "walking",
  WeightTraining: "strength_training",
  Wheelchair: "wheelchair",
  Windsurf: "windsurfing",
  Workout: "other",
  Yoga: "yoga",
};

/** The `SummaryActivity` fields mapped (all distances m, speeds m/s, times s, energy kJ). */
export interface StravaActivity {
  id: number;
  name?: string;
  type?: string;
  sport_type?: string;
  start_date: string;
  utc_offset?: number | null;
  elapsed_time: number;
  moving_time?: number | null;
  distance?: number | null;
  total_elevation_gain?: number | null;
  elev_high?: number | null;
  elev_low?: number | null;
  average_speed?: number | null;
  max_speed?: number | null;
  average_cadence?: number | null;
  average_watts?: number | null;
  max_watts?: number | null;
  kilojoules?: number | null;
  calories?: number | null;
  has_heartrate?: boolean;
  average_heartrate?: number | null;
  max_heartrate?: number | null;
  device_name?: string | null;
}

interface StravaEvent {
  object_type: "activity" | "athlete";
  object_id: number;
  aspect_type: "create" | "update" | "delete";
  owner_id: number;
  subscription_id: number;
  event_time: number;
  updates?: Record<string, string>;
}

const orNull = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Energy: `calories` where Strava computed it (detailed activities), else the ride's work in kJ, which equals the
 * kcal burned closely enough (human efficiency ≈ 24 % cancels 1 kcal = 4.184 kJ), as the anchor does. */
const energyOf = (a: StravaActivity) =>
  typeof a.calories === "number" && a.calories > 0 ? a.calories : orNull(a.kilojoules);

export function mapStravaActivity(a: StravaActivity): MappedRecords["workouts"][number] {
  const start = Date.parse(a.start_date);
  const details: WorkoutDetailsInput = {
    energyBurned: energyOf(a),
    distance: orNull(a.distance),
    heartRateAvg: a.has_heartrate === false ? null : orNull(a.average_heartrate),
    heartRateMax: a.has_heartrate === false ? null : orNull(a.max_heartrate),
    averageSpeed: orNull(a.average_speed),
    maxSpeed: orNull(a.max_speed),
    totalElevationGain: orNull(a.total_elevation_gain),
    elevHigh: orNull(a.elev_high),
    elevLow: orNull(a.elev_low),
    averageCadence: orNull(a.average_cadence),
    averageWatts: orNull(a.average_watts),
    maxWatts: orNull(a.max_watts),
    movingTimeSeconds: orNull(a.moving_time),
  };
  return {
    type: SPORT_TYPE[a.sport_type ?? a.type ?? ""] ?? "other",
    start,
    // elapsed_time spans the whole activity, pauses included: the event's bounds (moving time is a detail).
    end: start + a.elapsed_time * 1000,
    zoneOffset: typeof a.utc_offset === "number" ? formatZoneOffset(Math.round(a.utc_offset / 60)) : null,
    externalId: String(a.id),
    sourceName: a.name ?? null,
    deviceModel: a.device_name ?? null,
    source: "strava",
    details,
  };
}

interface StravaCursor {
  page: number;
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

const header = (req: PushRequest, name: string) => req.headers[name] ?? req.headers[name.toLowerCase()];

/**
 * Strava's events are documented unsigned. Accepted: an `X-Strava-Signature: t=…,v1=…` (HMAC-SHA256 of `t.body`
 * with the client secret, `t` within 300 s: the anchor's check) when present, else the callback URL's shared
 * `?token=` (the push secret the subscription's callback_url was registered with).
 */
function verifyStravaPush(req: PushRequest, secrets: { clientSecret: string; pushSecret?: string }, now: number) {
  const signature = header(req, "x-strava-signature");
  if (signature) {
    const parts = Object.fromEntries(
      signature.split(",").map((p) => {
        const i = p.indexOf("=");
        return [p.slice(0, i).trim(), p.slice(i + 1).trim()];
      }),
    );
    const t = Number(parts.t);
    if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > SIGNATURE_TOLERANCE_SEC || !parts.v1) return false;
    const expected = createHmac("sha256", secrets.clientSecret).update(`${t}.`).update(req.rawBody).digest("hex");
    return sameText(expected, String(parts.v1).toLowerCase());
  }
  const token = req.query.token;
  return Boolean(secrets.pushSecret && token && sameText(secrets.pushSecret, token));
}

function parseStravaPush(req: PushRequest): PushNotice[] {
  const e = JSON.parse(req.rawBody.toString("utf8")) as StravaEvent;
  if (typeof e !== "object" || e === null || !e.owner_id || !e.object_type || !e.aspect_type)
    throw new Error("not a Strava event: owner_id, object_type and aspect_type are required");
  const providerUserId = String(e.owner_id);
  if (e.object_type === "athlete") {
    return e.updates?.authorized === "false" ? [{ providerUserId, deauthorized: true }] : [];
  }
  // A deleted activity: the contract has no deletion notice (see the report); nothing to pull.
  if (e.aspect_type === "delete") return [];
  // The event says when it happened, not when the activity started (an upload may be days late): pull the week
  // before the event, where `after` finds it.
  const at = Number.isFinite(e.event_time) ? e.event_time * 1000 : Date.now();
  return [{ providerUserId, pull: { kinds: ["workouts"], window: { start: at - 7 * DAY_MS, end: at + DAY_MS } } }];
}

export const strava: VendorAdapter = {
  id: "strava",
  name: "Strava",
  oauth: {
    authorizeUrl: "https://www.strava.com/oauth/authorize",
    tokenUrl: "https://www.strava.com/oauth/token",
    revokeUrl: "https://www.strava.com/oauth/deauthorize",
    pkce: false,
    clientAuth: "body",
    scope: "activity:read_all,profile:read_all",
    // Strava asks again only when the scopes changed.
    authorizeParams: { approval_prompt: "auto" },
  },
  apiBase: "https://www.strava.com/api/v3",
  kinds: ["workouts"],
  rateBudgets: [
    { requests: 100, windowSec: 900 },
    { requests: 1000, windowSec: 86_400 },
  ],
  liveSyncMode: "pull",
  maxHistoricalDays: null,
  dataGranularity: null,

  parseTokens(body, now): VendorTokens {
    const accessToken = body.access_token;
    if (typeof accessToken !== "string" || accessToken === "") throw new Error("the token answer has no access_token");
    // Strava gives both `expires_at` (epoch s) and `expires_in`; the absolute one does not drift with latency.
    const expiresAt = Number(body.expires_at);
    const expiresIn = Number(body.expires_in);
    const tokens: VendorTokens = {
      accessToken,
      refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : undefined,
      expiresAt:
        Number.isFinite(expiresAt) && expiresAt > 0
          ? expiresAt * 1000
          : Number.isFinite(expiresIn) && expiresIn > 0
            ? now + expiresIn * 1000
            : undefined,
    };
    if (typeof body.scope === "string") tokens.scope = body.scope;
    // Only the code exchange carries the athlete; a refresh answer does not, and must not erase the id.
    const athlete = body.athlete as { id?: unknown; username?: unknown; firstname?: unknown } | undefined;
    if (athlete && athlete.id !== undefined && athlete.id !== null) {
      tokens.providerUserId = String(athlete.id);
      const name = athlete.username ?? athlete.firstname;
      if (typeof name === "string" && name) tokens.providerUsername = name;
    }
    return tokens;
  },

  async fetchIdentity(client, urls) {
    const me = await client.getJson<{ id: number; username?: string | null }>(`${urls.apiBase}/athlete`);
    return { providerUserId: String(me.id), providerUsername: me.username ?? undefined };
  },

  queryKnobs: { sync: ["limit"], workouts: ["limit", "offset"] },

  async fetchPage({ client, urls, window, cursor, query }) {
    const at: StravaCursor = cursor ? (JSON.parse(cursor) as StravaCursor) : { page: 1 };
    // The sync's `limit` is the page size (Strava allows 200); the cursor's page counts in that size.
    const perPage = Math.min(Math.max(query?.limit ?? PER_PAGE, 1), 200);
    const activities = await client.getJson<StravaActivity[]>(`${urls.apiBase}/athlete/activities`, {
      // `after` is strict at Strava: one second earlier keeps an activity that starts on the window's first second.
      after: Math.floor(window.start / 1000) - 1,
      // `before` is exclusive at Strava too, in whole seconds.
      before: Math.ceil(window.end / 1000),
      page: at.page,
      per_page: perPage,
    });
    const records: MappedRecords = { workouts: [], sleeps: [], samples: [] };
    for (const a of activities) {
      const w = mapStravaActivity(a);
      if (w.start >= window.start && w.start < window.end) records.workouts.push(w);
    }
    return {
      records,
      fetched: activities.length,
      // Strava has no total: a short page is the last one.
      nextCursor: activities.length < perPage ? null : JSON.stringify({ page: at.page + 1 } satisfies StravaCursor),
    };
  },

  async listRawWorkouts(client, urls, q) {
    // Strava pages by number: an offset inside a page reads that page and the next, and answers the slice.
    const perPage = Math.min(Math.max(q.limit, 1), 200);
    const page = Math.floor(q.offset / perPage) + 1;
    const list = (n: number) =>
      client.getJson<unknown[]>(`${urls.apiBase}/athlete/activities`, {
        after: q.since > 0 ? q.since : undefined,
        page: n,
        per_page: perPage,
      });
    const skip = q.offset % perPage;
    if (skip === 0) return list(page);
    const first = await list(page);
    const rest = first.length === perPage ? await list(page + 1) : [];
    return [...first, ...rest].slice(skip, skip + perPage);
  },

  push: {
    verify: verifyStravaPush,
    parse: parseStravaPush,
    challenge(query, secrets) {
      if (query["hub.mode"] === undefined && query["hub.challenge"] === undefined) return undefined;
      if (query["hub.mode"] !== "subscribe") return { status: 400, body: { error: "hub.mode must be subscribe" } };
      const token = query["hub.verify_token"];
      if (!secrets.pushSecret || !token || !sameText(secrets.pushSecret, token))
        return { status: 403, body: { error: "invalid hub.verify_token" } };
      return { status: 200, body: { "hub.challenge": query["hub.challenge"] ?? "" } };
    },
  },
};
