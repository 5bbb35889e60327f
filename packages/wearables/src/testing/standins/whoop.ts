/**
 * A WHOOP stand-in for the adapter's tests: WHOOP's OAuth paths (body client auth, no user in the token answer),
 * `GET /developer/v2/user/profile/basic`, and the collections `activity/workout`, `activity/sleep` and `recovery`
 * (`start`/`end` ISO 8601, `limit` 1–25 (default 10), `nextToken`; newest first, `{records, next_token}`, 400 on
 * bad parameters); `push()` sends a webhook signed as WHOOP signs it.
 *
 * Every stand-in member lives in UTC-4 and has, each day: a night (23:00 → about 07:00), a recovery scored on
 * waking, a workout on most days, and a nap on some; the same for the same member and day every time.
 */
import { createHash, createHmac } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

export const WHOOP_PATHS = { authorize: "/oauth/oauth2/auth", token: "/oauth/oauth2/token" };
const DAY = 86_400_000;
const MINUTE = 60_000;
const OFFSET_MS = -4 * 3_600_000;

export interface WhoopStandIn extends VendorCloud {
  /** POSTs a webhook to `targetUrl`: `X-WHOOP-Signature` = base64 HMAC-SHA256(timestamp ms + body, clientSecret). */
  push(
    targetUrl: string,
    notification: Record<string, unknown>,
    sign: { clientSecret: string; timestampMs?: number },
  ): Promise<Response>;
}

