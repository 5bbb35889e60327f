/**
 * A stand-in for the Suunto Cloud API (https://apizone.suunto.com): Suunto's OAuth paths (`/oauth/authorize`,
 * `/oauth/token`), Basic client authentication, the username as `user` in the token answer, rotating refresh
 * tokens, the APIM subscription key on every data request (header `Ocp-Apim-Subscription-Key` or query
 * `subscription-key`; 401 without it, as APIM answers), and the data routes an adapter reads, with deterministic
 * data per user and day (every user lives in UTC+2):
 * - `GET /v3/workouts?since&limit&offset&filter-by-modification-time` → two workouts a day for 120 days, newest first;
 * - `GET /247samples/sleep?from&to`, `GET /247samples/activity?from&to` (epoch ms, at most 28 days);
 * - `GET /247/daily-activity-statistics?startdate&enddate` (UTC date-times without a zone, end inclusive, at most
 *   28 days): a sample per 24 hours from `startdate`, null while the period is not over.
 * `push()` sends a notification signed as Suunto signs them (`X-HMAC-SHA256-Signature`, hex HMAC-SHA256 of the body).
 */
import { createHmac } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type Grant, startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

const DAY = 86_400_000;
const MINUTE = 60_000;
const OFFSET_MIN = 120;
const MAX_RANGE = 28 * DAY;

export interface SuuntoStandIn extends VendorCloud {
  /** POSTs a Suunto notification to `targetUrl`, signed with `secret`. */
  push(targetUrl: string, notification: Record<string, unknown>, secret: string): Promise<Response>;
}

const seed = (user: string, n: number) => {
  let h = 2166136261 ^ n;
  for (const c of user) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return (h >>> 0) % 1000;
};
/** An instant in Suunto's ISO 8601 with the user's offset. */
const local = (ms: number) => `${new Date(ms + OFFSET_MIN * MINUTE).toISOString().slice(0, 23)}+02:00`;

/** The `slot`-th (0 morning, 1 evening) workout of a UTC day. */
export function suuntoWorkoutOf(user: string, day: number, slot: 0 | 1) {
  const r = seed(user, day * 2 + slot);
  const activityId = slot === 0 ? [1, 2, 22][day % 3] : [23, 0, 51][day % 3];
  const startTime = day * DAY + (slot === 0 ? 5 * 60 : 16 * 60) * MINUTE + (r % 50) * MINUTE;
  const totalTime = 1500 + (r % 40) * 60 + 0.5;
  const speed = activityId === 2 ? 7.8 : activityId === 1 || activityId === 22 ? 3.1 : activityId === 0 ? 1.4 : 0;
  const stopTime = startTime + Math.round(totalTime * 1000) + 120_000; // a pause
  return {
    workoutId: day * 10 + slot,
    workoutKey: `${user}-${day}-${slot}`,
    activityId,
    startTime,
    stopTime,
    totalTime,
    totalDistance: speed > 0 ? Math.round(speed * totalTime) : 0,
    totalAscent: speed > 0 ? 40 + (r % 80) : 0,
    totalDescent: speed > 0 ? 38 + (r % 80) : 0,
    avgSpeed: speed,
    maxSpeed: speed > 0 ? speed * 1.6 : 0,
    avgPace: speed > 0 ? 1 / speed : 0,
    energyConsumption: Math.round(totalTime / 6),
    stepCount: activityId === 1 || activityId === 22 || activityId === 0 ? Math.round(totalTime * 2.7) : 0,
    maxAltitude: speed > 0 ? 120 + (r % 30) : null,
    minAltitude: speed > 0 ? 20 + (r % 10) : null,
    avgPower: activityId === 2 ? 180 + (r % 40) : 0,
    maxPower: activityId === 2 ? 420 + (r % 80) : 0,
    cadence: { avg: activityId === 2 ? 85 : 0, max: activityId === 2 ? 110 : 0 },
    hrdata: {
      userMaxHR: 195,
      max: 195,
      workoutAvgHR: 125 + (r % 30),
      workoutMaxHR: 165 + (r % 20),
      avg: 125 + (r % 30),
      hrmax: 165 + (r % 20),
      min: 70 + (r % 10),
    },
    timeOffsetInMinutes: OFFSET_MIN,
    created: stopTime + 5 * MINUTE,
    lastModified: stopTime + 5 * MINUTE,
    gear: { name: "Suunto 9 Peak Pro", displayName: "Suunto 9 Peak Pro", swVersion: "2.30.20", serialNumber: "SN123" },
  };
}

