import type { ErrorFormatter } from "@platform/kernel";

/** Open Wearables' error body: `{"detail": "<message>"}`; validation errors are 400, not 422. */
export const formatError: ErrorFormatter = (error) => ({
  statusCode: error.statusCode,
  body: { detail: error.message },
});
