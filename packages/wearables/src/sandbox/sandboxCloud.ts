/**
 * The `sandbox` provider's cloud: a clearly named, offline vendor that `platform start` runs so that connect →
 * sync → data works on a laptop. It is a vendor like the others, with its own consent page and OAuth 2.0
 * server (PKCE, Basic client authentication, rotating refresh tokens) and a paged data API; its data is a
 * plausible life per vendor account (the same day plans the demo export uses: sleep, workouts, walking, heart
 * rate), the same every time for the same account and day.
 *
 * Data API (bearer token), each `?start&end` (ISO 8601, end exclusive), `page_token`, `limit` (≤ 100):
 * - `GET /v1/me` → `{id, username}`
 * - `GET /v1/workouts` → `{data: [{id, sport, start_time, end_time, utc_offset_minutes, calories_kcal,
 *   distance_m, avg_hr_bpm, max_hr_bpm, avg_speed_mps, device}], next_page_token}`
 * - `GET /v1/sleep` → `{data: [{id, start_time, end_time, utc_offset_minutes, is_nap, stages: [{stage, start_time,
 *   end_time}]}], next_page_token}` (stages `deep|light|rem|awake`)
 * - `GET /v1/heart_rate` → `{data: [{time, bpm}], next_page_token}` (every minute of every workout)
 * - `GET /v1/daily` → `{data: [{date, steps, resting_hr_bpm, hrv_sdnn_ms}], next_page_token}`
 *
 * Push notifications, as a vendor sends them: whenever an authorized account has new data (a workout or a
 * night ended since the last look), the sandbox POSTs `{account, data_type, start, end}` (JSON) to the app's
 * webhook, signed `X-Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the client
 * secret>`; `POST /v1/notifications/test` (bearer) sends one for the token's account at once.
 */
import { createHmac } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type TSchema, Type } from "typebox";
import { DAY, MINUTE, personFor, planDay } from "../demo/demoPlan.ts";
import { createVendorCloud, startVendorCloud, type VendorCloud } from "./vendorCloud.ts";

export const SANDBOX_PATHS = { authorize: "/oauth/authorize", token: "/oauth/token", revoke: "/oauth/revoke" };
/** Every sandbox account lives in this zone (minutes east of UTC). */
const OFFSET_MINUTES = 60;
const MAX_DAYS = 400;

export interface StartSandboxCloudParameters {
  /** client_id → client_secret the sandbox accepts. */
  clients: Record<string, string>;
  /**
   * Where the sandbox pushes its notifications (the app's registered webhook, e.g.
   * `<wearables>/api/v1/providers/sandbox/webhooks`), and how often it looks for new data to announce
   * (default a minute; 0: only `POST /v1/notifications/test`). Without it the sandbox does not push.
   */
  push?: { url: () => string; everyMs?: number };
  host?: string;
  port?: number;
  accessTtlSec?: number;
}

/** A stable seed of a vendor account id. */
const seedOf = (account: string) => {
  let h = 2166136261;
  for (const c of account) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
};

const iso = (ms: number) => new Date(ms).toISOString();
const STAGE: Record<string, string> = { AsleepCore: "light", AsleepDeep: "deep", AsleepREM: "rem", Awake: "awake" };
const SPORT: Record<string, string> = { running: "run", cycling: "ride", walking: "walk", strength: "strength" };

