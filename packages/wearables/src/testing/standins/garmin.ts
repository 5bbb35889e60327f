/**
 * A Garmin Health API stand-in: Garmin's OAuth 2.0 paths (`/oauth2Confirm`, `/di-oauth2-service/oauth/token`,
 * PKCE required, client in the body), `GET /wellness-api/rest/user/id`, and the summary pulls
 * `GET /wellness-api/rest/{activities,sleeps,dailies}?uploadStartTimeInSeconds&uploadEndTimeInSeconds` (both
 * required, at most 86,400 s apart, else 400 as Garmin answers). Every account has one activity, one night and
 * one daily summary per UTC day, the same every time, each "uploaded" a little after it ended.
 * `GET /wellness-api/rest/backfill/{type}?summaryStartTimeInSeconds&summaryEndTimeInSeconds` answers 202 and
 * records the request (`backfills`). `push()` posts a notification as Garmin's push service does: JSON summary
 * lists with the `garmin-client-id` header.
 */
import { startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

const DAY = 86_400;
/** Every stand-in account lives at UTC+2. */
export const GARMIN_OFFSET_SEC = 7_200;
const TYPES = ["RUNNING", "CYCLING", "WALKING", "STRENGTH_TRAINING", "LAP_SWIMMING"];
const ymd = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 10);

/** The activity of UTC day `d` (days since the epoch) and when Garmin received it. */
export function garminActivityOf(d: number, userId: string) {
  const startTimeInSeconds = d * DAY + 15 * 3600;
  const type = TYPES[d % TYPES.length] as string;
  const onFoot = type === "RUNNING" || type === "WALKING";
  return {
    upload: startTimeInSeconds + 3000 + 600,
    summary: {
      userId,
      userAccessToken: `uat-${userId}`,
      summaryId: `${8_000_000_000 + d}`,
      activityId: 8_000_000_000 + d,
      activityName: `${type.toLowerCase()} ${ymd(d * DAY)}`,
      activityType: type,
      deviceName: "forerunner965",
      startTimeInSeconds,
      startTimeOffsetInSeconds: GARMIN_OFFSET_SEC,
      durationInSeconds: 3000,
      activeKilocalories: 400 + (d % 7) * 5,
      ...(type === "STRENGTH_TRAINING" ? {} : { distanceInMeters: 9000 + (d % 5) * 100 }),
      ...(onFoot ? { steps: 7000 + (d % 4) * 50, averageRunCadenceInStepsPerMinute: 168 } : {}),
      ...(type === "CYCLING"
        ? { averageBikeCadenceInRoundsPerMinute: 88, averagePowerInWatts: 215, maxPowerInWatts: 540 }
        : {}),
      averageHeartRateInBeatsPerMinute: 150,
      maxHeartRateInBeatsPerMinute: 178,
      averageSpeedInMetersPerSecond: 3.05,
      maxSpeedInMetersPerSecond: 4.12,
      totalElevationGainInMeters: 55.4,
    },
  };
}

/** The night ending on UTC day `d`. */
export function garminSleepOf(d: number, userId: string) {
  const start = d * DAY - 3600;
  const level = (from: number, seconds: number) => [
    { startTimeInSeconds: start + from, endTimeInSeconds: start + from + seconds },
  ];
  return {
    upload: start + 27_000 + 1_200,
    summary: {
      userId,
      userAccessToken: `uat-${userId}`,
      summaryId: `x${userId}-sleep-${d}`,
      calendarDate: ymd(d * DAY),
      startTimeInSeconds: start,
      startTimeOffsetInSeconds: GARMIN_OFFSET_SEC,
      durationInSeconds: 27_000,
      deepSleepDurationInSeconds: 5_400,
      lightSleepDurationInSeconds: 14_400,
      remSleepInSeconds: 5_400,
      awakeDurationInSeconds: 1_800,
      sleepLevelsMap: {
        light: level(0, 7_200).concat(level(12_600, 7_200)),
        deep: level(7_200, 5_400),
        rem: level(19_800, 5_400),
        awake: level(25_200, 1_800),
      },
      validation: "ENHANCED_FINAL",
    },
  };
}

