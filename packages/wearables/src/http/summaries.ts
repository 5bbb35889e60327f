/**
 * `GET /users/{user_id}/summaries/{activity,sleep,recovery,body,data}`: the anchor's parameters, bounds and
 * fields (reference §1.7); the rules are the summaries service's. Bad dates, inverted ranges and bad cursors
 * answer 400 with the anchor's messages; an unknown user answers empty data, a malformed id 400.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { PROVIDER_INPUT_NAMES } from "../domain/providers.ts";
import { InvalidQueryError } from "../domain/queryDates.ts";
import type { SummariesService } from "../services/summaries.ts";
import { ErrorBody, StringEnum } from "./schemas.ts";
import {
  ACTIVITY_EXAMPLE,
  ActivitySummary,
  BodySummary,
  DATE_DESCRIPTION,
  DataSummary,
  DataTimeline,
  Page,
  RECOVERY_EXAMPLE,
  RecoverySummary,
  SLEEP_EXAMPLE,
  SleepSummary,
} from "./summarySchemas.ts";

/** The OpenAPI tag of these routes (listed by `openapiTags.ts`). */
export const summariesTag = {
  name: "Summaries",
  description: "Daily activity, sleep, recovery and body summaries, and counts of a user's data.",
};

const UserPath = Type.Object({ user_id: Type.String({ format: "uuid" }) });
const dateParameter = () => Type.String({ description: DATE_DESCRIPTION, examples: ["2026-03-01"] });
const listQuery = (maxLimit: number, sorted: boolean) =>
  Type.Object({
    start_date: dateParameter(),
    end_date: dateParameter(),
    cursor: Type.Optional(
      Type.String({ maxLength: 512, description: "`next_cursor` or `previous_cursor` of a page." }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: 50 }),
    ...(sorted ? { sort_order: Type.Union([Type.Literal("asc"), Type.Literal("desc")], { default: "asc" }) } : {}),
  });

const errors = {
  400: ErrorBody("Invalid datetime format: 'yesterday'. Expected ISO 8601 format or Unix timestamp."),
  401: ErrorBody("Invalid or missing API key"),
};

/** Bad query parameters are 400; anything else stays an unexpected error. */
function throwAsHttpError(error: unknown): never {
  if (error instanceof InvalidQueryError) throw new HttpError(400, error.message);
  throw error;
}

interface ListQuery {
  start_date: string;
  end_date: string;
  cursor?: string;
  limit: number;
  sort_order?: "asc" | "desc";
}
const listRequest = (userId: string, q: ListQuery) => ({
  userId,
  startDate: q.start_date,
  endDate: q.end_date,
  cursor: q.cursor,
  limit: q.limit,
  sortOrder: q.sort_order ?? "asc",
});