/** Every record of one kind the account has in [start, end), in time order. */
function recordsOf(kind: string, account: string, start: number, end: number): Record<string, unknown>[] {
  const seed = seedOf(account);
  const person = personFor(seed);
  const firstDay = Math.floor((start + OFFSET_MINUTES * MINUTE) / DAY) - 1;
  const lastDay = Math.min(Math.floor((end + OFFSET_MINUTES * MINUTE) / DAY), firstDay + MAX_DAYS);
  // Only what has happened: a vendor has no data of the future.
  const until = Math.min(end, Date.now());
  const out: Record<string, unknown>[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    const plan = planDay(seed, person, day, OFFSET_MINUTES);
    if (kind === "sleep") {
      for (const [isNap, stages] of [
        [false, plan.sleep],
        [true, plan.nap],
      ] as const) {
        const first = stages[0];
        const last = stages[stages.length - 1];
        if (!first || !last || first.start < start || last.end > until) continue;
        out.push({
          id: `s-${day}${isNap ? "-nap" : ""}`,
          start_time: iso(first.start),
          end_time: iso(last.end),
          utc_offset_minutes: OFFSET_MINUTES,
          is_nap: isNap,
          stages: stages.map((s) => ({ stage: STAGE[s.stage], start_time: iso(s.start), end_time: iso(s.end) })),
        });
      }
    } else if (kind === "workouts" || kind === "heart_rate") {
      for (const w of plan.workouts) {
        if (w.start < start || w.end > until) continue;
        const seconds = (w.end - w.start) / 1000;
        if (kind === "workouts") {
          out.push({
            id: `w-${day}-${w.index}`,
            sport: SPORT[w.kind],
            start_time: iso(w.start),
            end_time: iso(w.end),
            utc_offset_minutes: OFFSET_MINUTES,
            calories_kcal: Math.round(w.kcalPerMinute * (seconds / 60)),
            distance_m: w.speed > 0 ? Math.round(w.speed * seconds) : null,
            avg_hr_bpm: w.targetHr,
            max_hr_bpm: w.targetHr + (w.intervals ? 18 : 9),
            avg_speed_mps: w.speed > 0 ? w.speed : null,
            device: "Sandbox Band 2",
          });
        } else {
          for (let t = w.start; t < w.end; t += MINUTE) {
            const warm = Math.min(1, (t - w.start) / (8 * MINUTE));
            const bpm = Math.round(person.restingHeartRate + (w.targetHr - person.restingHeartRate) * warm);
            out.push({
              time: iso(t),
              bpm: w.intervals && Math.floor((t - w.start) / (4 * MINUTE)) % 2 ? bpm + 12 : bpm,
            });
          }
        }
      }
    } else if (kind === "daily") {
      const dayEnd = plan.start + DAY;
      if (plan.start < start || dayEnd > until) continue;
      const steps = plan.bouts.reduce((n, b) => n + Math.round(((b.end - b.start) / 60_000) * b.cadence), 0);
      out.push({
        date: iso(plan.start + OFFSET_MINUTES * MINUTE).slice(0, 10),
        steps,
        resting_hr_bpm: plan.restingHr,
        hrv_sdnn_ms: Math.round(plan.hrvSdnn),
      });
    }
  }
  return out;
}

/** The sandbox listening on its own (tests). */
export const startSandboxCloud = (p: StartSandboxCloudParameters): Promise<VendorCloud> =>
  startVendorCloud(sandboxCloudParameters(p));

/** The sandbox on the given server (the platform's host, with its OpenAPI document); not listening yet. */
export const createSandboxCloud = (p: StartSandboxCloudParameters & { app: FastifyInstance }): Promise<VendorCloud> =>
  createVendorCloud({ ...sandboxCloudParameters(p), app: p.app });

function sandboxCloudParameters(p: StartSandboxCloudParameters) {
  return {
    paths: SANDBOX_PATHS,
    clients: p.clients,
    requirePkce: true,
    title: "Sandbox Health (offline test vendor)",
    host: p.host,
    port: p.port,
    accessTtlSec: p.accessTtlSec,
    schemas: { token: TOKEN_SCHEMA, revoke: REVOKE_SCHEMA },
    routes: (cloud: VendorCloud) => {
      sandboxRoutes(cloud);
      if (p.push) sandboxPushes(cloud, p.clients, p.push);
    },
  };
}

/** The header a sandbox notification is signed with (see the file's head). */
export function sandboxSignature(secret: string, body: string, nowSec: number): string {
  return `t=${nowSec},v1=${createHmac("sha256", secret).update(`${nowSec}.${body}`).digest("hex")}`;
}

const PUSH_KINDS = ["workouts", "sleep", "heart_rate", "daily"] as const;

