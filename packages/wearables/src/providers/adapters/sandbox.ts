/**
 * The `sandbox` provider (sandbox/sandboxCloud.ts): an offline vendor shipped with the platform, so connect →
 * sync → data runs without a vendor account. Its protocol is documented in sandboxCloud.ts; this adapter is the
 * reference shape of every other: OAuth description, paged fetch, mapping into the data model.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { formatZoneOffset } from "../../domain/queryDates.ts";
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import type { MappedRecords, PushRequest, SyncKind, VendorAdapter, VendorPage } from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};
const HEART_RATE = series("heart_rate");
const STEPS = series("steps");
const RESTING_HR = series("resting_heart_rate");
const HRV_SDNN = series("heart_rate_variability_sdnn");

const WORKOUT_TYPE: Record<string, string> = {
  run: "running",
  ride: "cycling",
  walk: "walking",
  strength: "strength_training",
};
const PATH: Record<SyncKind, string> = { workouts: "workouts", sleep: "sleep", samples: "heart_rate", daily: "daily" };

interface SandboxPage<T> {
  data: T[];
  next_page_token: string | null;
}
interface SandboxWorkout {
  id: string;
  sport: string;
  start_time: string;
  end_time: string;
  utc_offset_minutes: number;
  calories_kcal: number | null;
  distance_m: number | null;
  avg_hr_bpm: number | null;
  max_hr_bpm: number | null;
  avg_speed_mps: number | null;
  device: string | null;
}
interface SandboxSleep {
  id: string;
  start_time: string;
  end_time: string;
  utc_offset_minutes: number;
  is_nap: boolean;
  stages: { stage: "deep" | "light" | "rem" | "awake"; start_time: string; end_time: string }[];
}

const empty = (): MappedRecords => ({ workouts: [], sleeps: [], samples: [] });

/** How old a notification's timestamp may be (replays of an older one are refused). */
const PUSH_TOLERANCE_SEC = 300;
const KIND_OF_PUSH: Record<string, SyncKind> = {
  workouts: "workouts",
  sleep: "sleep",
  heart_rate: "samples",
  daily: "daily",
};