const seedOf = (s: string) => {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
};
/** A stable UUID of a name (WHOOP's v2 ids are UUIDs). */
const uuidOf = (name: string) => {
  const h = createHash("sha1").update(name).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const iso = (ms: number) => new Date(ms).toISOString();
const SPORTS = ["running", "cycling", "weightlifting", "functional-fitness", "yoga", "walking"] as const;

/** Every record of `collection` of the member whose start (recovery: creation) lies in [start, end), newest first. */
export function whoopRecordsOf(collection: string, userId: string, start: number, end: number) {
  const out: { at: number; record: Record<string, unknown> }[] = [];
  const member = Number(userId);
  const until = Math.min(end, Date.now());
  for (let d = Math.floor(start / DAY) - 1; d * DAY < until + DAY; d++) {
    const roll = seedOf(`${userId}:${d}`) % 10;
    const localMidnight = d * DAY - OFFSET_MS;
    const sleepStart = localMidnight - 60 * MINUTE + roll * 3 * MINUTE;
    const inBed = (470 + roll * 4) * MINUTE;
    const sleepEnd = sleepStart + inBed;
    const cycleId = 93_000_000 + d;
    const sleepId = uuidOf(`${userId}:sleep:${d}`);
    const push = (at: number, record: Record<string, unknown>) => {
      if (at >= start && at < until) out.push({ at, record });
    };
    const stamps = (at: number) => ({ created_at: iso(at), updated_at: iso(at + 2 * MINUTE) });
    if (collection === "sleep") {
      const awake = (22 + roll) * MINUTE;
      const deep = (95 + roll * 2) * MINUTE;
      const rem = (105 + roll) * MINUTE;
      push(sleepStart, {
        id: sleepId,
        cycle_id: cycleId,
        v1_id: 40_000_000 + d,
        user_id: member,
        ...stamps(sleepEnd + 10 * MINUTE),
        start: iso(sleepStart),
        end: iso(sleepEnd),
        timezone_offset: "-04:00",
        nap: false,
        score_state: "SCORED",
        score: {
          stage_summary: {
            total_in_bed_time_milli: inBed,
            total_awake_time_milli: awake,
            total_no_data_time_milli: 0,
            total_light_sleep_time_milli: inBed - awake - deep - rem,
            total_slow_wave_sleep_time_milli: deep,
            total_rem_sleep_time_milli: rem,
            sleep_cycle_count: 4,
            disturbance_count: 8 + roll,
          },
          sleep_needed: {
            baseline_milli: 27_000_000,
            need_from_sleep_debt_milli: 0,
            need_from_recent_strain_milli: 600_000,
            need_from_recent_nap_milli: 0,
          },
          respiratory_rate: 15.2 + roll / 10,
          sleep_performance_percentage: 90 - roll,
          sleep_consistency_percentage: 85,
          sleep_efficiency_percentage: Math.round(((inBed - awake) / inBed) * 1000) / 10,
        },
      });
      if (roll < 2) {
        const napStart = localMidnight + 15 * 60 * MINUTE;
        push(napStart, {
          id: uuidOf(`${userId}:nap:${d}`),
          cycle_id: cycleId,
          v1_id: null,
          user_id: member,
          ...stamps(napStart + 41 * MINUTE),
          start: iso(napStart),
          end: iso(napStart + 40 * MINUTE),
          timezone_offset: "-04:00",
          nap: true,
          score_state: "SCORED",
          score: {
            stage_summary: {
              total_in_bed_time_milli: 40 * MINUTE,
              total_awake_time_milli: 5 * MINUTE,
              total_no_data_time_milli: 0,
              total_light_sleep_time_milli: 30 * MINUTE,
              total_slow_wave_sleep_time_milli: 5 * MINUTE,
              total_rem_sleep_time_milli: 0,
              sleep_cycle_count: 1,
              disturbance_count: 1,
            },
            respiratory_rate: 15.8,
            sleep_performance_percentage: null,
            sleep_consistency_percentage: null,
            sleep_efficiency_percentage: 87.5,
          },
        });
      }
    } else if (collection === "recovery") {
      push(sleepEnd + 5 * MINUTE, {
        cycle_id: cycleId,
        sleep_id: sleepId,
        user_id: member,
        ...stamps(sleepEnd + 5 * MINUTE),
        score_state: "SCORED",
        score: {
          user_calibrating: false,
          recovery_score: 50 + roll * 4,
          resting_heart_rate: 50 + (roll % 6),
          hrv_rmssd_milli: 48.25 + roll,
          spo2_percentage: 95.5 + roll / 5,
          skin_temp_celsius: 33.6 + roll / 20,
        },
      });
    } else if (collection === "workout" && roll < 8) {
      const sport = SPORTS[roll % SPORTS.length] ?? "running";
      const begin = localMidnight + 17 * 60 * MINUTE + roll * 4 * MINUTE;
      const length = (40 + roll * 5) * MINUTE;
      const moving = sport === "running" || sport === "cycling" || sport === "walking";
      push(begin, {
        id: uuidOf(`${userId}:workout:${d}`),
        v1_id: 1_200_000_000 + d,
        user_id: member,
        ...stamps(begin + length + 3 * MINUTE),
        start: iso(begin),
        end: iso(begin + length),
        timezone_offset: "-04:00",
        sport_name: sport,
        sport_id: roll,
        score_state: "SCORED",
        score: {
          strain: 8.25 + roll,
          average_heart_rate: 128 + roll * 3,
          max_heart_rate: 165 + roll,
          kilojoule: 1569 + roll * 100,
          percent_recorded: 100,
          distance_meter: moving ? 5000 + roll * 1000 : null,
          altitude_gain_meter: moving ? 40 + roll : null,
          altitude_change_meter: moving ? 2 : null,
          zone_durations: {
            zone_zero_milli: 60_000,
            zone_one_milli: 300_000,
            zone_two_milli: 600_000,
            zone_three_milli: 900_000,
            zone_four_milli: 300_000,
            zone_five_milli: 60_000,
          },
        },
      });
    }
  }
  return out.sort((a, b) => b.at - a.at).map((x) => x.record);
}

const bad = (reply: FastifyReply, message: string) => reply.code(400).send({ error: "Bad Request", message });

export async function startWhoopStandIn(p: {
  clients: Record<string, string>;
  accessTtlSec?: number;
}): Promise<WhoopStandIn> {
  const cloud = await startVendorCloud({
    paths: WHOOP_PATHS,
    clients: p.clients,
    accessTtlSec: p.accessTtlSec ?? 3600,
    title: "WHOOP",
    routes: (c) => {
      c.app.get("/developer/v2/user/profile/basic", async (req, reply) => {
        const grant = c.authenticate(req, reply);
        if (!grant) return reply;
        return {
          user_id: Number(grant.userId),
          email: `member${grant.userId}@example.com`,
          first_name: "Jo",
          last_name: "Doe",
        };
      });
      const collection = (name: string) => async (req: FastifyRequest, reply: FastifyReply) => {
        const grant = c.authenticate(req, reply);
        if (!grant) return reply;
        const q = req.query as Record<string, string | undefined>;
        const start = q.start ? Date.parse(q.start) : 0;
        const end = q.end ? Date.parse(q.end) : Date.now();
        const limit = q.limit === undefined ? 10 : Number(q.limit);
        if (Number.isNaN(start)) return bad(reply, "start must be an ISO 8601 date-time");
        if (Number.isNaN(end) || end < start) return bad(reply, "end must be an ISO 8601 date-time after start");
        if (!Number.isInteger(limit) || limit < 1 || limit > 25) return bad(reply, "limit must be between 1 and 25");
        const offset = q.nextToken ? Number(Buffer.from(q.nextToken, "base64url").toString()) : 0;
        if (!Number.isInteger(offset) || offset < 0) return bad(reply, "nextToken is invalid");
        const all = whoopRecordsOf(name, grant.userId, start, end);
        const next = offset + limit;
        return {
          records: all.slice(offset, next),
          next_token: next < all.length ? Buffer.from(String(next)).toString("base64url") : null,
        };
      };
      c.app.get("/developer/v2/activity/workout", collection("workout"));
      c.app.get("/developer/v2/activity/sleep", collection("sleep"));
      c.app.get("/developer/v2/recovery", collection("recovery"));
    },
  });
  return Object.assign(cloud, {
    async push(
      targetUrl: string,
      notification: Record<string, unknown>,
      sign: { clientSecret: string; timestampMs?: number },
    ) {
      const body = JSON.stringify(notification);
      const timestamp = String(sign.timestampMs ?? Date.now());
      const signature = createHmac("sha256", sign.clientSecret)
        .update(timestamp + body)
        .digest("base64");
      return fetch(targetUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-whoop-signature": signature,
          "x-whoop-signature-timestamp": timestamp,
        },
        body,
      });
    },
  });
}
