import type { ErrorFormatter, OpenApiErrors } from "@platform/kernel";
import { Type } from "typebox";

/** Open Wearables' error body: `{"detail": "<message>"}`; validation errors are 400, not 422. */
export const formatError: ErrorFormatter = (error) => ({
  statusCode: error.statusCode,
  body: { detail: error.message },
});

/** Every error body, for the OpenAPI document (kernel declares each error answer of every operation with it). */
export const errorBody: OpenApiErrors = {
  name: "ErrorResponse",
  schema: Type.Object({ detail: Type.String() }, { description: "Every error answer of the API." }),
};