/** The daily summary of the local day `d` (UTC+2 midnight to midnight). */
export function garminDailyOf(d: number, userId: string) {
  const start = d * DAY - GARMIN_OFFSET_SEC;
  return {
    upload: start + DAY + 300,
    summary: {
      userId,
      userAccessToken: `uat-${userId}`,
      summaryId: `x${userId}-daily-${d}`,
      calendarDate: ymd(d * DAY),
      activityType: "WALKING",
      startTimeInSeconds: start,
      startTimeOffsetInSeconds: GARMIN_OFFSET_SEC,
      durationInSeconds: DAY,
      steps: 10_000 + (d % 9) * 100,
      distanceInMeters: 7_800.5,
      activeKilocalories: 520,
      bmrKilocalories: 1_650,
      floorsClimbed: 7,
      restingHeartRateInBeatsPerMinute: 52,
      averageStressLevel: 31,
      timeOffsetHeartRateSamples: { "0": 55, "900": 56, "1800": 54 },
    },
  };
}

const OF = { activities: garminActivityOf, sleeps: garminSleepOf, dailies: garminDailyOf };

export interface GarminStandIn extends VendorCloud {
  /** Backfill requests received (`type`, summary range in epoch seconds), in order. */
  backfills: { type: string; from: number; to: number }[];
  /** Posts a push notification (`{activities: […], …}`) with `garmin-client-id`; answers the HTTP status. */
  push(targetUrl: string, body: Record<string, unknown[]>, clientId: string | undefined): Promise<number>;
}

export async function startGarminStandIn(p: {
  clients: Record<string, string>;
  accessTtlSec?: number;
}): Promise<GarminStandIn> {
  const backfills: GarminStandIn["backfills"] = [];
  const cloud = await startVendorCloud({
    paths: { authorize: "/oauth2Confirm", token: "/di-oauth2-service/oauth/token" },
    clients: p.clients,
    accessTtlSec: p.accessTtlSec,
    requirePkce: true,
    title: "Garmin Connect",
    routes: (c) => routes(c, backfills),
  });
  return {
    ...cloud,
    backfills,
    async push(targetUrl, body, clientId) {
      const res = await fetch(targetUrl, {
        method: "POST",
        headers: { "content-type": "application/json", ...(clientId ? { "garmin-client-id": clientId } : {}) },
        body: JSON.stringify(body),
      });
      await res.body?.cancel();
      return res.status;
    },
  };
}

function routes(cloud: VendorCloud, backfills: GarminStandIn["backfills"]) {
  // Backfill: 202 and, at Garmin, pushes later; at most 90 days of summary time per request.
  cloud.app.get("/wellness-api/rest/backfill/:type", async (req, reply) => {
    if (!cloud.authenticate(req, reply)) return reply;
    const { type } = req.params as { type: string };
    const q = req.query as Record<string, string | undefined>;
    const from = Number(q.summaryStartTimeInSeconds);
    const to = Number(q.summaryEndTimeInSeconds);
    if (!Number.isInteger(from) || !Number.isInteger(to) || to <= from)
      return reply
        .code(400)
        .send({ errorMessage: "summaryStartTimeInSeconds and summaryEndTimeInSeconds are required" });
    if (to - from > 90 * DAY) return reply.code(400).send({ errorMessage: "range exceeds 90 days" });
    backfills.push({ type, from, to });
    return reply.code(202).send();
  });
  cloud.app.get("/wellness-api/rest/user/id", async (req, reply) => {
    const grant = cloud.authenticate(req, reply);
    if (!grant) return reply;
    return { userId: grant.userId };
  });
  for (const type of Object.keys(OF) as (keyof typeof OF)[]) {
    cloud.app.get(`/wellness-api/rest/${type}`, async (req, reply) => {
      const grant = cloud.authenticate(req, reply);
      if (!grant) return reply;
      const q = req.query as Record<string, string | undefined>;
      const from = Number(q.uploadStartTimeInSeconds);
      const to = Number(q.uploadEndTimeInSeconds);
      if (!Number.isInteger(from) || !Number.isInteger(to) || to <= from)
        return reply
          .code(400)
          .send({ errorMessage: "uploadStartTimeInSeconds and uploadEndTimeInSeconds are required" });
      if (to - from > DAY)
        return reply
          .code(400)
          .send({ errorMessage: `timestamp range of ${to - from} seconds exceeds the maximum of 86400` });
      const now = Date.now() / 1000;
      const out: unknown[] = [];
      for (let d = Math.floor(from / DAY) - 2; d <= Math.floor(to / DAY) + 2; d++) {
        const { upload, summary } = OF[type](d, grant.userId);
        if (upload >= from && upload < to && upload <= now) out.push(summary);
      }
      return out;
    });
  }
}
