/**
 * A Strava stand-in for the adapter's tests: Strava's OAuth paths (body client auth, no PKCE, the token answer's
 * `athlete` and `expires_at`), `GET /api/v3/athlete` and `GET /api/v3/athlete/activities` (a bare JSON array of
 * `SummaryActivity`, `after`/`before` epoch seconds, `page` ≥ 1, `per_page` ≤ 200, 400 with Strava's error shape
 * otherwise), and `push()` which delivers a webhook event as Strava does.
 *
 * Each athlete has a deterministic log: a morning activity on most days (runs, rides, walks, a weekly strength
 * session), the same every time for the same athlete and day.
 */
import { createHmac } from "node:crypto";
import { startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

export const STRAVA_PATHS = { authorize: "/oauth/authorize", token: "/oauth/token", revoke: "/oauth/deauthorize" };
const DAY = 86_400_000;
/** Every stand-in athlete lives in UTC-5 (Strava's `utc_offset` is in seconds). */
const UTC_OFFSET_SEC = -5 * 3600;

export interface StravaStandIn extends VendorCloud {
  /**
   * POSTs a webhook event to `targetUrl` as Strava does (JSON, unsigned). `signature` adds the
   * `X-Strava-Signature: t=…,v1=…` header the anchor checks (HMAC-SHA256 of `t.body` with `clientSecret`).
   */
  push(
    targetUrl: string,
    event: Record<string, unknown>,
    signature?: { clientSecret: string; timestampSec?: number },
  ): Promise<Response>;
}

const seedOf = (s: string) => {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
};

/** The athlete's activities that started in [afterSec, beforeSec), oldest first. */
export function stravaActivitiesOf(athleteId: string, afterMs: number, beforeMs: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const until = Math.min(beforeMs, Date.now());
  for (let day = Math.floor(afterMs / DAY) - 1; day * DAY < until; day++) {
    const roll = seedOf(`${athleteId}:${day}`) % 10;
    if (roll >= 8) continue; // a rest day
    const weekday = new Date(day * DAY).getUTCDay();
    const kind = weekday === 3 ? "WeightTraining" : roll < 4 ? "Run" : roll < 6 ? "Ride" : "Walk";
    // 07:00 local (UTC-5) = 12:00 UTC, plus a few minutes that vary.
    const start = day * DAY + 12 * 3_600_000 + (roll * 7 + 3) * 60_000;
    if (start < afterMs || start >= until) continue;
    const minutes = kind === "Ride" ? 75 : kind === "WeightTraining" ? 45 : kind === "Run" ? 40 + roll : 30;
    const moving = minutes * 60 - (kind === "Ride" ? 300 : 60);
    const speed = kind === "Run" ? 3.1 : kind === "Ride" ? 7.4 : kind === "Walk" ? 1.4 : 0;
    const distance = Math.round(speed * moving * 10) / 10;
    const hr = kind === "Run" ? 152 : kind === "Ride" ? 138 : kind === "Walk" ? 104 : 118;
    out.push({
      resource_state: 2,
      athlete: { id: Number(athleteId), resource_state: 1 },
      name: `${kind === "WeightTraining" ? "Gym" : kind} day ${day}`,
      distance,
      moving_time: moving,
      elapsed_time: minutes * 60,
      total_elevation_gain: kind === "Ride" ? 412.3 : kind === "Run" ? 58.1 : kind === "Walk" ? 12 : 0,
      type: kind,
      sport_type: kind,
      workout_type: null,
      id: 9_000_000_000 + day * 10 + (seedOf(athleteId) % 10),
      start_date: new Date(start).toISOString().replace(/\.\d{3}Z$/, "Z"),
      start_date_local: new Date(start + UTC_OFFSET_SEC * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"),
      timezone: "(GMT-05:00) America/New_York",
      utc_offset: UTC_OFFSET_SEC,
      achievement_count: 0,
      kudos_count: roll,
      trainer: kind === "WeightTraining",
      commute: false,
      manual: false,
      private: false,
      visibility: "everyone",
      average_speed: speed,
      max_speed: speed ? Math.round(speed * 1.45 * 100) / 100 : 0,
      average_cadence: kind === "Run" ? 84.5 : kind === "Ride" ? 88.2 : undefined,
      average_watts: kind === "Ride" ? 182.4 : undefined,
      max_watts: kind === "Ride" ? 611 : undefined,
      weighted_average_watts: kind === "Ride" ? 196 : undefined,
      kilojoules: kind === "Ride" ? Math.round(182.4 * moving) / 1000 : undefined,
      device_watts: kind === "Ride",
      has_heartrate: kind !== "Walk",
      average_heartrate: kind !== "Walk" ? hr : undefined,
      max_heartrate: kind !== "Walk" ? hr + 24 : undefined,
      elev_high: kind === "WeightTraining" ? undefined : 148.6,
      elev_low: kind === "WeightTraining" ? undefined : 21.2,
      has_kudoed: false,
    });
  }
  return out;
}

const badRequest = (field: string) => ({
  message: "Bad Request",
  errors: [{ resource: "Application", field, code: "invalid" }],
});

export async function startStravaStandIn(p: {
  clients: Record<string, string>;
  accessTtlSec?: number;
}): Promise<StravaStandIn> {
  const cloud = await startVendorCloud({
    paths: STRAVA_PATHS,
    clients: p.clients,
    accessTtlSec: p.accessTtlSec ?? 21_600,
    title: "Strava",
    // Strava's token answer: `expires_at` and the athlete summary beside the RFC 6749 fields.
    tokenExtras: (grant) => ({
      expires_at: Math.floor(Date.now() / 1000) + (p.accessTtlSec ?? 21_600),
      athlete: { id: Number(grant.userId), username: `athlete${grant.userId}`, firstname: "Ada", lastname: "Runner" },
    }),
    routes: (c) => {
      c.app.get("/api/v3/athlete", async (req, reply) => {
        const grant = c.authenticate(req, reply);
        if (!grant) return reply;
        return { id: Number(grant.userId), username: `athlete${grant.userId}`, resource_state: 2 };
      });
      c.app.get("/api/v3/athlete/activities", async (req, reply) => {
        const grant = c.authenticate(req, reply);
        if (!grant) return reply;
        const q = req.query as Record<string, string | undefined>;
        const int = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Number(v));
        const after = int(q.after, 0);
        const before = int(q.before, Math.floor(Date.now() / 1000));
        const page = int(q.page, 1);
        const perPage = int(q.per_page, 30);
        if (!Number.isInteger(after) || after < 0) return reply.code(400).send(badRequest("after"));
        if (!Number.isInteger(before) || before < 0) return reply.code(400).send(badRequest("before"));
        if (!Number.isInteger(page) || page < 1) return reply.code(400).send(badRequest("page"));
        if (!Number.isInteger(perPage) || perPage < 1 || perPage > 200)
          return reply.code(400).send(badRequest("per_page"));
        const all = stravaActivitiesOf(grant.userId, after * 1000 + 1, before * 1000);
        return all.slice((page - 1) * perPage, page * perPage);
      });
    },
  });
  return Object.assign(cloud, {
    async push(
      targetUrl: string,
      event: Record<string, unknown>,
      signature?: { clientSecret: string; timestampSec?: number },
    ) {
      const body = JSON.stringify(event);
      const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "Strava Webhooks" };
      if (signature) {
        const t = signature.timestampSec ?? Math.floor(Date.now() / 1000);
        const v1 = createHmac("sha256", signature.clientSecret).update(`${t}.${body}`).digest("hex");
        headers["x-strava-signature"] = `t=${t},v1=${v1}`;
      }
      return fetch(targetUrl, { method: "POST", headers, body });
    },
  });
}
