/**
 * What the data routes (timeseries, events, health scores) share: the cursor envelope schema, the `source`
 * object, the date parameters' documentation, and the mapping of bad query parameters to 400.
 */
import { HttpError } from "@platform/kernel";
import { type TSchema, Type } from "typebox";
import { InvalidQueryError } from "../domain/queryDates.ts";
import { ErrorBody, Nullable, StringEnum } from "./schemas.ts";

/** The anchor's `DeviceType`. */
export const DEVICE_TYPES = ["watch", "band", "phone", "scale", "ring", "other", "unknown"] as const;

export const SOURCE_EXAMPLE = {
  provider: "apple",
  source: "com.apple.health",
  device: "Watch6,15",
  device_type: "watch",
  device_name: "Apple Watch Series 8 45mm (GPS)",
};

export const SourceMetadataSchema = Type.Object(
  {
    provider: Type.String(),
    source: Nullable(Type.String()),
    device: Nullable(Type.String()),
    device_type: Nullable(StringEnum(DEVICE_TYPES)),
    device_name: Nullable(Type.String({ description: "Marketing name of `device`." })),
  },
  { examples: [SOURCE_EXAMPLE] },
);

/** `{data, pagination, metadata}` of `item`. */
export const CursorEnvelopeSchema = <T extends TSchema>(item: T, example: Record<string, unknown>) =>
  Type.Object(
    {
      data: Type.Array(item),
      pagination: Type.Object({
        next_cursor: Nullable(Type.String({ description: "Cursor of the next page; null on the last page." })),
        previous_cursor: Nullable(Type.String({ description: "Cursor of the previous page (`prev_…`)." })),
        has_more: Type.Boolean(),
        total_count: Nullable(Type.Integer({ description: "Rows matching the filters, whatever the cursor." })),
      }),
      metadata: Type.Object({
        resolution: Nullable(
          Type.Union([
            Type.Literal("raw"),
            Type.Literal("1min"),
            Type.Literal("5min"),
            Type.Literal("15min"),
            Type.Literal("1hour"),
          ]),
        ),
        sample_count: Type.Integer(),
        start_time: Nullable(Type.String({ format: "date-time" })),
        end_time: Nullable(Type.String({ format: "date-time" })),
      }),
    },
    { examples: [example] },
  );

const DATE_DESCRIPTION =
  "ISO 8601 datetime (e.g. `2026-05-01T05:31:56Z`) or Unix timestamp in seconds. A date alone (`2026-05-01`) " +
  "is its midnight UTC; a time without a zone is UTC.";

/** A datetime query parameter (parsed by the service, which accepts Unix seconds too). */
export const DateParam = (description = "") =>
  Type.String({
    minLength: 1,
    maxLength: 64,
    description: `${description}${description ? " " : ""}${DATE_DESCRIPTION}`,
    examples: ["2026-05-01T00:00:00Z", "2026-05-01"],
  });

export const CursorParam = Type.String({
  minLength: 1,
  maxLength: 512,
  description: "`next_cursor` (or `previous_cursor`) of the previous answer.",
});

export const unauthorized = { 401: ErrorBody("Invalid or missing API key") };

export const badRequest = (example: string) => ({ 400: ErrorBody(example) });

/** Rethrows a bad query parameter as a 400; anything else stays unexpected. */
export function asQueryHttpError(error: unknown): never {
  if (error instanceof InvalidQueryError) throw new HttpError(400, error.message);
  throw error;
}
