/**
 * An Ultrahuman Partner API stand-in: Ultrahuman's OAuth paths (`/authorise`, `/api/partners/oauth/token`,
 * `/api/partners/oauth/revoke`; client in the body), `GET /api/partners/v1/user_data/user_info` and
 * `GET /api/partners/v1/user_data/metrics?date=YYYY-MM-DD` (400 without a valid date, as Ultrahuman answers) in
 * the `{data: {metric_data: [{type, object}]}, error, status}` shape. Every account has, per day, one night
 * (ending that morning), heart rate and glucose every 15 minutes, hourly HRV and temperature, steps every
 * 15 minutes from 08:00 to 20:00 with the day's total, VO2 max and active minutes, the same every time. Days in
 * the future answer no metrics. Ultrahuman does not push, so there is no `push()`.
 */
import { startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

const DAY = 86_400;

const series = (start: number, count: number, stepSec: number, value: (i: number) => number) =>
  Array.from({ length: count }, (_, i) => ({ value: value(i), timestamp: start + i * stepSec }));

/** The metrics of UTC day `d` (days since the epoch). */
export function ultrahumanMetricsOf(d: number) {
  const day = d * DAY;
  const bedtime = day - 3600;
  const steps = series(day + 8 * 3600, 48, 900, (i) => 100 + (i % 5) * 10);
  return [
    {
      type: "Sleep",
      object: {
        bedtime_start: bedtime,
        bedtime_end: bedtime + 28_200,
        quick_metrics: [
          { type: "time_in_bed", value: 28_200, title: "Time in bed" },
          { type: "total_sleep", value: 25_800, title: "Total sleep" },
          { type: "sleep_efficiency", value: 91, title: "Sleep efficiency" },
        ],
        sleep_stages: [
          { type: "deep_sleep", stage_time: 5_100, percentage: 18 },
          { type: "light_sleep", stage_time: 14_700, percentage: 52 },
          { type: "rem_sleep", stage_time: 6_000, percentage: 21 },
          { type: "awake", stage_time: 2_400, percentage: 9 },
        ],
      },
    },
    {
      type: "hr",
      object: { day_start_timestamp: day, title: "Heart Rate", values: series(day, 96, 900, (i) => 58 + (i % 10)) },
    },
    {
      type: "hrv",
      object: { day_start_timestamp: day, title: "HRV", values: series(day, 24, 3600, (i) => 45 + (i % 5)) },
    },
    {
      type: "temp",
      object: {
        day_start_timestamp: day,
        title: "Temperature",
        values: series(day, 24, 3600, (i) => 34.2 + (i % 4) / 10),
      },
    },
    {
      type: "steps",
      object: {
        day_start_timestamp: day,
        title: "Steps",
        values: steps,
        total: steps.reduce((n, s) => n + s.value, 0),
      },
    },
    {
      type: "glucose",
      object: {
        day_start_timestamp: day,
        title: "Glucose",
        unit: "mg/dL",
        values: series(day, 96, 900, (i) => 95 + (i % 7)),
      },
    },
    { type: "vo2_max", object: { day_start_timestamp: day, value: 44 + (d % 3), title: "VO2 Max" } },
    { type: "active_minutes", object: { day_start_timestamp: day, value: 52, title: "Active minutes" } },
    { type: "recovery_index", object: { day_start_timestamp: day, value: 78, title: "Recovery Index" } },
  ];
}

export async function startUltrahumanStandIn(p: {
  clients: Record<string, string>;
  accessTtlSec?: number;
}): Promise<VendorCloud> {
  return startVendorCloud({
    paths: { authorize: "/authorise", token: "/api/partners/oauth/token", revoke: "/api/partners/oauth/revoke" },
    clients: p.clients,
    accessTtlSec: p.accessTtlSec,
    title: "Ultrahuman",
    routes: (cloud) => {
      cloud.app.get("/api/partners/v1/user_data/user_info", async (req, reply) => {
        const grant = cloud.authenticate(req, reply);
        if (!grant) return reply;
        return { user_id: grant.userId, email: `${grant.userId}@example.com`, username: `uh-${grant.userId}` };
      });
      cloud.app.get("/api/partners/v1/user_data/metrics", async (req, reply) => {
        const grant = cloud.authenticate(req, reply);
        if (!grant) return reply;
        const { date } = req.query as { date?: string };
        const at = /^\d{4}-\d{2}-\d{2}$/.test(date ?? "") ? Date.parse(`${date}T00:00:00Z`) : Number.NaN;
        if (Number.isNaN(at))
          return reply.code(400).send({ data: null, error: "Invalid date format, expected YYYY-MM-DD", status: 400 });
        // A day is complete once it is over; the stand-in serves no future.
        const metrics = at + DAY * 1000 <= Date.now() ? ultrahumanMetricsOf(at / 1000 / DAY) : [];
        return { data: { metric_data: metrics, latest_time_zone: "Asia/Kolkata" }, error: null, status: 200 };
      });
    },
  });
}