export function registerSummaryRoutes(app: HttpServer, summaries: SummariesService) {
  const tags = [summariesTag.name];

  app.get<{ Params: { user_id: string }; Querystring: ListQuery }>(
    "/users/:user_id/summaries/activity",
    {
      schema: {
        operationId: "getActivitySummary",
        tags,
        summary: "Activity summary",
        description:
          "One row per local day (the sample's zone offset decides the day) from the preferred source of that day " +
          "(provider, then device type priority). Sums prefer a source's daily total over its intraday samples; " +
          "`active_minutes` is the provider's active time, else minutes with ≥ 30 steps; `intensity_minutes` " +
          "counts minutes whose mean heart rate is 50–63 % / 63–76 % / 76–93 % of 220 − age (190 without a birth " +
          "date). Pages by date; `sort_order` orders the days.",
        params: UserPath,
        querystring: listQuery(400, true),
        response: { 200: Page(ActivitySummary, ACTIVITY_EXAMPLE), ...errors },
      },
    },
    async (request) => summaries.activity(listRequest(request.params.user_id, request.query)).catch(throwAsHttpError),
  );

  app.get<{ Params: { user_id: string }; Querystring: ListQuery }>(
    "/users/:user_id/summaries/sleep",
    {
      schema: {
        operationId: "getSleepSummary",
        tags,
        summary: "Sleep summary",
        description:
          "One row per local wake-up date from the preferred source. Naps are kept out of the main totals " +
          "(`nap_count`, `nap_duration_minutes`); start, end and zone are those of the longest main session; " +
          "heart rate, HRV, respiratory rate and SpO2 are averaged over the main sleep.",
        params: UserPath,
        querystring: listQuery(100, false),
        response: { 200: Page(SleepSummary, SLEEP_EXAMPLE), ...errors },
      },
    },
    async (request) => summaries.sleep(listRequest(request.params.user_id, request.query)).catch(throwAsHttpError),
  );

  app.get<{ Params: { user_id: string }; Querystring: ListQuery }>(
    "/users/:user_id/summaries/recovery",
    {
      schema: {
        operationId: "getRecoverySummary",
        tags,
        summary: "Recovery summary",
        description:
          "One row per local wake-up date with a provider recovery score or a night of sleep. `recovery_score` is " +
          "the provider's (null when none: the service computes sleep and resilience scores, see health scores). " +
          "Unlike the anchor, which leaves them null, the sleep fields come from the night's main sleep, and " +
          "without a score resting heart rate is the day's mean resting heart rate and HRV (SDNN) and SpO2 are " +
          "means during the main sleep.",
        params: UserPath,
        querystring: listQuery(100, false),
        response: { 200: Page(RecoverySummary, RECOVERY_EXAMPLE), ...errors },
      },
    },
    async (request) => summaries.recovery(listRequest(request.params.user_id, request.query)).catch(throwAsHttpError),
  );

  app.get<{ Params: { user_id: string }; Querystring: { average_period: number; latest_window_hours: number } }>(
    "/users/:user_id/summaries/body",
    {
      schema: {
        operationId: "getBodySummary",
        tags,
        summary: "Body summary",
        description:
          "`slow_changing`: the latest weight, height, body fat, lean mass and BMI (computed from weight and " +
          "height when none is stored) and age; `averaged`: resting heart rate and HRV over the last " +
          "`average_period` days; `latest`: temperatures and blood pressure measured within the last " +
          "`latest_window_hours`. `null` when the user has none of these.",
        params: UserPath,
        querystring: Type.Object({
          average_period: Type.Integer({
            minimum: 1,
            maximum: 7,
            default: 7,
            description: "Days to average vitals (1-7)",
          }),
          latest_window_hours: Type.Integer({
            minimum: 1,
            maximum: 24,
            default: 4,
            description: "Hours for latest readings to be considered valid (1-24)",
          }),
        }),
        response: { 200: BodySummary, 400: ErrorBody("query.average_period: must be <= 7"), 401: errors[401] },
      },
    },
    async (request) =>
      summaries.body(request.params.user_id, request.query.average_period, request.query.latest_window_hours),
  );

  app.get<{ Params: { user_id: string }; Querystring: { start_date?: string; end_date?: string } }>(
    "/users/:user_id/summaries/data",
    {
      schema: {
        operationId: "getDataSummary",
        tags,
        summary: "Data summary",
        description:
          "Counts of samples per series type and of workouts and sleep sessions, overall and per provider; " +
          "optionally within [`start_date`, `end_date`) (samples by time, events by start).",
        params: UserPath,
        querystring: Type.Object({
          start_date: Type.Optional(dateParameter()),
          end_date: Type.Optional(dateParameter()),
        }),
        response: { 200: DataSummary, ...errors },
      },
    },
    async (request) =>
      summaries.data(request.params.user_id, request.query.start_date, request.query.end_date).catch(throwAsHttpError),
  );
  app.get(
    "/users/:user_id/summaries/data/timeline",
    {
      schema: {
        operationId: "getDataTimeline",
        tags,
        summary: "Data timeline",
        description:
          "Counts per UTC day or ISO week (its Monday), optionally within [`start_date`, `end_date`) (samples by " +
          "time, workouts by start): `group_by=provider` gives each provider's samples (`data_points`) and, when " +
          "it has workouts, its workouts (`workouts`); `series_type` the samples of each type; `workout_type` the " +
          "workouts of each type. Only buckets holding data are listed. An unknown user has no series.",
        params: UserPath,
        querystring: Type.Object({
          start_date: Type.Optional(dateParameter()),
          end_date: Type.Optional(dateParameter()),
          bucket: StringEnum(["day", "week"], { default: "day" }),
          group_by: StringEnum(["provider", "series_type", "workout_type"], { default: "provider" }),
          provider: Type.Optional(
            StringEnum(PROVIDER_INPUT_NAMES, {
              description: "Only this provider's data (the retired `google` is taken for `google_health`).",
            }),
          ),
        }),
        response: { 200: DataTimeline, ...errors },
      },
    },
    async (request) => {
      const q = request.query as {
        start_date?: string;
        end_date?: string;
        bucket: "day" | "week";
        group_by: "provider" | "series_type" | "workout_type";
        provider?: string;
      };
      return summaries
        .timeline(request.params.user_id, {
          startDate: q.start_date,
          endDate: q.end_date,
          bucket: q.bucket,
          groupBy: q.group_by,
          provider: q.provider,
        })
        .catch(throwAsHttpError);
    },
  );
}
