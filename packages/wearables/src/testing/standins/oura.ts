/**
 * An Oura stand-in for the adapter's tests: Oura's OAuth paths (body client auth, no user id in the token
 * answer), `GET /v2/usercollection/personal_info`, the document collections `workout`, `sleep`, `daily_activity`,
 * `daily_spo2`, `daily_readiness` (`start_date`/`end_date` `YYYY-MM-DD`, inclusive, 10 documents a page) and
 * `heartrate` (`start_datetime`/`end_datetime`, at most 30 days, 500 readings a page), each answering
 * `{data, next_token}` and 400 on bad parameters; `push()` sends a notification signed as Oura signs it.
 *
 * Every stand-in user lives in UTC+1 and has, each day: a night (`long_sleep`, 22:30 → about 06:15, with its
 * 5-minute hypnogram), a nap on some days, a workout on most days, daily activity, SpO2 and readiness, and a
 * heart rate every 5 minutes; the same for the same user and day every time.
 */
import { createHmac } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

export const OURA_PATHS = { authorize: "/oauth/authorize", token: "/oauth/token" };
const DAY = 86_400_000;
const MINUTE = 60_000;
const OFFSET = "+01:00";
const OFFSET_MS = 3_600_000;
const DOCUMENTS_PER_PAGE = 10;
const READINGS_PER_PAGE = 500;

export interface OuraStandIn extends VendorCloud {
  /** POSTs a notification to `targetUrl` signed with `clientSecret` (hex upper-case HMAC of timestamp + body). */
  push(
    targetUrl: string,
    notification: Record<string, unknown>,
    sign: { clientSecret: string; timestampSec?: number },
  ): Promise<Response>;
}

const seedOf = (s: string) => {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
};
/** ISO 8601 in the user's zone, as Oura writes its date-times. */
const local = (ms: number) => `${new Date(ms + OFFSET_MS).toISOString().slice(0, 23)}${OFFSET}`;
const dayOf = (d: number) => new Date(d * DAY).toISOString().slice(0, 10);

/** A night's hypnogram: awake, then cycles of light, deep, light, REM, a short wake at the end. */
function hypnogram(epochs: number, roll: number): string {
  const cycle = "22211111122223333";
  let s = "44";
  while (s.length < epochs - 2) s += cycle.slice(0, Math.min(cycle.length, epochs - 2 - s.length));
  s += "44";
  // A wake-up in the middle of the night on some nights.
  return roll % 2 ? `${s.slice(0, 40)}4${s.slice(41)}` : s;
}