/** The night starting the evening before `day` (UTC day), and a nap on every fifth day. */
export function suuntoSleepsOf(user: string, day: number) {
  const r = seed(user, day);
  const start = day * DAY - (OFFSET_MIN + 55 - (r % 30)) * MINUTE; // about 23:05–23:35 local
  const duration = 7 * 3600 + (r % 60) * 60;
  const deep = 5400 + (r % 20) * 60;
  const rem = 5800 + (r % 15) * 60;
  const light = duration - deep - rem - 1500;
  const night = {
    timestamp: local(start + duration * 1000),
    entryData: {
      BedtimeStart: local(start),
      BedtimeEnd: local(start + duration * 1000),
      Duration: duration,
      DeepSleepDuration: deep,
      LightSleepDuration: light,
      REMSleepDuration: rem,
      SleepQualityScore: 70 + (r % 25),
      IsNap: false,
      HRAvg: 55 + (r % 6),
      HRMin: 46 + (r % 6),
      AvgHRV: 48 + (r % 20),
      MaxSpo2: 0.98,
      SleepId: day * 10,
    },
  };
  if (day % 5 !== 0) return [night];
  const napStart = day * DAY + (13 * 60 - OFFSET_MIN) * MINUTE;
  const nap = {
    timestamp: local(napStart + 1800_000),
    entryData: {
      BedtimeStart: local(napStart),
      BedtimeEnd: local(napStart + 1800_000),
      Duration: 1800,
      DeepSleepDuration: 0,
      LightSleepDuration: 1500,
      REMSleepDuration: 0,
      SleepQualityScore: 60,
      IsNap: true,
      HRAvg: 60,
      HRMin: 55,
      SleepId: day * 10 + 1,
    },
  };
  return [night, nap];
}

/** A 24/7 activity sample every 30 minutes (SpO2 and HRV at night only). */
export function suuntoActivityAt(user: string, t: number) {
  const r = seed(user, t / MINUTE);
  const hourLocal = new Date(t + OFFSET_MIN * MINUTE).getUTCHours();
  const night = hourLocal < 7;
  return {
    timestamp: local(t),
    entryData: {
      HR: night ? 50 + (r % 8) : 65 + (r % 30),
      StepCount: night ? 0 : r % 900,
      EnergyConsumption: (night ? 120 : 300) * 1000 + r * 100,
      ...(night ? { SpO2: 0.96 + (r % 3) / 100, HRV: 40 + (r % 30) } : {}),
    },
  };
}

/** A UTC day's totals: steps and energy in joules. */
export const suuntoDailyOf = (user: string, day: number) => {
  const r = seed(user, day);
  return { steps: 7000 + r * 5, joules: (2100 + r) * 4184 };
};

const msRange = (q: Record<string, string | undefined>) => {
  const from = Number(q.from);
  const to = Number(q.to);
  if (!/^\d+$/.test(q.from ?? "") || !/^\d+$/.test(q.to ?? "") || to <= from)
    return "from and to are epoch milliseconds, to after from";
  if (to - from > MAX_RANGE) return "the time range must not exceed 28 days";
  return { from, to };
};

export async function startSuuntoStandIn(p: {
  clients: Record<string, string>;
  accessTtlSec?: number;
  /** The APIM subscription key the data routes require; none: not checked. */
  subscriptionKey?: string;
  host?: string;
  port?: number;
}): Promise<SuuntoStandIn> {
  const cloud = await startVendorCloud({
    paths: { authorize: "/oauth/authorize", token: "/oauth/token" },
    clients: p.clients,
    accessTtlSec: p.accessTtlSec,
    title: "Suunto",
    host: p.host,
    port: p.port,
    // Suunto's token answer names the user; `ukv`/`uk` are its user key fields.
    tokenExtras: (g: Grant) => ({ user: g.userId, ukv: "1", uk: `uk-${g.userId}`, jti: `jti-${g.userId}` }),
    routes: (c) => suuntoRoutes(c, p.subscriptionKey),
  });
  return Object.assign(cloud, {
    push: async (targetUrl: string, notification: Record<string, unknown>, secret: string) => {
      const body = JSON.stringify(notification);
      return fetch(targetUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-hmac-sha256-signature": createHmac("sha256", secret).update(body).digest("hex"),
        },
        body,
      });
    },
  });
}

