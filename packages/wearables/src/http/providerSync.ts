/**
 * `POST /providers/{provider}/users/{user_id}/sync`, `…/sync/historical`, and `GET …/workouts` (the vendor's
 * own JSON passed through), with the anchor's 0.9 parameters. A sync answers at once with its run id
 * (`task_id`); `async=false` waits for the run (at most a minute) and answers its outcome.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { currentProviderName, PROVIDER_INPUT_NAMES } from "../domain/providers.ts";
import { VENDOR_ADAPTERS } from "../providers/registry.ts";
import { resolveVendorQuery, VendorQueryError } from "../providers/vendorQuery.ts";
import type { ProviderSyncService } from "../services/providerSync.ts";
import type { ConnectionsStore } from "../store/connectionsRepository.ts";
import type { VendorSessions } from "../sync/vendorSession.ts";
import { unauthorized } from "./dataEnvelope.ts";
import { providersTag, throwAsHttpError } from "./oauth.ts";
import { ErrorBody, Nullable, StringEnum } from "./schemas.ts";

/** The anchor's `ProviderName` (retired names taken for their successors: `google` is `google_health`). */
const ProviderUserPath = Type.Object({
  provider: StringEnum(PROVIDER_INPUT_NAMES),
  user_id: Type.String({ format: "uuid" }),
});

/**
 * The anchor's vendor knobs: each is one vendor's API parameter, honoured by the providers whose adapter takes
 * it and refused (400, naming the providers that take it) when set to a non-default value for any other.
 */
const vendorKnobs = (target: "sync" | "workouts") => ({
  limit: Type.Integer({
    default: 50,
    minimum: 1,
    maximum: 100,
    description:
      target === "sync"
        ? "Records per vendor request (the vendor's page size, clamped to its maximum); 50 leaves the adapter's " +
          "own page size. Taken by suunto, fitbit, strava, whoop; 400 for other providers when not 50."
        : "Records in the answer. Taken by suunto, fitbit, google_health, oura, strava, whoop; 400 for other " +
          "providers when not 50.",
  }),
  offset: Type.Integer({
    default: 0,
    minimum: 0,
    description:
      target === "sync"
        ? "Records to skip before the first page (offset-paged vendors: suunto); 400 for other providers."
        : "Records to skip. Taken by suunto, oura, strava, whoop, withings; 400 for other providers.",
  }),
  filter_by_modification_time: Type.Boolean({
    default: true,
    description:
      target === "sync"
        ? "Suunto: `since` (the window's start) filters by modification time (true) or by start time (false). " +
          "400 for other providers when false."
        : "Suunto and Withings: `since` filters by modification time (true; Withings `lastupdate`) or by start " +
          "time (false; Withings `startdateymd`/`enddateymd`). 400 for other providers when false.",
  }),
  samples: Type.Boolean({
    default: false,
    description:
      target === "sync"
        ? "Polar: fetch each exercise's samples and write its heart rate samples. 400 for other providers."
        : "Polar: AccessLink's `samples=true` (each exercise's samples). 400 for other providers.",
  }),
  zones: Type.Boolean({
    default: false,
    description:
      target === "sync"
        ? "Polar's heart rate zones: the sync writes no zones, so 400 (ask `GET …/workouts?zones=true`)."
        : "Polar: AccessLink's `zones=true` (heart rate zones). 400 for other providers.",
  }),
  route: Type.Boolean({
    default: false,
    description:
      target === "sync"
        ? "Polar's route: the sync writes no routes, so 400 (ask `GET …/workouts?route=true`)."
        : "Polar: AccessLink's `route=true` (the GPS route). 400 for other providers.",
  }),
  summary_start_time: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 64,
        description:
          "Garmin: start of the summary upload window (`uploadStartTimeInSeconds`), Unix seconds or ISO 8601 " +
          "date-time with a zone. " +
          (target === "sync"
            ? "Replaces the sync's window (not with `since`); at most 30 days back."
            : "The window is at most 24 hours.") +
          " 400 for other providers.",
      }),
    ),
  ),
  summary_end_time: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 64,
        description:
          "Garmin: end of the summary upload window (`uploadEndTimeInSeconds`), after the start; alone, the " +
          "window is the 24 hours before it; absent, 24 hours from the start" +
          (target === "sync" ? " (at most now)." : ".") +
          " 400 for other providers.",
      }),
    ),
  ),
});

