/**
 * Ultrahuman (Ring AIR, M1 CGM) Partner API, OAuth 2.0. Docs: https://vision.ultrahuman.com/developer-docs,
 * https://blog.ultrahuman.com/blog/accessing-the-ultrahuman-partnership-api/ (OAuth, scopes `ring_data cgm_data
 * profile`, tokens live about a week) and the anchor's `services/providers/ultrahuman/*`.
 *
 * What is Ultrahuman-specific:
 * - the API is by day: `GET /user_data/metrics?date=YYYY-MM-DD` answers every metric of that day in the user's
 *   zone, `{data: {metric_data: [{type, object}]}}` (`Sleep`, `hr`, `hrv`, `temp`, `steps`, `glucose`,
 *   `vo2_max`, `active_minutes`, …); a window is walked a day per page (the cursor is the next date);
 * - time series are `{values: [{value, timestamp}]}` with epoch-second timestamps;
 * - the token answer has no user id: `GET /user_data/user_info`;
 * - no workouts and no webhooks (the anchor: "REST-only; no public webhook offering").
 */
import { seriesTypeByCode } from "../../domain/seriesTypes.ts";
import { parseStandardTokens } from "../oauthClient.ts";
import type { MappedRecords, SyncKind, SyncWindow, VendorAdapter, VendorPage } from "../types.ts";

const series = (code: string) => {
  const t = seriesTypeByCode(code);
  if (!t) throw new Error(`unknown series type ${code}`);
  return t.id;
};
/** Time-series metric → series, as the anchor maps them (its `ACTIVITY_SAMPLE_SERIES`; `glucose` from cgm_data). */
const SAMPLE_SERIES: Record<string, number> = {
  hr: series("heart_rate"),
  // The anchor files Ultrahuman's HRV as SDNN and the ring's temperature as body temperature; kept for parity.
  hrv: series("heart_rate_variability_sdnn"),
  temp: series("body_temperature"),
  steps: series("steps"),
  glucose: series("blood_glucose"),
};
const VO2_MAX = series("vo2_max");
const ACTIVE_TIME = series("active_time");
const STEPS = series("steps");

interface Metric {
  type: string;
  object: Record<string, unknown>;
}
export interface UltrahumanSleep {
  bedtime_start?: number;
  bedtime_end?: number;
  quick_metrics?: { type: string; value: number }[];
  sleep_stages?: { type: string; stage_time: number }[];
  sleep_efficiency?: number;
}
interface Values {
  values?: { value: number; timestamp: number }[];
  total?: number;
}
interface DayValue {
  value?: number;
  day_start_timestamp?: number;
}

const empty = (): MappedRecords => ({ workouts: [], sleeps: [], samples: [] });
const DAY = 86_400_000;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const minutes = (seconds: number | undefined) => (seconds === undefined ? null : Math.round(seconds / 60));

export function mapSleep(s: UltrahumanSleep, date: string): MappedRecords["sleeps"][number] | undefined {
  if (!s.bedtime_start || !s.bedtime_end) return undefined;
  const quick = new Map((s.quick_metrics ?? []).map((m) => [m.type, m.value]));
  const stage = (type: string) => s.sleep_stages?.find((x) => x.type === type)?.stage_time;
  const deep = minutes(stage("deep_sleep"));
  const light = minutes(stage("light_sleep"));
  const rem = minutes(stage("rem_sleep"));
  const inBed = minutes(quick.get("time_in_bed")) ?? Math.round((s.bedtime_end - s.bedtime_start) / 60);
  const asleep = minutes(quick.get("total_sleep")) ?? (deep ?? 0) + (light ?? 0) + (rem ?? 0);
  const efficiency = quick.get("sleep_efficiency") ?? quick.get("sleep_efic") ?? s.sleep_efficiency;
  return {
    start: s.bedtime_start * 1000,
    end: s.bedtime_end * 1000,
    // Ultrahuman's day is the user's, but the answer names no zone.
    zoneOffset: null,
    externalId: `sleep-${date}`,
    deviceModel: "Ultrahuman Ring",
    details: {
      totalDurationMinutes: asleep,
      timeInBedMinutes: inBed,
      deepMinutes: deep,
      lightMinutes: light,
      remMinutes: rem,
      awakeMinutes: minutes(stage("awake")),
      efficiencyScore: efficiency ?? null,
      isNap: false,
      // Only per-stage totals: the metrics answer has no stage intervals.
      stages: [],
    },
  };
}