function suuntoRoutes(cloud: VendorCloud, subscriptionKey: string | undefined) {
  const guarded =
    (handler: (user: string, q: Record<string, string | undefined>, reply: FastifyReply) => unknown) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      const q = req.query as Record<string, string | undefined>;
      const key = req.headers["ocp-apim-subscription-key"] ?? q["subscription-key"];
      if (subscriptionKey && key !== subscriptionKey)
        return reply.code(401).send({
          statusCode: 401,
          message:
            "Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.",
        });
      const grant = cloud.authenticate(req, reply);
      if (!grant) return reply;
      return handler(grant.userId, q, reply);
    };
  const bad = (reply: FastifyReply, description: string) =>
    reply.code(400).send({ error: { code: "400", description }, metadata: {}, payload: null });

  cloud.app.get(
    "/v3/workouts",
    guarded((user, q, reply) => {
      const since = q.since === undefined ? 0 : Number(q.since);
      const limit = q.limit === undefined ? 50 : Number(q.limit);
      const offset = q.offset === undefined ? 0 : Number(q.offset);
      const byModification = (q["filter-by-modification-time"] ?? "true") !== "false";
      if (!Number.isInteger(since) || since < 0) return bad(reply, "since must be epoch milliseconds");
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) return bad(reply, "limit must be 1..100");
      if (!Number.isInteger(offset) || offset < 0) return bad(reply, "offset must be a non-negative integer");
      const today = Math.floor(Date.now() / DAY);
      const all = [];
      for (let d = today; d >= today - 120; d--)
        for (const slot of [1, 0] as const) {
          const w = suuntoWorkoutOf(user, d, slot);
          if (w.lastModified > Date.now()) continue;
          if ((byModification ? w.lastModified : w.startTime) >= since) all.push(w);
        }
      return {
        error: null,
        metadata: { workoutcount: String(all.length) },
        payload: all.slice(offset, offset + limit),
      };
    }),
  );
  cloud.app.get(
    "/247samples/sleep",
    guarded((user, q, reply) => {
      const range = msRange(q);
      if (typeof range === "string") return bad(reply, range);
      const out = [];
      for (let d = Math.floor(range.from / DAY); d <= Math.floor(range.to / DAY) + 1; d++)
        for (const s of suuntoSleepsOf(user, d)) {
          const start = Date.parse(s.entryData.BedtimeStart);
          if (start >= range.from && start < range.to && Date.parse(s.timestamp) <= Date.now()) out.push(s);
        }
      return out;
    }),
  );
  cloud.app.get(
    "/247samples/activity",
    guarded((user, q, reply) => {
      const range = msRange(q);
      if (typeof range === "string") return bad(reply, range);
      const out = [];
      const first = Math.ceil(range.from / (30 * MINUTE)) * 30 * MINUTE;
      for (let t = first; t < Math.min(range.to, Date.now()); t += 30 * MINUTE) out.push(suuntoActivityAt(user, t));
      return out;
    }),
  );
  cloud.app.get(
    "/247/daily-activity-statistics",
    guarded((user, q, reply) => {
      const pattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
      if (!pattern.test(q.startdate ?? "") || !pattern.test(q.enddate ?? ""))
        return bad(reply, "startdate and enddate are ISO 8601 date-times");
      const from = Date.parse(`${q.startdate}Z`);
      const to = Date.parse(`${q.enddate}Z`);
      if (Number.isNaN(from) || Number.isNaN(to) || to <= from) return bad(reply, "enddate must be after startdate");
      if (to - from >= MAX_RANGE) return bad(reply, "the time range must not exceed 28 days");
      const steps = [];
      const energy = [];
      for (let t = from; t <= to; t += DAY) {
        const over = t + DAY <= Date.now();
        const totals = suuntoDailyOf(user, Math.floor(t / DAY));
        const time = new Date(t).toISOString().slice(0, 23);
        steps.push({ TimeISO8601: time, Value: over ? totals.steps : null });
        energy.push({ TimeISO8601: time, Value: over ? totals.joules : null });
      }
      const source = "suunto-247-3e0f7c17-2775-477a-a12f-a50ff0170860";
      return [
        { Name: "energyconsumption", Aggregation: "sum", Sources: [{ Name: source, Samples: energy }] },
        { Name: "stepcount", Aggregation: "sum", Sources: [{ Name: source, Samples: steps }] },
      ];
    }),
  );
}