/** The user's documents of `collection` for the days [firstDay, lastDay] (UTC day numbers). */
export function ouraDocumentsOf(collection: string, userId: string, firstDay: number, lastDay: number) {
  const out: Record<string, unknown>[] = [];
  for (let d = firstDay; d <= lastDay; d++) {
    const roll = seedOf(`${userId}:${d}`) % 10;
    const day = dayOf(d);
    const dayStart = d * DAY - OFFSET_MS; // local midnight
    const id = (what: string) => `${what}-${userId}-${day}`;
    if (collection === "sleep") {
      // The night ending on `day`: 22:30 the evening before, 93 to 96 epochs of 5 minutes.
      const start = dayStart - 90 * MINUTE + roll * MINUTE;
      const epochs = 93 + (roll % 4);
      const phases = hypnogram(epochs, roll);
      const count = (c: string) => [...phases].filter((x) => x === c).length * 300;
      out.push({
        id: id("sleep"),
        average_breath: 14.5 + roll / 10,
        average_heart_rate: 56.25,
        average_hrv: 42 + roll,
        awake_time: count("4"),
        bedtime_end: local(start + epochs * 5 * MINUTE),
        bedtime_start: local(start),
        day,
        deep_sleep_duration: count("1"),
        efficiency: Math.round(((epochs * 300 - count("4")) / (epochs * 300)) * 100),
        latency: 600,
        light_sleep_duration: count("2"),
        low_battery_alert: false,
        lowest_heart_rate: 48 + (roll % 5),
        period: 0,
        readiness_score_delta: null,
        rem_sleep_duration: count("3"),
        restless_periods: 12 + roll,
        sleep_phase_5_min: phases,
        sleep_score_delta: null,
        sleep_algorithm_version: "v2",
        time_in_bed: epochs * 300,
        total_sleep_duration: epochs * 300 - count("4"),
        type: "long_sleep",
      });
      if (roll < 3) {
        const napStart = dayStart + 14 * 60 * MINUTE;
        out.push({
          id: id("nap"),
          average_breath: 15,
          average_heart_rate: 60,
          average_hrv: 38,
          awake_time: 300,
          bedtime_end: local(napStart + 30 * MINUTE),
          bedtime_start: local(napStart),
          day,
          deep_sleep_duration: 0,
          efficiency: 83,
          light_sleep_duration: 1500,
          lowest_heart_rate: 55,
          period: 1,
          rem_sleep_duration: 0,
          sleep_phase_5_min: "422222",
          time_in_bed: 1800,
          total_sleep_duration: 1500,
          type: "late_nap",
        });
      }
    } else if (collection === "workout" && roll < 7) {
      const activity = roll < 3 ? "running" : roll < 5 ? "cycling" : "walking";
      const start = dayStart + 18 * 60 * MINUTE + roll * 5 * MINUTE;
      const length = activity === "cycling" ? 60 : activity === "running" ? 35 : 45;
      out.push({
        id: id("workout"),
        activity,
        calories: activity === "cycling" ? 540.5 : activity === "running" ? 402 : 180,
        day,
        distance: activity === "cycling" ? 22140.3 : activity === "running" ? 6480 : 3900,
        end_datetime: local(start + length * MINUTE),
        intensity: activity === "walking" ? "easy" : "moderate",
        label: null,
        source: roll % 2 ? "autodetected" : "confirmed",
        start_datetime: local(start),
      });
    } else if (collection === "daily_activity") {
      out.push({
        id: id("activity"),
        class_5_min: null,
        score: 80 + roll,
        active_calories: 420 + roll * 31,
        average_met_minutes: 1.6,
        equivalent_walking_distance: 7300 + roll * 410,
        high_activity_time: 600,
        low_activity_time: 15_000,
        medium_activity_time: 2_400,
        non_wear_time: 0,
        resting_time: 30_000,
        steps: 8000 + roll * 517,
        target_calories: 500,
        total_calories: 2400 + roll * 31,
        day,
        timestamp: local(dayStart + 4 * 60 * MINUTE),
      });
    } else if (collection === "daily_spo2") {
      out.push({
        id: id("spo2"),
        day,
        spo2_percentage: { average: 96.5 + roll / 10 },
        breathing_disturbance_index: roll,
      });
    } else if (collection === "daily_readiness") {
      out.push({
        id: id("readiness"),
        contributors: {},
        day,
        score: 70 + roll,
        temperature_deviation: -0.2 + roll / 20,
        temperature_trend_deviation: 0.05,
        timestamp: local(dayStart),
      });
    }
  }
  return out;
}

/** A heart rate every 5 minutes in [start, end): lower at night. */
export function ouraHeartRateOf(userId: string, start: number, end: number) {
  const out: Record<string, unknown>[] = [];
  const until = Math.min(end, Date.now());
  for (let t = Math.ceil(start / (5 * MINUTE)) * 5 * MINUTE; t < until; t += 5 * MINUTE) {
    const hour = new Date(t + OFFSET_MS).getUTCHours();
    const asleep = hour < 6 || hour >= 23;
    const wobble = seedOf(`${userId}:${t}`) % 9;
    out.push({
      bpm: (asleep ? 52 : 68) + wobble,
      source: asleep ? "sleep" : "awake",
      timestamp: `${new Date(t).toISOString().slice(0, 19)}+00:00`,
    });
  }
  return out;
}