const SYNC_EXAMPLE = {
  success: true,
  async: true,
  task_id: "9b2f6a0e-3c1d-4e5f-8a7b-6c5d4e3f2a1b",
  message: "Sync task queued for strava",
};

export function registerProviderSyncRoutes(
  app: HttpServer,
  p: { sync: ProviderSyncService; sessions: VendorSessions; connections: ConnectionsStore },
) {
  app.post(
    "/providers/:provider/users/:user_id/sync",
    {
      schema: {
        operationId: "syncUserData",
        tags: [providersTag.name],
        summary: "Sync user data",
        description:
          "Queues a pull of what the connection has not synced yet (from the end of its synced span, or `since`, " +
          "to now) as a sync run on the job layer; watch it at `/users/{user_id}/sync/runs` or `/sync/stream`. " +
          "`async=false` waits for the run (at most a minute). The vendor parameters (`limit`, `offset`, " +
          "`filter_by_modification_time`, `samples`, `zones`, `route`, `summary_start_time`, `summary_end_time`) " +
          "reach the vendor's requests of the run where the provider takes them; a parameter the provider does not " +
          "take, set to anything but its default, is answered 400.",
        params: ProviderUserPath,
        querystring: Type.Object({
          data_type: StringEnum(["workouts", "247", "all"], { default: "all" }),
          since: Type.Integer({ default: 0, minimum: 0, description: "Unix seconds; 0 = since the last sync." }),
          ...vendorKnobs("sync"),
          async: Type.Boolean({ default: true }),
        }),
        response: {
          200: Type.Object(
            {
              success: Type.Boolean(),
              async: Type.Optional(Type.Boolean()),
              task_id: Type.Optional(Type.String()),
              message: Type.Optional(Type.String()),
              details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
            },
            { examples: [SYNC_EXAMPLE] },
          ),
          400: ErrorBody("`samples` of a sync applies to polar only, not strava"),
          404: ErrorBody("No connection to strava found for user 3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12"),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const q = request.query;
      const run = await p.sync
        .sync(currentProviderName(request.params.provider), request.params.user_id, {
          dataType: q.data_type as "all",
          since: q.since,
          knobs: q,
        })
        .catch(throwAsHttpError);
      if (q.async) return { success: true, async: true, task_id: run.id, message: run.message ?? "" };
      const ended = await p.sync.waitForRun(run.id, 60_000);
      return {
        success: ended?.status === "success",
        details: {
          task_id: run.id,
          stage: ended?.stage ?? "queued",
          status: ended?.status ?? "in_progress",
          items_processed: ended?.items_processed ?? 0,
          error: ended?.error ?? null,
        },
      };
    },
  );

  app.post(
    "/providers/:provider/users/:user_id/sync/historical",
    {
      schema: {
        operationId: "syncHistoricalData",
        tags: [providersTag.name],
        summary: "Sync historical data",
        description:
          "Queues a backfill of the last `days` (capped by the vendor's reach, e.g. Garmin's 30), fetching only " +
          "what lies before the connection's synced span.",
        params: ProviderUserPath,
        querystring: Type.Object({ days: Type.Integer({ default: 90, minimum: 1, maximum: 365 }) }),
        response: {
          200: Type.Object(
            {
              success: Type.Boolean(),
              provider: Type.String(),
              user_id: Type.String(),
              method: Type.Union([Type.Literal("pull_api"), Type.Literal("webhook_backfill")]),
              task_id: Nullable(Type.String()),
              message: Type.String(),
              days: Type.Integer(),
              start_date: Type.String({ format: "date-time" }),
              end_date: Type.String({ format: "date-time" }),
            },
            {
              examples: [
                {
                  success: true,
                  provider: "strava",
                  user_id: "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12",
                  method: "pull_api",
                  task_id: "9b2f6a0e-3c1d-4e5f-8a7b-6c5d4e3f2a1b",
                  message: "Historical sync of 90 days queued for strava",
                  days: 90,
                  start_date: "2026-08-29T10:00:00.000Z",
                  end_date: "2026-11-27T10:00:00.000Z",
                },
              ],
            },
          ),
          400: ErrorBody("Provider 'apple' does not support data sync"),
          404: ErrorBody("No connection to strava found for user 3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12"),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const { user_id } = request.params;
      const provider = currentProviderName(request.params.provider);
      const r = await p.sync.historical(provider, user_id, request.query.days).catch(throwAsHttpError);
      return {
        success: true,
        provider,
        user_id,
        method: "pull_api" as const,
        task_id: r.run?.id ?? null,
        message: r.run?.message ?? `Already synced: the last ${r.days} days are covered`,
        days: r.days,
        start_date: new Date(r.start).toISOString(),
        end_date: new Date(Math.max(r.start, r.end)).toISOString(),
      };
    },
  );

  app.get(
    "/providers/:provider/users/:user_id/workouts",
    {
      schema: {
        operationId: "getUserWorkouts",
        tags: [providersTag.name],
        summary: "Get user workouts",
        description:
          "The vendor's own workout list for the connection, as the vendor answers it (JSON passthrough). The " +
          "vendor parameters become the vendor's own query parameters where the provider takes them (Suunto " +
          "`limit`/`offset`/`filter-by-modification-time`, Polar `samples`/`zones`/`route`, Garmin " +
          "`uploadStartTimeInSeconds`/`uploadEndTimeInSeconds`, Withings `lastupdate` or `startdateymd`/`enddateymd`); " +
          "a parameter the provider does not take, set to anything but its default, is answered 400.",
        params: ProviderUserPath,
        querystring: Type.Object({
          since: Type.Integer({
            default: 0,
            minimum: 0,
            description: "Unix seconds; 0 = the provider's default reach (e.g. the last 30 days).",
          }),
          ...vendorKnobs("workouts"),
        }),
        response: {
          200: Type.Unknown({ description: "The vendor's JSON.", examples: [[{ id: 1234567890, sport_type: "Run" }]] }),
          400: ErrorBody(
            "`limit` of the workout list applies to fitbit, google_health, oura, strava, suunto, whoop only, not polar",
          ),
          404: ErrorBody("No connection to strava found for user 3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12"),
          502: ErrorBody("strava answered 503"),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const { user_id } = request.params;
      const provider = currentProviderName(request.params.provider);
      const q = request.query;
      const adapter = p.sync.adapter(provider);
      // The knobs are checked before the connection: a request the provider cannot honour is refused as such.
      const query = adapter
        ? (() => {
            try {
              return resolveVendorQuery({ adapter, target: "workouts", raw: q, adapters: VENDOR_ADAPTERS });
            } catch (error) {
              if (error instanceof VendorQueryError) throw new HttpError(400, error.message);
              throw error;
            }
          })()
        : undefined;
      if (query?.summaryWindow && q.since > 0)
        throw new HttpError(400, "Give `since` or the summary window (`summary_start_time`), not both");
      const connection = await p.connections.findForUser(user_id, provider);
      if (!connection) throw new HttpError(404, `No connection to ${provider} found for user ${user_id}`);
      if (connection.status !== "active")
        throw new HttpError(400, `The connection to ${provider} is ${connection.status}: authorize again`);
      const session = await p.sessions.open(connection).catch((error: Error) => {
        throw new HttpError(400, error.message);
      });
      if (!session.adapter.listRawWorkouts)
        throw new HttpError(400, `Provider '${provider}' does not support workouts`);
      return session.adapter
        .listRawWorkouts(session.client, session.urls, {
          since: q.since,
          limit: q.limit,
          offset: q.offset,
          byModificationTime: query?.byModificationTime ?? q.filter_by_modification_time,
          detail: { samples: q.samples, zones: q.zones, route: q.route },
          ...(query?.summaryWindow ? { summaryWindow: query.summaryWindow } : {}),
        })
        .catch((error: Error) => {
          throw new HttpError(502, `${provider}: ${error.message.slice(0, 300)}`);
        });
    },
  );
}
