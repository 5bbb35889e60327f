/**
 * `POST /providers/{provider}/users/{user_id}/sync`, `…/sync/historical`, and `GET …/workouts` (the vendor's
 * own JSON passed through), with the anchor's 0.9 parameters. A sync answers at once with its run id
 * (`task_id`); `async=false` waits for the run (at most a minute) and answers its outcome.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { currentProviderName, PROVIDER_INPUT_NAMES } from "../domain/providers.ts";
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

/** The anchor's provider-specific knobs (Polar's samples/zones/route, Garmin's summary window): taken, documented. */
const VendorKnobs = {
  samples: Type.Boolean({
    default: false,
    description: "Polar: include samples (taken; adapters fetch what they map).",
  }),
  zones: Type.Boolean({ default: false, description: "Polar: include zones (taken)." }),
  route: Type.Boolean({ default: false, description: "Polar: include the route (taken)." }),
  summary_start_time: Type.Optional(
    Nullable(Type.String({ maxLength: 64, description: "Garmin: summary window start (taken)." })),
  ),
  summary_end_time: Type.Optional(
    Nullable(Type.String({ maxLength: 64, description: "Garmin: summary window end (taken)." })),
  ),
};

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
          "`async=false` waits for the run (at most a minute).",
        params: ProviderUserPath,
        querystring: Type.Object({
          data_type: StringEnum(["workouts", "247", "all"], { default: "all" }),
          since: Type.Integer({ default: 0, minimum: 0, description: "Unix seconds; 0 = since the last sync." }),
          limit: Type.Integer({
            default: 50,
            minimum: 1,
            maximum: 100,
            description: "Taken (the adapters page as their vendors allow).",
          }),
          offset: Type.Integer({ default: 0, minimum: 0, description: "Taken." }),
          filter_by_modification_time: Type.Boolean({ default: true, description: "Taken." }),
          ...VendorKnobs,
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
          400: ErrorBody("Provider 'apple' does not support data sync"),
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
        description: "The vendor's own workout list for the connection, as the vendor answers it (JSON passthrough).",
        params: ProviderUserPath,
        querystring: Type.Object({
          since: Type.Integer({ default: 0, minimum: 0 }),
          limit: Type.Integer({ default: 50, minimum: 1, maximum: 100 }),
          offset: Type.Integer({ default: 0, minimum: 0 }),
          filter_by_modification_time: Type.Boolean({ default: true }),
          ...VendorKnobs,
        }),
        response: {
          200: Type.Unknown({ description: "The vendor's JSON.", examples: [[{ id: 1234567890, sport_type: "Run" }]] }),
          400: ErrorBody("Provider 'apple' does not support workouts"),
          404: ErrorBody("No connection to strava found for user 3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12"),
          502: ErrorBody("strava answered 503"),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const { user_id } = request.params;
      const provider = currentProviderName(request.params.provider);
      const connection = await p.connections.findForUser(user_id, provider);
      if (!connection) throw new HttpError(404, `No connection to ${provider} found for user ${user_id}`);
      if (connection.status !== "active")
        throw new HttpError(400, `The connection to ${provider} is ${connection.status}: authorize again`);
      const session = await p.sessions.open(connection).catch((error: Error) => {
        throw new HttpError(400, error.message);
      });
      if (!session.adapter.listRawWorkouts)
        throw new HttpError(400, `Provider '${provider}' does not support workouts`);
      const q = request.query;
      return session.adapter
        .listRawWorkouts(session.client, session.urls, { since: q.since, limit: q.limit, offset: q.offset })
        .catch((error: Error) => {
          throw new HttpError(502, `${provider}: ${error.message.slice(0, 300)}`);
        });
    },
  );
}
