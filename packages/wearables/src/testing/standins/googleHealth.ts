/**
 * A Google Health API stand-in: Google's OAuth paths (`/o/oauth2/v2/auth`, `/token`, `/revoke`; client in the
 * body), `GET /v4/users/me/identity` → `{healthUserId}`, and
 * `GET /v4/users/me/dataTypes/{type}/dataPoints?filter&pageSize&pageToken` for `exercise`, `sleep`, `heart-rate`,
 * `heart-rate-variability`, `steps` and `daily-resting-heart-rate`. The filter must be the AIP-160 range on the
 * type's time member (`exercise.interval.start_time >= "…" AND exercise.interval.start_time < "…"`), else 400
 * `INVALID_ARGUMENT` as Google answers; pages hold at most 25 points. Every account has, per UTC day, one
 * exercise, one night (and a nap every 7th day), heart rate every 30 minutes, one HRV sample, hourly steps from
 * 08:00 to 20:00 and one resting heart rate, the same every time. `push()` posts a notify-only notification with
 * the subscriber's bearer secret in `Authorization`, as Google does.
 */
import type { FastifyReply } from "fastify";
import { startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

const DAY = 86_400_000;
const MINUTE = 60_000;
export const GOOGLE_PAGE_SIZE = 25;
const OFFSET = "3600s";
const EXERCISES = ["RUNNING", "BIKING", "WALKING", "STRENGTH_TRAINING", "SWIMMING_POOL"];
const iso = (ms: number) => new Date(ms).toISOString();
const source = { platform: "FITBIT", device: { displayName: "Pixel Watch 3" } };

interface Point {
  /** The instant the filter compares (ms), or the civil date. */
  at: number | string;
  /** When the data is complete (the stand-in serves no future). */
  done: number;
  point: Record<string, unknown>;
}

/** Every point of `type` on UTC day `d` (days since the epoch) for the health user `uid`. */
export function googlePointsOf(type: string, d: number, uid: string): Point[] {
  const day = d * DAY;
  const name = (id: string) => `users/${uid}/dataTypes/${type}/dataPoints/${id}`;
  if (type === "exercise") {
    const start = day + 12 * 3_600_000;
    const end = start + 40 * MINUTE;
    const exerciseType = EXERCISES[d % EXERCISES.length] as string;
    const onFoot = exerciseType === "RUNNING" || exerciseType === "WALKING";
    return [
      {
        at: start,
        done: end,
        point: {
          name: name(`ex-${d}`),
          dataSource: source,
          exercise: {
            interval: { startTime: iso(start), endTime: iso(end), startUtcOffset: OFFSET, endUtcOffset: OFFSET },
            exerciseType,
            displayName: exerciseType.toLowerCase(),
            activeDuration: "2280s",
            metricsSummary: {
              caloriesKcal: 310.5 + (d % 4),
              ...(exerciseType === "STRENGTH_TRAINING"
                ? {}
                : { distanceMillimeters: String(7_500_000 + (d % 5) * 1000), averageSpeedMillimetersPerSecond: 3125 }),
              ...(onFoot
                ? { steps: String(6200 + (d % 3) * 10), mobilityMetrics: { avgCadenceStepsPerMinute: 164 } }
                : {}),
              averageHeartRateBeatsPerMinute: 138,
              elevationGainMillimeters: 42_000,
            },
          },
        },
      },
    ];
  }
  if (type === "sleep") {
    const start = day - 90 * MINUTE;
    const at = (m: number) => iso(start + m * MINUTE);
    const night = {
      at: start,
      done: start + 450 * MINUTE,
      point: {
        name: name(`sleep-${d}`),
        dataSource: source,
        sleep: {
          interval: { startTime: at(0), endTime: at(450), startUtcOffset: OFFSET, endUtcOffset: OFFSET },
          type: "STAGES",
          stages: [
            { startTime: at(0), endTime: at(20), type: "AWAKE" },
            { startTime: at(20), endTime: at(140), type: "LIGHT" },
            { startTime: at(140), endTime: at(220), type: "DEEP" },
            { startTime: at(220), endTime: at(335), type: "LIGHT" },
            { startTime: at(335), endTime: at(425), type: "REM" },
            { startTime: at(425), endTime: at(450), type: "AWAKE" },
          ],
          summary: {
            minutesInSleepPeriod: "450",
            minutesAsleep: "405",
            minutesAwake: "45",
            stagesSummary: [
              { type: "AWAKE", minutes: "45", count: "2" },
              { type: "LIGHT", minutes: "235", count: "2" },
              { type: "DEEP", minutes: "80", count: "1" },
              { type: "REM", minutes: "90", count: "1" },
            ],
          },
          metadata: { nap: false },
        },
      },
    };
    if (d % 7 !== 0) return [night];
    const napStart = day + 13 * 3_600_000;
    const nap = {
      at: napStart,
      done: napStart + 25 * MINUTE,
      point: {
        name: name(`nap-${d}`),
        dataSource: source,
        sleep: {
          interval: { startTime: iso(napStart), endTime: iso(napStart + 25 * MINUTE), startUtcOffset: OFFSET },
          type: "CLASSIC",
          stages: [{ startTime: iso(napStart), endTime: iso(napStart + 25 * MINUTE), type: "ASLEEP" }],
          summary: { minutesInSleepPeriod: "25", minutesAsleep: "25", minutesAwake: "0" },
          metadata: { nap: true },
        },
      },
    };
    return [night, nap];
  }
  if (type === "heart-rate") {
    return Array.from({ length: 48 }, (_, i) => {
      const t = day + i * 30 * MINUTE;
      return {
        at: t,
        done: t,
        point: {
          name: name(`hr-${d}-${i}`),
          dataSource: source,
          heartRate: { sampleTime: { physicalTime: iso(t), utcOffset: OFFSET }, beatsPerMinute: String(60 + (i % 12)) },
        },
      };
    });
  }
  if (type === "heart-rate-variability") {
    const t = day + 3 * 3_600_000;
    return [
      {
        at: t,
        done: t,
        point: {
          name: name(`hrv-${d}`),
          dataSource: source,
          heartRateVariability: {
            sampleTime: { physicalTime: iso(t), utcOffset: OFFSET },
            rootMeanSquareOfSuccessiveDifferencesMilliseconds: 42.5,
            standardDeviationMilliseconds: 55.1,
          },
        },
      },
    ];
  }
  if (type === "steps") {
    return Array.from({ length: 12 }, (_, i) => {
      const t = day + (8 + i) * 3_600_000;
      return {
        at: t,
        done: t + 3_600_000,
        point: {
          name: name(`steps-${d}-${i}`),
          dataSource: source,
          steps: {
            interval: { startTime: iso(t), endTime: iso(t + 3_600_000), startUtcOffset: OFFSET },
            count: String(500 + i * 10),
          },
        },
      };
    });
  }
  if (type === "daily-resting-heart-rate") {
    const date = new Date(day);
    return [
      {
        at: iso(day).slice(0, 10),
        done: day + DAY,
        point: {
          name: name(`rhr-${d}`),
          dataSource: source,
          dailyRestingHeartRate: {
            date: { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() },
            beatsPerMinute: String(54 + (d % 3)),
          },
        },
      },
    ];
  }
  return [];
}

/** The filter member each type is ranged on. */
const MEMBER: Record<string, string> = {
  exercise: "exercise.interval.start_time",
  sleep: "sleep.interval.start_time",
  "heart-rate": "heart_rate.sample_time.physical_time",
  "heart-rate-variability": "heart_rate_variability.sample_time.physical_time",
  steps: "steps.interval.start_time",
  "daily-resting-heart-rate": "daily_resting_heart_rate.date",
};

export interface GoogleHealthStandIn extends VendorCloud {
  /** Posts a notification (`{data: {healthUserId, operation, dataType, intervals}}` or `{type: "verification"}`). */
  push(targetUrl: string, body: unknown, bearerSecret: string | undefined): Promise<number>;
}

const invalid = (reply: FastifyReply, message: string) =>
  reply.code(400).send({ error: { code: 400, message, status: "INVALID_ARGUMENT" } });

export async function startGoogleHealthStandIn(p: {
  clients: Record<string, string>;
  accessTtlSec?: number;
}): Promise<GoogleHealthStandIn> {
  const cloud = await startVendorCloud({
    paths: { authorize: "/o/oauth2/v2/auth", token: "/token", revoke: "/revoke" },
    clients: p.clients,
    accessTtlSec: p.accessTtlSec,
    title: "Google",
    routes: (c) => routes(c),
  });
  return {
    ...cloud,
    async push(targetUrl, body, bearerSecret) {
      const res = await fetch(targetUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(bearerSecret ? { authorization: `Bearer ${bearerSecret}` } : {}),
        },
        body: JSON.stringify(body),
      });
      await res.body?.cancel();
      return res.status;
    },
  };
}