/** Announces new data of every authorized account, and on demand (`POST /v1/notifications/test`). */
function sandboxPushes(
  cloud: VendorCloud,
  clients: Record<string, string>,
  push: { url: () => string; everyMs?: number },
) {
  const send = async (clientId: string, account: string, dataType: string, start: number, end: number) => {
    const body = JSON.stringify({ account, data_type: dataType, start: iso(start), end: iso(end) });
    const res = await fetch(push.url(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-sandbox-signature": sandboxSignature(clients[clientId] ?? "", body, Math.floor(Date.now() / 1000)),
      },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await res.body?.cancel();
    return res.status;
  };
  // Per account and app: up to when its data was announced (from the first look on: no backlog).
  const announced = new Map<string, number>();
  const look = async () => {
    const now = Date.now();
    for (const grant of cloud.grants()) {
      const key = `${grant.clientId}\u0000${grant.userId}`;
      const since = announced.get(key);
      announced.set(key, now);
      if (since === undefined) continue;
      for (const kind of PUSH_KINDS) {
        if (recordsOf(kind, grant.userId, since, now).length === 0) continue;
        await send(grant.clientId, grant.userId, kind, since, now).catch(() => undefined);
      }
    }
  };
  const everyMs = push.everyMs ?? 60_000;
  if (everyMs > 0) {
    const timer = setInterval(() => void look(), everyMs);
    timer.unref();
    cloud.app.addHook("onClose", async () => clearInterval(timer));
  }
  cloud.app.post(
    "/v1/notifications/test",
    {
      schema: {
        operationId: "sandboxTestNotification",
        tags: TAG,
        summary: "Send a test notification",
        description:
          "Pushes a notification of each data type for the token's account, covering the last day, to the app's " +
          "webhook at once (as the sandbox does by itself when new data appears).",
        response: {
          200: Type.Object(
            { sent: Type.Integer(), statuses: Type.Array(Type.Integer()) },
            { examples: [{ sent: 4, statuses: [200, 200, 200, 200] }] },
          ),
          ...unauthorized,
        },
      },
    },
    async (req, reply) => {
      const grant = cloud.authenticate(req, reply);
      if (!grant) return reply;
      const end = Date.now();
      const statuses: number[] = [];
      for (const kind of PUSH_KINDS)
        statuses.push(await send(grant.clientId, grant.userId, kind, end - 86_400_000, end).catch(() => 0));
      return { sent: statuses.length, statuses };
    },
  );
}

// The documented surface (served at the sandbox host's /openapi.json). Errors of the vendor's own are
// `{error, error_description}` (token endpoint, RFC 6749) or `{message}` (data API), as vendors answer.
const TAG = ["Sandbox vendor"];
const OAuthError = (example: string) =>
  Type.Object(
    { error: Type.String(), error_description: Type.String() },
    { examples: [{ error: example, error_description: "unknown or used code" }] },
  );
const DataError = (message: string) =>
  Type.Object(
    { message: Type.String(), errors: Type.Optional(Type.Array(Type.Unknown())) },
    { examples: [{ message }] },
  );
const TOKEN_SCHEMA = {
  operationId: "sandboxToken",
  tags: TAG,
  summary: "Token endpoint",
  description:
    "RFC 6749 §3.2 (form body): `grant_type=authorization_code` with `code`, `redirect_uri` and the PKCE " +
    "`code_verifier`, or `grant_type=refresh_token` (refresh tokens rotate). Client credentials in `Authorization: Basic`.",
  security: [{ SandboxClient: [] }],
  response: {
    200: Type.Object(
      {
        access_token: Type.String(),
        refresh_token: Type.String(),
        token_type: Type.String(),
        expires_in: Type.Integer(),
        scope: Type.String(),
      },
      {
        examples: [
          {
            access_token: "q3…",
            refresh_token: "Zr…",
            token_type: "Bearer",
            expires_in: 3600,
            scope: "workouts sleep",
          },
        ],
      },
    ),
    400: OAuthError("invalid_grant"),
    401: OAuthError("invalid_client"),
  },
};
const REVOKE_SCHEMA = {
  operationId: "sandboxRevoke",
  tags: TAG,
  summary: "Revoke a token",
  description: "RFC 7009 (form body `token`): the grant behind an access or refresh token stops working.",
  security: [{ SandboxClient: [] }],
  response: { 200: Type.Object({}, { examples: [{}] }) },
};
const Window = Type.Object({
  start: Type.String({ format: "date-time", description: "ISO 8601, inclusive." }),
  end: Type.String({ format: "date-time", description: "ISO 8601, exclusive." }),
  page_token: Type.Optional(
    Type.String({ pattern: "^[0-9]{1,9}$", description: "`next_page_token` of the previous page." }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
});
const PAGE_RECORDS: Record<string, { summary: string; record: TSchema; example: Record<string, unknown> }> = {
  workouts: {
    summary: "Workouts",
    record: Type.Object({
      id: Type.String(),
      sport: Type.String(),
      start_time: Type.String({ format: "date-time" }),
      end_time: Type.String({ format: "date-time" }),
      utc_offset_minutes: Type.Integer(),
      calories_kcal: Type.Union([Type.Number(), Type.Null()]),
      distance_m: Type.Union([Type.Number(), Type.Null()]),
      avg_hr_bpm: Type.Union([Type.Number(), Type.Null()]),
      max_hr_bpm: Type.Union([Type.Number(), Type.Null()]),
      avg_speed_mps: Type.Union([Type.Number(), Type.Null()]),
      device: Type.Union([Type.String(), Type.Null()]),
    }),
    example: {
      id: "w-20614-0",
      sport: "run",
      start_time: "2026-06-10T05:30:00.000Z",
      end_time: "2026-06-10T06:12:00.000Z",
      utc_offset_minutes: 60,
      calories_kcal: 480,
      distance_m: 7560,
      avg_hr_bpm: 148,
      max_hr_bpm: 166,
      avg_speed_mps: 3,
      device: "Sandbox Band 2",
    },
  },
  sleep: {
    summary: "Sleep sessions",
    record: Type.Object({
      id: Type.String(),
      start_time: Type.String({ format: "date-time" }),
      end_time: Type.String({ format: "date-time" }),
      utc_offset_minutes: Type.Integer(),
      is_nap: Type.Boolean(),
      stages: Type.Array(
        Type.Object({
          stage: Type.String(),
          start_time: Type.String({ format: "date-time" }),
          end_time: Type.String({ format: "date-time" }),
        }),
      ),
    }),
    example: {
      id: "s-20614",
      start_time: "2026-06-09T22:40:00.000Z",
      end_time: "2026-06-10T05:10:00.000Z",
      utc_offset_minutes: 60,
      is_nap: false,
      stages: [{ stage: "light", start_time: "2026-06-09T22:40:00.000Z", end_time: "2026-06-09T23:05:00.000Z" }],
    },
  },
  heart_rate: {
    summary: "Heart rate",
    record: Type.Object({ time: Type.String({ format: "date-time" }), bpm: Type.Number() }),
    example: { time: "2026-06-10T05:31:00.000Z", bpm: 121 },
  },
  daily: {
    summary: "Daily totals",
    record: Type.Object({
      date: Type.String({ format: "date" }),
      steps: Type.Integer(),
      resting_hr_bpm: Type.Number(),
      hrv_sdnn_ms: Type.Number(),
    }),
    example: { date: "2026-06-10", steps: 9120, resting_hr_bpm: 57, hrv_sdnn_ms: 48 },
  },
};
const unauthorized = { 401: DataError("Authorization Error"), 429: DataError("Rate Limit Exceeded") };

function sandboxRoutes(cloud: VendorCloud) {
  cloud.app.get(
    "/v1/me",
    {
      schema: {
        operationId: "sandboxMe",
        tags: TAG,
        summary: "The account",
        description: "The vendor account the bearer token was granted by.",
        response: {
          200: Type.Object(
            { id: Type.String(), username: Type.String() },
            { examples: [{ id: "1001", username: "sandbox-1001" }] },
          ),
          ...unauthorized,
        },
      },
    },
    async (req, reply) => {
      const grant = cloud.authenticate(req, reply);
      if (!grant) return reply;
      return { id: grant.userId, username: `sandbox-${grant.userId}` };
    },
  );
  for (const [kind, doc] of Object.entries(PAGE_RECORDS)) {
    cloud.app.get(
      `/v1/${kind}`,
      {
        schema: {
          operationId: `sandbox${kind.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase())}`,
          tags: TAG,
          summary: doc.summary,
          description: `The account's ${doc.summary.toLowerCase()} in [start, end), oldest first, a page at a time.`,
          querystring: Window,
          response: {
            200: Type.Object(
              { data: Type.Array(doc.record), next_page_token: Type.Union([Type.String(), Type.Null()]) },
              { examples: [{ data: [doc.example], next_page_token: "50" }] },
            ),
            400: DataError("start, end (ISO 8601) and page_token"),
            ...unauthorized,
          },
        },
      },
      async (req: FastifyRequest, reply: FastifyReply) => {
        const grant = cloud.authenticate(req, reply);
        if (!grant) return reply;
        const q = req.query as Record<string, string | undefined>;
        const start = Date.parse(q.start ?? "");
        const end = Date.parse(q.end ?? "");
        const limit = Math.min(Number(q.limit ?? 50) || 50, 100);
        const offset = Number(q.page_token ?? 0);
        if (Number.isNaN(start) || Number.isNaN(end) || end <= start || !Number.isInteger(offset) || offset < 0)
          return reply.code(400).send({ message: "start, end (ISO 8601) and page_token" });
        const all = recordsOf(kind, grant.userId, start, end);
        const data = all.slice(offset, offset + limit);
        return { data, next_page_token: offset + limit < all.length ? String(offset + limit) : null };
      },
    );
  }
}