const bad = (reply: FastifyReply, detail: string) => reply.code(400).send({ detail });
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export async function startOuraStandIn(p: {
  clients: Record<string, string>;
  accessTtlSec?: number;
}): Promise<OuraStandIn> {
  const cloud = await startVendorCloud({
    paths: OURA_PATHS,
    clients: p.clients,
    accessTtlSec: p.accessTtlSec ?? 86_400,
    title: "Oura",
    routes: (c) => {
      c.app.get("/v2/usercollection/personal_info", async (req, reply) => {
        const grant = c.authenticate(req, reply);
        if (!grant) return reply;
        return {
          id: grant.userId,
          age: 34,
          weight: 68.5,
          height: 1.72,
          biological_sex: "female",
          email: `${grant.userId}@example.com`,
        };
      });
      const page = (all: Record<string, unknown>[], token: string | undefined, size: number) => {
        const offset = token ? Number(Buffer.from(token, "base64url").toString()) : 0;
        const next = offset + size;
        return {
          data: all.slice(offset, next),
          next_token: next < all.length ? Buffer.from(String(next)).toString("base64url") : null,
        };
      };
      const validToken = (token: string | undefined) =>
        token === undefined || /^\d+$/.test(Buffer.from(token, "base64url").toString());
      const documents = (collection: string) => async (req: FastifyRequest, reply: FastifyReply) => {
        const grant = c.authenticate(req, reply);
        if (!grant) return reply;
        const q = req.query as Record<string, string | undefined>;
        const today = new Date().toISOString().slice(0, 10);
        const startDate = q.start_date ?? dayOf(Math.floor(Date.now() / DAY) - 1);
        const endDate = q.end_date ?? today;
        if (!DATE.test(startDate) || Number.isNaN(Date.parse(startDate))) return bad(reply, "start_date: invalid date");
        if (!DATE.test(endDate) || Number.isNaN(Date.parse(endDate))) return bad(reply, "end_date: invalid date");
        if (startDate > endDate) return bad(reply, "start_date is after end_date");
        if (!validToken(q.next_token)) return bad(reply, "next_token: invalid");
        // Only days that have ended (today's daily documents are still open; a night ends this morning).
        const lastDay = Math.min(Date.parse(endDate) / DAY, Math.floor(Date.now() / DAY) - 1);
        return page(
          ouraDocumentsOf(collection, grant.userId, Date.parse(startDate) / DAY, lastDay),
          q.next_token,
          DOCUMENTS_PER_PAGE,
        );
      };
      for (const collection of ["workout", "sleep", "daily_activity", "daily_spo2", "daily_readiness"])
        c.app.get(`/v2/usercollection/${collection}`, documents(collection));
      c.app.get("/v2/usercollection/heartrate", async (req, reply) => {
        const grant = c.authenticate(req, reply);
        if (!grant) return reply;
        const q = req.query as Record<string, string | undefined>;
        const start = Date.parse(q.start_datetime ?? "");
        const end = q.end_datetime ? Date.parse(q.end_datetime) : Date.now();
        if (Number.isNaN(start)) return bad(reply, "start_datetime: invalid datetime");
        if (Number.isNaN(end) || end <= start) return bad(reply, "end_datetime must be after start_datetime");
        if (end - start > 30 * DAY) return bad(reply, "the range may be at most 30 days");
        if (!validToken(q.next_token)) return bad(reply, "next_token: invalid");
        return page(ouraHeartRateOf(grant.userId, start, end), q.next_token, READINGS_PER_PAGE);
      });
    },
  });
  return Object.assign(cloud, {
    async push(
      targetUrl: string,
      notification: Record<string, unknown>,
      sign: { clientSecret: string; timestampSec?: number },
    ) {
      const body = JSON.stringify(notification);
      const timestamp = String(sign.timestampSec ?? Math.floor(Date.now() / 1000));
      const signature = createHmac("sha256", sign.clientSecret)
        .update(timestamp + body)
        .digest("hex")
        .toUpperCase();
      return fetch(targetUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "x-oura-signature": signature, "x-oura-timestamp": timestamp },
        body,
      });
    },
  });
}
