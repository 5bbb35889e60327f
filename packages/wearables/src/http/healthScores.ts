/** `GET /users/{user_id}/health-scores`: provider and internal scores, newest first, offset paging. */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { PROVIDER_INPUT_NAMES, PROVIDER_NAMES } from "../domain/providers.ts";
import type { HealthScoresService } from "../services/healthScores.ts";
import { asQueryHttpError, badRequest, CursorEnvelopeSchema, DateParam, unauthorized } from "./dataEnvelope.ts";
import { Nullable, StringEnum } from "./schemas.ts";

export const healthScoresTag = {
  name: "Health scores",
  description: "Scores from providers (sleep, readiness, recovery, …) and computed by the service (`internal`).",
};

/** The anchor's `HealthScoreCategory`. */
export const HEALTH_SCORE_CATEGORIES = [
  "sleep",
  "recovery",
  "readiness",
  "activity",
  "stress",
  "resilience",
  "body_battery",
  "strain",
] as const;

const SCORE_EXAMPLE = {
  id: "5e2d9c1a-7b3f-4a8e-9c0d-1e2f3a4b5c6d",
  category: "sleep",
  value: 84,
  qualifier: null,
  recorded_at: "2026-05-01T05:15:00.000Z",
  zone_offset: "+02:00",
  components: {
    duration: { value: 100, qualifier: null },
    stages: { value: 80, qualifier: null },
    consistency: { value: 65, qualifier: null },
    interruptions: { value: 75, qualifier: null },
  },
  data_source_id: null,
  provider: "internal",
  event_record_id: "0b6f1c2d-3e4f-4a5b-8c7d-9e0f1a2b3c4d",
};

const ScoreComponent = Type.Object({
  value: Type.Optional(Nullable(Type.Number())),
  qualifier: Type.Optional(Nullable(Type.String())),
});

const HealthScore = Type.Object({
  id: Type.String({ format: "uuid" }),
  category: StringEnum(HEALTH_SCORE_CATEGORIES),
  value: Type.Number({ description: "Range depends on the provider and category." }),
  qualifier: Nullable(Type.String()),
  recorded_at: Type.String({ format: "date-time" }),
  zone_offset: Nullable(Type.String()),
  components: Nullable(Type.Record(Type.String(), ScoreComponent)),
  data_source_id: Nullable(Type.String({ format: "uuid" })),
  provider: Nullable(StringEnum(PROVIDER_NAMES)),
  event_record_id: Nullable(
    Type.String({ format: "uuid", description: "The sleep (event record) the score is of, for sleep scores." }),
  ),
});

const HealthScoresQuery = Type.Object({
  start_date: Type.Optional(DateParam("Scores recorded at or after it.")),
  end_date: Type.Optional(DateParam("Scores recorded before it.")),
  category: Type.Optional(Type.Union(HEALTH_SCORE_CATEGORIES.map((c) => Type.Literal(c)))),
  provider: Type.Optional(
    Type.Union(
      PROVIDER_INPUT_NAMES.map((p) => Type.Literal(p)),
      { description: "The 0.9 provider names; the retired `google` is taken for `google_health`." },
    ),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
  offset: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 }),
});

const UserPath = Type.Object({ user_id: Type.String({ format: "uuid" }) });

export function registerHealthScoreRoutes(app: HttpServer, scores: HealthScoresService) {
  app.get(
    "/users/:user_id/health-scores",
    {
      schema: {
        operationId: "listHealthScores",
        tags: [healthScoresTag.name],
        summary: "List health scores",
        description:
          "Scores with `start_date` ≤ recorded_at < `end_date`, newest first, paged by `offset` " +
          "(`has_more` = offset + page < `total_count`; no cursors). An unknown user has none.",
        params: UserPath,
        querystring: HealthScoresQuery,
        response: {
          200: CursorEnvelopeSchema(HealthScore, {
            data: [SCORE_EXAMPLE],
            pagination: { next_cursor: null, previous_cursor: null, has_more: false, total_count: 1 },
            metadata: { resolution: null, sample_count: 1, start_time: null, end_time: null },
          }),
          ...badRequest("start_date must be before end_date"),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const q = request.query;
      return scores
        .list({
          userId: request.params.user_id,
          startDate: q.start_date,
          endDate: q.end_date,
          category: q.category,
          provider: q.provider,
          limit: q.limit,
          offset: q.offset,
        })
        .catch(asQueryHttpError);
    },
  );
}