/** `X-Sandbox-Signature: t=<unix s>,v1=<hex HMAC-SHA256("<t>.<body>", client secret)>`, within the tolerance. */
function verifySandboxPush(req: PushRequest, clientSecret: string, now: number): boolean {
  const header = req.headers["x-sandbox-signature"] ?? "";
  const parts = Object.fromEntries(header.split(",").map((kv) => kv.trim().split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > PUSH_TOLERANCE_SEC || !parts.v1) return false;
  const expected = createHmac("sha256", clientSecret).update(`${t}.`).update(req.rawBody).digest();
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const sandbox: VendorAdapter = {
  id: "sandbox",
  name: "Sandbox (offline test vendor)",
  oauth: {
    authorizeUrl: "http://127.0.0.1:8010/oauth/authorize",
    tokenUrl: "http://127.0.0.1:8010/oauth/token",
    revokeUrl: "http://127.0.0.1:8010/oauth/revoke",
    pkce: true,
    clientAuth: "basic",
    scope: "workouts sleep heart_rate daily",
  },
  apiBase: "http://127.0.0.1:8010/v1",
  kinds: ["workouts", "sleep", "samples", "daily"],
  rateBudgets: [{ requests: 600, windowSec: 60 }],
  liveSyncMode: "pull",
  maxHistoricalDays: 365,
  dataGranularity: "raw",

  async fetchIdentity(client, urls) {
    const me = await client.getJson<{ id: string; username: string }>(`${urls.apiBase}/me`);
    return { providerUserId: String(me.id), providerUsername: me.username };
  },

  queryKnobs: { sync: ["limit"], workouts: ["limit", "offset"] },

  async fetchPage({ client, urls, kind, window, cursor, query }): Promise<VendorPage> {
    const page = await client.getJson<SandboxPage<unknown>>(`${urls.apiBase}/${PATH[kind]}`, {
      start: new Date(window.start).toISOString(),
      end: new Date(window.end).toISOString(),
      limit: Math.min(query?.limit ?? 100, 100),
      page_token: cursor ?? undefined,
    });
    const records = empty();
    for (const item of page.data) {
      if (kind === "workouts") {
        const w = item as SandboxWorkout;
        records.workouts.push({
          type: WORKOUT_TYPE[w.sport] ?? "other",
          start: Date.parse(w.start_time),
          end: Date.parse(w.end_time),
          zoneOffset: formatZoneOffset(w.utc_offset_minutes),
          externalId: w.id,
          deviceModel: w.device,
          details: {
            energyBurned: w.calories_kcal,
            distance: w.distance_m,
            heartRateAvg: w.avg_hr_bpm,
            heartRateMax: w.max_hr_bpm,
            averageSpeed: w.avg_speed_mps,
          },
        });
      } else if (kind === "sleep") {
        const s = item as SandboxSleep;
        const minutes = (stage: string) =>
          s.stages
            .filter((x) => x.stage === stage)
            .reduce((n, x) => n + (Date.parse(x.end_time) - Date.parse(x.start_time)) / 60_000, 0);
        const asleep = minutes("deep") + minutes("light") + minutes("rem");
        records.sleeps.push({
          start: Date.parse(s.start_time),
          end: Date.parse(s.end_time),
          zoneOffset: formatZoneOffset(s.utc_offset_minutes),
          externalId: s.id,
          deviceModel: "Sandbox Band 2",
          details: {
            totalDurationMinutes: Math.round(asleep),
            timeInBedMinutes: Math.round((Date.parse(s.end_time) - Date.parse(s.start_time)) / 60_000),
            deepMinutes: Math.round(minutes("deep")),
            remMinutes: Math.round(minutes("rem")),
            lightMinutes: Math.round(minutes("light")),
            awakeMinutes: Math.round(minutes("awake")),
            isNap: s.is_nap,
            stages: s.stages.map((x) => ({
              stage: x.stage,
              start: Date.parse(x.start_time),
              end: Date.parse(x.end_time),
            })),
          },
        });
      } else if (kind === "samples") {
        const h = item as { time: string; bpm: number };
        records.samples.push({
          seriesType: HEART_RATE,
          recordedAt: Date.parse(h.time),
          value: h.bpm,
          deviceModel: "Sandbox Band 2",
        });
      } else {
        const d = item as { date: string; steps: number; resting_hr_bpm: number; hrv_sdnn_ms: number };
        const at = Date.parse(`${d.date}T00:00:00Z`);
        const common = { recordedAt: at, zoneOffsetMinutes: 0, deviceModel: "Sandbox Band 2" };
        records.samples.push({ ...common, seriesType: STEPS, value: d.steps, isDailyTotal: true });
        records.samples.push({ ...common, seriesType: RESTING_HR, value: d.resting_hr_bpm });
        records.samples.push({ ...common, seriesType: HRV_SDNN, value: d.hrv_sdnn_ms });
      }
    }
    return { records, fetched: page.data.length, nextCursor: page.next_page_token };
  },

  push: {
    verify: (req, secrets, now) => verifySandboxPush(req, secrets.clientSecret, now),
    parse(req) {
      const n = JSON.parse(req.rawBody.toString("utf8")) as {
        account?: unknown;
        data_type?: unknown;
        start?: unknown;
        end?: unknown;
      };
      const kind = KIND_OF_PUSH[String(n.data_type)];
      const start = Date.parse(String(n.start));
      const end = Date.parse(String(n.end));
      if (typeof n.account !== "string" || !kind || Number.isNaN(start) || Number.isNaN(end) || end <= start)
        throw new Error("expected {account, data_type, start, end}");
      return [{ providerUserId: n.account, pull: { kinds: [kind], window: { start, end } } }];
    },
  },

  async listRawWorkouts(client, urls, q) {
    const start = q.since > 0 ? q.since * 1000 : Date.now() - 30 * 86_400_000;
    return client.getJson(`${urls.apiBase}/workouts`, {
      start: new Date(start).toISOString(),
      end: new Date().toISOString(),
      limit: q.limit,
      page_token: q.offset || undefined,
    });
  },
};