/** One day's metrics mapped for `kind`, keeping what lies in the window. */
export function mapDay(kind: SyncKind, metrics: Metric[], date: string, w: SyncWindow): MappedRecords {
  const records = empty();
  const inWindow = (ms: number) => ms >= w.start && ms < w.end;
  for (const { type, object } of metrics) {
    if (kind === "sleep" && type === "Sleep") {
      const sleep = mapSleep(object as UltrahumanSleep, date);
      if (sleep && inWindow(sleep.start)) records.sleeps.push(sleep);
    } else if (kind === "samples" && SAMPLE_SERIES[type] !== undefined) {
      const seriesType = SAMPLE_SERIES[type] as number;
      for (const v of (object as Values).values ?? []) {
        const at = v.timestamp * 1000;
        // Zero-step intervals are no samples (the anchor skips them too).
        if (!inWindow(at) || (type === "steps" && !(v.value > 0))) continue;
        records.samples.push({
          seriesType,
          recordedAt: at,
          value: v.value,
          ...(type === "steps" ? { isDailyTotal: false } : {}),
          deviceModel: type === "glucose" ? "Ultrahuman M1" : "Ultrahuman Ring",
        });
      }
    } else if (kind === "daily") {
      const o = object as DayValue & Values;
      const at = o.day_start_timestamp ? o.day_start_timestamp * 1000 : Date.parse(`${date}T00:00:00Z`);
      const common = { recordedAt: at, deviceModel: "Ultrahuman Ring" };
      if (type === "vo2_max" && typeof o.value === "number")
        records.samples.push({ ...common, seriesType: VO2_MAX, value: o.value });
      else if (type === "active_minutes" && typeof o.value === "number")
        records.samples.push({ ...common, seriesType: ACTIVE_TIME, value: o.value, isDailyTotal: true });
      else if (type === "steps" && typeof o.total === "number")
        records.samples.push({ ...common, seriesType: STEPS, value: o.total, isDailyTotal: true });
    }
  }
  return records;
}

export const ultrahuman: VendorAdapter = {
  id: "ultrahuman",
  name: "Ultrahuman",
  oauth: {
    authorizeUrl: "https://auth.ultrahuman.com/authorise",
    tokenUrl: "https://partner.ultrahuman.com/api/partners/oauth/token",
    revokeUrl: "https://partner.ultrahuman.com/api/partners/oauth/revoke",
    pkce: false,
    clientAuth: "body",
    scope: "ring_data cgm_data profile",
  },
  apiBase: "https://partner.ultrahuman.com/api/partners/v1",
  kinds: ["sleep", "samples", "daily"],
  // Ultrahuman publishes no number, only a Fair Usage Policy ("API usage must remain within reasonable limits …
  // may result in throttling": ultrahumanapp.notion.site, API Agreement). One call a second per application is
  // a guess that keeps a backfill (one call per day and kind) polite. Unverified.
  rateBudgets: [{ requests: 60, windowSec: 60 }],
  liveSyncMode: "pull",
  maxHistoricalDays: null,
  dataGranularity: null,

  // The token answer names no user: the id comes from `/user_data/user_info`, whatever else the answer carries.
  parseTokens(body, now) {
    const { providerUserId: _ignored, ...tokens } = parseStandardTokens(body, now);
    return tokens;
  },

  async fetchIdentity(client, urls) {
    type Profile = { user_id?: string | number; email?: string; username?: string };
    const answer = await client.getJson<Profile & { data?: Profile }>(`${urls.apiBase}/user_data/user_info`);
    const profile = answer.data ?? answer;
    if (profile.user_id === undefined) throw new Error("Ultrahuman's user_info has no user_id");
    return { providerUserId: String(profile.user_id), providerUsername: profile.username ?? profile.email };
  },

  async fetchPage({ client, urls, kind, window, cursor }): Promise<VendorPage> {
    const date = cursor ?? ymd(window.start);
    const last = ymd(window.end - 1);
    const answer = await client.getJson<{ data?: { metric_data?: Metric[] } }>(`${urls.apiBase}/user_data/metrics`, {
      date,
    });
    const metrics = answer.data?.metric_data ?? [];
    const records = mapDay(kind, metrics, date, window);
    const next = ymd(Date.parse(`${date}T00:00:00Z`) + DAY);
    return {
      records,
      fetched: records.sleeps.length + records.samples.length,
      nextCursor: date < last ? next : null,
    };
  },
};
