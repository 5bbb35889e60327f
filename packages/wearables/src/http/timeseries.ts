/** `GET /users/{user_id}/timeseries`: raw samples or aggregated buckets, a keyset page at a time. */
import type { HttpServer } from "@platform/kernel";
import { Type } from "typebox";
import { PROVIDER_INPUT_NAMES } from "../domain/providers.ts";
import { RETIRED_SERIES_TYPE_CODES, SERIES_TYPES } from "../domain/seriesTypes.ts";
import { BUCKET_LIMIT_MAX, RESOLUTIONS } from "../domain/timeseriesResolution.ts";
import type { TimeseriesService } from "../services/timeseries.ts";
import {
  asQueryHttpError,
  badRequest,
  CursorEnvelopeSchema,
  CursorParam,
  DateParam,
  SOURCE_EXAMPLE,
  SourceMetadataSchema,
  unauthorized,
} from "./dataEnvelope.ts";
import { Nullable, StringEnum } from "./schemas.ts";

export const timeseriesTag = {
  name: "Timeseries",
  description: "Samples of every series type (heart rate, steps, …), raw or aggregated by time bucket.",
};

const SAMPLE_EXAMPLE = {
  timestamp: "2026-05-01T08:00:00.000Z",
  zone_offset: "+02:00",
  type: "heart_rate",
  value: 72,
  unit: "bpm",
  source: SOURCE_EXAMPLE,
  is_daily_total: null,
};

const TimeSeriesSample = Type.Object({
  timestamp: Type.String({ format: "date-time", description: "The sample's instant, or its bucket's start." }),
  zone_offset: Nullable(Type.String({ examples: ["+01:00"] })),
  type: StringEnum(
    SERIES_TYPES.map((t) => t.code),
    { description: "The series type (the anchor's 0.9 names: `active_energy`, not the retired `energy`)." },
  ),
  value: Type.Number(),
  unit: Type.String(),
  source: SourceMetadataSchema,
  is_daily_total: Nullable(
    Type.Boolean({ description: "For `sum` types: the provider's daily total (true) or an intraday sample." }),
  ),
});

const TimeseriesQuery = Type.Object({
  start_time: DateParam("Start of the window (inclusive)."),
  end_time: DateParam("End of the window (exclusive); a date alone includes that whole day."),
  types: Type.Array(
    Type.Union(
      [...SERIES_TYPES.map((t) => t.code), ...Object.keys(RETIRED_SERIES_TYPE_CODES)].map((c) => Type.Literal(c)),
    ),
    {
      default: [],
      maxItems: SERIES_TYPES.length,
      description:
        "Series types, repeated (`types=heart_rate&types=steps`); all types when absent. The names the anchor " +
        "retired in 0.9 are accepted for the new ones (`energy` for `active_energy`); answers carry the new names.",
    },
  ),
  resolution: Type.Union(
    RESOLUTIONS.map((r) => Type.Literal(r)),
    {
      default: "raw",
      description:
        "`raw` samples, or one value per (bucket, data source, type) over UTC-aligned buckets, combined by each " +
        "type's aggregation: sum (steps, active_energy, distances, counts), avg (rates, levels), max (tests).",
    },
  ),
  cursor: Type.Optional(CursorParam),
  limit: Type.Integer({
    minimum: 1,
    maximum: BUCKET_LIMIT_MAX,
    default: 50,
    description: "Page size: at most 100 raw samples, or 1000 buckets.",
  }),
  provider: Type.Optional(
    StringEnum(PROVIDER_INPUT_NAMES, {
      description: "Only samples of this provider's data sources (the retired `google` is taken for `google_health`).",
    }),
  ),
  source: Type.Optional(
    Type.String({ maxLength: 100, description: "Only samples of data sources of this source app." }),
  ),
  device_model: Type.Optional(
    Type.String({ maxLength: 100, description: "Only samples of data sources of this device model." }),
  ),
  data_source_id: Type.Optional(Type.String({ format: "uuid", description: "Only samples of this data source." })),
  filter_by_priority: Type.Boolean({
    default: false,
    description:
      "When true, each series type comes from one data source only: the highest-priority one among those with " +
      "samples of that type in the window, ranked by provider priority, device type priority, then device model " +
      "(the ranking of the summaries and of `filter_by_priority` on sleep).",
  }),
});

const UserPath = Type.Object({ user_id: Type.String({ format: "uuid" }) });

export function registerTimeseriesRoutes(app: HttpServer, timeseries: TimeseriesService) {
  app.get(
    "/users/:user_id/timeseries",
    {
      schema: {
        operationId: "getTimeseries",
        tags: [timeseriesTag.name],
        summary: "Get timeseries",
        description:
          "Samples in `[start_time, end_time)` ordered by time (then data source and type). `total_count` counts " +
          "the raw samples of the window; it is null for aggregated resolutions. An unknown user has no samples.",
        params: UserPath,
        querystring: TimeseriesQuery,
        response: {
          200: CursorEnvelopeSchema(TimeSeriesSample, {
            data: [SAMPLE_EXAMPLE],
            pagination: { next_cursor: null, previous_cursor: null, has_more: false, total_count: 1 },
            metadata: {
              resolution: "raw",
              sample_count: 1,
              start_time: "2026-05-01T00:00:00.000Z",
              end_time: "2026-05-02T00:00:00.000Z",
            },
          }),
          ...badRequest("Invalid datetime format: 'yesterday'. Expected ISO 8601 format or Unix timestamp."),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const q = request.query;
      return timeseries
        .list({
          userId: request.params.user_id,
          startTime: q.start_time,
          endTime: q.end_time,
          types: q.types,
          resolution: q.resolution,
          cursor: q.cursor,
          limit: q.limit,
          provider: q.provider,
          source: q.source,
          deviceModel: q.device_model,
          dataSourceId: q.data_source_id,
          filterByPriority: q.filter_by_priority,
        })
        .catch(asQueryHttpError);
    },
  );
}