function routes(cloud: VendorCloud) {
  const healthUserId = (userId: string) => `hu-${userId}`;
  cloud.app.get("/v4/users/me/identity", async (req, reply) => {
    const grant = cloud.authenticate(req, reply);
    if (!grant) return reply;
    return { name: `users/${healthUserId(grant.userId)}/identity`, healthUserId: healthUserId(grant.userId) };
  });
  cloud.app.get("/v4/users/me/dataTypes/:type/dataPoints", async (req, reply) => {
    const grant = cloud.authenticate(req, reply);
    if (!grant) return reply;
    const { type } = req.params as { type: string };
    const member = MEMBER[type];
    if (!member)
      return reply.code(404).send({ error: { code: 404, message: `unknown data type ${type}`, status: "NOT_FOUND" } });
    const q = req.query as Record<string, string | undefined>;
    const m = /^([\w.]+) >= "([^"]+)" AND ([\w.]+) < "([^"]+)"$/.exec(q.filter ?? "");
    if (!m || m[1] !== member || m[3] !== member) return invalid(reply, `filter must range ${member}`);
    const isDate = member.endsWith(".date");
    const low = m[2] as string;
    const high = m[4] as string;
    if (
      isDate
        ? !/^\d{4}-\d{2}-\d{2}$/.test(low) || !/^\d{4}-\d{2}-\d{2}$/.test(high)
        : Number.isNaN(Date.parse(low)) || Number.isNaN(Date.parse(high))
    )
      return invalid(reply, "bad filter bound");
    const pageSize = q.pageSize === undefined ? GOOGLE_PAGE_SIZE : Number(q.pageSize);
    const offset = q.pageToken === undefined ? 0 : Number(q.pageToken);
    if (!Number.isInteger(pageSize) || pageSize < 1 || !Number.isInteger(offset) || offset < 0)
      return invalid(reply, "bad pageSize or pageToken");
    const from = isDate ? Date.parse(`${low}T00:00:00Z`) : Date.parse(low);
    const to = isDate ? Date.parse(`${high}T00:00:00Z`) : Date.parse(high);
    const now = Date.now();
    const all: Record<string, unknown>[] = [];
    for (let d = Math.floor(from / DAY) - 1; d <= Math.floor(to / DAY) + 1 && d - from / DAY < 800; d++) {
      for (const x of googlePointsOf(type, d, healthUserId(grant.userId))) {
        const inRange = typeof x.at === "string" ? x.at >= low && x.at < high : x.at >= from && x.at < to;
        if (inRange && x.done <= now) all.push(x.point);
      }
    }
    const size = Math.min(pageSize, GOOGLE_PAGE_SIZE);
    return {
      dataPoints: all.slice(offset, offset + size),
      ...(offset + size < all.length ? { nextPageToken: String(offset + size) } : {}),
    };
  });
}
